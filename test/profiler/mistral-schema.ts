// A validator of Mistral-compatible log records (docs/jobio-run.md): required
// fields, types and key shapes. Returns the list of problems (empty = valid).
type Obj = Record<string, unknown>;

// `diagnosis` is jobio's extension type (Mistral tools skip types they do not know)
const TYPES = ['mountpoint', 'network', 'resources', 'gpu', 'mountpointsummary', 'jobsummary', 'diagnosis'];
const REASON_CLASSES = ['red', 'yellow'];
const UNSEEN_KINDS = ['not_profiled', 'async_io', 'mmap_io'];
const UNIT = '(?:B|KiB|MiB|GiB|TiB|PiB|EiB)';
const SIZE = `\\d+${UNIT}`;
const SIZED_KEY = new RegExp(`^(read|write)_(all|0-${SIZE}|${SIZE}-${SIZE}|${SIZE}\\+)$`);
const BARE_KEYS = ['open', 'access', 'create', 'delete', 'fschange', 'mmap', 'seek', 'connect', 'accept', 'metadata'];
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** I/O and CPU figures are whole numbers in Mistral's records (the manual's examples; gpu figures are not). */
function perSecond(v: unknown, where: string, errors: string[], extra: string[] = []): void {
  if (!isObj(v)) return void errors.push(`${where}: not an object`);
  for (const f of ['total', 'min/s', 'mean/s', 'median/s', 'max/s', ...extra]) {
    if (!isNum(v[f])) errors.push(`${where}.${f}: not a non-negative number`);
    else if (!Number.isInteger(v[f])) errors.push(`${where}.${f}: not a whole number`);
  }
  const [min, med, mean, max] = [v['min/s'], v['median/s'], v['mean/s'], v['max/s']] as number[];
  if (!((min ?? 0) <= (med ?? 0) + 1e-9 && (med ?? 0) <= (max ?? 0) + 1e-9 && (mean ?? 0) <= (max ?? 0) + 1e-9)) errors.push(`${where}: min/s <= median/s, mean/s <= max/s violated`);
}

/** A gpu figure's per-second statistics (and `extra`): non-negative numbers, fractions allowed, ordered. */
function gpuStatistics(v: unknown, where: string, errors: string[], extra: string[]): void {
  if (!isObj(v)) return void errors.push(`${where}: not an object`);
  for (const f of [...extra, 'min/s', 'mean/s', 'median/s', 'max/s']) if (!isNum(v[f])) errors.push(`${where}.${f}: not a non-negative number`);
  const [min, med, mean, max] = [v['min/s'], v['median/s'], v['mean/s'], v['max/s']] as number[];
  if (!((min ?? 0) <= (med ?? 0) + 1e-9 && (med ?? 0) <= (max ?? 0) + 1e-9 && (min ?? 0) <= (mean ?? 0) + 1e-9 && (mean ?? 0) <= (max ?? 0) + 1e-9))
    errors.push(`${where}: min/s <= median/s, mean/s <= max/s violated`);
}

function io(v: unknown, where: string, errors: string[]): void {
  if (!isObj(v)) return void errors.push(`${where}: not an object`);
  for (const [key, entry] of Object.entries(v)) {
    const sized = SIZED_KEY.test(key);
    if (!sized && !BARE_KEYS.includes(key)) errors.push(`${where}: bad key "${key}"`);
    if (!isObj(entry)) {
      errors.push(`${where}.${key}: not an object`);
      continue;
    }
    for (const m of Object.keys(entry)) if (!['bytes', 'calls', 'duration'].includes(m)) errors.push(`${where}.${key}: unknown measure ${m}`);
    perSecond(entry.calls, `${where}.${key}.calls`, errors);
    if (entry.bytes !== undefined) {
      if (!sized) errors.push(`${where}.${key}: bytes on a call type without sizes`);
      perSecond(entry.bytes, `${where}.${key}.bytes`, errors);
    }
    // max/call: measured, so absent when no snapshot of the frame carried one (a library before it)
    if (entry.duration !== undefined) perSecond(entry.duration, `${where}.${key}.duration`, errors, isObj(entry.duration) && 'max/call' in entry.duration ? ['mean/call', 'max/call'] : ['mean/call']);
  }
}

