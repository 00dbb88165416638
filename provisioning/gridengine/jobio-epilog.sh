#!/bin/sh
# Grid Engine epilog, run as root (`epilog root@/etc/gridengine/jobio-epilog.sh`): the job no longer
# runs on this host, so its metadata file goes (jobio_job_info is 1 only while it runs). The tasks of
# an array share the file: it stays while another task of the job is active here (execd keeps one
# active_jobs/<job>.<task> directory per task, this one's is SGE_JOB_SPOOL_DIR, and its job_pid file
# names the task's job process: one alive is a task still running, so tasks ending together all let go).
# Then, once the last task here let go, it stores the summary of the job's report (docs/report.md),
# with jobio-report-summary.sh, which must be installed next to this script (its settings:
# /etc/jobio/report-summary.conf; nothing is stored without one). That waits for the job's last
# scrape first, so it runs in the background, in a session of its own: the job's slot is held until
# the epilog exits. Tasks of an array on several hosts each store it: the last one written wins.
# Always exits 0: a failing epilog puts the queue into error state E.
SPOOL="${JOBIO_SPOOL:-/run/jobio/jobs}"
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
case "$JOB_ID" in '' | *[!0-9]*) exit 0 ;; esac
if [ -n "$SGE_JOB_SPOOL_DIR" ]; then
  for task in "${SGE_JOB_SPOOL_DIR%/*}/$JOB_ID".*; do
    [ "$task" != "$SGE_JOB_SPOOL_DIR" ] || continue
    pid=$(cat "$task/job_pid" 2>/dev/null)
    case "$pid" in '' | *[!0-9]*) continue ;; esac
    kill -0 "$pid" 2>/dev/null && exit 0
  done
fi
rm -f "$SPOOL/$JOB_ID"
umask 022
case "$0" in */*) here="${0%/*}" ;; *) here=. ;; esac
if [ -r "$here/jobio-report-summary.sh" ]; then
  setsid sh -c '. "$1" && jobio_store_summary "$2"' sh "$here/jobio-report-summary.sh" "$JOB_ID" < /dev/null > /dev/null 2>&1 &
else
  echo "jobio: $here/jobio-report-summary.sh is missing; no summary stored for job $JOB_ID" >&2
fi
exit 0
