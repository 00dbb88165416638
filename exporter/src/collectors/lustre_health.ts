// Collector `lustre_health`: how full and how well each Lustre target on this server is, beside the
// per-job load of the other Lustre collectors: capacity (osd-*/<target>/kbytes{total,free,avail},
// files{total,free}), the server's health_check, each target's recovery_status and its lock manager
// namespace (locks and resources held, lock timeouts), and the brw_stats histograms of each target's
// bulk RPCs and disk I/Os, and the request queues and threads of the server's services (ost_io, mdt,
// mgs, ldlm); on a client, its view of each OST (osc rpc_stats and import state, summed per file system).
// A handful of small files per target, read whole at every scrape (no state
// beyond the error count), so on by default; quiet on hosts without Lustre targets. Metrics: docs/metrics.md; guide: docs/lustre.md.
import { defineCollector } from '../scrape/define-collector.js';
import { lctlFlags } from '../lustre/lctl-flags.js';
import { lustreSource } from '../lustre/source-description.js';
import { isCapacityFile, isLdlmFile, isThreadFile, namespaceTarget, parseCapacityValue, parseHealthCheck, parseRecoveryStatus, splitLctlDump, type LctlParam } from '../parsers/lustre-health.js';
import { parseBrwStats } from '../parsers/lustre-brw-stats.js';
import { parseServiceStats } from '../parsers/lustre-service-stats.js';
import { oscTarget, parseOscRpcStats, parseOscState } from '../parsers/lustre-osc.js';
import { runLctl } from '../sources/lustre-lctl.js';
import { HEALTH_LCTL_ARGS, readHealthFiles } from '../sources/lustre-health-files.js';
import { emptyHealthReading, LustreHealthMetrics, type HealthReading } from './lustre_health_metrics.js';

const CAPACITY_PARAM = /^osd-[a-z]+\.([^.]+)\.([a-z]+)$/;
const RECOVERY_PARAM = /^(?:obdfilter|mdt)\.([^.]+)\.recovery_status$/;
const BRW_PARAM = /^(?:osd-[a-z]+|obdfilter)\.([^.]+)\.brw_stats$/;
const SERVICE_PARAM = /^(?:ost\.OSS|mds\.MDS|mgs\.MGS|ldlm\.services)\.([^.]+)\.([a-z_]+)$/;
const LDLM_PARAM = /^ldlm\.namespaces\.([^.]+)\.([a-z_]+)$/;
const OSC_PARAM = /^osc\.([^.]+)\.(rpc_stats|state)$/;

export const lustreHealthCollector = defineCollector({
  name: 'lustre_health',
  help: "Capacity (bytes and inodes), health_check, recovery status, lock manager (ldlm) namespaces and brw_stats histograms of the Lustre targets on this host, request queues and threads of its services, and on a client its OSCs' rpc_stats and import states per file system (quiet where there are none).",
  defaultEnabled: true,
  flags: lctlFlags('lustre_health', 'the capacity, health_check, recovery_status, ldlm namespace, brw_stats, service stats/threads and osc rpc_stats/state files'),
  create({ paths, settings, logger, registry }) {
    const metrics = new LustreHealthMetrics(registry);
    return {
      async update(signal) {
        let params: LctlParam[];
        if (settings.lctl) {
          const result = await runLctl(settings.lctlPath, settings.lctlTimeoutMs, signal, ['get_param', ...HEALTH_LCTL_ARGS]);
          const dump = result.absent ? { params: [], orphanLines: 0 } : splitLctlDump(result.stdout.toString('latin1'));
          params = dump.params;
          metrics.count('parse', dump.orphanLines);
        } else {
          const read = await readHealthFiles(paths, signal);
          for (const { dir, error } of read.unlisted) logger.warn({ path: dir, err: error.message }, 'cannot list Lustre directory');
          for (const { path, error } of read.unreadable) logger.warn({ path, err: error.message }, 'cannot read Lustre health file');
          metrics.count('read', read.unlisted.length + read.unreadable.length);
          params = read.params;
        }
        const reading = interpret(params);
        if (reading === undefined) {
          metrics.clear();
          return 'absent';
        }
        metrics.count('parse', reading.bad);
        metrics.show(reading.values);
        return 'ok';
      },
      describe: () =>
        lustreSource(
          'osd-*/*/{kbytes,files}*, health_check, {obdfilter,mdt}/*/recovery_status, ldlm/namespaces/*, {osd-*,obdfilter}/*/brw_stats, {ost/OSS,mds/MDS,mgs/MGS,ldlm/services}/*/{stats,threads_*}, osc/*/{rpc_stats,state}',
          settings,
          HEALTH_LCTL_ARGS,
          paths,
        ),
    };
  },
});

