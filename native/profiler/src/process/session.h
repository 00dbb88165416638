/* A job started by a Mistral-style script (session.c): its first preloaded process starts the session. */
#ifndef JOBIO_SESSION_H
#define JOBIO_SESSION_H

#pragma GCC visibility push(hidden)

/* From the constructor, before the configuration is read: with MISTRAL_LOG or MISTRAL_CONFIG and no
 * JOBIO_SOCKET, Mistral's variables become the library's, a listening socket is made and a detached
 * `jobio run --attach` session is started on it; JOBIO_SOCKET then names it for this process and its
 * children. Never waits for the session; on failure the job runs unprofiled (JOBIO_DISABLE=1) with
 * one line in the error log. */
void jobio_session_start(void);

#pragma GCC visibility pop
#endif /* JOBIO_SESSION_H */
