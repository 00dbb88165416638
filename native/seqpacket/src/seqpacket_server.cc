#include "seqpacket_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "event.h"
#include "evidence.h"

namespace jobio {

namespace {

// epoll tags: connection ids start above these.
constexpr uint64_t kListenTag = 0;
constexpr uint64_t kWakeTag = 1;
constexpr uint64_t kFirstConnectionId = 2;
// How long the listening socket is left alone after accept4 ran out of descriptors or memory: the
// pending peer stays in the backlog and would make a level-triggered epoll spin at 100 % CPU.
constexpr int kAcceptPauseMs = 100;
// Messages read from one connection before the thread turns to the others (epoll is level-triggered,
// so the rest is read on the next round): a sender that writes as fast as it is read must not keep
// the thread on its connection while the others' socket buffers fill and their frames are dropped.
constexpr int kReadsPerTurn = 64;

Napi::Error ErrnoError(Napi::Env env, const std::string& what, int err) {
  Napi::Error error = Napi::Error::New(env, what + ": " + std::strerror(err));
  // A stable code lets JavaScript tell "directory missing" (ENOENT) from real failures.
  const char* code = err == ENOENT ? "ENOENT" : err == EACCES ? "EACCES" : err == EADDRINUSE ? "EADDRINUSE" : err == ENAMETOOLONG ? "ENAMETOOLONG" : err == ENOTDIR ? "ENOTDIR" : err == EPERM ? "EPERM" : err == EEXIST ? "EEXIST" : "EIO";
  error.Set("code", Napi::String::New(env, code));
  error.Set("errno", Napi::Number::New(env, err));
  return error;
}

uint32_t OptionalUint(Napi::Object options, const char* name, uint32_t fallback, uint32_t min, uint32_t max) {
  Napi::Env env = options.Env();
  Napi::Value value = options.Get(name);
  if (value.IsUndefined()) return fallback;
  if (!value.IsNumber()) throw Napi::TypeError::New(env, std::string("options.") + name + " must be a number");
  double number = value.As<Napi::Number>().DoubleValue();
  if (!(number >= min && number <= max) || number != static_cast<double>(static_cast<uint32_t>(number))) {
    throw Napi::RangeError::New(env, std::string("options.") + name + " must be an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return static_cast<uint32_t>(number);
}

// options.evidence: the names of the evidence parts to read (default all three).
unsigned EvidenceParts(Napi::Object options) {
  Napi::Env env = options.Env();
  Napi::Value value = options.Get("evidence");
  if (value.IsUndefined()) return kAllEvidence;
  const char* wrong = "options.evidence must be an array of 'cgroup', 'environ', 'exe'";
  if (!value.IsArray()) throw Napi::TypeError::New(env, wrong);
  Napi::Array list = value.As<Napi::Array>();
  unsigned parts = 0;
  for (uint32_t i = 0; i < list.Length(); i++) {
    Napi::Value item = list.Get(i);
    std::string name = item.IsString() ? item.As<Napi::String>().Utf8Value() : "";
    if (name == "cgroup") parts |= kEvidenceCgroup;
    else if (name == "environ") parts |= kEvidenceEnviron;
    else if (name == "exe") parts |= kEvidenceExe;
    else throw Napi::TypeError::New(env, wrong);
  }
  return parts;
}

}  // namespace

struct SeqpacketServer::Connection {
  int fd;
  uint64_t id;
  pid_t pid;
  uid_t uid;
  gid_t gid;
  pid_t evidence_pid = 0;  // sender whose /proc evidence was captured last on this connection
  bool in_job = false;     // the peer was in a job cgroup when accepted (may use the reserved connections)
};

void SeqpacketServer::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DefineClass(env, "SeqpacketServer",
                                    {
                                        InstanceMethod<&SeqpacketServer::Close>("close"),
                                        InstanceMethod<&SeqpacketServer::Stats>("stats"),
                                        InstanceMethod<&SeqpacketServer::Ref>("ref"),
                                        InstanceMethod<&SeqpacketServer::Unref>("unref"),
                                        InstanceAccessor<&SeqpacketServer::GetPath>("path"),
                                    });
  exports.Set("SeqpacketServer", ctor);
}

// new SeqpacketServer(path, { mode, maxFrame, maxConnections, maxConnectionsPerUser, procfs, evidence, reservedConnections, jobCgroupPatterns, queueSize, queueBytes, queueBytesPerUser }, onEvent)
SeqpacketServer::SeqpacketServer(const Napi::CallbackInfo& info) : Napi::ObjectWrap<SeqpacketServer>(info) {
  Napi::Env env = info.Env();
  if (info.Length() != 3) throw Napi::TypeError::New(env, "new SeqpacketServer(path, options, onEvent) takes 3 arguments");
  if (!info[0].IsString()) throw Napi::TypeError::New(env, "path must be a string");
  if (!info[1].IsObject()) throw Napi::TypeError::New(env, "options must be an object");
  if (!info[2].IsFunction()) throw Napi::TypeError::New(env, "onEvent must be a function");
  path_ = info[0].As<Napi::String>().Utf8Value();
  if (path_.empty()) throw Napi::TypeError::New(env, "path must not be empty");
  if (path_.find('\0') != std::string::npos) throw Napi::TypeError::New(env, "path must not contain NUL");
  if (path_.size() >= sizeof(sockaddr_un::sun_path)) {
    throw Napi::RangeError::New(env, "path is too long for a Unix socket (max " + std::to_string(sizeof(sockaddr_un::sun_path) - 1) + " bytes): " + path_);
  }
  Napi::Object options = info[1].As<Napi::Object>();
  mode_ = OptionalUint(options, "mode", 0666, 0, 0777);
  // -1 (absent): bind `path` here; else a socket already listening on `path`, inherited (jobio run --attach)
  if (!options.Get("listenFd").IsUndefined()) adopt_fd_ = static_cast<int>(OptionalUint(options, "listenFd", 0, 0, 1u << 20));
  max_frame_ = OptionalUint(options, "maxFrame", 0, 1, 16u << 20);
  if (options.Get("maxFrame").IsUndefined()) throw Napi::TypeError::New(env, "options.maxFrame is required");
  max_connections_ = OptionalUint(options, "maxConnections", 4096, 1, 1u << 20);
  max_per_user_ = OptionalUint(options, "maxConnectionsPerUser", 256, 1, 1u << 20);
  Napi::Value procfs = options.Get("procfs");
  if (!procfs.IsUndefined()) {
    if (!procfs.IsString()) throw Napi::TypeError::New(env, "options.procfs must be a string");
    procfs_ = procfs.As<Napi::String>().Utf8Value();
  }
  evidence_parts_ = EvidenceParts(options);
  Napi::Value patterns = options.Get("jobCgroupPatterns");
  if (!patterns.IsUndefined()) {
    if (!patterns.IsArray()) throw Napi::TypeError::New(env, "options.jobCgroupPatterns must be an array of strings");
    Napi::Array list = patterns.As<Napi::Array>();
    std::vector<std::string> sources;
    for (uint32_t i = 0; i < list.Length(); i++) {
      Napi::Value item = list.Get(i);
      if (!item.IsString()) throw Napi::TypeError::New(env, "options.jobCgroupPatterns must be an array of strings");
      sources.push_back(item.As<Napi::String>().Utf8Value());
    }
    try {
      job_cgroups_.Compile(sources);
    } catch (const std::regex_error& err) {
      throw Napi::TypeError::New(env, std::string("options.jobCgroupPatterns: ") + err.what());
    }
  }
  // Default: a quarter kept for job cgroups' peers when there is a way to recognise them, none otherwise.
  reserved_connections_ = OptionalUint(options, "reservedConnections", job_cgroups_.Empty() ? 0 : max_connections_ / 4, 0, max_connections_);
  uint32_t queue_size = OptionalUint(options, "queueSize", 16384, 0, 1u << 24);
  max_queue_bytes_ = OptionalUint(options, "queueBytes", 16u << 20, 0, 1u << 30);
  // Default share: a quarter of the queue, so it takes four flooding uids to fill it.
  max_queue_bytes_per_user_ = OptionalUint(options, "queueBytesPerUser", static_cast<uint32_t>(max_queue_bytes_ / 4), 0, 1u << 30);
  min_event_cost_ = queue_size == 0 ? 0 : max_queue_bytes_ / queue_size;

  Listen(env);
  tsfn_ = Tsfn::New(env, info[2].As<Napi::Function>(), "jobio-seqpacket", queue_size, 1, new Shared(counters_),
                    [](Napi::Env, void*, Shared* context) { delete context; });
  // Unref'd: a receiver waiting for frames must never keep the process alive on its own.
  tsfn_.Unref(env);
  running_ = true;
  thread_ = std::thread([this] { Run(); });
  cleanup_ = env.AddCleanupHook(&SeqpacketServer::OnEnvCleanup, this);
  has_cleanup_ = true;
}

SeqpacketServer::~SeqpacketServer() {
  Stop();
  if (has_cleanup_) cleanup_.Remove(Env());
}

void SeqpacketServer::OnEnvCleanup(SeqpacketServer* self) {
  self->has_cleanup_ = false;
  self->Stop();
}

// An inherited socket that another process bound and made listen on path_ (a job's first process, for
// `jobio run --attach`): kept only if it is a listening SOCK_SEQPACKET Unix socket bound to that path.
void SeqpacketServer::Adopt(Napi::Env env) {
  int fd = adopt_fd_;
  int type = 0, accepting = 0;
  socklen_t len = sizeof(type);
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0) throw ErrnoError(env, "listenFd " + std::to_string(fd) + " is not a socket", errno);
  len = sizeof(accepting);
  getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &len);
  sockaddr_un bound{};
  len = sizeof(bound);
  bool same = getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len) == 0 && bound.sun_family == AF_UNIX && std::strncmp(bound.sun_path, path_.c_str(), sizeof(bound.sun_path)) == 0;
  if (type != SOCK_SEQPACKET || !accepting || !same) throw ErrnoError(env, "listenFd " + std::to_string(fd) + " is not a SOCK_SEQPACKET socket listening on " + path_, EINVAL);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  int on = 1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
  struct stat st;
  if (stat(path_.c_str(), &st) == 0) {
    socket_dev_ = st.st_dev;
    socket_ino_ = st.st_ino;
  }
  listen_fd_ = fd;
}

