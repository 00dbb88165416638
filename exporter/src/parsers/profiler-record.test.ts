import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decodeFrame, type ProfilerRecord } from './profiler-record.js';
import { CALL_TYPES, CLASSES, DIRECTIONS, HEADER, MOUNT, POW2_BINS, PROCESS, SIZE_BINS, STDIO_FNS, WIRE_COMPONENTS, WIRE_MAGIC, WIRE_MAX_FRAME, WIRE_REASONS, WIRE_VERSION } from './profiler-wire.js';
import { dumpFrames, expected, frameLayout } from '../../../test/profiler/frame-tool.js';

test('wire constants and offsets equal the C header (sizeof/offsetof from a compiled program)', () => {
  const c = frameLayout();
  assert.equal(c.magic, WIRE_MAGIC);
  assert.equal(c.version, WIRE_VERSION);
  assert.equal(c.maxFrame, WIRE_MAX_FRAME);
  assert.equal(c.pow2Bins, POW2_BINS);
  assert.deepEqual(c.sizes, { header: HEADER.size, process: PROCESS.size, mount: MOUNT.size, callStats: MOUNT.callStatsSize, sizeStats: MOUNT.sizeStatsSize });
  const { size: _h, ...header } = HEADER;
  assert.deepEqual(c.header, header);
  assert.deepEqual(c.process, {
    jobid: PROCESS.jobid,
    jobid_source: PROCESS.jobid_source,
    exe: PROCESS.exe,
    runtime_ns: PROCESS.runtime_ns,
    dropped_frames: PROCESS.dropped_frames,
    ignored_calls: PROCESS.ignored_calls,
    mount_count: PROCESS.mount_count,
    small_threshold: PROCESS.small_threshold,
    large_threshold: PROCESS.large_threshold,
    sample_every: PROCESS.sample_every,
    network_folded: PROCESS.network_folded,
    io_uring_setups: PROCESS.io_uring_setups,
    posix_aio_calls: PROCESS.posix_aio_calls,
    libaio_iocbs: PROCESS.libaio_iocbs,
    mmap_bytes: PROCESS.mmap_bytes,
    exec_target: PROCESS.exec_target,
    spawned_total: PROCESS.spawned_total,
    spawned: PROCESS.spawned,
    exe_path: PROCESS.exe_path,
  });
  assert.deepEqual(c.mount, {
    path: MOUNT.path,
    fstype: MOUNT.fstype,
    fsname: MOUNT.fsname,
    call: MOUNT.call,
    sized: MOUNT.sized,
    pow2_calls: MOUNT.pow2_calls,
    pow2_bytes: MOUNT.pow2_bytes,
    reason_calls: MOUNT.reason_calls,
    reason_time_ns: MOUNT.reason_time_ns,
    stdio_calls: MOUNT.stdio_calls,
    stdio_bytes: MOUNT.stdio_bytes,
    max_call_ns: MOUNT.max_call_ns,
    max_sized_ns: MOUNT.max_sized_ns,
    made_calls: MOUNT.made_calls,
    made_time_ns: MOUNT.made_time_ns,
    made_sampled: MOUNT.made_sampled,
    short_reads: MOUNT.short_reads,
  });
  assert.deepEqual(c.v1, { process: PROCESS.sizeV1, mount: MOUNT.sizeV1, reasonCount: WIRE_REASONS.length, stdioCount: STDIO_FNS.length });
  assert.deepEqual(c.v2, { process: PROCESS.sizeV2, mount: MOUNT.sizeV2 });
  assert.deepEqual(c.v3, { mount: MOUNT.sizeV3 });
  assert.deepEqual(c.v4, { mount: MOUNT.sizeV4 });
  assert.deepEqual(c.v5, { mount: MOUNT.sizeV5 });
  const enums = c.enums ?? {};
  CALL_TYPES.forEach((name, i) => assert.equal(enums[name], i, `call ${name}`));
  assert.equal(enums.callCount, CALL_TYPES.length);
  CLASSES.forEach((name, i) => assert.equal(enums[name], i, `class ${name}`));
  SIZE_BINS.forEach((name, i) => assert.equal(enums[name], i, `size ${name}`));
  assert.deepEqual(
    [enums.dirRead, enums.dirWrite],
    DIRECTIONS.map((_, i) => i),
  );
  assert.deepEqual([enums.kindProcess, enums.kindMount, enums.flagFinal, enums.flagExec], [1, 2, 1, 2]);
  assert.deepEqual(
    [WIRE_COMPONENTS.indexOf('mpi-runtime'), WIRE_COMPONENTS.indexOf('python-imports'), WIRE_COMPONENTS.length],
    [enums.componentMpiRuntime, enums.componentPythonImports, enums.componentCount],
  );
});

