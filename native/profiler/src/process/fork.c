/*
 * Fork: a child is a process of its own (its pid, start time, counts, descriptors, connection),
 * reset by the pthread_atfork child handler, or at its first flush when it was made without the
 * handlers (_Fork, clone).
 */
#include "process/fork.h"

#include "base/state.h"
#include "base/sys.h"
#include "base/tls.h"
#include "process/fdtab.h"
#include "process/flush.h"
#include "process/mounts.h"
#include "process/net_peers.h"
#include "process/stattab.h"
#include "process/thread.h"
#include "transport/transport.h"

static void jobio_atfork_parent(void) {
  if (__atomic_load_n(&jobio_g.init_state, __ATOMIC_ACQUIRE) != 2 || !jobio_cfg.active) return;
  jobio_fds_after_fork(0);
}

static void jobio_reset_child(void) {
  struct jobio_tls *t = &jobio_t;
  t->busy++;
  jobio_g.pid = jobio_sys_getpid();
  jobio_g.start_rt_ns = jobio_now_real();
  jobio_g.start_mono_ns = jobio_now();
  jobio_g.next_flush_ns = jobio_g.start_mono_ns + jobio_cfg.timeframe_ns;
  jobio_g.io_uring_setups = jobio_g.posix_aio_calls = jobio_g.libaio_iocbs = jobio_g.mmap_bytes = 0;
  jobio_g.spawned_total = 0;
  jobio_g.ended = 0;
  /* the other threads are gone with whatever component they were inside (another thread's MPI_Init
   * is not the child's): only this thread's depths stay, each counted in the gate as when entered */
  __atomic_store_n(&jobio_g.mpi_runtime, t->mpi_runtime, __ATOMIC_RELAXED);
  jobio_component_gate_set((uint32_t)(jobio_g.python != 0) + t->mpi_runtime + (t->mpi_io != 0) + (t->sqlite_dir != 0));
  jobio_set_next_tick();
  jobio_blocks_reset_child(t->block);
  jobio_fds_after_fork(1);
  jobio_stats_reset();
  jobio_transport_after_fork();
  jobio_flush_after_fork();
  jobio_mounts_after_fork();
  jobio_net_after_fork();
  jobio_flush_hello(); /* the child is a process of its own: met while alive */
  t->busy--;
}

static void jobio_atfork_child(void) {
  if (__atomic_load_n(&jobio_g.init_state, __ATOMIC_ACQUIRE) != 2 || !jobio_cfg.active) return;
  jobio_reset_child();
}

void jobio_fork_handlers_install(void) { pthread_atfork(NULL, jobio_atfork_parent, jobio_atfork_child); }

/* A child made without fork handlers (_Fork, clone): noticed at flush time by its pid. */
void jobio_check_pid(void) {
  if (jobio_sys_getpid() != jobio_g.pid) jobio_reset_child();
}

/* Here, not in flush.c: under the lock it first notices a child made without fork handlers, whose
 * reset (above) needs flush.c. */
void jobio_flush_periodic(uint32_t flags) {
  if (!jobio_cfg.socket_path[0]) return;
  if (!jobio_flush_trylock()) return; /* another thread is flushing */
  jobio_check_pid();
  if (__atomic_load_n(&jobio_g.ended, __ATOMIC_ACQUIRE)) { /* the final snapshot is sent: nothing after it */
    jobio_flush_unlock();
    return;
  }
  jobio_flush_locked(flags);
  jobio_flush_unlock();
}
