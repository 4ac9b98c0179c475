/* Child processes: the signal flag and its self-pipe, starting one child
 * with its output piped, running one to completion, this binary's path. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procs/internal.h"

volatile sig_atomic_t a2_procs_caught;
int a2_procs_wake_fd = -1;
static int wake_write = -1;

static void on_signal(int sig) {
  int saved = errno;
  if (!a2_procs_caught) a2_procs_caught = sig;
  if (wake_write >= 0) {
    ssize_t ignored = write(wake_write, "", 1);
    (void)ignored;
  }
  errno = saved;
}

static int cloexec(int fd) {
  return fcntl(fd, F_SETFD, FD_CLOEXEC);
}

int a2_procs_signals_install(void) {
  if (a2_procs_wake_fd < 0) {
    int p[2];
    if (pipe(p)) return -1;
    for (int i = 0; i < 2; i++) {
      cloexec(p[i]);
      fcntl(p[i], F_SETFL, O_NONBLOCK);
    }
    a2_procs_wake_fd = p[0];
    wake_write = p[1];
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

int a2_procs_interrupted(void) {
  return a2_procs_caught;
}

void a2_procs_reraise(int sig) {
  signal(sig, SIG_DFL);
  raise(sig);
  _exit(128 + sig); /* not reached unless the signal is blocked */
}

char *a2_procs_buf_first_line(const a2_procs_buf *b) {
  if (!b->len) return NULL;
  size_t n = strcspn(b->data, "\n");
  char *line = malloc(n + 1);
  if (!line) return NULL;
  memcpy(line, b->data, n);
  line[n] = '\0';
  return line;
}

static int buf_append(a2_procs_buf *b, const char *data, size_t n) {
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

int a2_procs_spawn(const char *file, char *const argv[], bool search_path, const char *cwd,
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
      static const char msg[] = "a2a3sim: cannot enter the child process's directory\n";
      ssize_t ignored = write(2, msg, sizeof msg - 1);
      (void)ignored;
      _exit(127);
    }
    if (search_path)
      execvp(file, argv);
    else
      execv(file, argv);
    static const char msg[] = "a2a3sim: cannot execute the child process\n";
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

bool a2_procs_drain(int fd, a2_procs_buf *b) {
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

void a2_procs_reap(pid_t pid, int *status) {
  while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
  }
}

int a2_procs_run_capture(char *const argv[], bool search_path, const char *cwd, a2_procs_buf *out,
                         a2_procs_buf *err, int *status) {
  pid_t pid;
  int fds[2];
  if (a2_procs_spawn(argv[0], argv, search_path, cwd, &pid, &fds[0], &fds[1])) return -1;
  a2_procs_buf *sinks[2] = {out, err};
  struct pollfd pf[3] = {{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}, {a2_procs_wake_fd, POLLIN, 0}};
  int open_fds = 2;
  while (open_fds > 0 && !a2_procs_caught) {
    if (poll(pf, a2_procs_wake_fd >= 0 ? 3 : 2, -1) < 0) continue; /* EINTR: check the flag */
    for (int i = 0; i < 2; i++)
      if (pf[i].fd >= 0 && (pf[i].revents & (POLLIN | POLLHUP | POLLERR)) &&
          !a2_procs_drain(pf[i].fd, sinks[i])) {
        close(pf[i].fd);
        pf[i].fd = -1;
        open_fds--;
      }
  }
  for (int i = 0; i < 2; i++)
    if (pf[i].fd >= 0) close(pf[i].fd);
  if (a2_procs_caught) kill(pid, SIGTERM);
  a2_procs_reap(pid, status);
  return a2_procs_caught;
}

void a2_procs_self_path(char *out, size_t n) {
  ssize_t len = readlink("/proc/self/exe", out, n - 1);
  if (len > 0 && (size_t)len < n - 1) {
    out[len] = '\0';
    if (!access(out, X_OK)) return;
  }
  snprintf(out, n, "/proc/self/exe");
}

void a2_procs_argv_free(char **argv) {
  if (!argv) return;
  for (char **p = argv; *p; p++) free(*p);
  free(argv);
}
