// End-to-end: a bad sweep is refused before any point runs - exit 2,
// nothing on stdout, one stderr line naming the flag and what was expected -
// and leaves no output directory behind.
#include <string>
#include <vector>

#include "tests/support/run_cli.h"
#include "tests/sweep/sweep_util.h"

namespace a2test {
namespace {

// A valid small sweep into `dir`, with `flag` set to `value` (or added).
std::vector<std::string> With(const std::string &dir, const std::string &flag,
                              const std::string &value) {
  std::vector<std::string> a = {
      "sweep", "--algo", "allreduce_mesh", "--ranks", "2", "--sizes", "256", "-o", dir};
  for (size_t i = 1; i + 1 < a.size(); i += 2)
    if (a[i] == flag) {
      a[i + 1] = value;
      return a;
    }
  a.push_back(flag);
  a.push_back(value);
  return a;
}

class SweepErrors : public ::testing::Test {
 protected:
  TempDir tmp_;
  std::string dir_ = tmp_.path() + "/out";
  void TearDown() override {
    EXPECT_FALSE(Exists(dir_)) << "the output directory was created for a refused sweep";
  }
};

TEST_F(SweepErrors, RangeWithoutStepNamesSizesAndTheForms) {
  EXPECT_TRUE(RunFailsWithUsage(
      With(dir_, "--sizes", "256B..64MiB"),
      {"error: --sizes:", "'256B..64MiB'", "START..END:xK", "START..END:+STEP", "256,4KiB,1MiB"}));
}

TEST_F(SweepErrors, UnknownStepIsNamed) {
  EXPECT_TRUE(RunFailsWithUsage(With(dir_, "--sizes", "256B..64MiB:*4"),
                                {"error: --sizes:", "unknown step '*4'"}));
}

TEST_F(SweepErrors, FactorBelowTwoIsRefused) {
  EXPECT_TRUE(RunFailsWithUsage(With(dir_, "--sizes", "256B..64MiB:x1"),
                                {"error: --sizes:", "factor of at least 2"}));
}

TEST_F(SweepErrors, BadUnitInAListIsNamed) {
  EXPECT_TRUE(RunFailsWithUsage(With(dir_, "--sizes", "256,4Kb"),
                                {"error: --sizes:", "'4Kb'", "unknown unit"}));
}

TEST_F(SweepErrors, StartAboveEndIsRefused) {
  EXPECT_TRUE(RunFailsWithUsage(With(dir_, "--sizes", "1MiB..4KiB:x2"),
                                {"error: --sizes:", "larger than its end"}));
}

TEST_F(SweepErrors, EmptySizesAreRefused) {
  EXPECT_TRUE(RunFailsWithUsage(With(dir_, "--sizes", ""), {"error: --sizes:", "empty"}));
}

TEST_F(SweepErrors, BadSetKeyIsRefusedAsRunRefusesIt) {
  EXPECT_TRUE(RunFailsWithUsage(With(dir_, "--set", "interconnect.link.speed=1GB/s,2GB/s"),
                                {"error: --set:", "unknown key 'interconnect.link.speed'"}));
}

TEST_F(SweepErrors, BadSetValueIsRefusedAsRunRefusesIt) {
  std::vector<std::string> needles = {"error: --set:", "interconnect.link.bandwidth=fast",
                                      "expected a bandwidth"};
  EXPECT_TRUE(
      RunFailsWithUsage(With(dir_, "--set", "interconnect.link.bandwidth=28GB/s,fast"), needles));
  // The same words as `run --set`.
  CliResult run = RunCli({"run", "--algo", "allreduce_mesh", "--ranks", "2", "--set",
                          "interconnect.link.bandwidth=fast"});
  CliResult sweep = RunCli(With(dir_, "--set", "interconnect.link.bandwidth=28GB/s,fast"));
  EXPECT_EQ(run.err, sweep.err);
}

TEST_F(SweepErrors, SetCombinationBreakingACrossKeyRuleIsRefused) {
  EXPECT_TRUE(RunFailsWithUsage(With(dir_, "--set", "interconnect.packet_size=32B,4KiB"),
                                {"error: --set:", "interconnect.control_message_size"}));
}

TEST_F(SweepErrors, SetWithoutValueIsRefused) {
  EXPECT_TRUE(
      RunFailsWithUsage(With(dir_, "--set", "chip.clock="), {"error: --set:", "KEY=V1,V2"}));
}

TEST_F(SweepErrors, SameSetKeyTwiceIsRefused) {
  std::vector<std::string> a = With(dir_, "--set", "chip.clock=1GHz,2GHz");
  a.push_back("--set");
  a.push_back("chip.clock=3GHz");
  EXPECT_TRUE(RunFailsWithUsage(a, {"error: --set:", "chip.clock given twice"}));
}

TEST_F(SweepErrors, UnknownAlgoIsNamed) {
  EXPECT_TRUE(
      RunFailsWithUsage(With(dir_, "--algo", "allreduce_mesh,allreduce_tree"),
                        {"error: --algo:", "unknown algorithm 'allreduce_tree'", "a2a3sim list"}));
}

TEST_F(SweepErrors, EmptyListsAreRefused) {
  EXPECT_TRUE(RunFailsWithUsage(With(dir_, "--algo", ""), {"error: --algo:", "empty list"}));
  EXPECT_TRUE(RunFailsWithUsage(With(dir_, "--ranks", ""), {"error: --ranks:", "empty list"}));
  EXPECT_TRUE(
      RunFailsWithUsage(With(dir_, "--algo", "allreduce_mesh,"), {"error: --algo:", "empty item"}));
}

TEST_F(SweepErrors, BadRankCountIsNamed) {
  EXPECT_TRUE(
      RunFailsWithUsage(With(dir_, "--ranks", "2,four"), {"error: --ranks:", "'four'", "2,4,8"}));
}

TEST_F(SweepErrors, MissingFlagsAreRequired) {
  EXPECT_TRUE(
      RunFailsWithUsage({"sweep", "--algo", "allreduce_mesh", "--ranks", "2", "--sizes", "256"},
                        {"error: -o: required"}));
  EXPECT_TRUE(RunFailsWithUsage({"sweep", "--ranks", "2", "--sizes", "256", "-o", dir_},
                                {"error: --algo: required"}));
  EXPECT_TRUE(RunFailsWithUsage({"sweep", "--algo", "allreduce_mesh", "--ranks", "2", "-o", dir_},
                                {"error: --sizes: required"}));
}

TEST_F(SweepErrors, UnwritableOutputIsRefused) {
  std::string file = tmp_.Write("plain-file", "x");
  EXPECT_TRUE(RunFailsWithUsage(With(file, "-o", file), {"error: -o:", "plain-file"}));
  EXPECT_TRUE(RunFailsWithUsage(With(file + "/sub", "-o", file + "/sub"),
                                {"error: -o:", "cannot create directory"}));
}

TEST_F(SweepErrors, BadJobsIsNamed) {
  EXPECT_TRUE(RunFailsWithUsage(With(dir_, "--jobs", "0"), {"error: --jobs:", "1..1024"}));
}

TEST_F(SweepErrors, UnknownFlagIsNamed) {
  EXPECT_TRUE(RunFailsWithUsage(With(dir_, "--frobnicate", "1"),
                                {"error: --frobnicate: unknown flag", "sweep --help"}));
}

TEST_F(SweepErrors, FlagsTheTableTakesOnceAreRefusedTwice) {
  std::vector<std::string> a = With(dir_, "--jobs", "1");
  a.insert(a.end(), {"--jobs", "2"});
  EXPECT_TRUE(RunFailsWithUsage(a, {"error: --jobs: given twice"}));
  a = With(dir_, "--ranks", "2");
  a.insert(a.end(), {"--ranks", "4"});
  EXPECT_TRUE(RunFailsWithUsage(a, {"error: --ranks: given twice (use one comma-separated list)"}));
  a = {"sweep", "--algo", "gemm", "--ranks", "2", "--m", "128", "--m", "256", "-o", dir_};
  EXPECT_TRUE(RunFailsWithUsage(a, {"error: --m: given twice (use one comma-separated list)"}));
}

TEST_F(SweepErrors, BadDeviceNamesTheChoices) {
  std::vector<std::string> a = With(dir_, "--hccl", "allreduce");
  a.insert(a.end(), {"--hccl-device", "a9"});
  EXPECT_TRUE(RunFailsWithUsage(a, {"error: --hccl-device: expected one of a2, a3, got 'a9'"}));
}

TEST(SweepHelp, HelpAndTopLevelUsageMentionSweep) {
  CliResult h = RunCli({"sweep", "--help"});
  EXPECT_EQ(h.exit_code, 0) << h;
  EXPECT_NE(h.out.find("usage: a2a3sim sweep"), std::string::npos) << h;
  CliResult top = RunCli({"help"});
  EXPECT_NE(top.out.find("  sweep "), std::string::npos) << top;
}

}  // namespace
}  // namespace a2test
