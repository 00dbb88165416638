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
# Settings: /etc/jobio/gridengine-starter.conf (JOBIO_STARTER_CONF names another), `key=value` lines
# (read by jobio-profile-settings.sh, which must be installed next to this script):
#   library=/usr/lib/jobio/libjobio.so   (default: `jobio preload-path`, when jobio is in PATH)
#   socket=/run/jobio/profiler.sock      (the default)
#   queues=*                             (the default)
#   exclude_queues=                      (none by default)
# Whatever it decides, the job starts: a starter that fails fails the job.
set -f # no globbing: `*` is a queue list item
JOBIO_CONF="${JOBIO_STARTER_CONF:-/etc/jobio/gridengine-starter.conf}"
# The settings file and the decision, shared with the other schedulers' hooks (installed beside this one).
case "$0" in */*) here="${0%/*}" ;; *) here=. ;; esac
if [ -r "$here/jobio-profile-settings.sh" ]; then
  . "$here/jobio-profile-settings.sh"
  # The job's own JOBIO_PROFILE is read by the decision; what is exported is its outcome.
  jobio_export_choice "$QUEUE" queues exclude_queues
else
  echo "jobio: $here/jobio-profile-settings.sh is missing; this job is not profiled" >&2
  JOBIO_PROFILE=0
  export JOBIO_PROFILE
fi
set +f
# A script job: its arguments are the script (execd's job_scripts/<id>) and the script's own, run by
# the shell execd would have used. A `qsub -b y` job: its arguments are the command itself.
case "$JOB_SCRIPT" in
  */job_scripts/"$JOB_ID") exec "${SGE_STARTER_SHELL_PATH:-/bin/sh}" "$@" ;;
esac
exec "$@"
