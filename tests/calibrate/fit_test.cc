// `a2a3sim calibrate --fit`: the search recovers keys the rows identify,
// reaches the TGET table from a config 2x off, says when keys cannot be told
// apart or a row cannot be explained, refuses keys no row depends on, and
// writes a fitted YAML that reproduces the fit - the same bytes for every
// --jobs.
#include <dirent.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/calibrate/calibrate_util.h"

namespace a2test {
namespace {

// The ratio column of row `id` in the table after "after the fit".
double RatioAfter(const std::string &out, const std::string &id) {
  size_t at = out.find("after the fit");
  if (at == std::string::npos) return NAN;
  std::string line = LineStarting(out.substr(at), id + " ");
  // row program metric measured(2) simulated(2) ratio ...
  std::vector<std::string> f;
  for (size_t i = 0; i < line.size();) {
    size_t j = line.find(' ', i);
    if (j == std::string::npos) j = line.size();
    if (j > i) f.push_back(line.substr(i, j - i));
    i = j + 1;
  }
  return f.size() > 7 ? atof(f[7].c_str()) : NAN;
}

const std::vector<std::string> kLinkKeys = {
    "--fit", "interconnect.link.latency,interconnect.link.bandwidth"};

// TGET rows at two tile sizes, "measured" by the simulator at a known
// latency and bandwidth: rows with different bytes per round trip tell the
// two keys apart.
std::string TwoTileCsv() {
  std::string csv = CsvHeader();
  for (const char *tile : {"4KiB", "64KiB"}) {
    long long ps = SimulatedPs({"--program", TgetProgram(), "--ranks", "2", "--param",
                                "size=256KiB", "--param", std::string("tile=") + tile, "--set",
                                "interconnect.link.latency=300ns", "--set",
                                "interconnect.link.bandwidth=20GB/s"});
    csv += std::string("tile-") + tile + "," + TgetProgram() + ",2,256KiB,--param tile=" + tile +
           ",time," + std::to_string(ps) + "ps,1%,test\n";
  }
  return csv;
}

std::vector<std::string> TwoTileFit(const std::string &csv) {
  return Args({"calibrate", csv, "--set", "interconnect.link.latency=600ns", "--set",
               "interconnect.link.bandwidth=10GB/s"},
              kLinkKeys);
}

TEST(CalibrateFit, KeysTheRowsIdentifyAreRecoveredFrom2xOff) {
  TempDir tmp;
  std::string csv = tmp.Write("t.csv", TwoTileCsv());
  CliResult r = RunCli(TwoTileFit(csv));
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NEAR(Fitted(r.out, "interconnect.link.latency"), 300e3, 300e3 * 0.01) << r.out;
  EXPECT_NEAR(Fitted(r.out, "interconnect.link.bandwidth"), 20e9, 20e9 * 0.01) << r.out;
  EXPECT_NE(r.out.find("2 of 2 rows within their tolerance after the fit (0 before)"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("not separately identifiable"), std::string::npos) << r.out;
  // Progress: one stderr line a point, the residual on each.
  EXPECT_NE(r.err.find("calibrate: point 1 (start): interconnect.link.latency=600ns "
                       "interconnect.link.bandwidth=10GB/s  residual "),
            std::string::npos)
      << r.err;
}

// A field of one level (interconnect.levels.I.FIELD) is fitted as any key.
TEST(CalibrateFit, ALevelsFieldIsFittedLikeAnyKey) {
  const std::string cfg = std::string(A2_SOURCE_DIR) + "/configs/a2-cluster-levels.yaml";
  std::string csv = CsvHeader();
  for (const char *size : {"4KiB", "1MiB"}) {
    long long ps = SimulatedPs({"--algo", "allreduce_mesh", "--size", size, "-d", "0,8", "--config",
                                cfg, "--set", "interconnect.levels.1.latency=4us"});
    csv += std::string("mesh-") + size + ",allreduce_mesh,," + size + ",\"-d 0,8 --config " + cfg +
           "\",time," + std::to_string(ps) + "ps,1%,test\n";
  }
  TempDir tmp;
  CliResult r = RunCli({"calibrate", tmp.Write("t.csv", csv), "--fit",
                        "interconnect.levels.1.latency=1us..16us", "--max-evals", "40"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NEAR(Fitted(r.out, "interconnect.levels.1.latency"), 4e6, 4e6 * 0.01) << r.out;
}

TEST(CalibrateFit, TheFittedYamlIsTheSameForEveryJobsCountAndReproducesTheFit) {
  TempDir tmp;
  std::string csv = tmp.Write("t.csv", TwoTileCsv());
  std::string y1 = tmp.path() + "/one.yaml", y2 = tmp.path() + "/two.yaml";
  CliResult one = RunCli(Args(TwoTileFit(csv), {"--jobs", "1", "-o", y1}));
  CliResult two = RunCli(Args(TwoTileFit(csv), {"--jobs", "2", "-o", y2}));
  ASSERT_EQ(one.exit_code, 0) << one;
  ASSERT_EQ(two.exit_code, 0) << two;
  std::string a = ReadFileOrFail(y1), b = ReadFileOrFail(y2);
  EXPECT_EQ(a, b);
  EXPECT_EQ(one.err, two.err);
  // The comment names the data, the keys and the residual.
  EXPECT_NE(a.find("# Fitted by `a2a3sim calibrate` to " + csv + ", 2 rows:"), std::string::npos)
      << a;
  EXPECT_NE(a.find("tile-4KiB, tile-64KiB"), std::string::npos) << a;
  EXPECT_NE(a.find("#   interconnect.link.latency: 600ns -> "), std::string::npos) << a;
  EXPECT_NE(a.find("# Residual,"), std::string::npos) << a;
  EXPECT_NE(a.find("  # fitted"), std::string::npos) << a;
  // Nothing else is left in the folder (the temporary file was renamed).
  DIR *d = opendir(tmp.path().c_str());
  ASSERT_NE(d, nullptr);
  size_t files = 0;
  while (struct dirent *e = readdir(d))
    if (e->d_name[0] != '.') files++;
  closedir(d);
  EXPECT_EQ(files, 3u);  // t.csv, one.yaml, two.yaml
  // It is a config, and its rows are the fit's.
  CliResult check = RunCli({"config", "check", y1});
  EXPECT_EQ(check.exit_code, 0) << check;
  CliResult again = RunCli({"calibrate", "--check", "--config", y1, csv});
  EXPECT_EQ(again.exit_code, 0) << again;
}

TEST(CalibrateFit, TheTgetTableIsReachedFromLatencyAndBandwidth2xOff) {
  // Twice the default link latency and half its bandwidth.
  CliResult cfg =
      RunCli({"config", "check", std::string(A2_SOURCE_DIR) + "/configs/a2-8p-hccs.yaml"});
  ASSERT_EQ(cfg.exit_code, 0) << cfg;
  size_t link = cfg.out.find("  link:\n");
  ASSERT_NE(link, std::string::npos) << cfg.out;
  std::string rest = cfg.out.substr(link);
  auto value = [&](const std::string &key) {
    std::string l = LineStarting(rest.substr(rest.find("    " + key + ": ")), "    " + key + ": ");
    std::string v = l.substr(l.find(": ") + 2);
    v.erase(v.find(' '), 1);  // "500 ns" -> "500ns"
    return Quantity(v);
  };
  double lat = value("latency"), bw = value("bandwidth");
  ASSERT_TRUE(lat > 0 && bw > 0) << rest;
  char slow_lat[64], slow_bw[64];
  snprintf(slow_lat, sizeof slow_lat, "interconnect.link.latency=%.0fps", 2 * lat);
  snprintf(slow_bw, sizeof slow_bw, "interconnect.link.bandwidth=%.0fB/s", bw / 2);
  std::string csv = std::string(A2_SOURCE_DIR) + "/configs/measured/tget.csv";
  CliResult r = RunCli(Args({"calibrate", csv, "--set", slow_lat, "--set", slow_bw}, kLinkKeys));
  ASSERT_EQ(r.exit_code, 0) << r;
  for (const char *id :
       {"tget-4KiB", "tget-16KiB", "tget-64KiB", "tget-256KiB", "tget-1MiB", "tget-4MiB"}) {
    double ratio = RatioAfter(r.out, id);
    EXPECT_NEAR(ratio, 1.0, 0.10) << id << "\n" << r.out;
  }
  // Every row is n identical round trips: the two keys cannot be told apart.
  EXPECT_NE(r.out.find("interconnect.link.bandwidth is not separately identifiable from "
                       "interconnect.link.latency with these rows"),
            std::string::npos)
      << r.out;
}

TEST(CalibrateFit, AKeyNoRowDependsOnIsRefused) {
  TempDir tmp;
  std::string csv = tmp.Write(
      "t.csv", std::string(CsvHeader()) + "r1,allreduce_mesh,2,4KiB,,time,1us,15%,test\n");
  CliResult r =
      RunCli({"calibrate", csv, "--fit", "interconnect.link.latency,interconnect.nic.bandwidth"});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_EQ(r.out, "");
  std::vector<std::string> lines = Lines(r.err);
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines.back().find("a2a3sim: error: --fit: interconnect.nic.bandwidth: no row depends "
                              "on it: changing it from 25GB/s to "),
            std::string::npos)
      << r.err;
}

TEST(CalibrateFit, ARowNoKeyMovesIsReportedAsUnexplained) {
  TempDir tmp;
  // One rank: no link in the run, so no link key can move it.
  std::string csv = tmp.Write("t.csv", std::string(CsvHeader()) +
                                           "local,allreduce_mesh,1,4KiB,,time,1ms,15%,test\n"
                                           "mesh,allreduce_mesh,2,4KiB,,time,1us,15%,test\n");
  CliResult r = RunCli({"calibrate", csv, "--fit", "interconnect.link.latency", "--check"});
  EXPECT_EQ(r.exit_code, 1) << r;
  EXPECT_NE(r.out.find("row local does not depend on the fitted keys: a constant the model does "
                       "not have?"),
            std::string::npos)
      << r.out;
  EXPECT_NEAR(RatioAfter(r.out, "mesh"), 1.0, 0.15) << r.out;
}

TEST(CalibrateFit, ARangeThatExcludesTheAnswerStopsAtItsEdge) {
  TempDir tmp;
  std::string csv = tmp.Write("t.csv", TwoTileCsv());
  CliResult r = RunCli({"calibrate", csv, "--set", "interconnect.link.bandwidth=20GB/s", "--fit",
                        "interconnect.link.latency=400ns..1us"});
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_NEAR(Fitted(r.out, "interconnect.link.latency"), 400e3, 400e3 * 0.001) << r.out;
  EXPECT_NE(r.out.find("interconnect.link.latency stopped at the low end of its range "
                       "400ns..1us"),
            std::string::npos)
      << r.out;
  // The config's 500 ns-or-whatever start is replaced by the range's when outside it.
  CliResult out = RunCli({"calibrate", csv, "--set", "interconnect.link.latency=2us", "--fit",
                          "interconnect.link.latency=100ns..1us"});
  EXPECT_NE(out.out.find("(the config's 2us is outside the range)"), std::string::npos) << out;
}

TEST(CalibrateFit, TheBudgetStopsTheSearchAndSaysSo) {
  TempDir tmp;
  std::string csv = tmp.Write("t.csv", TwoTileCsv());
  CliResult r = RunCli(Args(TwoTileFit(csv), {"--max-evals", "4"}));
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find("stopped by --max-evals"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the search stopped at its budget of 4 points"), std::string::npos) << r.out;
}

TEST(CalibrateFit, AKeyOfWholeBlocksIsSearchedInWholeBlocks) {
  // chip.mte.remote_read_window must be a multiple of 32 B; below 4 KiB it
  // splits each TGET chunk into ceil(4 KiB / window) pieces.
  TempDir tmp;
  std::string csv = CsvHeader();
  for (const char *size : {"16KiB", "64KiB"}) {
    long long ps =
        SimulatedPs({"--program", TgetProgram(), "--ranks", "2", "--param",
                     std::string("size=") + size, "--set", "chip.mte.remote_read_window=1024B"});
    csv += std::string("w-") + size + "," + TgetProgram() + ",2," + size + ",,time," +
           std::to_string(ps) + "ps,1%,test\n";
  }
  std::string path = tmp.Write("t.csv", csv);
  CliResult r = RunCli({"calibrate", path, "--set", "chip.mte.remote_read_window=2048B", "--fit",
                        "chip.mte.remote_read_window=200B..3000B"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find("2 of 2 rows within their tolerance after the fit"), std::string::npos)
      << r.out;
  double w = Fitted(r.out, "chip.mte.remote_read_window");
  EXPECT_EQ(fmod(w, 32), 0) << r.out;
  // Every point it ran: a whole number of 32 B blocks inside the range.
  size_t points = 0;
  for (const std::string &l : Lines(r.err)) {
    size_t at = l.find("chip.mte.remote_read_window=");
    if (l.rfind("calibrate: point ", 0) != 0 || at == std::string::npos) continue;
    std::string v = l.substr(at + 28, l.find(' ', at) - at - 28);
    double b = Quantity(v);
    EXPECT_EQ(fmod(b, 32), 0) << l;
    EXPECT_GE(b, 200) << l;
    EXPECT_LE(b, 3000) << l;
    points++;
  }
  EXPECT_GT(points, 5u) << r.err;
}

TEST(CalibrateFit, BadFitFlagsAreRefusedBeforeAnythingRuns) {
  TempDir tmp;
  std::string csv = tmp.Write(
      "t.csv", std::string(CsvHeader()) + "r1,allreduce_mesh,2,4KiB,,time,1us,15%,test\n");
  EXPECT_TRUE(RunFailsWithUsage({"calibrate", csv, "--fit", "interconnect.link.latenc"},
                                {"error: --fit: unknown key 'interconnect.link.latenc'",
                                 "did you mean 'interconnect.link.latency'"}));
  EXPECT_TRUE(RunFailsWithUsage({"calibrate", csv, "--fit", "interconnect.link"},
                                {"error: --fit:", "is a section, not a key"}));
  EXPECT_TRUE(RunFailsWithUsage(
      {"calibrate", csv, "--fit", "interconnect.timing"},
      {"error: --fit: interconnect.timing is not numeric", "packet, reservation"}));
  EXPECT_TRUE(RunFailsWithUsage(
      {"calibrate", csv, "--fit", "chip.mte.latency"},
      {"error: --fit: chip.mte.latency is 0 in the config", "chip.mte.latency=LO..HI"}));
  EXPECT_TRUE(RunFailsWithUsage({"calibrate", csv, "--fit", "interconnect.link.latency=2us..1us"},
                                {"error: --fit:", "LO must be below HI"}));
  EXPECT_TRUE(RunFailsWithUsage({"calibrate", csv, "--fit", "interconnect.link.latency=1GB/s..2us"},
                                {"error: --fit:", "LO '1GB/s'"}));
  EXPECT_TRUE(RunFailsWithUsage(
      {"calibrate", csv, "--fit", "interconnect.link.latency,interconnect.link.latency"},
      {"error: --fit:", "given twice"}));
  EXPECT_TRUE(RunFailsWithUsage({"calibrate", csv, "-o", tmp.path() + "/x.yaml"},
                                {"error: -o: only with --fit"}));
  EXPECT_TRUE(
      RunFailsWithUsage({"calibrate", csv, "--markdown", "--fit", "interconnect.link.latency"},
                        {"error: --markdown: not with --fit"}));
  EXPECT_TRUE(RunFailsWithUsage({"calibrate", csv, "--set", "interconnect.link.speed=1GB/s"},
                                {"error: --set: unknown key 'interconnect.link.speed'"}));
  EXPECT_TRUE(RunFailsWithUsage({"calibrate"}, {"missing FILE.csv"}));
  EXPECT_TRUE(RunFailsWithUsage({"calibrate", csv, "--holdout", "test"},
                                {"error: --holdout: only with --fit"}));
  EXPECT_FALSE(Exists(tmp.path() + "/x.yaml"));
}

// The flags' own rules, from calibrate's flag table (calibrate/flags.c).
TEST(CalibrateFlags, RefusedByTheirRows) {
  TempDir tmp;
  std::string csv = tmp.Write(
      "t.csv", std::string(CsvHeader()) + "r1,allreduce_mesh,2,4KiB,,time,1us,15%,test\n");
  EXPECT_TRUE(RunFailsWithUsage({"calibrate", csv, "--max-evals", "5"},
                                {"error: --max-evals: only with --fit"}));
  EXPECT_TRUE(RunFailsWithUsage({"calibrate", csv, "--max-evals", "0", "--fit", "chip.clock"},
                                {"error: --max-evals: expected an integer in 1..100000, got '0'"}));
  EXPECT_TRUE(RunFailsWithUsage({"calibrate", csv, "--jobs", "1", "--jobs", "2"},
                                {"error: --jobs: given twice"}));
  EXPECT_TRUE(RunFailsWithUsage({"calibrate", csv, "--fit", "chip.clock", "--fit", "chip.clock"},
                                {"error: --fit: given twice (use one comma-separated list)"}));
  EXPECT_TRUE(RunFailsWithUsage({"calibrate", csv, "--holdout", "test"},
                                {"error: --holdout: only with --fit"}));
  EXPECT_TRUE(RunFailsWithUsage({"calibrate", csv, "--fitt", "chip.clock"},
                                {"error: --fitt: unknown flag (see a2a3sim calibrate --help)"}));
  // the files may come before, between and after the flags, in their order
  std::string csv2 = tmp.Write(
      "u.csv", std::string(CsvHeader()) + "r2,allreduce_mesh,2,8KiB,,time,1us,15%,test\n");
  CliResult a = RunCli({"calibrate", csv, csv2, "--jobs", "1"});
  CliResult b = RunCli({"calibrate", "--jobs", "1", csv, csv2});
  CliResult c = RunCli({"calibrate", csv, "--jobs", "1", csv2});
  EXPECT_EQ(a.exit_code, 0) << a;
  EXPECT_NE(a.out.find("r2"), std::string::npos) << a;
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(a.out, c.out);
}

}  // namespace
}  // namespace a2test