void SeqpacketServer::Listen(Napi::Env env) {
  if (adopt_fd_ >= 0) {
    Adopt(env);
    Watch(env);
    return;
  }
  struct stat existing;
  if (lstat(path_.c_str(), &existing) == 0) {
    if (!S_ISSOCK(existing.st_mode)) throw ErrnoError(env, path_ + " exists and is not a socket", EEXIST);
    // A socket file is stale unless something still accepts on it: never steal a live receiver's path.
    int probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (probe >= 0) {
      sockaddr_un addr{};
      addr.sun_family = AF_UNIX;
      std::memcpy(addr.sun_path, path_.c_str(), path_.size());
      int rc = connect(probe, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
      close(probe);
      if (rc == 0) throw ErrnoError(env, "another receiver is listening on " + path_, EADDRINUSE);
    }
    if (unlink(path_.c_str()) != 0 && errno != ENOENT) throw ErrnoError(env, "cannot remove stale socket " + path_, errno);
  }
  listen_fd_ = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw ErrnoError(env, "socket(AF_UNIX, SOCK_SEQPACKET)", errno);
  int on = 1;
  // Accepted sockets inherit SO_PASSCRED: every message then carries its sender's credentials, right
  // even when a forked child writes on a connection its parent opened.
  setsockopt(listen_fd_, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path_.c_str(), path_.size());
  auto fail = [&](const std::string& what) {
    int err = errno;
    close(listen_fd_);
    listen_fd_ = -1;
    throw ErrnoError(env, what, err);
  };
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) fail("cannot bind " + path_);
  struct stat bound;
  if (stat(path_.c_str(), &bound) == 0) {
    socket_dev_ = bound.st_dev;
    socket_ino_ = bound.st_ino;
  }
  if (chmod(path_.c_str(), mode_) != 0) {
    int err = errno;
    unlink(path_.c_str());
    errno = err;
    fail("cannot chmod " + path_);
  }
  if (listen(listen_fd_, 512) != 0) {
    int err = errno;
    unlink(path_.c_str());
    errno = err;
    fail("cannot listen on " + path_);
  }
  Watch(env);
}

