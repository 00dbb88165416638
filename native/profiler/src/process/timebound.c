/*
 * The time estimate a snapshot reports, bounded by what the process's threads can physically have
 * spent in calls (docs/profiler.md, "The time estimate and its bound").
 *
 * The thread blocks hold the raw Horvitz-Thompson estimate (a timed call's duration times its
 * weight): unbiased, but under CPU oversubscription one timed call that waited a time slice for the
 * CPU counts that wait `sample_every` times, so the raw sum can exceed the sum of the threads'
 * lifetimes L, which no set of calls can (a thread is in at most one call at a time). A snapshot
 * therefore reports, for the process's total I/O time,
 *
 *     R = max(R_prev, min(X, L))      X: the raw total, L: the threads' lifetimes until now
 *
 * Both X and L only grow, so R only grows, never exceeds L, and equals X whenever X <= L: mass
 * above the bound is held back, not lost, and is released as the threads live on. The increment
 * R - R_prev is shared among every time counter (call type and class, size bin, reason, the time of
 * the opens, creates and stats made: struct jobio_mount_made, whose class is decided later) in
 * proportion to its raw time not yet reported, so each reported counter also only grows, stays
 * at or below its raw value, and equals it when nothing is held back.
 *
 * No cost on the wrapper path: lifetimes are stamped when a thread takes and gives back its block,
 * the rest runs in the flush under its lock.
 */
#include <string.h>

#include "process/timebound.h"

#include "process/thread.h"

#define CALL_WORDS (JOBIO_CALL_COUNT * JOBIO_CLASS_COUNT) /* the primary family: its sum is X */
#define MADE_WORDS 3 /* the call types decided later (JOBIO_CALL_DECIDED_LATER); the others' made time is filled in from their classes' */
#define TIME_WORDS (CALL_WORDS + JOBIO_DIR_COUNT * JOBIO_SIZE_COUNT + JOBIO_REASON_COUNT + MADE_WORDS)

static uint16_t jobio_time_word[TIME_WORDS]; /* word index of each time counter in the mstats */
static uint64_t jobio_reported[JOBIO_MAX_SLOTS][TIME_WORDS];
static uint64_t jobio_raw[JOBIO_MAX_SLOTS][TIME_WORDS];

static void jobio_time_words_init(void) {
  if (jobio_time_word[TIME_WORDS - 1]) return;
  size_t k = 0;
  for (int ct = 0; ct < JOBIO_CALL_COUNT; ct++)
    for (int cls = 0; cls < JOBIO_CLASS_COUNT; cls++) jobio_time_word[k++] = (uint16_t)JOBIO_W(call[ct].time_ns[cls]);
  for (int d = 0; d < JOBIO_DIR_COUNT; d++)
    for (int z = 0; z < JOBIO_SIZE_COUNT; z++) jobio_time_word[k++] = (uint16_t)JOBIO_W(sized[d][z].time_ns);
  for (int r = 0; r < JOBIO_REASON_COUNT; r++) jobio_time_word[k++] = (uint16_t)JOBIO_W(ext.reason_time_ns[r]);
  for (int ct = 0; ct < JOBIO_CALL_COUNT; ct++)
    if (JOBIO_CALL_DECIDED_LATER(ct)) jobio_time_word[k++] = (uint16_t)JOBIO_W(made.time_ns[ct]);
}

void jobio_timebound_reset(void) { memset(jobio_reported, 0, sizeof jobio_reported); }

/* Sums the raw time counters of the slots to be sent and moves the reported ones forward. */
void jobio_timebound_update(uint64_t sent_slots, uint64_t thread_time) {
  jobio_time_words_init();
  uint64_t raw_total = 0, reported_total = 0;
  for (int s = 0; s < JOBIO_MAX_SLOTS; s++) {
    if (!(sent_slots >> s & 1)) continue;
    memset(jobio_raw[s], 0, sizeof jobio_raw[s]);
    for (struct jobio_block *b = jobio_blocks_head(); b; b = b->next) {
      const uint64_t *w = (const uint64_t *)(const void *)&b->m[s];
      for (size_t k = 0; k < TIME_WORDS; k++) jobio_raw[s][k] += __atomic_load_n(&w[jobio_time_word[k]], __ATOMIC_RELAXED);
    }
    for (size_t k = 0; k < TIME_WORDS; k++) /* a counter read mid-update is at most one call late */
      if (jobio_raw[s][k] < jobio_reported[s][k]) jobio_raw[s][k] = jobio_reported[s][k];
    for (size_t k = 0; k < CALL_WORDS; k++) {
      raw_total += jobio_raw[s][k];
      reported_total += jobio_reported[s][k];
    }
  }
  uint64_t target = raw_total < thread_time ? raw_total : thread_time;
  uint64_t pending = raw_total - reported_total;
  if (target <= reported_total || pending == 0) return; /* nothing may be released now */
  uint64_t release = target - reported_total;
  for (int s = 0; s < JOBIO_MAX_SLOTS; s++) {
    if (!(sent_slots >> s & 1)) continue;
    for (size_t k = 0; k < TIME_WORDS; k++) {
      uint64_t p = jobio_raw[s][k] - jobio_reported[s][k];
      jobio_reported[s][k] += release == pending ? p : (uint64_t)((unsigned __int128)p * release / pending);
    }
  }
}

/* The reported time counters of a slot, over the raw sums in a frame being built. */
void jobio_timebound_fill(int slot, struct jobio_mstats *m) {
  uint64_t *w = (uint64_t *)(void *)m;
  for (size_t k = 0; k < TIME_WORDS; k++) w[jobio_time_word[k]] = jobio_reported[slot][k];
}
