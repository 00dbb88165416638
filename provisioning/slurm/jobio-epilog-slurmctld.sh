#!/bin/sh
# Slurm EpilogSlurmctld (slurm.conf: EpilogSlurmctld=/etc/slurm/jobio-epilog-slurmctld.sh): stores
# the summary of the job's report as <dir>/<jobid>.json, so `jobio report JOBID` still answers after
# the job's series are gone from Prometheus (docs/report.md). Runs once per job, as SlurmUser on the
# controller, after the job ended. The settings (/etc/jobio/report-summary.conf) and the writing are
# jobio-report-summary.sh's, which must be installed next to this script. SlurmUser must be root:
# the readers believe only files that root alone could have written (otherwise they refuse them,
# and say why).
# Always exits 0: a monitoring hook must never fail a job.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
umask 022
case "$SLURM_JOB_ID" in '' | *[!0-9]*) exit 0 ;; esac
case "$0" in */*) here="${0%/*}" ;; *) here=. ;; esac
if ! [ -r "$here/jobio-report-summary.sh" ]; then
  echo "jobio: $here/jobio-report-summary.sh is missing; no summary stored for job $SLURM_JOB_ID" >&2
  exit 0
fi
. "$here/jobio-report-summary.sh"
jobio_store_summary "$SLURM_JOB_ID"
exit 0
