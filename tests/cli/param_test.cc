// End-to-end: `run --program F --param NAME=VALUE` replaces the file's
// `param` values (docs/cli.md), reports them, and refuses bad uses.
#include <string>
#include <vector>

#include "tests/support/run_cli.h"

namespace a2test {
namespace {

std::vector<std::string> Copy(const std::vector<std::string> &more) {
  return Args({"run", "--program", "traces/examples/remote_copy.a2t", "--ranks", "2"}, more);
}

TEST(CliParam, ValuesReachTheProgramAndTheReport) {
  JsonDoc small, big;
  CliResult plain;
  ASSERT_TRUE(RunJson(Copy({}), &small, &plain));
  EXPECT_EQ(plain.out.find("\"params\""), std::string::npos) << "params without --param";
  ASSERT_TRUE(RunJson(Copy({"--param", "size=256KiB", "--param", "tile=4096"}), &big));
  EXPECT_EQ(big.root()["params"]["size"].Int(), 256 * 1024);
  EXPECT_EQ(big.root()["params"]["tile"].Int(), 4096);
  EXPECT_EQ(big.root()["per_rank"][size_t{0}]["remote_read_bytes"].Int(), 256 * 1024);
  // the same serial chunk, four times as often: four times the time, within
  // the first chunk's start-up
  double t1 = (double)small.root()["time_ps"].Int(), t4 = (double)big.root()["time_ps"].Int();
  EXPECT_NEAR(t4 / t1, 4.0, 0.05);
}

TEST(CliParam, TheTextReportNamesThem) {
  CliResult r = RunCli(Copy({"--param", "size=8KiB"}));
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find("remote_copy.a2t (param size=8192):"), std::string::npos) << r;
}

TEST(CliParam, BadUsesAreRefused) {
  EXPECT_TRUE(RunFailsWithUsage(Copy({"--param", "sise=8KiB"}),
                                {"--param", "no 'param sise'", "its params: size, tile"}));
  EXPECT_TRUE(RunFailsWithUsage(Copy({"--param", "size"}), {"--param", "expected NAME=VALUE"}));
  EXPECT_TRUE(RunFailsWithUsage(Copy({"--param", "size=8parsecs"}),
                                {"--param", "size: expected an integer or a size"}));
  EXPECT_TRUE(RunFailsWithUsage(Copy({"--param", "size=8KiB", "--param", "size=4KiB"}),
                                {"--param", "size given twice"}));
  EXPECT_TRUE(
      RunFailsWithUsage({"run", "--algo", "allreduce_mesh", "--ranks", "2", "--param", "size=1"},
                        {"--param", "only with --program"}));
  EXPECT_TRUE(RunFailsWithUsage(
      {"gen", "--algo", "allreduce_mesh", "--ranks", "2", "--param", "size=1", "-o", "-"},
      {"--param", "not for a2a3sim gen"}));
}

}  // namespace
}  // namespace a2test
