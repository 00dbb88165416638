-- Flux job-shell plugin for jobio (install as /etc/flux/shell/lua.d/jobio.lua, with
-- jobio-profile-settings.sh in /etc/flux/shell/, the directory of the shell's initrc.lua): preloads
-- the jobio profiler into the tasks of the jobs to be profiled, so a job needs no line of its own.
-- The job shell runs as the job's user and sources lua.d/*.lua from its initrc; at shell.init,
-- before any task starts, this plugin decides and sets the job's environment. (The job's metadata
-- for job_info is written by the IMP-run prolog, jobio-prolog.sh: the shell cannot write root's
-- spool.)
--
-- Which jobs (first rule that applies wins), decided by the settings reader the Slurm, Grid Engine
-- and LSF hooks share:
--   1. the job's queue in `exclude_queues`        -> not profiled, whatever the job asks
--   2. the job asks: shell option `-o jobio=1` (or 0), else JOBIO_PROFILE=1 (or 0) in its environment
--   3. the job's queue in `queues` (`*`: every one, and jobs of a Flux without queues)
-- The outcome goes into the job's environment: JOBIO_PROFILE (1 or 0), and when 1, LD_PRELOAD (the
-- library first, the job's own preloads after it) and JOBIO_SOCKET.
-- Settings: /etc/jobio/flux-shell.conf (JOBIO_FLUX_SHELL_CONF in the shell's own environment names
-- another), `key=value` lines: library=, socket=, queues=*, exclude_queues=.
-- Never fails a job: whatever goes wrong leaves it unprofiled, with a line in the job's log.

local function quoted(value)
    return "'" .. tostring(value):gsub("'", "'\\''") .. "'"
end

-- The shell option `jobio`: true/false, 1/0 or a word; nil when the job did not set it.
local function asked_by_option()
    local option = shell.options.jobio
    if option == nil then return nil end
    if option == true then return "1" end
    if option == false then return "0" end
    return tostring(option)
end

local function queue_of_job()
    local jobspec = shell.info.jobspec or {}
    local system = (jobspec.attributes or {}).system or {}
    return system.queue or ""
end

-- Runs the shared settings reader once: its answer, as a table of key = value.
local function decide()
    local reader = shell.rcpath .. "/jobio-profile-settings.sh"
    local conf = os.getenv("JOBIO_FLUX_SHELL_CONF") or "/etc/jobio/flux-shell.conf"
    local env = {
        JOBIO_CONF = conf,
        JOBIO_PROFILE = asked_by_option() or shell.getenv("JOBIO_PROFILE") or "",
        -- The job's preloads, handed over under another name: the reader's own commands run without them.
        JOBIO_JOB_PRELOAD = shell.getenv("LD_PRELOAD") or "",
        -- `jobio preload-path`, when the settings name no library, is looked up as the job would.
        PATH = shell.getenv("PATH") or "/usr/local/bin:/usr/bin:/bin",
    }
    local command = {}
    for _, name in ipairs({ "JOBIO_CONF", "JOBIO_PROFILE", "JOBIO_JOB_PRELOAD", "PATH" }) do
        command[#command + 1] = name .. "=" .. quoted(env[name])
    end
    command[#command + 1] = "/bin/sh -c " .. quoted(
        'set -f; [ -r "$1" ] || { echo "missing=jobio: $1 is missing"; exit 0; }; . "$1"; '
        .. 'unset LD_PRELOAD; LD_PRELOAD="$JOBIO_JOB_PRELOAD"; '
        .. 'jobio_choose "$2" queues exclude_queues; '
        .. 'printf "profile=%s\\npreload=%s\\nsocket=%s\\nmissing=%s\\n" '
        .. '"$JOBIO_PROFILE" "$jobio_preload" "$JOBIO_SOCKET" "$jobio_missing"'
    ) .. " sh " .. quoted(reader) .. " " .. quoted(queue_of_job()) .. " 2>/dev/null"
    local answer = {}
    local pipe = io.popen(table.concat(command, " "))
    if pipe then
        for line in pipe:lines() do
            local key, value = line:match("^(%w+)=(.*)$")
            if key then answer[key] = value end
        end
        pipe:close()
    end
    return answer
end

plugin.register {
    name = "jobio",
    handlers = {
        {
            topic = "shell.init",
            fn = function ()
                local answer = decide()
                if answer.missing and answer.missing ~= "" then
                    shell.log (answer.missing .. "; this job is not profiled")
                end
                if answer.profile ~= "1" then
                    shell.setenv ("JOBIO_PROFILE", "0")
                    return
                end
                shell.setenv ("JOBIO_PROFILE", "1")
                if answer.preload ~= "" then shell.setenv ("LD_PRELOAD", answer.preload) end
                shell.setenv ("JOBIO_SOCKET", answer.socket)
            end
        },
    }
}
