// --max-events stops a runaway run after N event-kernel activations with the same
// kind of report as --max-sim-time (docs/cli.md).
#include <gtest/gtest.h>

#include <string>

#include "tests/support/run_cli.h"

namespace {

TEST(EventLimitTest, StopsTheRunAndListsUnfinishedCores) {
  a2test::CliResult r = a2test::RunCli({"run", "--algo", "allreduce_mesh", "--ranks", "4", "--size",
                                        "1MiB", "--max-events", "1000", "--json"});
  EXPECT_EQ(r.exit_code, 1) << r;
  a2test::JsonDoc doc = a2test::JsonDoc::Parse(r.out);
  ASSERT_TRUE(doc.ok()) << doc.error();
  EXPECT_EQ(doc["status"].Str(), "EVENT_LIMIT");
  EXPECT_FALSE(doc["ok"].Bool());
  EXPECT_TRUE(doc["algbw_gbps"].is_null());
  EXPECT_LE(doc["kernel_activations"].Int(), 1000);
  EXPECT_NE(r.err.find("--max-events reached with work left"), std::string::npos) << r;
  for (int rank = 0; rank < 4; rank++)
    EXPECT_NE(r.err.find("rank " + std::to_string(rank) + " core 0:"), std::string::npos) << r;
}

TEST(EventLimitTest, ALimitThatIsNotReachedChangesNothing) {
  a2test::CliResult a = a2test::RunCli(
      {"run", "--algo", "allreduce_mesh", "--ranks", "4", "--size", "4KiB", "--json"});
  a2test::CliResult b = a2test::RunCli({"run", "--algo", "allreduce_mesh", "--ranks", "4", "--size",
                                        "4KiB", "--json", "--max-events", "100000000"});
  EXPECT_EQ(a.exit_code, 0) << a;
  EXPECT_EQ(a.out, b.out);
}

TEST(EventLimitTest, ABadLimitIsAUsageError) {
  EXPECT_TRUE(a2test::RunFailsWithUsage(
      {"run", "--algo", "allreduce_mesh", "--ranks", "2", "--max-events", "0"},
      {"--max-events", "positive integer"}));
  EXPECT_TRUE(a2test::RunFailsWithUsage(
      {"run", "--algo", "allreduce_mesh", "--ranks", "2", "--max-events", "lots"},
      {"--max-events"}));
}

}  // namespace

namespace {

// Resource limits are checked before anything is allocated (docs/cli.md).
TEST(MemLimitTest, ARunOverTheLimitIsRefusedBeforeAllocating) {
  EXPECT_TRUE(a2test::RunFailsWithUsage(
      {"run", "--algo", "allreduce_mesh", "--ranks", "8", "--size", "1MiB", "--mem-limit", "16MiB"},
      {"needs 25 MiB", "16 MiB limit", "--mem-limit"}));
}

TEST(MemLimitTest, TimingOnlyNeedsNoPayloadMemory) {
  a2test::JsonDoc doc;
  ASSERT_TRUE(a2test::RunJson({"run", "--algo", "allreduce_mesh", "--ranks", "8", "--size", "1MiB",
                               "--mem-limit", "16MiB", "--no-data"},
                              &doc));
  EXPECT_EQ(doc["mode"].Str(), "timing-only");
}

}  // namespace
