/* a2a3sim sweep: the child processes. SystemC runs one simulation per
 * process, so each point is this same binary (/proc/self/exe) running
 * `run ... --json`; up to --jobs of them at once, their stdout and stderr
 * read through pipes with poll(). SIGINT/SIGTERM/SIGHUP only set a flag
 * (and wake poll through a self-pipe): the sweep then kills its children,
 * reaps every one (no zombies) and dies of the same signal. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sweep/sweep.h"

static volatile sig_atomic_t caught;
static int wake_pipe[2] = {-1, -1};

static void on_signal(int sig) {
  int saved = errno;
  if (!caught) caught = sig;
  if (wake_pipe[1] >= 0) {
    ssize_t ignored = write(wake_pipe[1], "", 1);
    (void)ignored;
  }
  errno = saved;
}

static int cloexec(int fd) {
  return fcntl(fd, F_SETFD, FD_CLOEXEC);
}

int a2_sweep_signals_install(void) {
  if (wake_pipe[0] < 0) {
    if (pipe(wake_pipe)) return -1;
    for (int i = 0; i < 2; i++) cloexec(wake_pipe[i]);
    fcntl(wake_pipe[0], F_SETFL, O_NONBLOCK);
    fcntl(wake_pipe[1], F_SETFL, O_NONBLOCK);
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0; /* no SA_RESTART: blocking calls return EINTR */
  const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
  for (int i = 0; i < 3; i++)
    if (sigaction(sigs[i], &sa, NULL)) return -1;
  return 0;
}

int a2_sweep_interrupted(void) {
  return caught;
}

void a2_sweep_reraise(int sig) {
  signal(sig, SIG_DFL);
  raise(sig);
  _exit(128 + sig); /* not reached unless the signal is blocked */
}

static int buf_append(a2_sweep_buf *b, const char *data, size_t n) {
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n + 1) cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) return -1;
    b->data = p;
    b->cap = cap;
  }
  memcpy(b->data + b->len, data, n);
  b->len += n;
  b->data[b->len] = '\0';
  return 0;
}

int a2_sweep_spawn(const char *file, char *const argv[], bool search_path, const char *cwd,
                   pid_t *pid, int *out_fd, int *err_fd) {
  int out_p[2], err_p[2];
  if (pipe(out_p)) return -1;
  if (pipe(err_p)) {
    int saved = errno;
    close(out_p[0]);
    close(out_p[1]);
    errno = saved;
    return -1;
  }
  for (int i = 0; i < 2; i++) {
    cloexec(out_p[i]);
    cloexec(err_p[i]);
  }
  pid_t p = fork();
  if (p < 0) {
    int saved = errno;
    close(out_p[0]);
    close(out_p[1]);
    close(err_p[0]);
    close(err_p[1]);
    errno = saved;
    return -1;
  }
  if (p == 0) { /* child: async-signal-safe calls only */
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(out_p[1], 1);
    dup2(err_p[1], 2);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGINT, &dfl, NULL);
    sigaction(SIGTERM, &dfl, NULL);
    sigaction(SIGHUP, &dfl, NULL);
    if (cwd && chdir(cwd)) {
      static const char msg[] = "a2a3sim: sweep: cannot enter the output directory\n";
      ssize_t ignored = write(2, msg, sizeof msg - 1);
      (void)ignored;
      _exit(127);
    }
    if (search_path)
      execvp(file, argv);
    else
      execv(file, argv);
    static const char msg[] = "a2a3sim: sweep: cannot execute the child process\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(127);
  }
  close(out_p[1]);
  close(err_p[1]);
  *pid = p;
  *out_fd = out_p[0];
  *err_fd = err_p[0];
  return 0;
}

/* Read what is there on fd into b; false at end of file (or error). */
static bool drain(int fd, a2_sweep_buf *b) {
  char chunk[65536];
  for (;;) {
    ssize_t got = read(fd, chunk, sizeof chunk);
    if (got > 0) {
      if (buf_append(b, chunk, (size_t)got)) return false;
      return true;
    }
    if (got < 0 && errno == EINTR) continue;
    return false;
  }
}

static void reap(pid_t pid, int *status) {
  while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
  }
}