function mountObject(v: unknown, where: string, errors: string[], star: boolean): void {
  if (!isObj(v)) return void errors.push(`${where}: not an object`);
  for (const f of ['path', 'fstype', 'fsname', 'fshost']) {
    if (typeof v[f] !== 'string') errors.push(`${where}.${f}: not a string`);
    else if (star && v[f] !== '*') errors.push(`${where}.${f}: must be "*" in a cumulative record`);
  }
}

function iosummary(v: unknown, where: string, errors: string[], runtime: boolean): void {
  if (!isObj(v)) return void errors.push(`${where}: not an object`);
  const total = v.total;
  if (!isObj(total)) return void errors.push(`${where}.total: not an object`);
  if (!Number.isInteger(total.calls)) errors.push(`${where}.total.calls: not an integer`);
  if (runtime !== isNum(total.accumulatedruntime)) errors.push(`${where}.total.accumulatedruntime: ${runtime ? 'missing' : 'must be absent'}`);
  if ((total.accumulatediotime === undefined) !== (total.iotimepercentage === undefined)) errors.push(`${where}.total: accumulatediotime and iotimepercentage go together`);
  let calls = 0;
  let pct = 0;
  for (const cls of ['red', 'yellow', 'green']) {
    const b = v[cls];
    if (!isObj(b) || !isObj(b.calls)) {
      errors.push(`${where}.${cls}: missing calls`);
      continue;
    }
    if (!Number.isInteger(b.calls.iocount) || !isNum(b.calls.iopercentage)) errors.push(`${where}.${cls}.calls: iocount/iopercentage`);
    calls += Number(b.calls.iocount);
    pct += Number(b.calls.iopercentage);
    if (total.accumulatediotime !== undefined && (!isObj(b.time) || !isNum(b.time.iotime) || !isNum(b.time.iopercentage))) errors.push(`${where}.${cls}.time: iotime/iopercentage`);
    if (total.accumulatediotime === undefined && b.time !== undefined) errors.push(`${where}.${cls}.time: present without total time`);
  }
  if (calls !== total.calls) errors.push(`${where}: red+yellow+green calls ${calls} != total ${String(total.calls)}`);
  if (calls > 0 && Math.abs(pct - 100) > 0.01) errors.push(`${where}: call percentages add up to ${pct}`);
}

