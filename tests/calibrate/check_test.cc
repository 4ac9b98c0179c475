// `a2a3sim calibrate FILE` without a fit: each row's measured and simulated
// figure, the ratio and the verdict; --check fails when a row is outside its
// tolerance; the same bytes for every --jobs; --markdown gives each row's
// command, and that command reproduces the simulated figure.
#include <cstdio>
#include <string>
#include <vector>

#include "tests/calibrate/calibrate_util.h"

namespace a2test {
namespace {

// Rows of the mesh all-reduce at three sizes, measured = simulated x factor.
std::string MeshCsv(double factor) {
  std::string csv = CsvHeader();
  for (const char *size : {"4KiB", "64KiB", "1MiB"}) {
    long long ps = SimulatedPs({"--algo", "allreduce_mesh", "--ranks", "4", "--size", size});
    char line[256];
    snprintf(line, sizeof line, "mesh-%s,allreduce_mesh,4,%s,,time,%lldps,10%%,test\n", size, size,
             (long long)(ps * factor + 0.5));
    csv += line;
  }
  return csv;
}

TEST(CalibrateCheck, RowsAtTheirSimulatedFiguresPass) {
  TempDir tmp;
  std::string csv = tmp.Write("t.csv", MeshCsv(1.0));
  CliResult r = RunCli({"calibrate", "--check", csv});
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find("3 of 3 rows within their tolerance"), std::string::npos) << r;
  std::string row = LineStarting(r.out, "mesh-64KiB ");
  EXPECT_NE(row.find("1.0000"), std::string::npos) << r;
  EXPECT_NE(row.find("yes"), std::string::npos) << r;
}

TEST(CalibrateCheck, ARowOutsideItsToleranceFailsTheCheckOnly) {
  TempDir tmp;
  // 1.25 x: a simulated / measured ratio of 0.8, outside 10 %.
  std::string csv = tmp.Write("t.csv", MeshCsv(1.25));
  CliResult plain = RunCli({"calibrate", csv});
  EXPECT_EQ(plain.exit_code, 0) << plain;
  CliResult check = RunCli({"calibrate", "--check", csv});
  EXPECT_EQ(check.exit_code, 1) << check;
  EXPECT_NE(check.out.find("0 of 3 rows within their tolerance"), std::string::npos) << check;
  std::string row = LineStarting(check.out, "mesh-4KiB ");
  EXPECT_NE(row.find("0.8000"), std::string::npos) << check;
  EXPECT_NE(row.find("NO"), std::string::npos) << check;
}

TEST(CalibrateCheck, TheOutputIsTheSameForEveryJobsCount) {
  TempDir tmp;
  std::string csv = tmp.Write("t.csv", MeshCsv(1.1));
  CliResult one = RunCli({"calibrate", "--jobs", "1", csv});
  CliResult three = RunCli({"calibrate", "--jobs", "3", csv});
  EXPECT_EQ(one.exit_code, 0) << one;
  EXPECT_EQ(one.out, three.out);
  EXPECT_EQ(one.err, three.err);
}

TEST(CalibrateCheck, SetAppliesToEveryRowAndTheMarkdownCommandReproducesIt) {
  TempDir tmp;
  std::string csv = tmp.Write("t.csv", MeshCsv(1.0));
  CliResult r =
      RunCli({"calibrate", "--markdown", "--set", "interconnect.link.latency=250ns", csv});
  ASSERT_EQ(r.exit_code, 0) << r;
  std::string row = LineStarting(r.out, "| mesh-1MiB |");
  ASSERT_FALSE(row.empty()) << r;
  // The command cell: `a2a3sim run ...`.
  size_t at = row.find("`a2a3sim run "), end = row.find('`', at + 1);
  ASSERT_NE(at, std::string::npos) << row;
  std::string cmd = row.substr(at + 13, end - at - 13);  // after "`a2a3sim run "
  EXPECT_NE(cmd.find("--set interconnect.link.latency=250ns"), std::string::npos) << cmd;
  std::vector<std::string> args;
  for (size_t i = 0; i < cmd.size();) {
    size_t j = cmd.find(' ', i);
    if (j == std::string::npos) j = cmd.size();
    if (j > i) args.push_back(cmd.substr(i, j - i));
    i = j + 1;
  }
  long long ps = SimulatedPs(args);
  long long direct = SimulatedPs({"--algo", "allreduce_mesh", "--ranks", "4", "--size", "1MiB",
                                  "--set", "interconnect.link.latency=250ns"});
  EXPECT_EQ(ps, direct);
  // A lower latency makes the row faster than measured (at the default).
  EXPECT_EQ(row.find("| 1.0000 |"), std::string::npos) << row;
}

TEST(CalibrateCheck, BandwidthMetricsCompareTheRunsReportedFigures) {
  TempDir tmp;
  JsonDoc doc;
  ASSERT_TRUE(RunJson({"run", "--algo", "allreduce_ring", "--ranks", "4", "--size", "1MiB"}, &doc));
  std::string csv =
      tmp.Write("t.csv", std::string(CsvHeader()) + "ring-algbw,allreduce_ring,4,1MiB,,algbw," +
                             doc["algbw_gbps"].NumText() + "GB/s,1%,test\n" +
                             "ring-busbw,allreduce_ring,4,1MiB,,busbw," +
                             doc["busbw_gbps"].NumText() + "GB/s,1%,test\n");
  CliResult r = RunCli({"calibrate", "--check", csv});
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(LineStarting(r.out, "ring-busbw ").find("1.0000"), std::string::npos) << r;
}

}  // namespace
}  // namespace a2test
