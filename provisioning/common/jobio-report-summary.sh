# Sourced (not run) by the hooks that use a job's report at its end: the Slurm EpilogSlurmctld and
# the Grid Engine epilog store its summary, the Slurm TaskEpilog prints its verdict into the job's
# output. One place for their settings file, for how the summary is written and how the verdict is
# printed (docs/report.md). Install it next to the hook that sources it.
#
# Settings: /etc/jobio/report-summary.conf (JOBIO_REPORT_SUMMARY_CONF overrides the path), `key=value`
# lines:
#   prometheus=http://prometheus:9090   required: without it nothing is stored or printed
#   dir=/var/lib/jobio/reports          the default; a site archives or exports it (read-only)
#   delay=60                            seconds to wait first: the scrape interval + 10 s at least,
#                                       so the job's last scrape is in the summary
#   verdict_wait=30                     the most seconds the TaskEpilog waits for the scrape after
#                                       the job's end (the job ends that much later at most)
#   jobio=jobio                         the command (the schedulers give their hooks no PATH of use)

# jobio_report_settings: reads the settings into jobio_prometheus, jobio_summary_dir, jobio_delay,
# jobio_verdict_wait and jobio_command; status 1 when there is no Prometheus to ask.
jobio_report_settings() {
  jobio_summary_conf="${JOBIO_REPORT_SUMMARY_CONF:-/etc/jobio/report-summary.conf}"
  jobio_prometheus=''
  jobio_summary_dir=/var/lib/jobio/reports
  jobio_delay=60
  jobio_verdict_wait=30
  jobio_command=jobio
  [ -r "$jobio_summary_conf" ] || return 1
  while IFS='=' read -r jobio_key jobio_value; do
    case "$jobio_key" in
      prometheus) jobio_prometheus=$jobio_value ;;
      dir) jobio_summary_dir=$jobio_value ;;
      delay) case "$jobio_value" in '' | *[!0-9]*) ;; *) jobio_delay=$jobio_value ;; esac ;;
      verdict_wait) case "$jobio_value" in '' | *[!0-9]*) ;; *) jobio_verdict_wait=$jobio_value ;; esac ;;
      jobio) jobio_command=$jobio_value ;;
    esac
  done < "$jobio_summary_conf"
  [ -n "$jobio_prometheus" ]
}

# jobio_store_summary JOBID: stores `jobio report JOBID --summary` (one line of JSON, its lists
# bounded) as <dir>/<JOBID>.json, so `jobio report JOBID` still answers after the job's series are
# gone from Prometheus. The caller runs as root, has set PATH and umask 022, and has checked that
# JOBID is a number.
# The directory is root's (0755) and the file is written under a temporary name and renamed: the
# reader believes only files that root alone could have written, whole. Never fails (status 0):
# a monitoring hook must never fail a job; a job without any series (too short for one scrape) has
# nothing to store.
jobio_store_summary() {
  jobio_report_settings || return 0
  sleep "$jobio_delay"
  mkdir -p "$jobio_summary_dir" 2>/dev/null && chown root:root "$jobio_summary_dir" && chmod 0755 "$jobio_summary_dir" || return 0
  # one temporary name per writer: Grid Engine's hosts may end tasks of one job at the same time
  jobio_tmp="$jobio_summary_dir/.$1.$$.tmp"
  if timeout 120 "$jobio_command" report "$1" --prometheus "$jobio_prometheus" --summary > "$jobio_tmp" 2>/dev/null; then
    mv -f "$jobio_tmp" "$jobio_summary_dir/$1.json" || rm -f "$jobio_tmp"
  else
    rm -f "$jobio_tmp"
  fi
  return 0
}

# jobio_print_verdict JOBID: prints `jobio report JOBID --brief` (the verdict and the first lines of
# the most costly findings, each line starting with "jobio:") to standard error, once Prometheus has
# scraped the job after its end (at most verdict_wait seconds). Standard error: a Slurm TaskEpilog's
# standard output goes nowhere, its standard error into the job's output. Prints nothing when the
# report fails (no Prometheus, no series of the job); never fails (status 0).
jobio_print_verdict() {
  jobio_report_settings || return 0
  timeout $((jobio_verdict_wait + 30)) "$jobio_command" report "$1" --prometheus "$jobio_prometheus" --brief --wait "${jobio_verdict_wait}s" >&2 2>/dev/null
  return 0
}
