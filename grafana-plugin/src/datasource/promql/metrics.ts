// Metric names from the jobio metric contract (docs/metrics.md). The plugin names no other metric.

export const PROFILER_CALLS = 'jobio_profiler_calls_total';
export const PROFILER_IO_SECONDS = 'jobio_profiler_io_seconds_total';
export const JOBSTATS_READ_BYTES = 'jobio_lustre_jobstats_read_bytes_total';
export const JOBSTATS_WRITE_BYTES = 'jobio_lustre_jobstats_write_bytes_total';
export const JOBSTATS_OPERATIONS = 'jobio_lustre_jobstats_operations_total';
export const PROFILER_READ_BYTES = 'jobio_profiler_read_bytes_total';
export const PROFILER_WRITE_BYTES = 'jobio_profiler_write_bytes_total';
// The profiler's bounded breakdown of red and yellow calls by reason (class red|yellow, a fixed reason
// set such as small_write, backward_seek, stat_unused). Absent from older exporters: queries then
// return nothing and the summary shows no reasons.
export const PROFILER_REASON_CALLS = 'jobio_profiler_reason_calls_total';
export const PROFILER_REASON_SECONDS = 'jobio_profiler_reason_seconds_total';
