#!/bin/sh
# LSF job starter (lsb.queues, in the queue's section: JOB_STARTER = /etc/lsf/jobio-job-starter.sh):
# preloads the jobio profiler into the jobs of the queues to be profiled, so a job needs no line of
# its own. LSF runs it on the execution host as the job's user, with the job's environment, and
# gives it the job's command as its arguments; it sets the profiler's variables and runs the command.
#
# Which jobs (first rule that applies wins):
#   1. LSB_QUEUE in `exclude_queues`                -> not profiled, whatever the job asks
#   2. JOBIO_PROFILE=0|1 in the job's environment   -> as it says: `bsub -a jobio` (esub.jobio sets
#                                                      it), or `bsub -env "all,JOBIO_PROFILE=1"`
#   3. LSB_QUEUE in `queues` (`*`: every one)       -> profiled, else not
# Settings: /etc/jobio/lsf-starter.conf (JOBIO_STARTER_CONF names another), `key=value` lines
# (read by jobio-profile-settings.sh, which must be installed next to this script):
#   library=/usr/lib/jobio/libjobio.so   (default: `jobio preload-path`, when jobio is in PATH)
#   socket=/run/jobio/profiler.sock      (the default)
#   queues=*                             (the default)
#   exclude_queues=                      (none by default)
# Whatever it decides, the job's command runs: a starter that fails fails the job.
set -f # no globbing: `*` is a queue list item
JOBIO_CONF="${JOBIO_STARTER_CONF:-/etc/jobio/lsf-starter.conf}"
case "$0" in */*) here="${0%/*}" ;; *) here=. ;; esac
if [ -r "$here/jobio-profile-settings.sh" ]; then
  . "$here/jobio-profile-settings.sh"
  # The job's own JOBIO_PROFILE is read by the decision; what is exported is its outcome.
  jobio_export_choice "$LSB_QUEUE" queues exclude_queues
else
  echo "jobio: $here/jobio-profile-settings.sh is missing; this job is not profiled" >&2
  JOBIO_PROFILE=0
  export JOBIO_PROFILE
fi
set +f
exec "$@"
