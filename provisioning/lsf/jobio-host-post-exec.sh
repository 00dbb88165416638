#!/bin/sh
# LSF host-based post-execution (HOST_POST_EXEC=/etc/lsf/jobio-host-post-exec.sh, run as root like the
# pre-execution): the job no longer runs on this host, so its metadata file goes. Always exits 0.
SPOOL="${JOBIO_SPOOL:-/run/jobio/jobs}"
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
case "$LSB_JOBID" in '' | *[!0-9]*) exit 0 ;; esac
rm -f "$SPOOL/$LSB_JOBID" "$SPOOL/.$LSB_JOBID.tmp"
exit 0
