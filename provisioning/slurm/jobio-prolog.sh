#!/bin/sh
# Slurm Prolog (slurm.conf: Prolog=/etc/slurm/jobio-prolog.sh): writes the job's metadata for the
# exporter's job_info collector (docs/schedulers.md). Runs as root on each node of the job before it
# starts. The file is written under a temporary name and renamed, so the exporter never reads half a
# file; the spool is root's alone (0755), so no user can plant or alter a job file.
# Always exits 0: a monitoring hook must never keep a job from starting.
SPOOL="${JOBIO_SPOOL:-/run/jobio/jobs}"
# slurmd gives prologs no PATH.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
umask 022
case "$SLURM_JOB_ID" in '' | *[!0-9]*) exit 0 ;; esac
mkdir -p "$SPOOL" 2>/dev/null && chown root:root "$SPOOL" && chmod 0755 "$SPOOL" || exit 0
# The job name is not in the prolog's environment (Slurm 22.05): ask squeue, with a deadline. A
# field in the file wins over the exporter's own squeue answer even when empty, so the name is
# written only when squeue answered (an empty name then is the job's); else the exporter's squeue
# fills it in.
# A value is one line of the file: its line breaks are written as `?`, the character the exporter
# shows for every control character, so a name or directory holding one stays whole (all of a
# multi-line name, not its first line) and cannot start a field of its own.
one_line() { printf '%s' "$1" | tr '\n\r' '??'; }
if answer="$(timeout 5 squeue -h -j "$SLURM_JOB_ID" -o %j 2>/dev/null)"; then
  name_line="job_name=$(one_line "$answer")"
else
  name_line=''
fi
tmp="$SPOOL/.$SLURM_JOB_ID.tmp"
{
  printf 'uid=%s\n' "$(one_line "$SLURM_JOB_UID")"
  printf 'account=%s\n' "$(one_line "$SLURM_JOB_ACCOUNT")"
  printf 'partition=%s\n' "$(one_line "$SLURM_JOB_PARTITION")"
  [ -n "$name_line" ] && printf '%s\n' "$name_line"
  printf 'work_dir=%s\n' "$(one_line "$SLURM_JOB_WORK_DIR")"
} > "$tmp" 2>/dev/null && mv -f "$tmp" "$SPOOL/$SLURM_JOB_ID" || rm -f "$tmp"
exit 0