test("a mount frame's header names whose calls it holds: the MPI runtime's (1), Python's import system's (2), or the program's (0, or a value this receiver does not know)", () => {
  const m1 = dumpFrames()[1];
  assert.ok(m1);
  const as = (value: number): string | undefined => {
    const b = Buffer.from(m1);
    b.writeUInt32LE(value, HEADER.reserved);
    return decodedAs(b, 'mount').component;
  };
  assert.deepEqual([as(0), as(1), as(2), as(7)], [undefined, 'mpi-runtime', 'python-imports', undefined]);
});

/** The record a frame decodes to, which must be of `kind`. */
/** A mount record without its header and per-reason, per-function and per-call-type arrays (the fields older wire versions lack). */
function withoutArrays(record: ProfilerRecord): object {
  return {
    ...record,
    header: undefined,
    reasonCalls: undefined,
    reasonTimeNs: undefined,
    stdioCalls: undefined,
    stdioBytes: undefined,
    maxCallNs: undefined,
    maxSizedNs: undefined,
    madeCalls: undefined,
    madeTimeNs: undefined,
    madeSampled: undefined,
    shortReads: undefined,
  };
}

function decodedAs<K extends ProfilerRecord['kind']>(frame: Buffer, kind: K): Extract<ProfilerRecord, { kind: K }> {
  const r = decodeFrame(frame);
  assert.ok(r.ok, r.ok ? '' : r.reason);
  assert.equal(r.record.kind, kind);
  return r.record as Extract<ProfilerRecord, { kind: K }>;
}

