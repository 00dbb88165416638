// What the epoll thread hands to JavaScript (SeqpacketServer::Event), and the delivery itself in
// delivery.cc: a queue bounded in bytes overall and per sender uid, drained by a ThreadSafeFunction.
#ifndef JOBIO_SEQPACKET_DELIVERY_H
#define JOBIO_SEQPACKET_DELIVERY_H

#include <sys/types.h>

#include <cstdint>
#include <vector>

#include "evidence.h"
#include "seqpacket_server.h"

namespace jobio {

struct SeqpacketServer::Event {
  enum Kind { kFrame, kOversized, kClose } kind;
  uint64_t connection;
  pid_t pid;
  uid_t uid;
  gid_t gid;
  size_t size;
  std::vector<uint8_t> data;
  Evidence evidence;
  uint64_t cost = 0;  // what it adds to Counters::queued_bytes while queued (set by Deliver)
};

}  // namespace jobio

#endif
