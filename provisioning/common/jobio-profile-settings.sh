# Sourced (not run) by the hooks that preload the jobio profiler into jobs: the Slurm TaskProlog,
# the Grid Engine starter_method, the LSF JOB_STARTER and the Flux shell plugin (the PBS hook is
# Python and applies the same rule itself). One place for their settings file and for the rule that
# decides which jobs are profiled. Install it next to the hook that sources it.
#
# The caller sets JOBIO_CONF (its settings file, `key=value` lines, the last line of a key wins):
#   library=/usr/lib/jobio/libjobio.so   (default: `jobio preload-path`, when jobio is in PATH)
#   socket=/run/jobio/profiler.sock      (the default)
#   <include key>=*                      (the default: every queue/partition; `a,b` or `a b`: those)
#   <exclude key>=                       (none by default: never profiled, whatever the job asks)
# and runs `set -f` first: `*` is a list item, not a glob.

# jobio_setting KEY DEFAULT: the value of the last `KEY=` line of $JOBIO_CONF, else DEFAULT. A key
# given with an empty value is empty (no default).
jobio_setting() {
  jobio_value=$(sed -n "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*//p" "$JOBIO_CONF" 2>/dev/null | tail -n 1 | sed 's/[[:space:]]*$//')
  if [ -n "$jobio_value" ] || grep -q "^[[:space:]]*$1[[:space:]]*=" "$JOBIO_CONF" 2>/dev/null; then
    printf '%s' "$jobio_value"
  else
    printf '%s' "$2"
  fi
}

# jobio_listed WORD LIST: WORD is one of LIST's comma- or space-separated items (`*`: any word).
jobio_listed() {
  for jobio_item in $(printf '%s' "$2" | tr ',' ' '); do
    [ "$jobio_item" = '*' ] || [ "$jobio_item" = "$1" ] && return 0
  done
  return 1
}

# jobio_decide GROUP INCLUDE_KEY EXCLUDE_KEY [ASK]: whether the job of queue/partition GROUP is to be
# profiled (status 0) or not (1). First rule that applies wins:
#   1. GROUP in the exclude list                     -> no, whatever the job asks
#   2. JOBIO_PROFILE=1|0 (yes/no, on/off, true/false) in the job's environment -> as it says
#   3. the command ASK, when given: status 0 yes, 1 no, 2 no answer (Slurm's --comment)
#   4. GROUP in the include list (default `*`)
jobio_decide() {
  jobio_listed "$1" "$(jobio_setting "$3" '')" && return 1
  case "$JOBIO_PROFILE" in
    0 | no | off | false) return 1 ;;
    1 | yes | on | true) return 0 ;;
  esac
  if [ -n "$4" ]; then
    "$4"
    case $? in 0) return 0 ;; 1) return 1 ;; esac
  fi
  jobio_listed "$1" "$(jobio_setting "$2" '*')"
}

# jobio_choose GROUP INCLUDE_KEY EXCLUDE_KEY [ASK]: the job's profiling environment, in variables the
# caller exports or prints: JOBIO_PROFILE (1 or 0, the decision, so child steps need not decide
# again), and when it is 1, JOBIO_SOCKET and jobio_preload (the new LD_PRELOAD: the library first and
# once, the job's own entries kept after it; empty when LD_PRELOAD has the library already). A job to
# be profiled whose library is missing (not absolute, unreadable) gets JOBIO_PROFILE=0 and
# jobio_missing, the message that says why.
jobio_choose() {
  jobio_preload=''
  jobio_missing=''
  jobio_decide "$@" && jobio_yes=1 || jobio_yes=0
  JOBIO_PROFILE=0
  [ "$jobio_yes" = 1 ] || return 0
  jobio_library=$(jobio_setting library '')
  [ -n "$jobio_library" ] || jobio_library=$(jobio preload-path 2>/dev/null)
  case "$jobio_library" in
    /*) [ -r "$jobio_library" ] || jobio_library='' ;;
    *) jobio_library='' ;;
  esac
  if [ -z "$jobio_library" ]; then
    jobio_missing="jobio: profiler library not found (library= in $JOBIO_CONF)"
    return 0
  fi
  JOBIO_PROFILE=1
  case ":$LD_PRELOAD:" in
    *":$jobio_library:"*) ;;
    *) jobio_preload="$jobio_library${LD_PRELOAD:+:$LD_PRELOAD}" ;;
  esac
  JOBIO_SOCKET=$(jobio_setting socket /run/jobio/profiler.sock)
}

# jobio_export_choice GROUP INCLUDE_KEY EXCLUDE_KEY: jobio_choose, exported into this shell's
# environment, for the starters that then run the job's command; why a job to be profiled is not
# goes to standard error (the job's error output).
jobio_export_choice() {
  jobio_choose "$@"
  [ -n "$jobio_missing" ] && echo "$jobio_missing; this job is not profiled" >&2
  if [ "$JOBIO_PROFILE" = 1 ]; then
    [ -n "$jobio_preload" ] && LD_PRELOAD="$jobio_preload"
    export LD_PRELOAD JOBIO_SOCKET
  fi
  export JOBIO_PROFILE
}
