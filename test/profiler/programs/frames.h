/* Frame filling shared by frame-tool.c and fake-preload.c: fixed formulas of a scale s. */
#ifndef JOBIO_TEST_FRAMES_H
#define JOBIO_TEST_FRAMES_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "jobio_protocol.h"

#define START_NS 1700000000123456789ULL

static inline void fill_header(struct jobio_frame_header *h, uint16_t kind, uint32_t length, uint64_t seq, uint32_t flags) {
  memset(h, 0, sizeof(*h));
  h->magic = JOBIO_WIRE_MAGIC;
  h->version = JOBIO_WIRE_VERSION;
  h->kind = kind;
  h->length = length;
  h->flags = flags;
  h->sequence = seq;
  h->pid = (int32_t)getpid();
  h->start_ns = START_NS;
  h->now_ns = START_NS + seq * 1000000000ULL;
}

static inline void fill_process(struct jobio_frame_process *p, uint64_t s, uint64_t seq, uint32_t flags, const char *jobid, const char *source) {
  memset(p, 0, sizeof(*p));
  fill_header(&p->header, JOBIO_FRAME_PROCESS, sizeof(*p), seq, flags);
  snprintf(p->jobid, sizeof(p->jobid), "%s", jobid);
  snprintf(p->jobid_source, sizeof(p->jobid_source), "%s", source);
  snprintf(p->exe, sizeof(p->exe), "%s", "frame-tool");
  snprintf(p->path.exe_path, sizeof(p->path.exe_path), "%s", "/opt/jobio-test/bin/frame-tool");
  p->runtime_ns = s * 2500000000ULL;
  p->dropped_frames = s * 2;
  p->ignored_calls = s * 11;
  p->mount_count = 1;
  p->small_threshold = 32768;
  p->large_threshold = 134217728ULL;
  p->sample_every = 1;
  p->network_folded = (uint32_t)(s * 3);
}

static inline void fill_mount(struct jobio_frame_mount *m, uint64_t s, uint64_t seq, uint32_t flags) {
  memset(m, 0, sizeof(*m));
  fill_header(&m->header, JOBIO_FRAME_MOUNT, sizeof(*m), seq, flags);
  snprintf(m->path, sizeof(m->path), "%s", "/data");
  snprintf(m->fstype, sizeof(m->fstype), "%s", "lustre");
  snprintf(m->fsname, sizeof(m->fsname), "%s", "10.0.0.1@tcp:/scratch");
  for (uint64_t c = 0; c < JOBIO_CALL_COUNT; c++) {
    for (uint64_t k = 0; k < JOBIO_CLASS_COUNT; k++) {
      m->call[c].calls[k] = s * (100 * c + 10 * k + 1);
      m->call[c].time_ns[k] = s * (1000000 * c + 1000 * k + 7);
    }
    m->call[c].sampled = s * (c + 3);
  }
  for (uint64_t d = 0; d < JOBIO_DIR_COUNT; d++) {
    for (uint64_t b = 0; b < JOBIO_SIZE_COUNT; b++) {
      m->sized[d][b].calls = s * (10 * d + b + 1);
      m->sized[d][b].bytes = s * (10 * d + b + 1) * 4096;
      m->sized[d][b].time_ns = s * (100 * d + 10 * b + 5);
    }
    for (uint64_t i = 0; i < JOBIO_POW2_BINS; i++) {
      m->pow2_calls[d][i] = s * (64 * d + i);
      m->pow2_bytes[d][i] = s * (64 * d + i) * 3;
    }
    for (uint64_t b = 0; b < JOBIO_SIZE_COUNT; b++) m->max.sized_ns[d][b] = s * (30 * d + 3 * b + 2);
  }
  for (uint64_t c = 0; c < JOBIO_CALL_COUNT; c++) m->max.call_ns[c] = s * (50 * c + 13);
  /* made: the classes' sum, and for opens, creates and stats 5 more still undecided */
  for (uint64_t c = 0; c < JOBIO_CALL_COUNT; c++) {
    int later = c == JOBIO_CALL_OPEN || c == JOBIO_CALL_CREATE || c == JOBIO_CALL_ACCESS;
    m->made.calls[c] = s * (300 * c + 33) + (later ? s * 5 : 0);
    /* their time and timed calls: the classes' sums, and 11 ns in 2 timed calls still undecided */
    m->made.time_ns[c] = s * (3000000 * c + 3021) + (later ? s * 11 : 0);
    m->made.sampled[c] = s * (c + 3) + (later ? s * 2 : 0);
  }
}

#endif
