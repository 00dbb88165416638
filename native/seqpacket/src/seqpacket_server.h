// A Unix SOCK_SEQPACKET listening socket for profiler frames, served by its own epoll thread.
//
// Node's net module cannot do SOCK_SEQPACKET nor read peer credentials, which the exporter needs:
// every message is one frame (no framing layer to get wrong), and pid/uid/gid come from the kernel
// (SCM_CREDENTIALS per message, SO_PEERCRED per connection as fallback), never from the payload.
// Messages go to JavaScript through a ThreadSafeFunction that is unref'd, so an idle receiver
// never keeps the process alive. All state lives in the instance (no static globals).
#ifndef JOBIO_SEQPACKET_SERVER_H
#define JOBIO_SEQPACKET_SERVER_H

#include <napi.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "job_cgroup.h"

namespace jobio {

struct SeqpacketEvent;  // event.h

class SeqpacketServer : public Napi::ObjectWrap<SeqpacketServer> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  explicit SeqpacketServer(const Napi::CallbackInfo& info);
  ~SeqpacketServer() override;

  /** One message or connection event handed from the epoll thread to JavaScript (event.h). */
  using Event = SeqpacketEvent;
  /** One accepted peer; owned by the epoll thread. */
  struct Connection;
  /** Counters shared by the server, its thread and queued deliveries (which may outlive the server). */
  struct Counters {
    std::atomic<uint64_t> accepted{0};
    std::atomic<uint64_t> closed{0};
    std::atomic<uint64_t> refused{0};
    /** Connections closed at once because their uid already had max_per_user_ open. */
    std::atomic<uint64_t> refused_per_user{0};
    /** Connections closed at once from outside any job cgroup when only the reserved ones were left. */
    std::atomic<uint64_t> refused_unverified{0};
    /** accept4() failures for lack of descriptors or memory (each pauses accepting, see Run()). */
    std::atomic<uint64_t> accept_errors{0};
    std::atomic<uint64_t> frames{0};
    std::atomic<uint64_t> oversized{0};
    std::atomic<uint64_t> queue_dropped{0};
    std::atomic<uint64_t> enqueued{0};
    std::atomic<uint64_t> delivered{0};
    /** Bytes held by events waiting for JavaScript (payload, evidence and per-event overhead). */
    std::atomic<uint64_t> queued_bytes{0};
    /**
     * Per sender uid: bytes it holds in the queue and events of it dropped. One user's flood must not
     * take the queue from the others, so each uid may hold at most max_queue_bytes_per_user_. Written
     * by the epoll thread (enqueue) and the JavaScript thread (delivery), hence the mutex; a map entry
     * per uid that ever sent (bounded by the accounts on the host).
     */
    /** The events of one process waiting for JavaScript, oldest first, linked by Event::next. */
    struct PerProcess {
      SeqpacketEvent* first = nullptr;
      SeqpacketEvent* last = nullptr;
    };
    struct PerUid {
      uint64_t bytes = 0;
      uint64_t dropped = 0;
      /**
       * Events of its connections waiting for JavaScript, per process that made the connection
       * (Event::queue_pid), each in the order it was read. An entry exists only while it has events
       * waiting, so there are never more entries than waiting events, and an ordered map gives their
       * memory back as they go (a hash map keeps its largest bucket array).
       */
      std::map<pid_t, PerProcess> waiting;
      /**
       * Those processes, in turn: within the uid's turn, one event of each process in turn, so one
       * flooding process delays the uid's other processes (the other ranks of a job) by one event
       * per turn, not by its whole flood. A list, so that moving the front to the back (every
       * delivery) never allocates.
       */
      std::list<pid_t> turns;
      /** Connections of this uid refused at accept, whatever the reason. */
      uint64_t refused = 0;
    };
    std::mutex per_uid_mutex;
    std::map<uid_t, PerUid> per_uid;
    /**
     * Uids with events waiting, in turn: JavaScript takes one event of each in turn (delivery.cc), so
     * a uid's events wait behind as many of each other uid's, not behind a whole flood of them. An
     * event waits in the queue of its connection's uid (Event::queue_uid), so one connection's events
     * keep their order even when its process changes user between them; its bytes count against
     * the share of the uid that sent it (Event::uid). A list, as PerUid::turns.
     */
    std::list<uid_t> turns;
    ~Counters();
  };
  using Shared = std::shared_ptr<Counters>;
  /** Hands JavaScript the next waiting event in turn (delivery.cc); `event` is unused (one call per waiting event). */
  static void CallJs(Napi::Env env, Napi::Function callback, Shared* context, Event* event);
  /** Hands one event to JavaScript and frees it; false when the listener threw (rethrown there). */
  static bool CallOne(Napi::Env env, Napi::Function callback, Event* event);
  using Tsfn = Napi::TypedThreadSafeFunction<Shared, Event, CallJs>;

