#!/bin/sh
# LSF host-based pre-execution (lsb.queues or lsb.applications: HOST_PRE_EXEC=/etc/lsf/jobio-host-pre-exec.sh,
# with LSB_PRE_POST_EXEC_USER=root in lsf.sudoers): writes the job's metadata for the exporter's
# job_info collector (docs/schedulers.md). Host-based pre-execution runs on every execution host of
# the job, with the job's environment. The file is named by LSB_JOBID, the id jobio reads from LSF's
# job cgroups (lsf/<cluster>/job.<jobid>.…) and from the job's processes. It is written under a
# temporary name and renamed, so the exporter never reads half a file; the spool is root's alone.
# Always exits 0: a non-zero exit would requeue the job.
SPOOL="${JOBIO_SPOOL:-/run/jobio/jobs}"
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
umask 022
case "$LSB_JOBID" in '' | *[!0-9]*) exit 0 ;; esac
mkdir -p "$SPOOL" 2>/dev/null && chown root:root "$SPOOL" && chmod 0755 "$SPOOL" || exit 0
# The job's user: LSFUSER where LSF sets it, else LSB_SUB_USER, else the job environment's USER.
owner="${LSFUSER:-${LSB_SUB_USER:-$USER}}"
uid="$(id -u -- "$owner" 2>/dev/null)"
one_line() { printf '%s' "$1" | tr '\n\r' '  '; }
# The elements of a job array share LSB_JOBID, so they share the file: each running element on this
# host leaves a mark (a dot file, which the exporter does not read) and the post-execution removes
# the file with the last mark.
case "$LSB_JOBINDEX" in
  '' | 0) ;;
  *[!0-9]*) exit 0 ;;
  *) : > "$SPOOL/.$LSB_JOBID.element.$LSB_JOBINDEX" ;;
esac
tmp="$SPOOL/.$LSB_JOBID.$$.tmp"
{
  printf 'uid=%s\n' "$(one_line "$uid")"
  printf 'account=%s\n' "$(one_line "$LSB_PROJECT_NAME")"
  printf 'partition=%s\n' "$(one_line "$LSB_QUEUE")"
  printf 'job_name=%s\n' "$(one_line "$LSB_JOBNAME")"
  printf 'work_dir=%s\n' "$(one_line "${LS_EXECCWD:-$LS_SUBCWD}")"
} > "$tmp" 2>/dev/null && mv -f "$tmp" "$SPOOL/$LSB_JOBID" || rm -f "$tmp"
exit 0
