#include "event.h"
#include "seqpacket_server.h"

namespace jobio {

void SeqpacketServer::Deliver(Event* event) {
  // Never block the receiving thread on a slow JavaScript side: a full queue drops and counts. The
  // queue is bounded in bytes (what the events hold), not only in events, so memory stays bounded
  // whatever the senders' frame sizes; and each sender uid may hold only its share of it, so one
  // local user's flood costs the others nothing. Only this thread adds, so check-then-add cannot
  // overshoot (delivery only ever lowers the figures). The last quarter of the queue is kept for light
  // senders (a uid holding under a sixteenth of it): four uids flooding their quarters cannot starve a
  // job whose frames come a few at a time (it takes eight to fill the queue).
  event->cost = sizeof(Event) + event->data.capacity() + event->evidence.cgroup.capacity() + event->evidence.job_vars.capacity() + event->evidence.exe.capacity();
  if (event->cost < min_event_cost_) event->cost = min_event_cost_;
  Counters& c = *counters_;
  std::unique_lock<std::mutex> lock(c.per_uid_mutex);
  Counters::PerUid& user = c.per_uid[event->uid];
  bool over_share = max_queue_bytes_per_user_ != 0 && user.bytes + event->cost > max_queue_bytes_per_user_;
  bool over_total = max_queue_bytes_ != 0 && c.queued_bytes.load() + event->cost > max_queue_bytes_;
  bool in_reserve = max_queue_bytes_ != 0 && c.queued_bytes.load() + event->cost > max_queue_bytes_ - max_queue_bytes_ / 4;
  bool heavy = user.bytes + event->cost > max_queue_bytes_ / 16;
  if (over_share || over_total || (in_reserve && heavy)) {
    user.dropped++;
    c.queue_dropped++;
    lock.unlock();
    delete event;
    return;
  }
  user.bytes += event->cost;
  c.queued_bytes += event->cost;
  lock.unlock();
  napi_status status = tsfn_.NonBlockingCall(event);
  if (status == napi_ok) {
    c.enqueued++;
  } else {
    lock.lock();
    user.bytes -= event->cost;
    user.dropped++;
    c.queued_bytes -= event->cost;
    c.queue_dropped++;
    lock.unlock();
    delete event;
  }
}

void SeqpacketServer::CallJs(Napi::Env env, Napi::Function callback, Shared* context, Event* event) {
  if (env == nullptr || callback == nullptr) {
    // The function is being torn down with events still queued (the receiver was closed, or the
    // environment is going away): Node calls its finalizer, which frees `context`, before it empties
    // the queue through here, so `context` must not be touched. The events are dropped: nobody is
    // left to deliver them to, and nobody reads the counters any more.
    delete event;
    return;
  }
  if (context != nullptr) {
    Counters& c = **context;
    std::lock_guard<std::mutex> lock(c.per_uid_mutex);
    c.delivered++;
    c.queued_bytes -= event->cost;
    c.per_uid[event->uid].bytes -= event->cost;
  }
  // Nothing may throw out of this function: it is called from libuv, not from JavaScript, so a C++
  // exception escaping it ends the process (std::terminate). Building the object can fail too, when
  // the environment is shutting down (process.exit with frames still queued: JavaScript can no
  // longer run); the event is then dropped, as there is nobody left to deliver it to.
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
  } catch (const Napi::Error& err) {
    delete event;
    // The listener threw: surface it as an uncaught exception rather than losing it silently. The C
    // call, not err.ThrowAsJavaScriptException(), which throws again when JavaScript cannot run.
    try {
      (void)napi_throw(env, err.Value());
    } catch (...) {
      // (reading the error failed as well: the environment is going away)
    }
  } catch (...) {
    delete event;  // (out of memory): dropped rather than ending the process
  }
}

}  // namespace jobio
