// a2_out_of_memory (common/oom.h): one line naming what ran out, the
// registered cleanup, then exit status 3 - never a signal. Pins a past
// failure: out of memory inside a running simulation ended in SIGABRT.
#include "common/oom.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "common/err.h"

namespace {

void WriteCleanupMark() {
  static const char mark[] = "cleanup ran\n";
  ssize_t ignored = write(2, mark, sizeof mark - 1);
  (void)ignored;
}

TEST(OutOfMemoryExit, PrintsWhatRanOutAndExits3) {
  EXPECT_EXIT(a2_out_of_memory("packets in flight"), ::testing::ExitedWithCode(3),
              "^a2a3sim: error: out of memory for packets in flight \\(the run cannot go on\\)\n$");
}

TEST(OutOfMemoryExit, RunsTheCleanupAfterTheMessage) {
  EXPECT_EXIT(
      {
        a2_oom_set_cleanup(WriteCleanupMark);
        a2_out_of_memory("a DMA queue");
      },
      ::testing::ExitedWithCode(3), "out of memory for a DMA queue.*\ncleanup ran\n$");
}

TEST(FailureContract, LimitsAreUsageErrorsAndOutOfMemoryIsInternal) {
  EXPECT_EQ(a2_err_exit_code(A2_E_LIMIT), A2_EXIT_USAGE);
  EXPECT_EQ(a2_err_exit_code(A2_E_INPUT), A2_EXIT_USAGE);
  EXPECT_EQ(a2_err_exit_code(A2_E_IO), A2_EXIT_USAGE);
  EXPECT_EQ(a2_err_exit_code(A2_E_NOMEM), A2_EXIT_INTERNAL);
  EXPECT_EQ(a2_err_exit_code(A2_E_KERNEL), A2_EXIT_INTERNAL);
  EXPECT_EQ(a2_err_exit_code(A2_E_INTERNAL), A2_EXIT_INTERNAL);
  EXPECT_NE(A2_E_LIMIT, A2_E_NOMEM);
}

}  // namespace
