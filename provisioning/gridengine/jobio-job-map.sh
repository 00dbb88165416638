#!/bin/sh
# Job map for `jobio top --by client` on a Grid Engine cluster (as lltop's job lookup):
#   jobio top --by client --job-map-command /etc/gridengine/jobio-job-map.sh
# One `JOBID USER HOST` line per running job (or array task) and host, from one `qstat -xml` for all
# users: the job id is JOB_ID (the tasks of an array share it, as Lustre's jobid_var=JOB_ID records
# them), the host is the part after `@` of the queue instance. qstat's own exit status is kept.
xml=$(qstat -u '*' -s r -xml) || exit $?
printf '%s\n' "$xml" | awk '
  /<job_list/ { id = ""; owner = ""; host = "" }
  /<JB_job_number>/ { id = $0; gsub(/.*<JB_job_number>|<\/JB_job_number>.*/, "", id) }
  /<JB_owner>/ { owner = $0; gsub(/.*<JB_owner>|<\/JB_owner>.*/, "", owner) }
  /<queue_name>/ { host = $0; gsub(/.*<queue_name>|<\/queue_name>.*/, "", host); sub(/^[^@]*@/, "", host) }
  /<\/job_list>/ { if (id ~ /^[0-9]+$/ && owner != "" && host != "") print id, owner, host }
'
