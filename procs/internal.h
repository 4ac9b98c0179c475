/* Private to procs/: what spawn.c shares with pool.c. */
#ifndef A2_PROCS_INTERNAL_H
#define A2_PROCS_INTERNAL_H

#include <signal.h>

#include "procs/procs.h"

/* The signal caught (0: none) and the self-pipe its handler writes to. */
extern volatile sig_atomic_t a2_procs_caught;
extern int a2_procs_wake_fd; /* read end, -1 before a2_procs_signals_install */

/* Read what is there on fd into b; false at end of file (or error). */
bool a2_procs_drain(int fd, a2_procs_buf *b);
/* waitpid(pid) through EINTR. */
void a2_procs_reap(pid_t pid, int *status);

#endif
