// Whether a connecting peer runs in a job cgroup, judged by the epoll thread as it accepts the
// connection: peers the kernel placed in a job (slurmd, the PBS hook, LSF or Flux made the cgroup and
// moved the process there; no user can) may use the connections kept back for them, so a flood of
// connections from other processes cannot shut a job's processes out. The layouts are the exporter's
// (given as ECMAScript patterns by JavaScript, which keeps the one table of them), not restated here.
#ifndef JOBIO_SEQPACKET_JOB_CGROUP_H
#define JOBIO_SEQPACKET_JOB_CGROUP_H

#include <sys/types.h>

#include <regex>
#include <string>
#include <vector>

namespace jobio {

class JobCgroupMatcher {
 public:
  /**
   * Compiles the patterns (each matched against the path of every line of /proc/<pid>/cgroup; a
   * pattern's first capture group, when it took part in the match, is the uid of a systemd manager the
   * peer must not have). Throws std::regex_error on a malformed pattern.
   */
  void Compile(const std::vector<std::string>& patterns);
  bool Empty() const { return patterns_.empty(); }
  /** Whether <procfs>/<pid>/cgroup names a job cgroup for a peer of `uid`; false when unreadable. */
  bool InJob(const std::string& procfs, pid_t pid, uid_t uid) const;
  /** The same test on a cgroup file's text. */
  bool Matches(const std::string& cgroup, uid_t uid) const;

 private:
  std::vector<std::regex> patterns_;
};

}  // namespace jobio

#endif
