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
# Settings: /etc/jobio/slurm-taskprolog.conf (JOBIO_TASKPROLOG_CONF names another), `key=value` lines:
#   library=/usr/lib/jobio/libjobio.so   (default: `jobio preload-path`, when jobio is in PATH)
#   socket=/run/jobio/profiler.sock      (the default)
#   partitions=*                         (the default; `compute,io` profiles those two only)
#   exclude_partitions=                  (none by default)
#   comment=yes                          (the default; `no`: --comment is not looked at)
# Never fails a task: any problem means "not profiled", and the script exits 0.
set -f # no globbing: `*` is a partition list item
CONF="${JOBIO_TASKPROLOG_CONF:-/etc/jobio/slurm-taskprolog.conf}"
PATH="${PATH:-/usr/local/bin:/usr/bin:/bin}"

setting() { # setting KEY DEFAULT: the last `KEY=` line of the conf file, else DEFAULT
  value=$(sed -n "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*//p" "$CONF" 2>/dev/null | tail -n 1 | sed 's/[[:space:]]*$//')
  if [ -n "$value" ] || grep -q "^[[:space:]]*$1[[:space:]]*=" "$CONF" 2>/dev/null; then
    printf '%s' "$value"
  else
    printf '%s' "$2"
  fi
}

listed() { # listed WORD LIST: WORD is one of LIST's comma- or space-separated items (`*`: any)
  for item in $(printf '%s' "$2" | tr ',' ' '); do
    [ "$item" = '*' ] || [ "$item" = "$1" ] && return 0
  done
  return 1
}

decide() {
  listed "$SLURM_JOB_PARTITION" "$(setting exclude_partitions '')" && return 1
  case "$JOBIO_PROFILE" in
    0 | no | off | false) return 1 ;;
    1 | yes | on | true) return 0 ;;
  esac
  if [ "$(setting comment yes)" = yes ] && [ -n "$SLURM_JOB_ID" ]; then
    comment=$(timeout 5 squeue -h -j "$SLURM_JOB_ID" -o %k 2>/dev/null | head -n 1)
    for word in $(printf '%s' "$comment" | tr ',;' '  '); do
      case "$word" in
        jobio=off) return 1 ;;
        jobio=on) return 0 ;;
      esac
    done
  fi
  listed "$SLURM_JOB_PARTITION" "$(setting partitions '*')"
}

if ! decide; then
  echo "export JOBIO_PROFILE=0"
  exit 0
fi
library=$(setting library '')
[ -n "$library" ] || library=$(jobio preload-path 2>/dev/null)
case "$library" in
  /*) [ -r "$library" ] || library='' ;;
  *) library='' ;;
esac
if [ -z "$library" ]; then
  echo "print jobio: profiler library not found (library= in $CONF); this task is not profiled"
  echo "export JOBIO_PROFILE=0"
  exit 0
fi
echo "export JOBIO_PROFILE=1"
case ":$LD_PRELOAD:" in
  *":$library:"*) ;;
  *) echo "export LD_PRELOAD=$library${LD_PRELOAD:+:$LD_PRELOAD}" ;;
esac
echo "export JOBIO_SOCKET=$(setting socket /run/jobio/profiler.sock)"
exit 0