export function validateRecord(r: unknown): string[] {
  const errors: string[] = [];
  if (!isObj(r)) return ['record is not an object'];
  for (const f of ['version', 'hostname', 'jobid', 'jobgroupid']) if (typeof r[f] !== 'string') errors.push(`${f}: not a string`);
  if (r.hostname === '') errors.push('hostname: empty');
  if (typeof r.timestamp !== 'string' || !TIMESTAMP.test(r.timestamp)) errors.push(`timestamp: ${String(r.timestamp)} is not ISO 8601 with offset`);
  if (typeof r.type !== 'string' || !TYPES.includes(r.type)) errors.push(`type: ${String(r.type)}`);
  if (typeof r.jobtotal !== 'boolean') errors.push('jobtotal: not a boolean');
  if (r.environment !== undefined && (!isObj(r.environment) || Object.values(r.environment).some((v) => typeof v !== 'string'))) errors.push('environment: not an object of strings');
  for (const f of ['jobrealtime', 'jobstarttime', 'jobendtime']) {
    if (r.jobtotal === true && !Number.isInteger(r[f])) errors.push(`${f}: missing in a job-total record`);
    if (r.jobtotal === false && r[f] !== undefined) errors.push(`${f}: only in job-total records`);
  }
  switch (r.type) {
    case 'mountpoint':
      if (typeof r.timeframe !== 'string' || !/^\d+s$/.test(r.timeframe)) errors.push(`timeframe: ${String(r.timeframe)}`);
      if (typeof r.cumulative !== 'boolean') errors.push('cumulative: not a boolean');
      mountObject(r.mountpoint, 'mountpoint', errors, r.cumulative === true);
      io(r.io, 'io', errors);
      break;
    case 'network':
      // the peer's address (an IP, or jobio's "unix:PATH"), or "*" for the total over every peer
      if (typeof r.address !== 'string') errors.push('address: not a string');
      else if (r.address === '') errors.push('address: empty');
      if (typeof r.cumulative !== 'boolean') errors.push('cumulative: not a boolean');
      else if (r.cumulative !== (r.address === '*')) errors.push(r.cumulative ? 'address: must be "*" in a cumulative record' : 'cumulative: must be true for address "*"');
      if (typeof r.timeframe !== 'string' || !/^\d+s$/.test(r.timeframe)) errors.push(`timeframe: ${String(r.timeframe)}`);
      io(r.io, 'io', errors);
      break;
    case 'resources': {
      // cpu-memory.enabled: all gives both blocks, host or job only that one
      const res = r.resources;
      if (!isObj(res) || (!isObj(res.host) && !isObj(res.job)) || (res.host !== undefined && !isObj(res.host)) || (res.job !== undefined && !isObj(res.job))) {
        errors.push('resources: a host or a job object required');
        break;
      }
      if (typeof r.timeframe !== 'string' || !/^\d+s$/.test(r.timeframe)) errors.push(`timeframe: ${String(r.timeframe)}`);
      if (isObj(res.host)) for (const f of ['cpuusertime', 'cpusystemtime', 'cputotaltime', 'iowait']) perSecond(res.host[f], `resources.host.${f}`, errors);
      if (!isObj(res.job)) break;
      for (const f of ['cpuusertime', 'cpusystemtime', 'cputotaltime']) perSecond(res.job[f], `resources.job.${f}`, errors);
      const cpus = res.job.cpus;
      if (!isObj(cpus) || !Number.isInteger(cpus.total) || Number(cpus.total) < 0) errors.push('resources.job.cpus: an object with a whole total required');
      else {
        for (const f of ['mean/s', 'median/s', 'max/s']) if (!isNum(cpus[f]) || !Number.isInteger(cpus[f])) errors.push(`resources.job.cpus.${f}: not a whole number`);
        if (Number(cpus['mean/s']) > Number(cpus['max/s']) + 1e-9 || Number(cpus['median/s']) > Number(cpus['max/s']) + 1e-9) errors.push('resources.job.cpus: mean/s, median/s <= max/s violated');
      }
      for (const f of ['rssmem', 'vmem']) {
        const m = res.job[f];
        if (!isObj(m) || !isNum(m.max) || !isNum(m['mean/s'])) errors.push(`resources.job.${f}: max and mean/s required`);
        else if (m['mean/s'] > m.max) errors.push(`resources.job.${f}: mean/s above max`);
      }
      const [rss, vmem] = [res.job.rssmem, res.job.vmem];
      if (isObj(rss) && isObj(vmem) && Number(rss.max) > Number(vmem.max)) errors.push(`resources.job: rssmem.max ${String(rss.max)} above vmem.max ${String(vmem.max)}`);
      break;
    }
    case 'gpu': {
      if (typeof r.timeframe !== 'string' || !/^\d+s$/.test(r.timeframe)) errors.push(`timeframe: ${String(r.timeframe)}`);
      if (typeof r.cumulative !== 'boolean') errors.push('cumulative: not a boolean');
      if (typeof r.gpu !== 'string' || r.gpu === '') errors.push('gpu: not a device name');
      else if (r.cumulative === true && r.gpu !== '*') errors.push('gpu: must be "*" in a cumulative record');
      const u = r.usage;
      if (!isObj(u)) {
        errors.push('usage: not an object');
        break;
      }
      // the manual's objects: counters with their total and per-second statistics (fractions kept),
      // utilisation (%) with its per-second statistics only
      for (const f of ['energy', 'read', 'write']) gpuStatistics(u[f], `usage.${f}`, errors, ['total']);
      gpuStatistics(u.utilisation, 'usage.utilisation', errors, []);
      if (isObj(u.utilisation) && Number(u.utilisation['max/s']) > 100) errors.push('usage.utilisation.max/s: above 100 %');
      for (const f of ['temperature', 'mem']) {
        const m = u[f];
        if (!isObj(m) || !isNum(m.max) || !isNum(m['mean/s'])) errors.push(`usage.${f}: max and mean/s required`);
        else if (m['mean/s'] > m.max) errors.push(`usage.${f}: mean/s above max`);
      }
      break;
    }
    case 'jobsummary':
      if (r.jobtotal !== true) errors.push('jobsummary: jobtotal must be true');
      iosummary(r.iosummary, 'iosummary', errors, true);
      break;
    case 'diagnosis':
      if (r.jobtotal !== true) errors.push('diagnosis: jobtotal must be true');
      if (!Array.isArray(r.reasons)) errors.push('reasons: not an array');
      else
        r.reasons.forEach((x: unknown, i: number) => {
          if (
            !isObj(x) ||
            !REASON_CLASSES.includes(String(x.class)) ||
            typeof x.reason !== 'string' ||
            !/^[a-z_]+$/.test(x.reason) ||
            typeof x.mount !== 'string' ||
            typeof x.hint !== 'string' ||
            x.hint === '' ||
            !isNum(x.calls) ||
            !isNum(x.bytes) ||
            !isNum(x.time)
          )
            errors.push(`reasons[${i}]: needs class, reason, mount, calls, bytes, time, hint`);
        });
      if (!Array.isArray(r.unseen)) errors.push('unseen: not an array');
      else
        r.unseen.forEach((x: unknown, i: number) => {
          if (!isObj(x) || !UNSEEN_KINDS.includes(String(x.kind)) || !isNum(x.processes) || typeof x.detail !== 'string') errors.push(`unseen[${i}]: needs kind, processes, detail`);
        });
      break;
    case 'mountpointsummary':
      if (r.jobtotal !== true) errors.push('mountpointsummary: jobtotal must be true');
      mountObject(r.mountpoint, 'mountpoint', errors, false);
      iosummary(r.iosummary, 'iosummary', errors, false);
      break;
  }
  return errors;
}