 private:
  Napi::Value Close(const Napi::CallbackInfo& info);
  Napi::Value Stats(const Napi::CallbackInfo& info);
  Napi::Value Ref(const Napi::CallbackInfo& info);
  Napi::Value Unref(const Napi::CallbackInfo& info);
  Napi::Value GetPath(const Napi::CallbackInfo& info);

  void Listen(Napi::Env env);
  void Adopt(Napi::Env env);  // options.listenFd instead of bind + listen
  void Watch(Napi::Env env);  // the epoll set: the listening socket and the wake eventfd
  void Run();
  /** Accepts until EAGAIN; returns false when accept4 ran out of descriptors or memory. */
  bool AcceptAll(std::unordered_map<uint64_t, Connection>& connections, std::unordered_map<uid_t, uint32_t>& per_user, uint64_t& next_id);
  /** Stops (false) or resumes (true) polling the listening socket. */
  void ArmListen(bool on);
  /** What ReadAll left behind: nothing to read now, more messages waiting, or a peer that is gone. */
  enum class ReadResult { kDrained, kMore, kGone };
  /** Reads until EAGAIN, end of file or kReadsPerTurn messages. */
  ReadResult ReadAll(Connection& connection, std::vector<uint8_t>& buffer);
  /** Counts a connection of `uid` refused at accept (`reason`: one of the Counters' refused figures). */
  void CountRefused(std::atomic<uint64_t>& reason, uid_t uid);
  void CloseConnection(std::unordered_map<uint64_t, Connection>& connections, std::unordered_map<uid_t, uint32_t>& per_user, uint64_t id);
  /** Queues an event for JavaScript, or drops and counts it (delivery.cc). */
  void Deliver(Event* event);
  void Stop();
  static void OnEnvCleanup(SeqpacketServer* self);

  std::string path_;
  std::string procfs_;
  unsigned evidence_parts_ = 0;  // EvidencePart bits read with a sender's first frame (options.evidence)
  unsigned mode_ = 0666;
  uint32_t max_frame_ = 0;
  uint32_t max_connections_ = 0;
  uint32_t max_per_user_ = 0;
  // Connections kept for peers in a job cgroup (job_cgroups_): the others may hold max_connections_
  // minus these. The count of open ones in a job cgroup is the epoll thread's.
  uint32_t reserved_connections_ = 0;
  uint32_t in_job_open_ = 0;
  JobCgroupMatcher job_cgroups_;
  uint64_t max_queue_bytes_ = 0;
  uint64_t max_queue_bytes_per_user_ = 0;
  // Every event is charged at least this much (the queue's bytes over its event slots), so the byte
  // shares bound the event slots too: a flood of tiny frames cannot fill the slots under its share.
  uint64_t min_event_cost_ = 0;
  int listen_fd_ = -1;
  int adopt_fd_ = -1;  // options.listenFd: an inherited listening socket, adopted instead of bound
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  dev_t socket_dev_ = 0;
  ino_t socket_ino_ = 0;
  bool running_ = false;
  std::thread thread_;
  Tsfn tsfn_;
  Shared counters_ = std::make_shared<Counters>();
  Napi::Env::CleanupHook<void (*)(SeqpacketServer*), SeqpacketServer> cleanup_;
  bool has_cleanup_ = false;
};

}  // namespace jobio

#endif
