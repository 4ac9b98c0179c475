// sweep --hccl OP (docs/sweep.md, "HCCL's choice"): the built-in HCCL's
// rule picks joins the swept algorithms, hccl.txt lists exactly the points
// where the pick is not the fastest in sweep.csv, and plot.gp draws the
// pick as its own line.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/support/files.h"
#include "tests/support/run_cli.h"
#include "tests/sweep/sweep_util.h"

namespace a2test {
namespace {

TEST(SweepHccl, ThePickJoinsTheGridAndTheReportListsWhereItIsNotTheFastest) {
  TempDir tmp;
  std::string dir = tmp.path() + "/out";
  CliResult r =
      RunCli({"sweep", "--hccl", "allreduce", "--algo", "allreduce_two_phase,allreduce_sdma_mesh",
              "--ranks", "8", "--sizes", "4KiB,256KiB,1MiB", "-o", dir},
             600);
  ASSERT_EQ(r.exit_code, 0) << r;
  std::vector<std::string> lines = Lines(ReadFile(dir + "/sweep.csv"));
  ASSERT_EQ(lines.size(), 1u + 9u);  // allreduce_mesh (HCCL's pick up to 256 KiB) joined
  std::map<std::string, std::map<std::string, double>> t;  // size -> algo -> time
  size_t status = CsvColumn(lines[0], "status");
  for (size_t i = 1; i < lines.size(); i++) {
    std::vector<std::string> f = CsvFields(lines[i]);
    ASSERT_LT(status, f.size()) << lines[0];
    ASSERT_EQ(f[status], "OK") << lines[i];
    t[f[2]][f[0]] = std::stod(f[3]);
  }
  EXPECT_EQ(t["4096"].count("allreduce_mesh"), 1u);
  std::string report = ReadFile(dir + "/hccl.txt");
  EXPECT_NE(r.out.find(report), std::string::npos) << "stdout carries the report";
  const std::map<std::string, std::pair<std::string, std::string>> pick = {
      {"4096", {"4 KiB", "allreduce_mesh"}},
      {"262144", {"256 KiB", "allreduce_mesh"}},
      {"1048576", {"1 MiB", "allreduce_sdma_mesh"}}};
  size_t disagree = 0;
  for (const auto &p : pick) {
    std::string best;
    for (const auto &a : t[p.first])
      if (best.empty() || a.second < t[p.first][best]) best = a.first;
    std::string line = "P=8, " + p.second.first + ": HCCL picks " + p.second.second + " (";
    if (best == p.second.second) {
      EXPECT_EQ(report.find(line), std::string::npos) << report;
    } else {
      disagree++;
      size_t at = report.find(line);
      ASSERT_NE(at, std::string::npos) << line << "\n" << report;
      std::string rest = report.substr(at, report.find('\n', at) - at);
      EXPECT_NE(rest.find("measured best " + best + ", +"), std::string::npos) << rest;
    }
  }
  EXPECT_NE(report.find("disagree (" + std::to_string(disagree) + " of 3 points)"),
            std::string::npos)
      << report;
  std::string gp = ReadFile(dir + "/plot.gp");
  EXPECT_NE(gp.find("$d_r0_c0_hccl << EOD"), std::string::npos);
  EXPECT_NE(gp.find("title \"hccl (allreduce)\""), std::string::npos);
}

TEST(SweepHccl, BadHcclFlagsAreUsageErrors) {
  TempDir tmp;
  std::string dir = tmp.path() + "/out";
  EXPECT_TRUE(
      RunFailsWithUsage({"sweep", "--hccl", "gather", "--ranks", "2", "--sizes", "256", "-o", dir},
                        {"--hccl", "unknown operation 'gather'", "allgather"}));
  EXPECT_TRUE(RunFailsWithUsage({"sweep", "--algo", "allreduce_mesh", "--hccl-device", "a3",
                                 "--ranks", "2", "--sizes", "256", "-o", dir},
                                {"--hccl-device", "only with --hccl"}));
  EXPECT_TRUE(RunFailsWithUsage(
      {"sweep", "--algo", "allreduce", "--ranks", "2", "--sizes", "256", "-o", dir},
      {"--algo", "'allreduce' is an operation", "--hccl allreduce"}));
  EXPECT_FALSE(Exists(dir));
}

}  // namespace
}  // namespace a2test
