// What the epoll thread hands to JavaScript (SeqpacketServer::Event). The delivery itself is
// delivery.cc: a queue bounded in bytes overall and per sender uid, drained by a ThreadSafeFunction
// in turns (uid by uid, and process by process within a uid).
// Apart from the server's header, so that the server (which makes events) and the delivery (which
// queues them) both include it without including each other.
#ifndef JOBIO_SEQPACKET_EVENT_H
#define JOBIO_SEQPACKET_EVENT_H

#include <sys/types.h>

#include <cstdint>
#include <vector>

#include "evidence.h"

namespace jobio {

struct SeqpacketEvent {
  enum Kind { kFrame, kOversized, kClose } kind;
  uint64_t connection;
  pid_t pid;
  uid_t uid;
  gid_t gid;
  size_t size;
  std::vector<uint8_t> data;
  Evidence evidence;
  /**
   * The uid of the connection it came on (the kernel's SO_PEERCRED at connect), which keeps it in
   * its connection's order while it waits (delivery.cc); `uid` is the message's own sender.
   */
  uid_t queue_uid = 0;
  /**
   * The pid of the process that made that connection (SO_PEERCRED at connect): within its uid's
   * turn, each such process's events take a turn of their own (delivery.cc). By process rather than
   * by connection, so that the frames of an exec'd image, which come on a new connection from the
   * same pid, do not overtake the last ones of the image before it.
   */
  pid_t queue_pid = 0;
  uint64_t cost = 0;  // what it adds to Counters::queued_bytes while queued (set by Deliver)
  /** The next waiting event of the same process (delivery.cc): its queue costs no allocation. */
  SeqpacketEvent* next = nullptr;
};

}  // namespace jobio

#endif