void SeqpacketServer::Watch(Napi::Env env) {
  auto fail = [&](const std::string& what) {
    int err = errno;
    close(listen_fd_);
    listen_fd_ = -1;
    throw ErrnoError(env, what, err);
  };
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (epoll_fd_ < 0 || wake_fd_ < 0) fail("epoll/eventfd");
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kListenTag;
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &ev);
  ev.data.u64 = kWakeTag;
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev);
}

void SeqpacketServer::ArmListen(bool on) {
  epoll_event ev{};
  ev.events = on ? static_cast<uint32_t>(EPOLLIN) : 0u;
  ev.data.u64 = kListenTag;
  epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, listen_fd_, &ev);
}

void SeqpacketServer::Run() {
  using Clock = std::chrono::steady_clock;
  std::unordered_map<uint64_t, Connection> connections;
  std::unordered_map<uid_t, uint32_t> per_user;  // open connections by peer uid
  uint64_t next_id = kFirstConnectionId;
  std::vector<uint8_t> buffer(static_cast<size_t>(max_frame_) + 1);
  epoll_event events[64];
  bool stopping = false;
  bool paused = false;
  Clock::time_point resume_at{};
  while (!stopping) {
    int timeout = -1;
    if (paused) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(resume_at - Clock::now()).count();
      timeout = left > 0 ? static_cast<int>(left) + 1 : 0;
    }
    int n = epoll_wait(epoll_fd_, events, 64, timeout);
    if (n < 0 && errno != EINTR) break;
    if (paused && Clock::now() >= resume_at) {
      paused = false;
      ArmListen(true);  // level-triggered: a peer still waiting in the backlog wakes the next epoll_wait
    }
    for (int i = 0; i < n; i++) {
      uint64_t tag = events[i].data.u64;
      if (tag == kWakeTag) {
        stopping = true;
      } else if (tag == kListenTag) {
        if (paused) continue;
        if (!AcceptAll(connections, per_user, next_id)) {
          // Out of descriptors or memory: closing connections is what frees them, so stop polling the
          // listening socket for a while instead of retrying accept4 in a busy loop.
          ArmListen(false);
          paused = true;
          resume_at = Clock::now() + std::chrono::milliseconds(kAcceptPauseMs);
        }
      } else {
        auto it = connections.find(tag);
        if (it == connections.end()) continue;
        ReadResult read = ReadAll(it->second, buffer);
        // A hung-up peer's last messages are read before its connection is closed (kMore: next round).
        if (read == ReadResult::kGone || (read == ReadResult::kDrained && (events[i].events & (EPOLLHUP | EPOLLERR)))) CloseConnection(connections, per_user, tag);
      }
    }
  }
  for (auto& entry : connections) close(entry.second.fd);
  connections.clear();
  tsfn_.Release();
}

