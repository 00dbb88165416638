#!/bin/sh
# Grid Engine prolog, run as root (queue or global configuration:
# `prolog root@/etc/gridengine/jobio-prolog.sh`; without `root@` it runs as the job's owner and cannot
# write the spool): writes the job's metadata for the exporter's job_info collector
# (docs/schedulers.md), from the environment execd gives prologs: JOB_ID, USER (the owner), QUEUE,
# JOB_NAME, SGE_CWD_PATH; the project is not in it, so `qstat -j` is asked, with a deadline.
# Array tasks are labelled by JOB_ID (as Lustre's jobid_var=JOB_ID records them): the tasks of one
# array on this host share one file. Written under a temporary name and renamed (never half a file);
# the spool is root's alone (0755).
# Always exits 0: a failing prolog puts the queue into error state E and sends the job back to pending.
SPOOL="${JOBIO_SPOOL:-/run/jobio/jobs}"
# execd gives prologs PATH=<job tmp dir>:/usr/local/bin:/bin:/usr/bin: a directory the owner can write.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
umask 022
case "$JOB_ID" in '' | *[!0-9]*) exit 0 ;; esac
uid=$(id -u -- "$USER" 2>/dev/null) || exit 0
mkdir -p "$SPOOL" 2>/dev/null && chown root:root "$SPOOL" && chmod 0755 "$SPOOL" || exit 0
# A value is one line of the file: line breaks are written as `?`, as the exporter shows them.
one_line() { printf '%s' "$1" | tr '\n\r' '??'; }
# `project:` is in qstat -j's answer only when the job has one (qsub -P); no answer: no account line.
if answer="$(timeout 5 qstat -j "$JOB_ID" 2>/dev/null)"; then
  account_line="account=$(one_line "$(printf '%s\n' "$answer" | sed -n 's/^project:[[:space:]]*//p' | head -n 1)")"
else
  account_line=''
fi
tmp="$SPOOL/.$JOB_ID.$$.tmp"
{
  printf 'uid=%s\n' "$uid"
  [ -n "$account_line" ] && printf '%s\n' "$account_line"
  printf 'partition=%s\n' "$(one_line "$QUEUE")"
  printf 'job_name=%s\n' "$(one_line "$JOB_NAME")"
  printf 'work_dir=%s\n' "$(one_line "${SGE_CWD_PATH:-$SGE_O_WORKDIR}")"
} > "$tmp" 2>/dev/null && mv -f "$tmp" "$SPOOL/$JOB_ID" || rm -f "$tmp"
exit 0