test('decodes every field of frames written by the C structs', () => {
  const [p1, m1, p3] = dumpFrames();
  assert.ok(p1 && m1 && p3);
  const proc = decodedAs(p1, 'process');
  const { jobid, jobidSource, exe, runtimeNs, droppedFrames, ignoredCalls, mountCount, smallThreshold, largeThreshold, sampleEvery, networkFolded } = proc;
  assert.deepEqual(
    { jobid, jobidSource, exe, runtimeNs, droppedFrames, ignoredCalls, mountCount, smallThreshold, largeThreshold, sampleEvery, networkFolded },
    {
      jobid: '4242',
      jobidSource: 'SLURM_JOB_ID',
      exe: 'frame-tool',
      runtimeNs: expected.runtimeNs(1),
      droppedFrames: 2,
      ignoredCalls: 11,
      mountCount: 1,
      smallThreshold: 32768,
      largeThreshold: 134217728,
      sampleEvery: 1,
      networkFolded: expected.networkFolded(1),
    },
  );
  assert.deepEqual(
    { sequence: proc.header.sequence, flags: proc.header.flags, startNs: proc.header.startNs, nowNs: proc.header.nowNs },
    { sequence: 1n, flags: 0, startNs: expected.startNs, nowNs: expected.startNs + 1_000_000_000n },
  );
  assert.ok(proc.header.claimedPid > 0);

  const mount = decodedAs(m1, 'mount');
  assert.deepEqual(
    { path: mount.path, fstype: mount.fstype, fsname: mount.fsname, sequence: mount.header.sequence },
    { path: '/data', fstype: 'lustre', fsname: '10.0.0.1@tcp:/scratch', sequence: 2n },
  );
  CALL_TYPES.forEach((_, c) => {
    CLASSES.forEach((_k, k) => {
      assert.equal(mount.calls[c]?.calls[k], expected.calls(1, c, k));
      assert.equal(mount.calls[c].timeNs[k], expected.timeNs(1, c, k));
    });
    assert.equal(mount.calls[c]?.sampled, expected.sampled(1, c));
  });
  assert.deepEqual(
    mount.maxCallNs,
    CALL_TYPES.map((_, c) => expected.maxCallNs(1, c)),
  );
  assert.deepEqual(
    mount.maxSizedNs,
    DIRECTIONS.map((_, d) => SIZE_BINS.map((_b, b) => expected.maxSizedNs(1, d, b))),
  );
  assert.deepEqual(
    mount.madeCalls,
    CALL_TYPES.map((_, c) => expected.madeCalls(1, c)),
  );
  assert.deepEqual(
    mount.madeTimeNs,
    CALL_TYPES.map((_, c) => expected.madeTimeNs(1, c)),
  );
  assert.deepEqual(
    mount.madeSampled,
    CALL_TYPES.map((_, c) => expected.madeSampled(1, c)),
  );
  DIRECTIONS.forEach((_, d) => {
    SIZE_BINS.forEach((_b, b) => assert.deepEqual(mount.sized[d]?.[b], { calls: expected.sizedCalls(1, d, b), bytes: expected.sizedBytes(1, d, b), timeNs: expected.sizedTimeNs(1, d, b) }));
    for (let i = 0; i < POW2_BINS; i++) {
      assert.equal(mount.pow2Calls[d]?.[i], expected.pow2Calls(1, d, i));
      assert.equal(mount.pow2Bytes[d]?.[i], expected.pow2Bytes(1, d, i));
    }
  });

  const last = decodedAs(p3, 'process');
  assert.deepEqual(
    { jobid: last.jobid, jobidSource: last.jobidSource, flags: last.header.flags, runtimeNs: last.runtimeNs },
    { jobid: '', jobidSource: '', flags: 1, runtimeNs: expected.runtimeNs(3) },
  );
});

