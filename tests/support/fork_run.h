// Run a piece of a test in a forked child process and get a POD result back.
//
// SystemC cannot re-elaborate: one OS process may build and run only one
// simulation (one set of a2k processes, one a2k_run sequence). ctest runs
// each TEST in its own process, but the test binaries are also run directly
// (every TEST in one process), so each test that touches the event kernel, the
// network or the model does so in a child: the body runs there, its result
// (a trivially copyable struct) comes back through a pipe, and the parent
// makes the assertions. A child that crashes, exits non-zero (e.g. valgrind's
// --error-exitcode), times out or writes a short result fails the test.
//
// The parent never touches SystemC, so every child starts from a fresh,
// unelaborated event kernel.
#ifndef A2_TESTS_SUPPORT_FORK_RUN_H
#define A2_TESTS_SUPPORT_FORK_RUN_H

#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <type_traits>

namespace a2test {

// Seconds a child may run before SIGALRM kills it (generous: valgrind).
constexpr unsigned kChildTimeoutS = 120;

// Fork; in the child run body(fd), where body writes its result to fd (with
// WriteAll), then _exit(0). In the parent read exactly `size` bytes into
// `out`, reap the child and report how it ended.
::testing::AssertionResult RunForkedRaw(const std::function<void(int fd)> &body, void *out,
                                        size_t size, unsigned timeout_s = kChildTimeoutS);

// Write all of buf to fd (retrying short writes); false on error.
bool WriteAll(int fd, const void *buf, size_t size);

// Run `body` (returning R) in a child; *out receives its result.
//   Result r;
//   ASSERT_TRUE(a2test::RunForked(&r, [] { Result x{}; ...; return x; }));
template <typename R, typename F>
::testing::AssertionResult RunForked(R *out, F &&body) {
  static_assert(std::is_trivially_copyable<R>::value, "results cross a pipe: use a POD");
  return RunForkedRaw(
      [&body](int fd) {
        R r = body();
        if (!WriteAll(fd, &r, sizeof r)) _Exit(4);
      },
      out, sizeof(R));
}

}  // namespace a2test

#endif
