// Metric names from the jobio metric contract (docs/metrics.md). The plugin names no other metric.

export const PROFILER_CALLS = 'jobio_profiler_calls_total';
export const PROFILER_IO_SECONDS = 'jobio_profiler_io_seconds_total';
export const JOBSTATS_READ_BYTES = 'jobio_lustre_jobstats_read_bytes_total';
export const JOBSTATS_WRITE_BYTES = 'jobio_lustre_jobstats_write_bytes_total';
export const JOBSTATS_OPERATIONS = 'jobio_lustre_jobstats_operations_total';
