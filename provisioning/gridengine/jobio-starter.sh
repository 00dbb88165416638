#!/bin/sh
# Grid Engine job starter (queue configuration: `starter_method /etc/gridengine/jobio-starter.sh`):
# preloads the jobio profiler into the jobs of the queues to be profiled, so a job script needs no
# line of its own. execd runs it as the job's owner, with the job's environment, instead of the job's
# shell, and passes it the job's arguments (the script, or the command of a `qsub -b y` job).
#
# Which jobs (first rule that applies wins):
#   1. queue in `exclude_queues`                    -> not profiled, whatever the job asks
#   2. JOBIO_PROFILE=0|1 in the job's environment   -> as it says (qsub -v JOBIO_PROFILE=1)
#   3. queue in `queues` (`*`: every one)           -> profiled, else not
# Settings: /etc/jobio/gridengine-starter.conf (JOBIO_STARTER_CONF names another), `key=value` lines:
#   library=/usr/lib/jobio/libjobio.so   (default: `jobio preload-path`, when jobio is in PATH)
#   socket=/run/jobio/profiler.sock      (the default)
#   queues=*                             (the default)
#   exclude_queues=                      (none by default)
# Whatever it decides, the job starts: a starter that fails fails the job.
set -f # no globbing: `*` is a queue list item
CONF="${JOBIO_STARTER_CONF:-/etc/jobio/gridengine-starter.conf}"

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
  listed "$QUEUE" "$(setting exclude_queues '')" && return 1
  case "$JOBIO_PROFILE" in
    0 | no | off | false) return 1 ;;
    1 | yes | on | true) return 0 ;;
  esac
  listed "$QUEUE" "$(setting queues '*')"
}

# The job's own JOBIO_PROFILE is read by decide(); what this script sets is its outcome.
if ! decide; then
  JOBIO_PROFILE=0
else
  JOBIO_PROFILE=0
  library=$(setting library '')
  [ -n "$library" ] || library=$(jobio preload-path 2>/dev/null)
  case "$library" in
    /*) [ -r "$library" ] || library='' ;;
    *) library='' ;;
  esac
  if [ -n "$library" ]; then
    JOBIO_PROFILE=1
    case ":$LD_PRELOAD:" in
      *":$library:"*) ;;
      *) LD_PRELOAD="$library${LD_PRELOAD:+:$LD_PRELOAD}" ;;
    esac
    JOBIO_SOCKET=$(setting socket /run/jobio/profiler.sock)
    export LD_PRELOAD JOBIO_SOCKET
  else
    echo "jobio: profiler library not found (library= in $CONF); this job is not profiled" >&2
  fi
fi
export JOBIO_PROFILE
set +f
# A script job: its arguments are the script (execd's job_scripts/<id>) and the script's own, run by
# the shell execd would have used. A `qsub -b y` job: its arguments are the command itself.
case "$JOB_SCRIPT" in
  */job_scripts/"$JOB_ID") exec "${SGE_STARTER_SHELL_PATH:-/bin/sh}" "$@" ;;
esac
exec "$@"
