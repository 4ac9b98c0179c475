// See fork_run.h.
#include "tests/support/fork_run.h"

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace a2test {

bool WriteAll(int fd, const void *buf, size_t size) {
  const char *p = static_cast<const char *>(buf);
  while (size > 0) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

::testing::AssertionResult RunForkedRaw(const std::function<void(int fd)> &body, void *out,
                                        size_t size, unsigned timeout_s) {
  int fds[2];
  if (pipe(fds) != 0) return ::testing::AssertionFailure() << "pipe: " << std::strerror(errno);
  std::fflush(nullptr);  // nothing buffered may be written twice
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return ::testing::AssertionFailure() << "fork: " << std::strerror(errno);
  }
  if (pid == 0) {
    close(fds[0]);
    alarm(timeout_s);
    try {
      body(fds[1]);
    } catch (...) {
      _exit(3);
    }
    close(fds[1]);
    // No exit handlers, no destructors: the parent owns everything else.
    std::fflush(nullptr);
    _exit(0);
  }
  close(fds[1]);
  std::vector<char> buf;
  char chunk[4096];
  for (;;) {
    ssize_t n = read(fds[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buf.insert(buf.end(), chunk, chunk + n);
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return ::testing::AssertionFailure() << "waitpid: " << std::strerror(errno);
  }
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return ::testing::AssertionFailure()
           << "child killed by signal " << sig << " (" << strsignal(sig) << ")"
           << (sig == SIGALRM ? ": timed out" : "");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return ::testing::AssertionFailure()
           << "child exited with status " << WEXITSTATUS(status)
           << " (3: exception, 4: short write; under valgrind, its --error-exitcode)";
  if (buf.size() != size)
    return ::testing::AssertionFailure()
           << "child wrote " << buf.size() << " bytes of result, expected " << size;
  std::memcpy(out, buf.data(), size);
  return ::testing::AssertionSuccess();
}

}  // namespace a2test