test('rejects malformed frames with a reason', () => {
  const [p1, m1] = dumpFrames();
  assert.ok(p1 && m1);
  const mutate = (src: Buffer, f: (b: Buffer) => void): Buffer => {
    const b = Buffer.from(src);
    f(b);
    return b;
  };
  const cases: Array<[string, Buffer, string]> = [
    ['empty', Buffer.alloc(0), 'short'],
    ['47 bytes', p1.subarray(0, 47), 'short'],
    ['wrong magic', mutate(p1, (b) => b.writeUInt32LE(0x12345678, 0)), 'bad_magic'],
    ['version 0', mutate(p1, (b) => b.writeUInt16LE(0, 4)), 'bad_version'],
    ['version 8', mutate(p1, (b) => b.writeUInt16LE(8, 4)), 'bad_version'],
    ['process version 5 with the version 6 size', mutate(p1, (b) => b.writeUInt16LE(5, 4)), 'bad_length'],
    ['executable path without NUL', mutate(p1, (b) => b.fill(0x41, PROCESS.exe_path, PROCESS.exe_path + PROCESS.exePathLength)), 'bad_string'],
    ['version 1 with the version 2 size', mutate(p1, (b) => b.writeUInt16LE(1, 4)), 'bad_length'],
    ['mount version 2 with the version 7 size', mutate(m1, (b) => b.writeUInt16LE(2, 4)), 'bad_length'],
    ['mount version 6 with the version 7 size', mutate(m1, (b) => b.writeUInt16LE(6, 4)), 'bad_length'],
    ['mount version 3 with the version 4 size', mutate(m1, (b) => b.writeUInt16LE(3, 4)), 'bad_length'],
    ['exec target without NUL', mutate(p1, (b) => b.fill(0x41, PROCESS.exec_target, PROCESS.exec_target + PROCESS.execTargetLength)), 'bad_string'],
    ['kind 0', mutate(p1, (b) => b.writeUInt16LE(0, 6)), 'bad_kind'],
    ['kind 3', mutate(p1, (b) => b.writeUInt16LE(3, 6)), 'bad_kind'],
    ['truncated process', p1.subarray(0, p1.length - 1), 'bad_length'],
    ['process + 1 byte', Buffer.concat([p1, Buffer.alloc(1)]), 'bad_length'],
    ['declared length wrong', mutate(p1, (b) => b.writeUInt32LE(PROCESS.size + 1, 8)), 'bad_length'],
    ['mount declared as process', mutate(m1, (b) => b.writeUInt16LE(1, 6)), 'bad_length'],
    ['header only', p1.subarray(0, 48), 'bad_length'],
    ['jobid without NUL', mutate(p1, (b) => b.fill(0x41, PROCESS.jobid, PROCESS.jobid + PROCESS.jobidLength)), 'bad_string'],
    ['exe without NUL', mutate(p1, (b) => b.fill(0x41, PROCESS.exe, PROCESS.exe + PROCESS.exeLength)), 'bad_string'],
    ['mount path without NUL', mutate(m1, (b) => b.fill(0x2f, MOUNT.path, MOUNT.path + MOUNT.pathLength)), 'bad_string'],
    ['fsname without NUL', mutate(m1, (b) => b.fill(0x2f, MOUNT.fsname, MOUNT.fsname + MOUNT.fsnameLength)), 'bad_string'],
    ['empty mount path', mutate(m1, (b) => b.fill(0, MOUNT.path, MOUNT.path + MOUNT.pathLength)), 'bad_string'],
  ];
  for (const [name, buf, reason] of cases) assert.deepEqual(decodeFrame(buf), { ok: false, reason }, name);
});

test('version 1 frames (a library without the extensions) are accepted, their extension figures zero', () => {
  const [p1, m1] = dumpFrames();
  assert.ok(p1 && m1);
  const v1 = (src: Buffer, size: number): Buffer => {
    const b = Buffer.from(src.subarray(0, size));
    b.writeUInt16LE(1, 4);
    b.writeUInt32LE(size, 8);
    return b;
  };
  const p = decodeFrame(v1(p1, PROCESS.sizeV1));
  assert.ok(p.ok && p.record.kind === 'process');
  assert.deepEqual(p.record.unseen, { ioUringSetups: 0, posixAioCalls: 0, libaioIocbs: 0, mmapBytes: 0 });
  assert.equal(p.record.execTarget, '');
  const m = decodeFrame(v1(m1, MOUNT.sizeV1));
  assert.ok(m.ok && m.record.kind === 'mount');
  assert.deepEqual(m.record.reasonCalls, new Array(WIRE_REASONS.length).fill(0));
  assert.deepEqual(m.record.stdioCalls, new Array(STDIO_FNS.length).fill(0));
  const full = decodeFrame(m1);
  assert.ok(full.ok && full.record.kind === 'mount');
  assert.deepEqual(withoutArrays(full.record), withoutArrays(m.record));
});

