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
 * R - R_prev is shared among every time counter of the decided calls (call type and class, size
 * bin, reason, short reads) in proportion to its raw time not yet reported, so each reported counter also only
 * grows, stays at or below its raw value, and equals it when nothing is held back.
 *
 * The time of the calls made (struct jobio_mount_made) has a bound of its own, the same one over
 * its own raw total: M, the made time of the opens, creates and stats (counted as they are made,
 * their class decided later) plus the class time of the other call types (decided as they end).
 * Their made time is their classes' reported time (the flush fills it in), so the made words of
 * the opens, creates and stats get max(R_M_prev, min(M, L)) less that, shared in proportion to
 * their pending raw time. Released from the decided total instead, an open or a stat made in a
 * snapshot where nothing was decided would show its time only when decided (at the exit, for a
 * file kept open), and one not yet decided would take the made total past L even with nothing
 * held back. (The other types' class time, released by R, can still take it past L when both
 * totals are held back.) At a normal exit every call made is decided, M = X, and both totals end
 * at the same bounded figure.
 *
 * No cost on the wrapper path: lifetimes are stamped when a thread takes and gives back its block,
 * the rest runs in the flush under its lock.
 */
#include <string.h>

#include "process/timebound.h"

#include "process/thread.h"

#define CALL_WORDS (JOBIO_CALL_COUNT * JOBIO_CLASS_COUNT) /* the primary family: its sum is X */
#define DECIDED_WORDS (CALL_WORDS + JOBIO_DIR_COUNT * JOBIO_SIZE_COUNT + JOBIO_REASON_COUNT + 1) /* + the short reads' */
#define MADE_WORDS 3 /* the call types decided later (JOBIO_CALL_DECIDED_LATER: open, create, access); the others' made time is filled in from their classes' */
#define TIME_WORDS (DECIDED_WORDS + MADE_WORDS) /* the made words last */

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
  /* (a part of the small read bin's time: bounded alike, so that the receiver's difference stays >= 0) */
  jobio_time_word[k++] = (uint16_t)JOBIO_W(short_reads.time_ns);
  for (int ct = 0; ct < JOBIO_CALL_COUNT; ct++)
    if (JOBIO_CALL_DECIDED_LATER(ct) && k < TIME_WORDS) jobio_time_word[k++] = (uint16_t)JOBIO_W(made.time_ns[ct]);
}

void jobio_timebound_reset(void) { memset(jobio_reported, 0, sizeof jobio_reported); }

/* Moves the reported words [from, to) of the sent slots forward by `release` of their `pending`
 * raw time (all of it when release >= pending), each in proportion to its own pending time. */
static void jobio_release(uint64_t sent_slots, size_t from, size_t to, uint64_t release, uint64_t pending) {
  if (release == 0 || pending == 0) return;
  for (int s = 0; s < JOBIO_MAX_SLOTS; s++) {
    if (!(sent_slots >> s & 1)) continue;
    for (size_t k = from; k < to; k++) {
      uint64_t p = jobio_raw[s][k] - jobio_reported[s][k];
      jobio_reported[s][k] += release >= pending ? p : (uint64_t)((unsigned __int128)p * release / pending);
    }
  }
}

/* Sums the raw time counters of the slots to be sent and moves the reported ones forward: the
 * decided ones by R's increment, then the made words by R_M's (above). */
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
  if (target > reported_total) jobio_release(sent_slots, 0, DECIDED_WORDS, target - reported_total, raw_total - reported_total);

  /* the made total: the made words plus the (now reported) class time of the types decided as they end */
  uint64_t made_raw = 0, made_reported = 0, made_pending = 0;
  for (int s = 0; s < JOBIO_MAX_SLOTS; s++) {
    if (!(sent_slots >> s & 1)) continue;
    for (size_t k = DECIDED_WORDS; k < TIME_WORDS; k++) {
      made_raw += jobio_raw[s][k];
      made_reported += jobio_reported[s][k];
      made_pending += jobio_raw[s][k] - jobio_reported[s][k];
    }
    for (int ct = 0; ct < JOBIO_CALL_COUNT; ct++)
      if (!JOBIO_CALL_DECIDED_LATER(ct))
        for (int cls = 0; cls < JOBIO_CLASS_COUNT; cls++) {
          made_raw += jobio_raw[s][(size_t)ct * JOBIO_CLASS_COUNT + (size_t)cls];
          made_reported += jobio_reported[s][(size_t)ct * JOBIO_CLASS_COUNT + (size_t)cls];
        }
  }
  uint64_t made_target = made_raw < thread_time ? made_raw : thread_time;
  if (made_target <= made_reported) return; /* nothing of the made time may be released now */
  jobio_release(sent_slots, DECIDED_WORDS, TIME_WORDS, made_target - made_reported, made_pending);
}

/* The reported time counters of a slot, over the raw sums in a frame being built. */
void jobio_timebound_fill(int slot, struct jobio_mstats *m) {
  uint64_t *w = (uint64_t *)(void *)m;
  for (size_t k = 0; k < TIME_WORDS; k++) w[jobio_time_word[k]] = jobio_reported[slot][k];
}