// Records are read by tests that index them freely after validation.
export type LogRecord = Record<string, any>;

/** Parses a JSON-lines log and validates every record; throws with every problem found. */
export function readValidLog(text: string): LogRecord[] {
  const records: LogRecord[] = [];
  const problems: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (line === '') return;
    let r: unknown;
    try {
      r = JSON.parse(line);
    } catch {
      problems.push(`line ${i + 1}: not JSON`);
      return;
    }
    for (const e of validateRecord(r)) problems.push(`line ${i + 1} (${String((r as Obj).type)}): ${e}`);
    records.push(r as LogRecord);
  });
  // per class, the diagnoses' reasons add up to the jobsummaries' calls (summed over every run in
  // the file: runs sharing one file append their records in any order, so a diagnosis cannot be paired
  // with its own run's summary by position)
  const diagnoses = records.filter((r) => r.type === 'diagnosis' && Array.isArray(r.reasons));
  const summaries = records.filter((r) => r.type === 'jobsummary');
  if (diagnoses.length > 0 && summaries.length === diagnoses.length) {
    for (const cls of REASON_CLASSES) {
      const sum = diagnoses
        .flatMap((d) => d.reasons as LogRecord[])
        .filter((x) => x.class === cls)
        .reduce((s, x) => s + Number(x.calls), 0);
      const want = summaries.reduce((s, r) => s + Number(r.iosummary?.[cls]?.calls?.iocount ?? 0), 0);
      if (sum !== want) problems.push(`diagnosis: ${cls} reasons add up to ${sum} calls, jobsummary says ${want}`);
    }
  }
  if (problems.length > 0) throw new Error(`invalid Mistral records:\n${problems.join('\n')}`);
  return records;
}
