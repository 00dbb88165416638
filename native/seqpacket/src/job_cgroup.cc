#include "job_cgroup.h"

#include <cstdlib>

#include "evidence.h"

namespace jobio {

namespace {

// A cgroup file lists one line per hierarchy (a few dozen at most); 64 KiB is far beyond any real one.
constexpr size_t kCgroupCap = 64 << 10;

}  // namespace

void JobCgroupMatcher::Compile(const std::vector<std::string>& patterns) {
  patterns_.clear();
  for (const std::string& source : patterns) patterns_.emplace_back(source, std::regex::ECMAScript | std::regex::optimize);
}

bool JobCgroupMatcher::Matches(const std::string& cgroup, uid_t uid) const {
  for (size_t at = 0; at < cgroup.size();) {
    size_t end = cgroup.find('\n', at);
    if (end == std::string::npos) end = cgroup.size();
    // hierarchy-id:controllers:path, the path after the second colon
    size_t first = cgroup.find(':', at);
    size_t second = first == std::string::npos || first >= end ? std::string::npos : cgroup.find(':', first + 1);
    if (second != std::string::npos && second < end) {
      const std::string path = cgroup.substr(second + 1, end - second - 1);
      for (const std::regex& pattern : patterns_) {
        std::smatch m;
        bool found = false;
        try {
          found = std::regex_search(path, m, pattern);
        } catch (const std::regex_error&) {
          found = false;  // too complex to match (cannot happen with the anchored layouts): no proof
        }
        if (!found) continue;
        if (m.size() > 1 && m[1].matched && std::strtoul(m[1].str().c_str(), nullptr, 10) == uid) continue;
        return true;
      }
    }
    at = end + 1;
  }
  return false;
}

bool JobCgroupMatcher::InJob(const std::string& procfs, pid_t pid, uid_t uid) const {
  if (procfs.empty() || patterns_.empty()) return false;
  std::string cgroup;
  if (!ReadSmallFile(procfs + "/" + std::to_string(pid) + "/cgroup", kCgroupCap, cgroup)) return false;
  return Matches(cgroup, uid);
}

}  // namespace jobio
