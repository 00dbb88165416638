#!/bin/sh
# LSF host-based post-execution (HOST_POST_EXEC=/etc/lsf/jobio-host-post-exec.sh, run as root like the
# pre-execution): the job no longer runs on this host, so its metadata file goes (an array's when its
# last element on this host ends). Always exits 0.
SPOOL="${JOBIO_SPOOL:-/run/jobio/jobs}"
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
case "$LSB_JOBID" in '' | *[!0-9]*) exit 0 ;; esac
# An element of a job array: its mark goes, and the file stays while another element's mark is there.
case "$LSB_JOBINDEX" in
  '' | 0) ;;
  *[!0-9]*) exit 0 ;;
  *)
    rm -f "$SPOOL/.$LSB_JOBID.element.$LSB_JOBINDEX"
    for mark in "$SPOOL/.$LSB_JOBID.element."*; do
      [ -e "$mark" ] && exit 0
    done
    ;;
esac
rm -f "$SPOOL/$LSB_JOBID"
exit 0
