#!/bin/sh
# Slurm TaskEpilog (slurm.conf: TaskEpilog=/etc/slurm/jobio-taskepilog.sh): prints the verdict of the
# job's I/O report into the job's output file when its batch script has ended (docs/report.md):
#   jobio: I/O of job 1234: 1 finding: 1 high
#   jobio:   1. HIGH dd: small_write on /scratch (by run time)
#   jobio: the whole report: jobio report 1234
# slurmstepd runs it as the job's user after each task; it acts after the batch script only (whose
# SLURM_STEP_ID is empty), once per job, and not after the tasks of srun steps. It prints to standard
# error: slurmstepd discards a TaskEpilog's standard output, its standard error goes to the job's.
# The job counts as running until it exits: it waits for Prometheus' first scrape after the job's end,
# so the verdict has the job's last counts, at most verdict_wait seconds (30 by default).
#
# Which jobs: those the TaskProlog profiles (the same settings file and rule, jobio-taskprolog.sh; the
# job's --comment is not looked at, so a job that asks for profiling in its comment alone gets no
# verdict), and those that preload the profiler themselves at submission. A job exporting
# JOBIO_VERDICT=0 is left alone. Settings: the Prometheus to ask and the wait in
# /etc/jobio/report-summary.conf (read by jobio-report-summary.sh), the rule's in
# /etc/jobio/slurm-taskprolog.conf (read by jobio-profile-settings.sh); install both scripts next to
# this one. Always exits 0, and prints nothing when there is no verdict to print.
set -f # no globbing: `*` is a partition list item
PATH="${PATH:-/usr/local/bin:/usr/bin:/bin}"
[ -z "$SLURM_STEP_ID" ] || exit 0
case "$SLURM_JOB_ID" in '' | *[!0-9]*) exit 0 ;; esac
[ "$JOBIO_VERDICT" = 0 ] && exit 0
case "$0" in */*) here="${0%/*}" ;; *) here=. ;; esac
[ -r "$here/jobio-profile-settings.sh" ] && [ -r "$here/jobio-report-summary.sh" ] || exit 0
JOBIO_CONF="${JOBIO_TASKPROLOG_CONF:-/etc/jobio/slurm-taskprolog.conf}"
. "$here/jobio-profile-settings.sh"
. "$here/jobio-report-summary.sh"
case "$LD_PRELOAD" in
  *libjobio*) ;;
  *) jobio_decide "$SLURM_JOB_PARTITION" partitions exclude_partitions || exit 0 ;;
esac
jobio_print_verdict "$SLURM_JOB_ID"
exit 0
