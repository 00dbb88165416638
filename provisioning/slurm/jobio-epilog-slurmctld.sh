#!/bin/sh
# Slurm EpilogSlurmctld (slurm.conf: EpilogSlurmctld=/etc/slurm/jobio-epilog-slurmctld.sh): stores
# the summary of the job's report (`jobio report JOBID --summary`, one line of JSON, its lists
# bounded) as <dir>/<jobid>.json, so `jobio report JOBID` still answers after the job's series are
# gone from Prometheus (docs/report.md). Runs once per job, as SlurmUser on the controller, after
# the job ended. Settings: /etc/jobio/report-summary.conf (JOBIO_REPORT_SUMMARY_CONF overrides the
# path), `key=value` lines:
#   prometheus=http://prometheus:9090   required: without it nothing is stored
#   dir=/var/lib/jobio/reports          the default; a site archives or exports it (read-only)
#   delay=60                            seconds to wait first: the scrape interval + 10 s at least,
#                                       so the job's last scrape is in the summary
#   jobio=jobio                         the command (slurmctld gives its scripts no PATH of use)
# The directory is root's (0755) and each file is written under a temporary name and renamed: the
# reader believes only files that root alone could have written, whole. SlurmUser must be root for
# that (otherwise the readers refuse the files, and say why).
# Always exits 0: a monitoring hook must never fail a job.
CONF="${JOBIO_REPORT_SUMMARY_CONF:-/etc/jobio/report-summary.conf}"
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
umask 022
case "$SLURM_JOB_ID" in '' | *[!0-9]*) exit 0 ;; esac
prometheus=''
dir=/var/lib/jobio/reports
delay=60
jobio=jobio
[ -r "$CONF" ] || exit 0
while IFS='=' read -r key value; do
  case "$key" in
    prometheus) prometheus=$value ;;
    dir) dir=$value ;;
    delay) case "$value" in '' | *[!0-9]*) ;; *) delay=$value ;; esac ;;
    jobio) jobio=$value ;;
  esac
done < "$CONF"
[ -n "$prometheus" ] || exit 0
sleep "$delay"
mkdir -p "$dir" 2>/dev/null && chown root:root "$dir" && chmod 0755 "$dir" || exit 0
tmp="$dir/.$SLURM_JOB_ID.tmp"
if timeout 120 "$jobio" report "$SLURM_JOB_ID" --prometheus "$prometheus" --summary > "$tmp" 2>/dev/null; then
  mv -f "$tmp" "$dir/$SLURM_JOB_ID.json" || rm -f "$tmp"
else
  # a job without any series (too short for one scrape) has nothing to store
  rm -f "$tmp"
fi
exit 0
