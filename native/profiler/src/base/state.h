/*
 * The process-wide configuration (read once from the environment by config.c) and the process-wide
 * state (state.c): plain records every layer reads. They are filled by the initialisation
 * (wrap/entry.c), from the constructor or lazily from the first wrapper that runs, and reset in a
 * fork child (process/fork.c).
 */
#ifndef JOBIO_STATE_H
#define JOBIO_STATE_H
#include "base/common.h"

#pragma GCC visibility push(hidden)

struct jobio_config {
  uint64_t small;       /* JOBIO_SMALL_THRESHOLD */
  uint64_t large;       /* JOBIO_LARGE_THRESHOLD */
  uint32_t sample_every;
  uint32_t max_per_sec; /* 0: no cap */
  uint64_t timeframe_ns;
  int flush_thread;        /* JOBIO_FLUSH_THREAD: a thread sends the snapshot at each frame's end */
  uint64_t frame_origin_ns; /* JOBIO_FRAME_ORIGIN_NS: wall clock the frames are counted from (0: start) */
  int network;
  int active;           /* this process is traced */
  int add_bypass_env;   /* add JOBIO_BYPASSED to the environment of exec'd children */
  int debug;
  char socket_path[108];
  char refused_socket_path[108]; /* JOBIO_REFUSED_SOCKET: where a process the run's socket refuses says so */
  char error_log[256];
  char volumes[256]; /* JOBIO_VOLUMES: a file of directories treated as mount points (process/mounts.c) */
};
extern struct jobio_config jobio_cfg;

struct jobio_state {
  int init_state; /* 0 none, 1 in progress, 2 done */
  pid_t pid;
  uint64_t start_rt_ns;
  uint64_t start_mono_ns;
  uint64_t next_flush_ns;
  uint64_t next_tick_ns; /* when a timed call must call jobio_tick: next_flush_ns, or 0 with a sampling cap */
  char exe[64];
  char jobid[64];
  char jobid_source[16];
  char bypass_name[64];
  int from_constructor; /* 1 when the constructor (not a wrapper) initialised */
  /* I/O seen but not counted (struct jobio_process_ext); atomics, reset in a fork child */
  uint64_t io_uring_setups;
  uint64_t posix_aio_calls;
  uint64_t libaio_iocbs;
  uint64_t mmap_bytes;
  char exec_target[64];
  int exiting_normally; /* the destructor runs: stdio streams will be flushed after it */
  uint64_t spawned_total; /* children started by vfork/posix_spawn (struct jobio_process_ext) */
  struct jobio_spawned spawned[JOBIO_SPAWN_RING];
  char vfork_target[28]; /* written by a vfork child's exec wrapper (it shares our memory) */
  int ended;             /* the FINAL snapshot is sent (or being sent): no periodic one after it */
  pid_t flusher_pid;     /* the process whose flush thread runs (a fork child starts its own) */
  uint32_t mpi_runtime;  /* threads inside MPI_Init/MPI_Finalize: every call is the MPI runtime's (wrap_mpi.c) */
  int python;            /* the executable is a Python interpreter: its module files are its import system's (pyimports.h) */
  /* Nonzero while a component rule that needs more than a path's name may apply (process/mounts.h,
   * jobio_component_slot): 1 for a Python interpreter, plus the threads inside MPI_Init/MPI_Finalize,
   * plus those inside an MPI_File_* call, plus those waiting for SQLite's directory sync. One load
   * and a branch on every call that decides a slot from a path; changed only through
   * jobio_component_gate_add/_set; recounted in a fork child. */
  uint32_t component_gate;
};
extern struct jobio_state jobio_g;

/* JOBIO_PW_SQLITE_BITS (base/pathwalk.h) while the component gate is shut, every bit while it is
 * open: one word answers both questions for a walked path (process/mounts.h,
 * jobio_component_walked_as). Whoever changes the gate goes through these, which keep the word. */
extern uint64_t jobio_component_bits;
void jobio_component_gate_add(int32_t delta);
void jobio_component_gate_set(uint32_t value);

#pragma GCC visibility pop
#endif /* JOBIO_STATE_H */
