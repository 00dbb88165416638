#include "evidence.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "jobio_protocol.h"

namespace jobio {

namespace {

// The variables the profiler takes the job id from (one list, in the wire format's header).
const char* const kJobVariables[] = {JOBIO_JOBID_VARIABLES};

// Is the environ entry [at, end) of `block` NAME=... for one of kJobVariables?
bool IsJobVariable(const std::string& block, size_t at, size_t end) {
  for (const char* name : kJobVariables) {
    size_t n = std::strlen(name);
    if (end - at > n && block.compare(at, n, name) == 0 && block[at + n] == '=') return true;
  }
  return false;
}

}  // namespace

bool ReadSmallFile(const std::string& path, size_t cap, std::string& out) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  out.clear();
  char chunk[4096];
  for (;;) {
    ssize_t got = read(fd, chunk, sizeof(chunk));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    out.append(chunk, static_cast<size_t>(got));
    if (out.size() >= cap) break;
  }
  close(fd);
  return true;
}

void CaptureEvidence(const std::string& procfs, pid_t pid, unsigned parts, Evidence& out) {
  if (procfs.empty()) return;
  const std::string dir = procfs + "/" + std::to_string(pid) + "/";
  out.has_evidence = true;
  if (parts & kEvidenceCgroup) out.has_cgroup = ReadSmallFile(dir + "cgroup", 64 << 10, out.cgroup);
  char link[4096];
  ssize_t n = (parts & kEvidenceExe) ? readlink((dir + "exe").c_str(), link, sizeof(link)) : -1;
  if (n > 0 && static_cast<size_t>(n) < sizeof(link)) {
    out.has_exe = true;
    out.exe.assign(link, static_cast<size_t>(n));
  }
  std::string block;
  // environ is bounded by the kernel's argument limits; 4 MiB covers any real one.
  if ((parts & kEvidenceEnviron) && ReadSmallFile(dir + "environ", 4u << 20, block) && !block.empty()) {
    out.has_environ = true;
    for (size_t at = 0; at < block.size();) {
      size_t end = block.find('\0', at);
      if (end == std::string::npos) end = block.size();
      if (IsJobVariable(block, at, end)) {
        out.job_vars.append(block, at, end - at);
        out.job_vars.push_back('\0');
      }
      at = end + 1;
    }
    if (out.job_vars.empty()) out.job_vars.push_back('\0');
  }
}

}  // namespace jobio