bool SeqpacketServer::AcceptAll(std::unordered_map<uint64_t, Connection>& connections, std::unordered_map<uid_t, uint32_t>& per_user, uint64_t& next_id) {
  for (;;) {
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOMEM || errno == ENOBUFS) {
        // The pending peer stays in the backlog (its sends fail fast once the backlog is full).
        counters_->accept_errors++;
        return false;
      }
      return true;  // EAGAIN: nothing more to accept
    }
    ucred cred{};
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
      close(fd);
      counters_->refused++;
      continue;
    }
    if (connections.size() >= max_connections_) {
      close(fd);
      CountRefused(counters_->refused, cred.uid);
      continue;
    }
    // One local user must not take every connection (and descriptor) the receiver is willing to hold.
    uint32_t& open_by_user = per_user[cred.uid];
    if (open_by_user >= max_per_user_) {
      close(fd);
      CountRefused(counters_->refused_per_user, cred.uid);
      if (open_by_user == 0) per_user.erase(cred.uid);
      continue;
    }
    // Peers outside any job cgroup (which any user can be, as many times as it has processes) may not
    // take the connections kept for the kernel's job processes: colluding uids, each within its own
    // share, could otherwise fill every connection before a job's processes start.
    bool in_job = reserved_connections_ != 0 && job_cgroups_.InJob(procfs_, cred.pid, cred.uid);
    if (!in_job && connections.size() - in_job_open_ >= max_connections_ - reserved_connections_) {
      close(fd);
      CountRefused(counters_->refused_unverified, cred.uid);
      if (open_by_user == 0) per_user.erase(cred.uid);
      continue;
    }
    uint64_t id = next_id++;
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.u64 = id;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
      close(fd);
      counters_->refused++;
      if (open_by_user == 0) per_user.erase(cred.uid);
      continue;
    }
    Connection connection{fd, id, cred.pid, cred.uid, cred.gid};
    connection.in_job = in_job;
    connections.emplace(id, connection);
    if (in_job) in_job_open_++;
    open_by_user++;
    counters_->accepted++;
  }
}

