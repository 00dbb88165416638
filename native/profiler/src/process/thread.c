/*
 * The accumulation blocks. A thread takes a block at its first counted call (wrap/entry.c) and gives
 * it back when it ends (its pthread key's destructor); blocks are never freed (see struct
 * jobio_block).
 */
#include "process/thread.h"

#include "base/log.h"
#include "base/state.h"
#include "base/sys.h"
#include "base/tls.h"

static pthread_key_t jobio_thread_key;
static int jobio_key_ok;
static struct jobio_block *jobio_blocks;

struct jobio_block *jobio_blocks_head(void) { return __atomic_load_n(&jobio_blocks, __ATOMIC_ACQUIRE); }

struct jobio_block *jobio_block_claim(void) {
  for (struct jobio_block *b = jobio_blocks_head(); b; b = b->next) {
    uint32_t zero = 0;
    if (!__atomic_load_n(&b->in_use, __ATOMIC_RELAXED) &&
        __atomic_compare_exchange_n(&b->in_use, &zero, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
      __atomic_store_n(&b->life_start, jobio_now(), __ATOMIC_RELEASE);
      return b;
    }
  }
  struct jobio_block *b = jobio_sys_mmap(sizeof(struct jobio_block));
  if (!b) {
    jobio_log("cannot allocate a thread block", (long)sizeof(struct jobio_block));
    return NULL;
  }
  b->in_use = 1;
  b->life_start = jobio_now();
  struct jobio_block *head = jobio_blocks_head();
  do {
    b->next = head;
  } while (!__atomic_compare_exchange_n(&jobio_blocks, &head, b, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
  return b;
}

void jobio_blocks_reset_child(struct jobio_block *keep) {
  for (struct jobio_block *b = jobio_blocks_head(); b; b = b->next) {
    b->active = 0;
    b->ignored = 0;
    jobio_sys_zero(b->m, sizeof b->m);
    b->in_use = (b == keep);
    b->life_done = 0;
    b->life_start = b == keep ? jobio_now() : 0;
  }
}

/* A thread's lifetime ends: clear its start before adding its length, so that a flush reading
 * life_done then life_start (jobio_threads_time) never counts it twice. */
static void jobio_block_life_end(struct jobio_block *b) {
  uint64_t start = __atomic_exchange_n(&b->life_start, 0, __ATOMIC_ACQ_REL);
  if (start) __atomic_add_fetch(&b->life_done, jobio_now() - start, __ATOMIC_RELEASE);
}

/* The sum of the lifetimes of this process's threads until now (counted from each thread's first
 * counted call): the physical bound of the time the process can have spent in calls. */
uint64_t jobio_threads_time(uint64_t now) {
  uint64_t sum = 0;
  for (struct jobio_block *b = jobio_blocks_head(); b; b = b->next) {
    sum += __atomic_load_n(&b->life_done, __ATOMIC_ACQUIRE);
    uint64_t start = __atomic_load_n(&b->life_start, __ATOMIC_ACQUIRE);
    if (start && start < now) sum += now - start;
  }
  return sum;
}

static void jobio_thread_end(void *p) {
  struct jobio_tls *t = &jobio_t;
  struct jobio_block *b = p;
  if (t->block == b) jobio_set_block(t, NULL);
  t->exiting = 1;
  /* a thread that ends waiting for SQLite's directory sync no longer holds the component gate open */
  if (t->sqlite_dir) {
    t->sqlite_dir = 0;
    jobio_component_gate_add(-1);
  }
  if (b) {
    jobio_block_life_end(b);
    __atomic_store_n(&b->in_use, 0, __ATOMIC_RELEASE);
  }
}

void jobio_threads_init(void) {
  if (pthread_key_create(&jobio_thread_key, jobio_thread_end) == 0) jobio_key_ok = 1;
}

void jobio_thread_holds(struct jobio_block *b) {
  if (jobio_key_ok) pthread_setspecific(jobio_thread_key, b);
}
