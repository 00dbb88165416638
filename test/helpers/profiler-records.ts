// Hand-made records of the profiler's wire (as parsers/profiler-record.ts decodes them), for the unit
// tests of what consumes them: each test names only the fields it varies.
import type { ProcessRecord } from '../../exporter/src/parsers/profiler-record.js';

/** A process frame of an `sh` outside any job, sequence 0, with nothing counted and the library's default thresholds. */
export function processRecord(over: Partial<ProcessRecord> = {}): ProcessRecord {
  return {
    kind: 'process',
    header: { version: 2, flags: 0, sequence: 0n, claimedPid: 0, startNs: 1n, nowNs: 1n },
    jobid: '',
    jobidSource: '',
    exe: 'sh',
    runtimeNs: 0,
    droppedFrames: 0,
    ignoredCalls: 0,
    mountCount: 0,
    smallThreshold: 32768,
    largeThreshold: 1 << 27,
    sampleEvery: 16,
    ...over,
  };
}
