# OpenPBS / PBS Pro hook for jobio, one file for two events (docs/schedulers.md):
#   execjob_begin  writes the job's metadata for the exporter's job_info collector and decides whether
#                  the job runs under the jobio profiler (LD_PRELOAD in the job's environment);
#   execjob_end    removes the metadata file.
# pbs_mom runs it as root on every execution host of the job. It never rejects a job: whatever goes
# wrong is logged and the job runs (a monitoring hook must not hold a job back).
#
# Metadata: /run/jobio/jobs/<job id>, `key=value` lines, root's, written under a temporary name and
# renamed (the exporter never reads half a file). The file is named by the job's full id (`4242.server`,
# an array's subjob `4242[7].server`), which is what PBS_JOBID holds and what the cgroups hook names
# its directories, so every jobio view names the job alike.
#   uid        the job's owner (euser, else the user part of Job_Owner)
#   account    Account_Name, else the job's project (qsub -P) unless it is PBS's default project
#   partition  the queue
#   job_name   Job_Name
#   work_dir   PBS_O_WORKDIR of Variable_List (the submit directory)
#
# Profiling (first rule that applies wins):
#   1. queue in `exclude_queues`                     -> not profiled, whatever the job asks
#   2. JOBIO_PROFILE=1|0 in Variable_List            -> as it says (qsub -v JOBIO_PROFILE=1)
#   3. queue in `queues` (`*`: every one)            -> profiled, else not
# The outcome goes into the job's environment: JOBIO_PROFILE (1 or 0), and when 1, LD_PRELOAD (the
# library first, the job's own entries after it) and JOBIO_SOCKET.
#
# Settings: the hook's configuration file (qmgr: import hook jobio application/x-config default
# jobio-hook.json), a JSON object; every key is optional:
#   {"library": "/usr/lib/jobio/libjobio.so",  default: `jobio preload-path`, when jobio is in PATH
#    "socket": "/run/jobio/profiler.sock",     the default
#    "queues": ["*"],                          the default; a list, or one comma-separated string
#    "exclude_queues": [],                     none by default
#    "spool": "/run/jobio/jobs"}               the default; the exporter's --collector.job_info.spool-dir
import json
import os
import pwd
import re
import subprocess

import pbs

# The job ids the exporter accepts as a spool file name (exporter/src/labels/job-cgroup-layouts.ts).
JOBID_TEXT = re.compile(r'^[0-9A-Za-z._\-\[\]]{1,64}$')
DEFAULTS = {
    'library': '',
    'socket': '/run/jobio/profiler.sock',
    'queues': ['*'],
    'exclude_queues': [],
    'spool': '/run/jobio/jobs',
}
YES = ('1', 'yes', 'on', 'true')
NO = ('0', 'no', 'off', 'false')
# PBS Pro's project for jobs submitted without one: no project of the user's.
DEFAULT_PROJECT = '_pbs_project_default'


def log(message):
    pbs.logmsg(pbs.LOG_WARNING, 'jobio: ' + message)


def settings():
    conf = dict(DEFAULTS)
    path = getattr(pbs, 'hook_config_filename', None)
    if path:
        try:
            with open(path) as f:
                loaded = json.load(f)
            if isinstance(loaded, dict):
                conf.update((k, v) for k, v in loaded.items() if k in DEFAULTS)
            else:
                log('%s is no JSON object; defaults used' % path)
        except (OSError, ValueError) as err:
            log('settings not read (%s); defaults used' % err)
    return conf


def listed(word, items):
    """word is one of items (a list, or a comma- or space-separated string); `*` matches any word."""
    if isinstance(items, str):
        items = items.replace(',', ' ').split()
    return any(item == '*' or item == word for item in items or [])


def text(value):
    """An attribute as one line of the file: None is empty, line breaks become `?` as the exporter shows them."""
    if value is None:
        return ''
    return str(value).replace('\n', '?').replace('\r', '?')