SeqpacketServer::ReadResult SeqpacketServer::ReadAll(Connection& connection, std::vector<uint8_t>& buffer) {
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred)) + CMSG_SPACE(sizeof(int) * 8)];
  for (int turn = 0; turn < kReadsPerTurn; turn++) {
    iovec iov{buffer.data(), buffer.size()};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    // MSG_TRUNC makes recvmsg return the real length of an oversized message (SEQPACKET, Linux >= 3.4).
    ssize_t got = recvmsg(connection.fd, &msg, MSG_DONTWAIT | MSG_TRUNC | MSG_CMSG_CLOEXEC);
    if (got < 0) {
      if (errno == EINTR) continue;
      return errno == EAGAIN || errno == EWOULDBLOCK ? ReadResult::kDrained : ReadResult::kGone;
    }
    if (got == 0) return ReadResult::kGone;  // orderly shutdown (a zero-length frame is garbage anyway)
    pid_t pid = connection.pid;
    uid_t uid = connection.uid;
    gid_t gid = connection.gid;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET) continue;
      if (c->cmsg_type == SCM_CREDENTIALS && c->cmsg_len >= CMSG_LEN(sizeof(ucred))) {
        ucred cred;
        std::memcpy(&cred, CMSG_DATA(c), sizeof(cred));
        pid = cred.pid;
        uid = cred.uid;
        gid = cred.gid;
      } else if (c->cmsg_type == SCM_RIGHTS) {
        // Nobody should pass descriptors to us; close them so a peer cannot exhaust our fd table.
        size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t k = 0; k < count; k++) {
          int passed;
          std::memcpy(&passed, CMSG_DATA(c) + k * sizeof(int), sizeof(int));
          close(passed);
        }
      }
    }
    auto* event = new Event{Event::kFrame, connection.id, pid, uid, gid, static_cast<size_t>(got), {}, {}};
    event->queue_uid = connection.uid;
    event->queue_pid = connection.pid;
    if (static_cast<size_t>(got) > max_frame_ || (msg.msg_flags & MSG_TRUNC)) {
      event->kind = Event::kOversized;
      counters_->oversized++;
    } else {
      event->data.assign(buffer.begin(), buffer.begin() + got);
      counters_->frames++;
      if (pid != connection.evidence_pid) {
        connection.evidence_pid = pid;
        CaptureEvidence(procfs_, pid, evidence_parts_, event->evidence);
      }
    }
    Deliver(event);
  }
  return ReadResult::kMore;  // epoll (level-triggered) reports the connection again
}

void SeqpacketServer::CloseConnection(std::unordered_map<uint64_t, Connection>& connections, std::unordered_map<uid_t, uint32_t>& per_user, uint64_t id) {
  auto it = connections.find(id);
  if (it == connections.end()) return;
  Connection c = it->second;
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c.fd, nullptr);
  close(c.fd);
  connections.erase(it);
  if (c.in_job) in_job_open_--;
  auto user = per_user.find(c.uid);
  if (user != per_user.end() && --user->second == 0) per_user.erase(user);
  counters_->closed++;
  auto* event = new Event{Event::kClose, c.id, c.pid, c.uid, c.gid, 0, {}, {}};
  event->queue_uid = c.uid;
  event->queue_pid = c.pid;
  Deliver(event);
}

void SeqpacketServer::CountRefused(std::atomic<uint64_t>& reason, uid_t uid) {
  reason++;
  std::lock_guard<std::mutex> lock(counters_->per_uid_mutex);
  counters_->per_uid[uid].refused++;
}

