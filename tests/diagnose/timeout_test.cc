// --max-sim-time: a run that needs longer than the bound stops with status
// TIMEOUT (exit 1) and a report of every unfinished core; a run that fits
// in the bound is unaffected; a bound that is not a time is a usage error.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "diag_util.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace {

const std::vector<std::string> kBigMesh = {"run",    "--algo", "allreduce_mesh", "--ranks", "4",
                                           "--size", "1MiB"};

TEST(MaxSimTime, StopsAtTheBoundAndListsEveryUnfinishedCore) {
  CliResult r = RunCli(Args(kBigMesh, {"--max-sim-time", "1us", "--json"}));
  EXPECT_EQ(r.exit_code, 1) << r;
  JsonDoc doc = JsonDoc::Parse(r.out);
  ASSERT_TRUE(doc.ok()) << doc.error() << r;
  EXPECT_EQ(doc["status"].Str(), "TIMEOUT");
  EXPECT_FALSE(doc["ok"].Bool());
  EXPECT_EQ(doc["time_ps"].Int(), 1000000) << "the run stopped at the bound";
  for (int rank = 0; rank < 4; rank++)
    EXPECT_LE(doc["per_rank"][rank]["time_ps"].Int(), 1000000) << "nothing completes after it";

  std::vector<std::string> lines = diag::Lines(r.err);
  ASSERT_FALSE(lines.empty()) << r;
  EXPECT_NE(lines[0].find("--max-sim-time"), std::string::npos) << r;
  for (int rank = 0; rank < 4; rank++) {
    const std::string prefix = "rank " + std::to_string(rank) + " core 0: ";
    int hits = 0;
    for (const std::string &l : lines) hits += l.rfind(prefix, 0) == 0;
    EXPECT_EQ(hits, 1) << "expected one line starting '" << prefix << "'" << r;
  }
}

TEST(MaxSimTime, TextSummarySaysTimeout) {
  CliResult r = RunCli(Args(kBigMesh, {"--max-sim-time", "1us"}));
  EXPECT_EQ(r.exit_code, 1) << r;
  std::vector<std::string> lines = diag::Lines(r.out);
  ASSERT_GE(lines.size(), 2u) << r;
  EXPECT_EQ(lines[1].rfind("TIMEOUT", 0), 0u) << r;
}

TEST(MaxSimTime, RunWithinTheBoundIsUnaffected) {
  const std::vector<std::string> small = {"run", "--algo", "allreduce_mesh", "--ranks", "4"};
  JsonDoc bounded, free;
  CliResult rb, rf;
  ASSERT_TRUE(RunJson(Args(small, {"--max-sim-time", "1ms"}), &bounded, &rb));
  ASSERT_TRUE(RunJson(small, &free, &rf));
  EXPECT_EQ(bounded["status"].Str(), "OK");
  EXPECT_EQ(rb.out, rf.out) << "a bound that is not reached changes nothing";
}

TEST(MaxSimTime, BoundThatIsNotATimeIsAUsageError) {
  EXPECT_TRUE(
      RunFailsWithUsage(Args(kBigMesh, {"--max-sim-time", "abc"}), {"--max-sim-time", "abc"}));
}

}  // namespace
}  // namespace a2test