def variable(job, name):
    variables = job.Variable_List
    if variables is None:
        return None
    try:
        return variables[name]
    except KeyError:
        return None


def queue_name(job):
    queue = job.queue
    if queue is None:
        return ''
    return str(getattr(queue, 'name', None) or queue)


def owner_uid(job):
    owner = job.euser or (str(job.Job_Owner or '').split('@')[0])
    try:
        return str(pwd.getpwnam(str(owner)).pw_uid)
    except (KeyError, TypeError):
        return None


def account(job):
    if job.Account_Name:
        return job.Account_Name
    project = job.project
    return project if project and str(project) != DEFAULT_PROJECT else ''


def write_job_file(spool, jobid, lines):
    os.makedirs(spool, mode=0o755, exist_ok=True)
    st = os.lstat(spool)
    if not os.path.isdir(spool) or os.path.islink(spool):
        raise OSError('%s is not a directory' % spool)
    if st.st_uid != 0 or st.st_mode & 0o022:
        os.chown(spool, 0, 0)
        os.chmod(spool, 0o755)
    tmp = os.path.join(spool, '.%s.%d.tmp' % (jobid, os.getpid()))
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    try:
        with os.fdopen(fd, 'w') as f:
            f.write(''.join('%s=%s\n' % (key, text(value)) for key, value in lines))
        os.replace(tmp, os.path.join(spool, jobid))
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def profiler_library(conf):
    library = conf.get('library') or ''
    if not library:
        try:
            library = subprocess.run(['jobio', 'preload-path'], capture_output=True, text=True, timeout=5).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            library = ''
    if not library.startswith('/') or not os.access(library, os.R_OK):
        return None
    return library


def set_profiling(conf, job, queue):
    """The profiling decision, into the job's environment (Variable_List)."""
    asked = str(variable(job, 'JOBIO_PROFILE') or '').lower()
    if listed(queue, conf['exclude_queues']):
        wanted = False
    elif asked in YES or asked in NO:
        wanted = asked in YES
    else:
        wanted = listed(queue, conf['queues'])
    library = profiler_library(conf) if wanted else None
    if wanted and library is None:
        log('profiler library not found (library in the hook configuration); job %s is not profiled' % job.id)
    if library is None:
        job.Variable_List['JOBIO_PROFILE'] = '0'
        return
    job.Variable_List['JOBIO_PROFILE'] = '1'
    preload = str(variable(job, 'LD_PRELOAD') or '')
    if library not in preload.split(':'):
        job.Variable_List['LD_PRELOAD'] = library + (':' + preload if preload else '')
    job.Variable_List['JOBIO_SOCKET'] = conf['socket']


def begin(conf, job, jobid):
    queue = queue_name(job)
    lines = [('uid', owner_uid(job)), ('account', account(job)), ('partition', queue), ('job_name', job.Job_Name), ('work_dir', variable(job, 'PBS_O_WORKDIR'))]
    try:
        write_job_file(conf['spool'], jobid, [(k, v) for k, v in lines if not (k == 'uid' and v is None)])
    except OSError as err:
        log('job %s: metadata not written (%s)' % (jobid, err))
    set_profiling(conf, job, queue)


def end(conf, jobid):
    try:
        os.unlink(os.path.join(conf['spool'], jobid))
    except FileNotFoundError:
        pass
    except OSError as err:
        log('job %s: metadata not removed (%s)' % (jobid, err))


def main():
    event = pbs.event()
    try:
        job = event.job
        jobid = str(job.id)
        if not JOBID_TEXT.match(jobid):
            log('job id %r names no file; ignored' % jobid)
        elif event.type == pbs.EXECJOB_BEGIN:
            begin(settings(), job, jobid)
        elif event.type == pbs.EXECJOB_END:
            end(settings(), jobid)
    except Exception as err:  # never hold a job back: log, and accept below
        log('hook failed: %r' % err)
    event.accept()


main()