test('version 2 mount frames (a library without the maxima) are accepted, their maxima zero', () => {
  const [, m1] = dumpFrames();
  assert.ok(m1);
  const b = Buffer.from(m1.subarray(0, MOUNT.sizeV2));
  b.writeUInt16LE(2, 4);
  b.writeUInt32LE(MOUNT.sizeV2, 8);
  const m = decodeFrame(b);
  assert.ok(m.ok && m.record.kind === 'mount');
  assert.deepEqual(m.record.maxCallNs, new Array(CALL_TYPES.length).fill(0));
  assert.deepEqual(m.record.maxSizedNs, [new Array(SIZE_BINS.length).fill(0), new Array(SIZE_BINS.length).fill(0)]);
  const full = decodeFrame(m1);
  assert.ok(full.ok && full.record.kind === 'mount');
  assert.deepEqual(
    { ...full.record, header: undefined, maxCallNs: undefined, maxSizedNs: undefined, madeCalls: undefined, madeTimeNs: undefined, madeSampled: undefined, shortReads: undefined },
    { ...m.record, header: undefined, maxCallNs: undefined, maxSizedNs: undefined, madeCalls: undefined, madeTimeNs: undefined, madeSampled: undefined, shortReads: undefined },
  );
});

test('version 3 mount frames (a library without the calls made) are accepted, without madeCalls', () => {
  const [, m1] = dumpFrames();
  assert.ok(m1);
  const b = Buffer.from(m1.subarray(0, MOUNT.sizeV3));
  b.writeUInt16LE(3, 4);
  b.writeUInt32LE(MOUNT.sizeV3, 8);
  const m = decodeFrame(b);
  assert.ok(m.ok && m.record.kind === 'mount');
  assert.equal(m.record.madeCalls, undefined);
  const full = decodeFrame(m1);
  assert.ok(full.ok && full.record.kind === 'mount');
  const without = { header: undefined, madeCalls: undefined, madeTimeNs: undefined, madeSampled: undefined, shortReads: undefined };
  assert.deepEqual({ ...full.record, ...without }, { ...m.record, ...without });
});

test('version 4 mount frames (calls made without their time) are accepted, without madeTimeNs and madeSampled; one byte more or less is not', () => {
  const [, m1] = dumpFrames();
  assert.ok(m1);
  const v4 = (size: number): Buffer => {
    const b = Buffer.alloc(size);
    m1.copy(b, 0, 0, Math.min(size, m1.length));
    b.writeUInt16LE(4, 4);
    b.writeUInt32LE(size, 8);
    return b;
  };
  const m = decodeFrame(v4(MOUNT.sizeV4));
  assert.ok(m.ok && m.record.kind === 'mount');
  assert.deepEqual(
    m.record.madeCalls,
    CALL_TYPES.map((_, c) => expected.madeCalls(1, c)),
  );
  assert.equal(m.record.madeTimeNs, undefined);
  assert.equal(m.record.madeSampled, undefined);
  const full = decodeFrame(m1);
  assert.ok(full.ok && full.record.kind === 'mount');
  const without = { header: undefined, madeTimeNs: undefined, madeSampled: undefined, shortReads: undefined };
  assert.deepEqual({ ...full.record, ...without }, { ...m.record, ...without });
  for (const size of [MOUNT.sizeV4 - 8, MOUNT.sizeV4 + 8, MOUNT.size]) assert.deepEqual(decodeFrame(v4(size)), { ok: false, reason: 'bad_length' });
});

/** A frame as an older library sends it: `version` in its header, cut (or zero-padded) to `size` bytes. */
function asOlder(frame: Buffer, version: number, size: number): Buffer {
  const b = Buffer.alloc(size);
  frame.copy(b, 0, 0, Math.min(size, frame.length));
  b.writeUInt16LE(version, 4);
  b.writeUInt32LE(size, 8);
  return b;
}

