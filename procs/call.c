/* One function in a forked child, its fixed-size result through a pipe. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procs/internal.h"

int a2_procs_call(a2_procs_call_fn fn, void *ctx, void *out, size_t size) {
  int fd[2];
  fflush(stdout);
  fflush(stderr);
  if (pipe(fd)) return -1;
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return -1;
  }
  if (pid == 0) {
    close(fd[0]);
    int rc = fn(ctx, out);
    fflush(stdout);
    fflush(stderr);
    int wrote = write(fd[1], out, size) == (ssize_t)size;
    _exit(wrote ? (rc & 0xff) : 0);
  }
  close(fd[1]);
  size_t got = 0;
  while (got < size) {
    ssize_t n = read(fd[0], (char *)out + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += (size_t)n;
  }
  close(fd[0]);
  int status = 0;
  a2_procs_reap(pid, &status);
  if (got != size || !WIFEXITED(status)) {
    memset(out, 0, size);
    return -1;
  }
  return WEXITSTATUS(status);
}
