// Job id evidence of a sender, read from <procfs>/<pid> by the epoll thread as its first frame on a
// connection arrives (so a short-lived process is still there; JavaScript may look much later): the
// cgroup file, the scheduler variables of its environ, and the path of its executable (the program
// its reasons are addressed to). A server may ask for only some of the three (the socket of refused
// processes names them by exe alone). Separate concern from the socket server.
#ifndef JOBIO_SEQPACKET_EVIDENCE_H
#define JOBIO_SEQPACKET_EVIDENCE_H

#include <sys/types.h>

#include <string>

namespace jobio {

/** What CaptureEvidence reads, as bits (options.evidence). */
enum EvidencePart : unsigned { kEvidenceCgroup = 1, kEvidenceEnviron = 2, kEvidenceExe = 4 };
constexpr unsigned kAllEvidence = kEvidenceCgroup | kEvidenceEnviron | kEvidenceExe;

struct Evidence {
  bool has_evidence = false;  // captured at all (procfs set)
  bool has_cgroup = false;
  bool has_environ = false;
  bool has_exe = false;
  std::string cgroup;
  std::string exe;  // the target of <procfs>/<pid>/exe (a connection carries one image: exec reconnects)
  std::string job_vars;  // only the scheduler variables, NUL-separated; "\0" if none (non-empty environ)
};

/**
 * Reads up to about `cap` bytes of a small /proc file into `out` (replacing it); false if it cannot be
 * opened. Non-blocking: callers run on the accept and epoll threads.
 */
bool ReadSmallFile(const std::string& path, size_t cap, std::string& out);

/** Fills `out` with the `parts` (EvidencePart bits) of <procfs>/<pid>; nothing when procfs is empty. */
void CaptureEvidence(const std::string& procfs, pid_t pid, unsigned parts, Evidence& out);

}  // namespace jobio

#endif
