#!/bin/sh
# Flux per-node prolog (install as /etc/flux/system/prolog.d/jobio-prolog.sh; Flux's IMP runs the
# scripts there as root on every node of the job, with FLUX_JOB_ID and FLUX_JOB_USERID set): writes
# the job's metadata for the exporter's job_info collector (docs/schedulers.md). The file is named by
# the job id in Flux's ASCII F58 spelling (`fiFkbMhFM`), as jobio labels Flux jobs whatever spelling
# FLUX_JOB_ID has (`ƒ…` under a UTF-8 locale, `f…` otherwise). Written under a temporary name and
# renamed; the spool is root's alone. Always exits 0: a failing prolog would cancel the job.
SPOOL="${JOBIO_SPOOL:-/run/jobio/jobs}"
FLUX="${JOBIO_FLUX:-flux}"
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
umask 022
case "$FLUX_JOB_ID" in
  ƒ*) id="f${FLUX_JOB_ID#ƒ}" ;;
  *[!0-9]*) id="$FLUX_JOB_ID" ;;
  *) id="$(timeout 5 "$FLUX" job id --to=f58plain "$FLUX_JOB_ID" 2>/dev/null)" ;;
esac
# The F58 alphabet only (base58: no 0, O, I or l): the id names a file.
case "$id" in f?*) ;; *) exit 0 ;; esac
case "${id#f}" in *[!123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz]*) exit 0 ;; esac
mkdir -p "$SPOOL" 2>/dev/null && chown root:root "$SPOOL" && chmod 0755 "$SPOOL" || exit 0
# Queue and job name from the job list, with a deadline (tab-separated: names may hold spaces).
info="$(timeout 5 "$FLUX" jobs -n -o '{queue}	{name}' "$FLUX_JOB_ID" 2>/dev/null | head -n 1)"
queue="$(printf '%s' "$info" | cut -f 1)"
name="$(printf '%s' "$info" | cut -f 2-)"
one_line() { printf '%s' "$1" | tr '\n\r' '  '; }
tmp="$SPOOL/.$id.tmp"
{
  printf 'uid=%s\n' "$(one_line "$FLUX_JOB_USERID")"
  printf 'partition=%s\n' "$(one_line "$queue")"
  printf 'job_name=%s\n' "$(one_line "$name")"
} > "$tmp" 2>/dev/null && mv -f "$tmp" "$SPOOL/$id" || rm -f "$tmp"
exit 0
