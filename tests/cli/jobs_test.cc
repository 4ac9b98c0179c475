// End-to-end: several jobs at once (--job; docs/cli.md, "Several jobs").
// Jobs that share nothing run exactly as alone (slowdown 1); jobs whose
// routes share links each slow the other (slowdown > 1); a start time only
// shifts a job; overlapping NPU sets and bad specs are refused; the
// timeline names each rank's job.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/run_cli.h"

namespace a2test {
namespace {

const std::string kRing8 = A2_SOURCE_DIR "/configs/ring-8.yaml";

JsonDoc Jobs(const std::vector<std::string> &more) {
  JsonDoc d;
  EXPECT_TRUE(RunJson(Args({"run"}, more), &d));
  return d;
}

TEST(Jobs, JobsThatShareNothingRunExactlyAsAlone) {
  // full mesh: a link per pair of NPUs, so NPUs 0-3 and 4-7 share no stage
  JsonDoc d = Jobs({"--job", "algo=allreduce_ring,ranks=0-3,size=1MiB", "--job",
                    "algo=all_to_all,ranks=4-7,size=64KiB"});
  ASSERT_EQ(d["jobs"].Size(), 2u);
  for (size_t i = 0; i < 2; i++) {
    EXPECT_GT(d["jobs"][i]["alone_ps"].Int(), 0);
    EXPECT_EQ(d["jobs"][i]["together_ps"].Int(), d["jobs"][i]["alone_ps"].Int());
    EXPECT_EQ(d["jobs"][i]["slowdown"].NumText(), "1.000000");
  }
  // alone is the plain run on those NPUs
  JsonDoc one;
  ASSERT_TRUE(RunJson(
      {"run", "--algo", "allreduce_ring", "-d", "0,1,2,3", "--size", "1MiB", "--no-data"}, &one));
  EXPECT_EQ(d["jobs"][size_t{0}]["alone_ps"].Int(), one["time_ps"].Int());
}

TEST(Jobs, JitterIsEachJobsOwnSoJobsThatShareNothingStayAtOne) {
  // each core draws its jitter from its own sequence: the other job's
  // transfers do not change it
  JsonDoc d = Jobs({"--job", "algo=allreduce_ring,ranks=0-3,size=64KiB", "--job",
                    "algo=all_to_all,ranks=4-7,size=64KiB", "--jitter", "500ns", "--seed", "3"});
  JsonDoc calm = Jobs({"--job", "algo=allreduce_ring,ranks=0-3,size=64KiB", "--job",
                       "algo=all_to_all,ranks=4-7,size=64KiB"});
  for (size_t i = 0; i < 2; i++) {
    EXPECT_EQ(d["jobs"][i]["slowdown"].NumText(), "1.000000");
    EXPECT_GT(d["jobs"][i]["alone_ps"].Int(), calm["jobs"][i]["alone_ps"].Int());
  }
}

TEST(Jobs, JobsThatShareLinksEachSlowTheOther) {
  // a ring of 8: the jobs' neighbours are two hops apart, over the other's NPUs
  JsonDoc d = Jobs({"--config", kRing8, "--job", "algo=allreduce_ring,ranks=0+2+4+6,size=1MiB",
                    "--job", "algo=allreduce_ring,ranks=1+3+5+7,size=1MiB"});
  ASSERT_EQ(d["jobs"].Size(), 2u);
  for (size_t i = 0; i < 2; i++) {
    EXPECT_GT(d["jobs"][i]["together_ps"].Int(), d["jobs"][i]["alone_ps"].Int());
    EXPECT_GT(d["jobs"][i]["slowdown"].Num(), 1.05);
    EXPECT_EQ(d["jobs"][i]["npus"].Str(), i == 0 ? "0+2+4+6" : "1+3+5+7");
  }
}

TEST(Jobs, AStartTimeShiftsAJobAndSeparatesItFromTheOther) {
  JsonDoc at0 = Jobs({"--config", kRing8, "--job", "algo=allreduce_ring,ranks=0+2+4+6,size=64KiB"});
  JsonDoc late =
      Jobs({"--config", kRing8, "--job", "algo=allreduce_ring,ranks=0+2+4+6,size=64KiB,start=1ms"});
  EXPECT_EQ(late["jobs"][size_t{0}]["alone_ps"].Int(), at0["jobs"][size_t{0}]["alone_ps"].Int());
  EXPECT_EQ(late["jobs"][size_t{0}]["start_ps"].Int(), 1000000000);
  // the second starts after the first is done: no interference
  JsonDoc apart = Jobs({"--config", kRing8, "--job", "algo=allreduce_ring,ranks=0+2+4+6,size=64KiB",
                        "--job", "algo=allreduce_ring,ranks=1+3+5+7,size=64KiB,start=1ms"});
  for (size_t i = 0; i < 2; i++) EXPECT_EQ(apart["jobs"][i]["slowdown"].NumText(), "1.000000");
}

TEST(Jobs, TimelineShowsEachJobAsItsOwnProcesses) {
  TempDir dir;
  std::string tl = dir.path() + "/jobs.json";
  CliResult r = RunCli({"run", "--job", "algo=allreduce_ring,ranks=0-1,size=4KiB", "--job",
                        "algo=all_to_all,ranks=2-3,size=4KiB", "--timeline", tl});
  ASSERT_EQ(r.exit_code, 0) << r;
  std::ifstream f(tl);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  EXPECT_NE(text.find("job 1 allreduce_ring: rank 1 (npu 1)"), std::string::npos);
  EXPECT_NE(text.find("job 2 all_to_all: rank 0 (npu 2)"), std::string::npos);
}

TEST(JobErrors, OverlapsAndBadSpecsAreRefused) {
  EXPECT_TRUE(RunFailsWithUsage(
      {"run", "--job", "algo=allreduce_ring,ranks=0-3", "--job", "algo=all_to_all,ranks=3-5"},
      {"error: --job: job 2", "NPU 3 is also in job 1", "disjoint"}));
  EXPECT_TRUE(RunFailsWithUsage({"run", "--job", "algo=allreduce_ring,ranks=0-3,speed=2"},
                                {"error: --job: job 1", "unknown field 'speed'"}));
  EXPECT_TRUE(RunFailsWithUsage({"run", "--job", "algo=no_such,ranks=0-3"},
                                {"error: --job: job 1", "unknown algorithm"}));
  EXPECT_TRUE(RunFailsWithUsage({"run", "--job", "algo=allreduce_ring,ranks=0-9"},
                                {"error: --job: job 1", "NPU 8 outside 0..7"}));
  EXPECT_TRUE(RunFailsWithUsage({"run", "--job", "algo=allreduce_ring,ranks=3-1"},
                                {"error: --job: job 1", "A <= B"}));
  EXPECT_TRUE(RunFailsWithUsage({"run", "--job", "ranks=0-3"}, {"algo=NAME required"}));
  EXPECT_TRUE(RunFailsWithUsage(
      {"run", "--algo", "allreduce_ring", "--job", "algo=allreduce_ring,ranks=0-3"},
      {"error: --job:", "not with --algo"}));
}

}  // namespace
}  // namespace a2test
