/* Configuration from the environment and the tracing decision (config.c). */
#ifndef JOBIO_CONFIG_H
#define JOBIO_CONFIG_H
#include <stddef.h>

void jobio_read_config(void);   /* JOBIO_* variables into jobio_cfg */
void jobio_read_identity(void); /* program name and job id into jobio_g */
void jobio_decide_active(void); /* jobio_cfg.active: disabled, bypassed, excluded, scheduler command */
/* The full path of this program (/proc/self/exe, read once at start-up); "" if unknown. */
const char *jobio_program_path(void);
void jobio_copy(char *dst, size_t cap, const char *src);
/* The next word of a comma-separated list at *p, spaces around it trimmed: [*s, *e), and *p moved
 * past it. 0 at the end of the list. */
int jobio_list_word(const char **p, const char **s, const char **e);

#endif
