/* Child processes: a pool running jobs 0..n-1, at most N at once, their
 * stdout and stderr read through pipes with poll(). A signal (the flag of
 * spawn.c) or a job that cannot start stops the others; every child is
 * reaped before the pool returns. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "procs/internal.h"

/* One running job. */
typedef struct {
  pid_t pid;
  size_t job;
  int fd[2]; /* stdout, stderr; -1 when closed */
  a2_procs_buf buf[2];
} slot;

/* Start job `job` in *sl; 0, or an exit code after printing why not. */
static int start(const a2_procs_pool *p, slot *sl, size_t job) {
  char **argv = p->argv_of(job, p->ctx);
  int spawned =
      argv ? a2_procs_spawn(p->file, argv, false, NULL, &sl->pid, &sl->fd[0], &sl->fd[1]) : -1;
  int saved = errno;
  a2_procs_argv_free(argv);
  if (!spawned) {
    sl->job = job;
    return 0;
  }
  fprintf(stderr, "a2a3sim: error: %s: cannot start %s %zu: %s\n", p->command, p->noun, job,
          argv ? strerror(saved) : "out of memory");
  sl->pid = 0;
  return A2_EXIT_INTERNAL;
}

int a2_procs_pool_run(const a2_procs_pool *p) {
  if (!p->njobs) return 0;
  unsigned n_slots = p->parallel < p->njobs ? (p->parallel ? p->parallel : 1) : (unsigned)p->njobs;
  slot *slots = calloc(n_slots, sizeof *slots);
  struct pollfd *pf = calloc(2 * (size_t)n_slots + 1, sizeof *pf);
  if (!slots || !pf) {
    free(slots);
    free(pf);
    fprintf(stderr, "a2a3sim: error: %s: out of memory\n", p->command);
    return A2_EXIT_INTERNAL;
  }
  size_t next = 0, done = 0;
  unsigned running = 0;
  int rc = 0;
  if (p->progress) p->progress(0, p->njobs, p->ctx);
  while (done < p->njobs && !a2_procs_caught && !rc) {
    /* Fill the free slots. */
    for (unsigned j = 0; j < n_slots && next < p->njobs; j++) {
      if (slots[j].pid) continue;
      if ((rc = start(p, &slots[j], next))) break;
      next++;
      running++;
    }
    if (rc || !running) break;
    /* Wait for output from any of them (or a signal). */
    size_t n = 0;
    for (unsigned j = 0; j < n_slots; j++)
      for (int k = 0; k < 2; k++)
        if (slots[j].pid && slots[j].fd[k] >= 0)
          pf[n++] = (struct pollfd){slots[j].fd[k], POLLIN, 0};
    if (a2_procs_wake_fd >= 0) pf[n++] = (struct pollfd){a2_procs_wake_fd, POLLIN, 0};
    if (poll(pf, n, -1) < 0) continue; /* EINTR */
    for (unsigned j = 0; j < n_slots; j++) {
      slot *sl = &slots[j];
      if (!sl->pid) continue;
      for (int k = 0; k < 2; k++) {
        if (sl->fd[k] < 0) continue;
        short rev = 0;
        for (size_t i = 0; i < n; i++)
          if (pf[i].fd == sl->fd[k]) rev = pf[i].revents;
        if ((rev & (POLLIN | POLLHUP | POLLERR)) && !a2_procs_drain(sl->fd[k], &sl->buf[k])) {
          close(sl->fd[k]);
          sl->fd[k] = -1;
        }
      }
      if (sl->fd[0] >= 0 || sl->fd[1] >= 0) continue;
      int status = 0;
      a2_procs_reap(sl->pid, &status);
      p->done(sl->job, status, &sl->buf[0], &sl->buf[1], p->ctx);
      for (int k = 0; k < 2; k++)
        if (sl->buf[k].data) sl->buf[k].data[sl->buf[k].len = 0] = '\0';
      sl->pid = 0;
      running--;
      done++;
      if (p->progress) p->progress(done, p->njobs, p->ctx);
    }
  }
  /* Interrupted or failed: stop the others, reap every child. */
  for (unsigned j = 0; j < n_slots; j++) {
    if (slots[j].pid) {
      int status;
      kill(slots[j].pid, SIGTERM);
      for (int k = 0; k < 2; k++)
        if (slots[j].fd[k] >= 0) close(slots[j].fd[k]);
      a2_procs_reap(slots[j].pid, &status);
    }
    for (int k = 0; k < 2; k++) free(slots[j].buf[k].data);
  }
  free(slots);
  free(pf);
  if (a2_procs_caught) return -a2_procs_caught;
  return rc;
}