/** One reading's values and the count of values of no known shape. */
interface Reading {
  readonly values: HealthReading;
  readonly bad: number;
}

/** Interprets one reading; undefined when it held none of this collector's parameters. */
function interpret(params: readonly LctlParam[]): Reading | undefined {
  const seen = new Set<string>();
  const values = emptyHealthReading();
  let bad = 0;
  for (const p of params) {
    // A dump may repeat a parameter (two lctl patterns matching it): the first is the one read.
    if (seen.has(p.name)) continue;
    const capacity = CAPACITY_PARAM.exec(p.name);
    const recovery = RECOVERY_PARAM.exec(p.name);
    const ldlm = LDLM_PARAM.exec(p.name);
    const brw = BRW_PARAM.exec(p.name)?.[1];
    const service = SERVICE_PARAM.exec(p.name);
    const osc = OSC_PARAM.exec(p.name);
    const oscOf = osc?.[1] === undefined ? undefined : oscTarget(osc[1]);
    const ldlmTarget = ldlm?.[1] === undefined ? undefined : namespaceTarget(ldlm[1]);
    if (p.name === 'health_check') {
      const health = parseHealthCheck(p.text);
      if (health) values.healthy = health.healthy;
      else bad += 1;
    } else if (capacity?.[1] && capacity[2] && isCapacityFile(capacity[2])) {
      const [target, file] = [capacity[1], capacity[2]];
      const value = parseCapacityValue(p.text);
      if (value === undefined) bad += 1;
      else values.capacity.push({ target, file, value });
    } else if (recovery?.[1]) {
      const target = recovery[1];
      const status = parseRecoveryStatus(p.text);
      if (status) values.recovery.push({ target, status });
      bad += status ? status.badLines : 1;
    } else if (ldlmTarget !== undefined && ldlm?.[2] && isLdlmFile(ldlm[2])) {
      const file = ldlm[2];
      const value = parseCapacityValue(p.text);
      if (value === undefined) bad += 1;
      else values.ldlm.push({ target: ldlmTarget, file, value });
    } else if (brw !== undefined) {
      // One histogram set per target: obdfilter's brw_stats, where a version still has it, is the osd's.
      if (seen.has(`brw_stats:${brw}`)) continue;
      seen.add(`brw_stats:${brw}`);
      const stats = parseBrwStats(p.text);
      values.brw.push({ target: brw, stats });
      bad += stats.badLines;
    } else if (service?.[1] && service[2] === 'stats') {
      const stats = parseServiceStats(p.text);
      values.services.push({ service: service[1], stats });
      bad += stats.badLines;
    } else if (service?.[1] && service[2] && isThreadFile(service[2])) {
      const [name, file] = [service[1], service[2]];
      const value = parseCapacityValue(p.text);
      if (value === undefined) bad += 1;
      else values.threads.push({ service: name, file, value });
    } else if (oscOf !== undefined && osc?.[2] === 'rpc_stats') {
      const stats = parseOscRpcStats(p.text);
      values.oscRpcs.push({ target: oscOf, stats });
      bad += stats.badLines;
    } else if (oscOf !== undefined) {
      const state = parseOscState(p.text);
      if (state === undefined) bad += 1;
      else values.oscStates.push({ target: oscOf, state });
    } else continue; // another parameter of the dump (lctl mode with a broad pattern)
    seen.add(p.name);
  }
  return seen.size === 0 ? undefined : { values, bad };
}