test('version 5 and 6 mount frames (a library that counted the reads at the end of a file red) are accepted at their own size, without shortReads; one byte more or less is not', () => {
  const [, m1] = dumpFrames();
  assert.ok(m1);
  const full = decodeFrame(m1);
  assert.ok(full.ok && full.record.kind === 'mount');
  assert.deepEqual(full.record.shortReads, { calls: 0, bytes: 0, timeNs: 0 });
  for (const version of [5, 6]) {
    const older = (size: number): Buffer => asOlder(m1, version, size);
    const m = decodeFrame(older(MOUNT.sizeV5));
    assert.ok(m.ok && m.record.kind === 'mount', `version ${version}`);
    assert.equal(m.record.shortReads, undefined);
    assert.deepEqual({ ...m.record, header: undefined, shortReads: undefined }, { ...full.record, header: undefined, shortReads: undefined }, `version ${version}`);
    for (const size of [MOUNT.sizeV5 - 8, MOUNT.sizeV5 + 8, MOUNT.size]) assert.deepEqual(decodeFrame(older(size)), { ok: false, reason: 'bad_length' }, `version ${version}, ${size} bytes`);
  }
});

test("a version 7 mount frame's short reads are read at their offsets (calls, bytes, estimated time)", () => {
  const [, m1] = dumpFrames();
  assert.ok(m1);
  const b = Buffer.from(m1);
  b.writeBigUInt64LE(3n, MOUNT.short_reads);
  b.writeBigUInt64LE(3000n, MOUNT.short_reads + 8);
  b.writeBigUInt64LE(12345n, MOUNT.short_reads + 16);
  const m = decodeFrame(b);
  assert.ok(m.ok && m.record.kind === 'mount');
  assert.deepEqual(m.record.shortReads, { calls: 3, bytes: 3000, timeNs: 12345 });
});

test('version 2 to 5 process frames (a library that does not send its path) are accepted at their own size, without exePath; one byte more or less is not', () => {
  const [p1] = dumpFrames();
  assert.ok(p1);
  const full = decodedAs(p1, 'process');
  assert.equal(full.exePath, '/opt/jobio-test/bin/frame-tool');
  for (const version of [2, 3, 4, 5]) {
    const older = (size: number): Buffer => asOlder(p1, version, size);
    const p = decodedAs(older(PROCESS.sizeV2), 'process');
    assert.equal(p.exePath, undefined, `version ${version}`);
    const { exePath: _path, ...rest } = full;
    assert.deepEqual({ ...p, header: undefined }, { ...rest, header: undefined });
    for (const size of [PROCESS.sizeV2 - 8, PROCESS.sizeV2 + 8]) assert.deepEqual(decodeFrame(older(size)), { ok: false, reason: 'bad_length' }, `version ${version}, ${size} bytes`);
  }
});

test('never throws on arbitrary bytes, nor on valid headers with random bodies', () => {
  const [p1, m1] = dumpFrames();
  assert.ok(p1 && m1);
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 4000 }), (bytes) => {
      const r = decodeFrame(Buffer.from(bytes));
      assert.equal(typeof r.ok, 'boolean');
    }),
    { numRuns: 2000 },
  );
  // Keep a valid header and scramble the rest: strings, counters and padding are all garbage.
  fc.assert(
    fc.property(fc.boolean(), fc.uint8Array({ minLength: 4000, maxLength: 4000 }), (isMount, noise) => {
      const src = isMount ? m1 : p1;
      const b = Buffer.from(src);
      Buffer.from(noise).copy(b, HEADER.size, 0, b.length - HEADER.size);
      const r = decodeFrame(b);
      if (r.ok) assert.equal(r.record.kind, isMount ? 'mount' : 'process');
      else assert.equal(r.reason, 'bad_string');
    }),
    { numRuns: 1000 },
  );
  // Bit flips in the header of a valid frame never crash and give a known reason or a record.
  fc.assert(
    fc.property(fc.integer({ min: 0, max: HEADER.size * 8 - 1 }), (bit) => {
      const b = Buffer.from(p1);
      b[bit >> 3] = (b[bit >> 3] ?? 0) ^ (1 << (bit & 7));
      const r = decodeFrame(b);
      if (!r.ok) assert.ok(['bad_magic', 'bad_version', 'bad_kind', 'bad_length'].includes(r.reason), r.reason);
    }),
  );
});
