#!/bin/sh
# Flux per-node epilog (/etc/flux/system/epilog.d/jobio-epilog.sh, run as root like the prolog): the
# job no longer runs on this node, so its metadata file goes. Always exits 0.
SPOOL="${JOBIO_SPOOL:-/run/jobio/jobs}"
FLUX="${JOBIO_FLUX:-flux}"
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
case "$FLUX_JOB_ID" in
  ƒ*) id="f${FLUX_JOB_ID#ƒ}" ;;
  *[!0-9]*) id="$FLUX_JOB_ID" ;;
  *) id="$(timeout 5 "$FLUX" job id --to=f58plain "$FLUX_JOB_ID" 2>/dev/null)" ;;
esac
case "$id" in f?*) ;; *) exit 0 ;; esac
case "${id#f}" in *[!123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz]*) exit 0 ;; esac
rm -f "$SPOOL/$id" "$SPOOL/.$id.tmp"
exit 0
