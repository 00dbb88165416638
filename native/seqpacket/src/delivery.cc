#include <list>

#include "event.h"
#include "seqpacket_server.h"

namespace jobio {

namespace {

using Counters = SeqpacketServer::Counters;

// Puts `event` at the back of its process's queue, and the process and its uid at the back of their
// turns if they had nothing waiting. Only a process's first waiting event allocates (its entry and
// turn); the list nodes are made apart and spliced in once every allocation has succeeded, so running
// out of memory leaves the queues as they were (false): the receiving thread drops the event then,
// rather than ending the process.
bool Enqueue(Counters& c, Counters::PerUid& queue, SeqpacketEvent* event) {
  std::list<uid_t> uid_turn;
  std::list<pid_t> process_turn;
  Counters::PerProcess* process = nullptr;
  try {
    auto found = queue.waiting.find(event->queue_pid);
    if (found == queue.waiting.end()) {
      if (queue.turns.empty()) uid_turn.push_back(event->queue_uid);
      process_turn.push_back(event->queue_pid);
      found = queue.waiting.emplace(event->queue_pid, Counters::PerProcess{}).first;  // the last allocation
    }
    process = &found->second;
  } catch (...) {
    return false;
  }
  event->next = nullptr;
  if (process->last != nullptr) {
    process->last->next = event;
  } else {
    process->first = event;
  }
  process->last = event;
  queue.turns.splice(queue.turns.end(), process_turn);
  c.turns.splice(c.turns.end(), uid_turn);
  return true;
}

// Takes `event` back if JavaScript has not taken it yet: it is then the last of its process's
// (only the receiving thread adds, and JavaScript takes from the front).
bool Withdraw(Counters& c, Counters::PerUid& queue, SeqpacketEvent* event) {
  auto found = queue.waiting.find(event->queue_pid);
  if (found == queue.waiting.end() || found->second.last != event) return false;
  Counters::PerProcess& process = found->second;
  if (process.first == event) {
    queue.waiting.erase(found);
    queue.turns.remove(event->queue_pid);
    if (queue.turns.empty()) c.turns.remove(event->queue_uid);
    return true;
  }
  SeqpacketEvent* before = process.first;
  while (before->next != event) before = before->next;
  before->next = nullptr;
  process.last = before;
  return true;
}

// The next event in turn: the oldest of the first process in turn of the first uid in turn. The
// process, then the uid, go to the back of their turns if they have more waiting (a splice: no
// allocation on the JavaScript thread), else leave them. Null only if the queues disagree with the
// turns, which they cannot.
SeqpacketEvent* TakeNext(Counters& c) {
  if (c.turns.empty()) return nullptr;
  auto owner = c.per_uid.find(c.turns.front());
  if (owner == c.per_uid.end() || owner->second.turns.empty()) {
    c.turns.pop_front();
    return nullptr;
  }
  Counters::PerUid& queue = owner->second;
  auto found = queue.waiting.find(queue.turns.front());
  if (found == queue.waiting.end() || found->second.first == nullptr) {
    if (found != queue.waiting.end()) queue.waiting.erase(found);
    queue.turns.pop_front();
    if (queue.turns.empty()) c.turns.pop_front();
    return nullptr;
  }
  Counters::PerProcess& process = found->second;
  SeqpacketEvent* event = process.first;
  process.first = event->next;
  event->next = nullptr;
  if (process.first == nullptr) {
    queue.waiting.erase(found);
    queue.turns.pop_front();
  } else {
    queue.turns.splice(queue.turns.end(), queue.turns, queue.turns.begin());
  }
  if (queue.turns.empty()) {
    c.turns.pop_front();
  } else {
    c.turns.splice(c.turns.end(), c.turns, c.turns.begin());
  }
  return event;
}

}  // namespace

SeqpacketServer::Counters::~Counters() {
  for (auto& entry : per_uid) {
    for (auto& process : entry.second.waiting) {
      for (SeqpacketEvent* event = process.second.first; event != nullptr;) {
        SeqpacketEvent* next = event->next;
        delete event;
        event = next;
      }
    }
  }
}

void SeqpacketServer::Deliver(Event* event) {
  // Never block the receiving thread on a slow JavaScript side: a full queue drops and counts. The
  // queue is bounded in bytes (what the events hold), not only in events, so memory stays bounded
  // whatever the senders' frame sizes; and each sender uid may hold only its share of it, so one
  // local user's flood costs the others nothing. Only this thread adds, so check-then-add cannot
  // overshoot (delivery only ever lowers the figures). The last quarter of the queue is kept for light
  // senders (a uid holding under a sixteenth of it): four uids flooding their quarters cannot starve a
  // job whose frames come a few at a time (it takes eight to fill the queue). Each uid's events wait
  // in a queue of their own, taken in turns (CallJs), so a light sender's events are not held behind
  // the floods' (which, held long enough, made it heavy too); within a uid, the events of each process
  // that made a connection wait in a queue of their own, taken in turns too, so one process's flood
  // does not hold back the same user's other processes (the other ranks of its job). By the process
  // that connected, not by connection: an exec'd image says hello on a new connection from the same
  // pid, and taken in turns with the old connection its frames overtook the old image's last ones,
  // which the process table then took as stale. An event waits in the queue of its connection's uid
  // and process, not of its sender's: a process that changes user (a root job's child becoming
  // nobody) sends its later frames with the new uid on the connection it opened before, and queued
  // by sender they overtook its earlier ones (its hello), which then looked stale to the process
  // table. Its bytes still count against the sender's share.
  event->cost = sizeof(Event) + event->data.capacity() + event->evidence.cgroup.capacity() + event->evidence.job_vars.capacity() + event->evidence.exe.capacity();
  if (event->cost < min_event_cost_) event->cost = min_event_cost_;
  Counters& c = *counters_;
  std::unique_lock<std::mutex> lock(c.per_uid_mutex);
  Counters::PerUid& user = c.per_uid[event->uid];
  bool over_share = max_queue_bytes_per_user_ != 0 && user.bytes + event->cost > max_queue_bytes_per_user_;
  bool over_total = max_queue_bytes_ != 0 && c.queued_bytes.load() + event->cost > max_queue_bytes_;
  bool in_reserve = max_queue_bytes_ != 0 && c.queued_bytes.load() + event->cost > max_queue_bytes_ - max_queue_bytes_ / 4;
  bool heavy = user.bytes + event->cost > max_queue_bytes_ / 16;
  Counters::PerUid& queue = c.per_uid[event->queue_uid];
  if (over_share || over_total || (in_reserve && heavy) || !Enqueue(c, queue, event)) {
    user.dropped++;
    c.queue_dropped++;
    lock.unlock();
    delete event;
    return;
  }
  user.bytes += event->cost;
  c.queued_bytes += event->cost;
  c.enqueued++;  // before the call: JavaScript may take it at once, and delivered never passes enqueued
  lock.unlock();
  // One call per waiting event, as before the turns: each call hands JavaScript one event, the next
  // in turn (whichever uid's and process's it is), so the event loop is paced as it always was.
  if (tsfn_.NonBlockingCall(nullptr) == napi_ok) return;
  // Closing: take it back (this thread is the only one adding, and no call is left to take it).
  lock.lock();
  if (Withdraw(c, queue, event)) {
    user.bytes -= event->cost;
    c.queued_bytes -= event->cost;
    user.dropped++;
    c.queue_dropped++;
    c.enqueued--;
    delete event;
  }
}

void SeqpacketServer::CallJs(Napi::Env env, Napi::Function callback, Shared* context, Event* /* unused: one call per waiting event */) {
  if (env == nullptr || callback == nullptr || context == nullptr) {
    // The function is being torn down (the receiver was closed, or the environment is going away):
    // Node calls its finalizer, which frees `context`, before it empties the queue through here, so
    // `context` must not be touched. The waiting events go with the counters.
    return;
  }
  Counters& c = **context;
  Event* event = nullptr;
  {
    std::lock_guard<std::mutex> lock(c.per_uid_mutex);
    event = TakeNext(c);
    if (event == nullptr) return;  // (cannot happen: one call per waiting event)
    c.delivered++;
    c.queued_bytes -= event->cost;
    auto sender = c.per_uid.find(event->uid);
    if (sender != c.per_uid.end()) sender->second.bytes -= event->cost;
  }
  CallOne(env, callback, event);
}

bool SeqpacketServer::CallOne(Napi::Env env, Napi::Function callback, Event* event) {
  // Nothing may throw out of here: it is called from libuv, not from JavaScript, so a C++ exception
  // escaping it ends the process (std::terminate). Building the object can fail too, when the
  // environment is shutting down (process.exit with frames still queued: JavaScript can no longer
  // run); the event is then dropped, as there is nobody left to deliver it to.
  try {
    Napi::Object out = Napi::Object::New(env);
    const char* type = event->kind == Event::kFrame ? "frame" : event->kind == Event::kOversized ? "oversized" : "close";
    out.Set("type", Napi::String::New(env, type));
    out.Set("connection", Napi::Number::New(env, static_cast<double>(event->connection)));
    out.Set("pid", Napi::Number::New(env, event->pid));
    out.Set("uid", Napi::Number::New(env, event->uid));
    out.Set("gid", Napi::Number::New(env, event->gid));
    out.Set("size", Napi::Number::New(env, static_cast<double>(event->size)));
    if (event->kind == Event::kFrame) out.Set("data", Napi::Buffer<uint8_t>::Copy(env, event->data.data(), event->data.size()));
    const Evidence& found = event->evidence;
    if (found.has_evidence) {
      Napi::Object evidence = Napi::Object::New(env);
      if (found.has_cgroup) evidence.Set("cgroup", Napi::String::New(env, found.cgroup));
      if (found.has_environ) evidence.Set("environ", Napi::Buffer<char>::Copy(env, found.job_vars.data(), found.job_vars.size()));
      if (found.has_exe) evidence.Set("exe", Napi::String::New(env, found.exe));
      out.Set("evidence", evidence);
    }
    delete event;
    event = nullptr;
    callback.Call({out});
    return true;
  } catch (const Napi::Error& err) {
    delete event;
    // The listener threw: surface it as an uncaught exception rather than losing it silently. The C
    // call, not err.ThrowAsJavaScriptException(), which throws again when JavaScript cannot run.
    try {
      (void)napi_throw(env, err.Value());
    } catch (...) {
      // (reading the error failed as well: the environment is going away)
    }
    return false;
  } catch (...) {
    delete event;  // (out of memory): dropped rather than ending the process
    return true;
  }
}

}  // namespace jobio
