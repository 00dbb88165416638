/* The error log (log.c): only $JOBIO_ERROR_LOG, never the job's stdout/stderr; bounded in lines. */
#ifndef JOBIO_LOG_H
#define JOBIO_LOG_H
#include "base/common.h"

#pragma GCC visibility push(hidden)

/* One line "jobio: pid P: msg [arg] [num]" (arg may be NULL; num only with has_num). */
void jobio_log_line(const char *msg, const char *arg, long num, int has_num);
void jobio_log(const char *msg, long num);
void jobio_debug(const char *msg, const char *arg); /* only with JOBIO_DEBUG */
/* The program closed or replaced one of our descriptors: the log's own is forgotten. */
void jobio_log_forget(int fd);

#pragma GCC visibility pop
#endif /* JOBIO_LOG_H */