void SeqpacketServer::Stop() {
  if (running_) {
    running_ = false;
    uint64_t one = 1;
    if (write(wake_fd_, &one, sizeof(one)) < 0) {
      // eventfd write cannot fail short of a broken fd; the join below would then hang, so close the epoll fd.
    }
    if (thread_.joinable()) thread_.join();
  }
  if (listen_fd_ >= 0) {
    close(listen_fd_);
    listen_fd_ = -1;
    // Remove the socket file only if it is still ours (a successor may have bound the same path).
    struct stat now;
    if (lstat(path_.c_str(), &now) == 0 && now.st_dev == socket_dev_ && now.st_ino == socket_ino_) unlink(path_.c_str());
  }
  if (epoll_fd_ >= 0) close(epoll_fd_);
  if (wake_fd_ >= 0) close(wake_fd_);
  epoll_fd_ = wake_fd_ = -1;
}

Napi::Value SeqpacketServer::Close(const Napi::CallbackInfo& info) {
  if (info.Length() != 0) throw Napi::TypeError::New(info.Env(), "close() takes no arguments");
  Stop();
  return info.Env().Undefined();
}

Napi::Value SeqpacketServer::Stats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 0) throw Napi::TypeError::New(env, "stats() takes no arguments");
  Counters& c = *counters_;
  bool pending = false;
  if (listen_fd_ >= 0) {
    pollfd p{listen_fd_, POLLIN, 0};
    pending = poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("listening", Napi::Boolean::New(env, listen_fd_ >= 0));
  out.Set("pendingConnections", Napi::Boolean::New(env, pending));
  out.Set("accepted", Napi::Number::New(env, static_cast<double>(c.accepted.load())));
  out.Set("closed", Napi::Number::New(env, static_cast<double>(c.closed.load())));
  out.Set("refused", Napi::Number::New(env, static_cast<double>(c.refused.load())));
  out.Set("refusedPerUser", Napi::Number::New(env, static_cast<double>(c.refused_per_user.load())));
  out.Set("refusedUnverified", Napi::Number::New(env, static_cast<double>(c.refused_unverified.load())));
  out.Set("reservedConnections", Napi::Number::New(env, reserved_connections_));
  out.Set("acceptErrors", Napi::Number::New(env, static_cast<double>(c.accept_errors.load())));
  out.Set("frames", Napi::Number::New(env, static_cast<double>(c.frames.load())));
  out.Set("oversized", Napi::Number::New(env, static_cast<double>(c.oversized.load())));
  out.Set("queueDropped", Napi::Number::New(env, static_cast<double>(c.queue_dropped.load())));
  out.Set("enqueued", Napi::Number::New(env, static_cast<double>(c.enqueued.load())));
  out.Set("delivered", Napi::Number::New(env, static_cast<double>(c.delivered.load())));
  out.Set("queuedBytes", Napi::Number::New(env, static_cast<double>(c.queued_bytes.load())));
  Napi::Object by_uid = Napi::Object::New(env);
  {
    std::lock_guard<std::mutex> lock(c.per_uid_mutex);
    for (const auto& entry : c.per_uid) {
      if (entry.second.dropped != 0) by_uid.Set(std::to_string(entry.first), Napi::Number::New(env, static_cast<double>(entry.second.dropped)));
    }
  }
  out.Set("queueDroppedByUid", by_uid);
  Napi::Object refused_by_uid = Napi::Object::New(env);
  {
    std::lock_guard<std::mutex> lock(c.per_uid_mutex);
    for (const auto& entry : c.per_uid) {
      if (entry.second.refused != 0) refused_by_uid.Set(std::to_string(entry.first), Napi::Number::New(env, static_cast<double>(entry.second.refused)));
    }
  }
  out.Set("refusedByUid", refused_by_uid);
  return out;
}

Napi::Value SeqpacketServer::Ref(const Napi::CallbackInfo& info) {
  if (running_) tsfn_.Ref(info.Env());
  return info.Env().Undefined();
}

Napi::Value SeqpacketServer::Unref(const Napi::CallbackInfo& info) {
  if (running_) tsfn_.Unref(info.Env());
  return info.Env().Undefined();
}

Napi::Value SeqpacketServer::GetPath(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), path_); }

}  // namespace jobio
