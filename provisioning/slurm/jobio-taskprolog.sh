#!/bin/sh
# Slurm TaskProlog (slurm.conf: TaskProlog=/etc/slurm/jobio-taskprolog.sh): preloads the jobio
# profiler into every task of the jobs that are to be profiled, so a job script needs no line of its
# own. slurmstepd runs it as the job's user before each task (the batch step's shell and every srun
# task), with the job's environment; the `export NAME=value` lines it prints go into the task's
# environment (docs/slurm.md).
#
# Which jobs (first rule that applies wins):
#   1. partition in `exclude_partitions`            -> not profiled, whatever the job asks
#   2. JOBIO_PROFILE=0|1 in the job's environment   -> as it says (sbatch --export=ALL,JOBIO_PROFILE=1)
#   3. `jobio=off` / `jobio=on` in the job's --comment (one squeue call, only when `comment=yes`)
#   4. partition in `partitions` (`*`: every one)   -> profiled, else not
# The decision is exported as JOBIO_PROFILE, so the srun steps of a batch job inherit it and ask
# squeue no more.
#
# Settings: /etc/jobio/slurm-taskprolog.conf (JOBIO_TASKPROLOG_CONF names another), `key=value` lines
# (read by jobio-profile-settings.sh, which must be installed next to this script):
#   library=/usr/lib/jobio/libjobio.so   (default: `jobio preload-path`, when jobio is in PATH)
#   socket=/run/jobio/profiler.sock      (the default)
#   partitions=*                         (the default; `compute,io` profiles those two only)
#   exclude_partitions=                  (none by default)
#   comment=yes                          (the default; `no`: --comment is not looked at)
# Never fails a task: any problem means "not profiled", and the script exits 0.
set -f # no globbing: `*` is a partition list item
JOBIO_CONF="${JOBIO_TASKPROLOG_CONF:-/etc/jobio/slurm-taskprolog.conf}"
PATH="${PATH:-/usr/local/bin:/usr/bin:/bin}"
# The settings file and the decision, shared with the other schedulers' hooks (installed beside this one).
case "$0" in */*) here="${0%/*}" ;; *) here=. ;; esac
if ! [ -r "$here/jobio-profile-settings.sh" ]; then
  echo "print jobio: $here/jobio-profile-settings.sh is missing; this task is not profiled"
  echo "export JOBIO_PROFILE=0"
  exit 0
fi
. "$here/jobio-profile-settings.sh"

# Rule 3: `jobio=on` / `jobio=off` as a word of the job's --comment (status 0 / 1; 2: neither).
comment_says() {
  [ "$(jobio_setting comment yes)" = yes ] && [ -n "$SLURM_JOB_ID" ] || return 2
  comment=$(timeout 5 squeue -h -j "$SLURM_JOB_ID" -o %k 2>/dev/null | head -n 1)
  for word in $(printf '%s' "$comment" | tr ',;' '  '); do
    case "$word" in
      jobio=off) return 1 ;;
      jobio=on) return 0 ;;
    esac
  done
  return 2
}

jobio_choose "$SLURM_JOB_PARTITION" partitions exclude_partitions comment_says
[ -n "$jobio_missing" ] && echo "print $jobio_missing; this task is not profiled"
echo "export JOBIO_PROFILE=$JOBIO_PROFILE"
[ "$JOBIO_PROFILE" = 1 ] || exit 0
[ -n "$jobio_preload" ] && echo "export LD_PRELOAD=$jobio_preload"
echo "export JOBIO_SOCKET=$JOBIO_SOCKET"
exit 0
