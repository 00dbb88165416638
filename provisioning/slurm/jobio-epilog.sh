#!/bin/sh
# Slurm Epilog (slurm.conf: Epilog=/etc/slurm/jobio-epilog.sh): the job no longer runs on this node,
# so its metadata file goes (jobio_job_info is 1 only while the job runs). Runs as root after the job.
# Always exits 0: a failing epilog drains the node.
SPOOL="${JOBIO_SPOOL:-/run/jobio/jobs}"
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
case "$SLURM_JOB_ID" in '' | *[!0-9]*) exit 0 ;; esac
rm -f "$SPOOL/$SLURM_JOB_ID" "$SPOOL/.$SLURM_JOB_ID.tmp"
exit 0