int a2_sweep_run_capture(char *const argv[], bool search_path, const char *cwd, a2_sweep_buf *out,
                         a2_sweep_buf *err, int *status) {
  pid_t pid;
  int fds[2];
  if (a2_sweep_spawn(argv[0], argv, search_path, cwd, &pid, &fds[0], &fds[1])) return -1;
  a2_sweep_buf *sinks[2] = {out, err};
  struct pollfd pf[3] = {{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}, {wake_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  while (open_fds > 0 && !caught) {
    if (poll(pf, wake_pipe[0] >= 0 ? 3 : 2, -1) < 0) continue; /* EINTR: check `caught` */
    for (int i = 0; i < 2; i++)
      if (pf[i].fd >= 0 && (pf[i].revents & (POLLIN | POLLHUP | POLLERR)) &&
          !drain(pf[i].fd, sinks[i])) {
        close(pf[i].fd);
        pf[i].fd = -1;
        open_fds--;
      }
  }
  for (int i = 0; i < 2; i++)
    if (pf[i].fd >= 0) close(pf[i].fd);
  if (caught) kill(pid, SIGTERM);
  reap(pid, status);
  return caught;
}

/* One running point. */
typedef struct {
  pid_t pid;
  size_t point;
  int fd[2]; /* stdout, stderr; -1 when closed */
  a2_sweep_buf buf[2];
} slot;

static void progress(size_t done, size_t total) {
  enum { W = 30 };
  char bar[W + 1];
  size_t fill = total ? done * W / total : W;
  for (size_t i = 0; i < W; i++) bar[i] = i < fill ? '#' : '.';
  bar[W] = '\0';
  fprintf(stderr, "\r[%s] %zu/%zu points", bar, done, total);
  if (done == total) fputc('\n', stderr);
  fflush(stderr);
}

/* This binary: the path /proc/self/exe links to (so that a tool that runs
 * us - valgrind, say - is not what the points run), else the link itself. */
static void self_path(char *out, size_t n) {
  ssize_t len = readlink("/proc/self/exe", out, n - 1);
  if (len > 0 && (size_t)len < n - 1) {
    out[len] = '\0';
    if (!access(out, X_OK)) return;
  }
  snprintf(out, n, "/proc/self/exe");
}

int a2_sweep_run_points(const a2_sweep *s, a2_sweep_row *rows, size_t first, size_t stride) {
  char self[4096];
  self_path(self, sizeof self);
  size_t mine = first < s->npoints ? (s->npoints - first + stride - 1) / stride : 0;
  if (!mine) return 0;
  unsigned jobs = s->jobs < mine ? s->jobs : (unsigned)mine;
  slot *slots = calloc(jobs, sizeof *slots);
  struct pollfd *pf = calloc(2 * (size_t)jobs + 1, sizeof *pf);
  if (!slots || !pf) {
    free(slots);
    free(pf);
    fprintf(stderr, "a2a3sim: error: sweep: out of memory\n");
    return A2_EXIT_INTERNAL;
  }
  bool tty = isatty(2);
  size_t next = first, done = 0;
  unsigned running = 0;
  int rc = 0;
  if (tty) progress(0, mine);
  while (done < mine && !caught && !rc) {
    /* Fill the free slots. */
    for (unsigned j = 0; j < jobs && next < s->npoints; j++) {
      if (slots[j].pid) continue;
      char **argv = a2_sweep_point_argv(s, next, "a2a3sim");
      int spawned = argv ? a2_sweep_spawn(self, argv, false, NULL, &slots[j].pid, &slots[j].fd[0],
                                          &slots[j].fd[1])
                         : -1;
      int saved = errno;
      bool oom = !argv;
      a2_sweep_argv_free(argv);
      if (spawned) {
        fprintf(stderr, "a2a3sim: error: sweep: cannot start point %zu: %s\n", next,
                oom ? "out of memory" : strerror(saved));
        slots[j].pid = 0;
        rc = A2_EXIT_INTERNAL;
        break;
      }
      slots[j].point = next;
      next += stride;
      running++;
    }
    if (rc || !running) break;
    /* Wait for output from any of them (or a signal). */
    size_t n = 0;
    for (unsigned j = 0; j < jobs; j++)
      for (int k = 0; k < 2; k++)
        if (slots[j].pid && slots[j].fd[k] >= 0)
          pf[n++] = (struct pollfd){slots[j].fd[k], POLLIN, 0};
    pf[n++] = (struct pollfd){wake_pipe[0], POLLIN, 0};
    if (poll(pf, n, -1) < 0) continue; /* EINTR */
    for (unsigned j = 0; j < jobs; j++) {
      slot *sl = &slots[j];
      if (!sl->pid) continue;
      for (int k = 0; k < 2; k++) {
        if (sl->fd[k] < 0) continue;
        short rev = 0;
        for (size_t i = 0; i < n; i++)
          if (pf[i].fd == sl->fd[k]) rev = pf[i].revents;
        if ((rev & (POLLIN | POLLHUP | POLLERR)) && !drain(sl->fd[k], &sl->buf[k])) {
          close(sl->fd[k]);
          sl->fd[k] = -1;
        }
      }
      if (sl->fd[0] >= 0 || sl->fd[1] >= 0) continue;
      int status = 0;
      reap(sl->pid, &status);
      a2_sweep_row_fill(&rows[sl->point], status, &sl->buf[0], &sl->buf[1]);
      for (int k = 0; k < 2; k++) sl->buf[k].len = 0;
      sl->pid = 0;
      running--;
      done++;
      if (tty) progress(done, mine);
    }
  }
  /* Interrupted or failed: stop the others, reap every child. */
  for (unsigned j = 0; j < jobs; j++) {
    if (slots[j].pid) {
      int status;
      kill(slots[j].pid, SIGTERM);
      for (int k = 0; k < 2; k++)
        if (slots[j].fd[k] >= 0) close(slots[j].fd[k]);
      reap(slots[j].pid, &status);
    }
    for (int k = 0; k < 2; k++) free(slots[j].buf[k].data);
  }
  free(slots);
  free(pf);
  if (tty && done < mine) fputc('\n', stderr);
  if (caught) return -caught;
  return rc;
}
