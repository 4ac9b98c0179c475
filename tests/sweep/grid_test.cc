// End-to-end: `a2a3sim sweep` runs every point of its grid, writes
// sweep.csv in grid order with the numbers `run --json` prints, draws the
// PNGs with gnuplot and reports the crossovers; its CSV does not depend on
// the run or on --jobs; a --set with several values is an axis.
#include <set>
#include <string>
#include <vector>

#include "tests/support/run_cli.h"
#include "tests/sweep/sweep_util.h"

namespace a2test {
namespace {

const char kAlgos[] = "allreduce_mesh,allreduce_two_phase,allreduce_ring";

std::vector<std::string> Header(const std::vector<std::string> &axes) {
  std::vector<std::string> h = {"algo", "ranks", "size_bytes"};
  h.insert(h.end(), axes.begin(), axes.end());
  h.insert(h.end(), ResultColumns().begin(), ResultColumns().end());
  return h;
}

// A study of the size of a real one: 3 algorithms x 4 rank counts x 12 sizes = 144
// points (2 KiB .. 4 MiB doubling is 12 sizes; 256B..4MiB:x2 would be 15).
TEST(SweepGrid, FullStudyWritesCsvPlotsAndCrossovers) {
  TempDir tmp;
  std::string dir = tmp.path() + "/out";  // created by the sweep
  CliResult r = RunCli(
      {"sweep", "--algo", kAlgos, "--ranks", "2,4,8,3", "--sizes", "2KiB..4MiB:x2", "-o", dir},
      600);
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.err, "") << r;  // not a terminal: no progress bar, no error

  std::vector<std::string> lines = Lines(ReadFile(dir + "/sweep.csv"));
  ASSERT_EQ(lines.size(), 1u + 144u);
  EXPECT_EQ(CsvFields(lines[0]), Header({}));
  // Grid order: algo, then ranks as given, then ascending sizes.
  const std::vector<std::string> algos = {"allreduce_mesh", "allreduce_two_phase",
                                          "allreduce_ring"};
  const std::vector<std::string> ranks = {"2", "4", "8", "3"};
  size_t i = 1, refused = 0;
  for (const std::string &a : algos)
    for (const std::string &p : ranks)
      for (unsigned long long n = 2048; n <= 4194304; n *= 2, i++) {
        std::vector<std::string> f = CsvFields(lines[i]);
        ASSERT_EQ(f.size(), 18u) << lines[i];
        EXPECT_EQ(f[0], a);
        EXPECT_EQ(f[1], p);
        EXPECT_EQ(f[2], std::to_string(n));
        // At P=3 a power-of-two size is not 3 chunks of whole fp32 elements:
        // two-phase and ring refuse it; that is a row, not a failure.
        bool refuse = p == "3" && a != "allreduce_mesh";
        if (refuse) {
          refused++;
          EXPECT_EQ(f[15], "false") << lines[i];
          EXPECT_EQ(f[16], "REFUSED") << lines[i];
          EXPECT_NE(f[17].find("--size"), std::string::npos) << lines[i];
          EXPECT_EQ(f[3], "") << lines[i];
        } else {
          EXPECT_EQ(f[15], "true") << lines[i];
          EXPECT_EQ(f[16], "OK") << lines[i];
          EXPECT_EQ(f[17], "") << lines[i];
          EXPECT_FALSE(f[3].empty()) << lines[i];
        }
      }
  EXPECT_EQ(refused, 24u);

  // Plots: the overview and one per rank count, for time and busbw.
  std::vector<std::string> pngs = {"time_vs_size.png", "busbw_vs_size.png"};
  for (const char *p : {"2", "4", "8", "3"}) {
    pngs.push_back(std::string("time_vs_size_P") + p + ".png");
    pngs.push_back(std::string("busbw_vs_size_P") + p + ".png");
  }
  EXPECT_TRUE(Exists(dir + "/plot.gp"));
  for (const std::string &p : pngs) {
    if (HaveGnuplot())
      EXPECT_TRUE(IsPng(dir + "/" + p)) << p << " missing or not a PNG";
    else
      EXPECT_FALSE(Exists(dir + "/" + p)) << p;
  }

  // Crossovers on stdout and in crossovers.txt, one line per rank count.
  std::string cross = ReadFile(dir + "/crossovers.txt");
  EXPECT_NE(cross.find("crossovers:\n"), std::string::npos) << cross;
  EXPECT_EQ(r.out.compare(0, cross.size(), cross), 0) << r;
  for (const char *p : {"P=2: ", "P=4: ", "P=8: ", "P=3: "})
    EXPECT_NE(cross.find(std::string("\n") + p), std::string::npos) << p << "\n" << cross;
  // On the default 8-NPU mesh the one-barrier mesh wins small messages at
  // P=8 and the two-phase algorithm large ones.
  EXPECT_NE(cross.find("P=8: allreduce_mesh fastest up to "), std::string::npos) << cross;
  EXPECT_NE(cross.find(", allreduce_two_phase from "), std::string::npos) << cross;
  EXPECT_NE(cross.find("P=3: allreduce_mesh fastest at every size (2 KiB .. 4 MiB); not OK at "
                       "any size: allreduce_two_phase, allreduce_ring"),
            std::string::npos)
      << cross;
  EXPECT_NE(r.out.find("144 points: 120 OK, 24 refused, 0 failed, 0 errors"), std::string::npos)
      << r;
}

// A smaller grid, for the repeatability checks.
std::vector<std::string> SmallSweep(const std::string &dir, const char *jobs) {
  return {"sweep",          "--algo", kAlgos, "--ranks", "2,3", "--sizes",
          "768,3KiB,12KiB", "--jobs", jobs,   "-o",      dir};
}

TEST(SweepGrid, CsvIsByteIdenticalAcrossRunsAndJobs) {
  TempDir tmp;
  std::string a = tmp.path() + "/a", b = tmp.path() + "/b", c = tmp.path() + "/c";
  CliResult ra = RunCli(SmallSweep(a, "2"), 300);
  CliResult rb = RunCli(SmallSweep(b, "2"), 300);
  CliResult rc = RunCli(SmallSweep(c, "1"), 300);
  ASSERT_EQ(ra.exit_code, 0) << ra;
  ASSERT_EQ(rb.exit_code, 0) << rb;
  ASSERT_EQ(rc.exit_code, 0) << rc;
  std::string csv = ReadFile(a + "/sweep.csv");
  EXPECT_EQ(Lines(csv).size(), 1u + 18u);
  EXPECT_EQ(csv, ReadFile(b + "/sweep.csv")) << "two runs differ";
  EXPECT_EQ(csv, ReadFile(c + "/sweep.csv")) << "--jobs 1 and --jobs 2 differ";
  EXPECT_EQ(ReadFile(a + "/crossovers.txt"), ReadFile(c + "/crossovers.txt"));
  EXPECT_EQ(ReadFile(a + "/plot.gp"), ReadFile(c + "/plot.gp"));
}

// Every number of a row is the text `run --json` prints for that point.
TEST(SweepGrid, RowsCarryTheJsonNumbersOfRun) {
  TempDir tmp;
  std::string dir = tmp.path() + "/out";
  CliResult r = RunCli({"sweep", "--algo", "allreduce_two_phase", "--ranks", "4", "--sizes", "4KiB",
                        "--set", "chip.hbm.latency=200ns", "-o", dir});
  ASSERT_EQ(r.exit_code, 0) << r;
  std::vector<std::string> lines = Lines(ReadFile(dir + "/sweep.csv"));
  ASSERT_EQ(lines.size(), 2u);
  // A --set with one value is an override, not a column.
  EXPECT_EQ(CsvFields(lines[0]), Header({}));
  std::vector<std::string> f = CsvFields(lines[1]);
  ASSERT_EQ(f.size(), 18u);
  for (size_t i = 9; i < 15; i++) EXPECT_EQ(f[i], "") << i;  // no overlap card
  JsonDoc d;
  ASSERT_TRUE(RunJson({"run", "--algo", "allreduce_two_phase", "--ranks", "4", "--size", "4096",
                       "--set", "chip.hbm.latency=200ns"},
                      &d));
  EXPECT_EQ(f[3], d["time_ns"].NumText());
  EXPECT_EQ(f[4], d["algbw_gbps"].NumText());
  EXPECT_EQ(f[5], d["busbw_gbps"].NumText());
  EXPECT_EQ(f[6], d["measured"]["remote_read_bytes_per_rank"].NumText());
  EXPECT_EQ(f[7], d["measured"]["remote_write_bytes_per_rank"].NumText());
  EXPECT_EQ(f[8], d["measured"]["barrier_rounds"].NumText());
  // ... and differs from the default config's (the override reached the run).
  JsonDoc dflt;
  ASSERT_TRUE(
      RunJson({"run", "--algo", "allreduce_two_phase", "--ranks", "4", "--size", "4096"}, &dflt));
  EXPECT_NE(f[3], dflt["time_ns"].NumText());
}

TEST(SweepGrid, SetWithSeveralValuesIsAnAxis) {
  TempDir tmp;
  std::string dir = tmp.path() + "/out";
  CliResult r =
      RunCli({"sweep", "--algo", "allreduce_mesh,allreduce_two_phase", "--ranks", "4", "--sizes",
              "4KiB,256KiB", "--set", "interconnect.link.bandwidth=28GB/s,56GB/s", "-o", dir});
  ASSERT_EQ(r.exit_code, 0) << r;
  std::vector<std::string> lines = Lines(ReadFile(dir + "/sweep.csv"));
  ASSERT_EQ(lines.size(), 1u + 2 * 2 * 2);  // twice the rows of the sweep without the axis
  EXPECT_EQ(CsvFields(lines[0]), Header({"interconnect.link.bandwidth"}));
  std::set<std::string> seen;
  for (size_t i = 1; i < lines.size(); i++) {
    std::vector<std::string> f = CsvFields(lines[i]);
    ASSERT_EQ(f.size(), 19u) << lines[i];
    EXPECT_EQ(f[3], i % 2 ? "28GB/s" : "56GB/s") << lines[i];  // the axis varies fastest
    EXPECT_EQ(f[16], "true") << lines[i];
    seen.insert(f[0] + " " + f[2] + " " + f[3]);
    if (i % 2 == 0) {  // at 256 KiB twice the link bandwidth must pay off
      double t28 = std::stod(CsvFields(lines[i - 1])[4]), t56 = std::stod(f[4]);
      if (f[2] == "262144") {
        EXPECT_LT(t56, 0.9 * t28) << lines[i - 1] << "\n" << lines[i];
      }
      EXPECT_LT(t56, t28) << lines[i - 1] << "\n" << lines[i];
    }
  }
  EXPECT_EQ(seen.size(), 8u);
  // Crossovers and plots per (P, bandwidth).
  EXPECT_NE(r.out.find("P=4, interconnect.link.bandwidth=28GB/s: "), std::string::npos) << r;
  EXPECT_NE(r.out.find("P=4, interconnect.link.bandwidth=56GB/s: "), std::string::npos) << r;
  if (HaveGnuplot()) {
    for (const char *p : {"time_vs_size.png", "time_vs_size_P4_28GB-s.png",
                          "time_vs_size_P4_56GB-s.png", "busbw_vs_size_P4_56GB-s.png"})
      EXPECT_TRUE(IsPng(dir + "/" + p)) << p;
  }
}

// The GEMM built-ins' flags are axes like --set (--m replaces --sizes), and
// a fused built-in's row carries its overlap card, the numbers of `run
// --json` (times in us).
TEST(SweepGrid, GemmFlagsAreAxesAndFusedRowsCarryTheOverlapCard) {
  TempDir tmp;
  std::string dir = tmp.path() + "/out";
  CliResult r = RunCli({"sweep", "--algo", "gemm_allreduce", "--ranks", "2", "--m", "128,256",
                        "--n", "256", "--compute-cores", "2", "--comm-cores", "1,2", "-o", dir});
  ASSERT_EQ(r.exit_code, 0) << r;
  std::vector<std::string> lines = Lines(ReadFile(dir + "/sweep.csv"));
  ASSERT_EQ(lines.size(), 1u + 2 * 2);
  EXPECT_EQ(CsvFields(lines[0]), Header({"m", "comm_cores"}));
  for (size_t i = 1; i < lines.size(); i++) {
    std::vector<std::string> f = CsvFields(lines[i]);
    ASSERT_EQ(f.size(), 20u) << lines[i];
    EXPECT_EQ(f[2], "") << lines[i];  // no --size: M is --m
    EXPECT_EQ(f[3], i <= 2 ? "128" : "256") << lines[i];
    EXPECT_EQ(f[4], i % 2 ? "1" : "2") << lines[i];
    EXPECT_EQ(f[17], "true") << lines[i];
    JsonDoc d;
    ASSERT_TRUE(RunJson({"run", "--algo", "gemm_allreduce", "--ranks", "2", "--m", f[3], "--n",
                         "256", "--compute-cores", "2", "--comm-cores", f[4], "--json"},
                        &d));
    JsonView o = d["overlap"];
    EXPECT_EQ(f[5], d["time_ns"].NumText());
    EXPECT_DOUBLE_EQ(std::stod(f[11]), (double)o["compute_only_ps"].Int() / 1e6);
    EXPECT_DOUBLE_EQ(std::stod(f[12]), (double)o["comm_only_ps"].Int() / 1e6);
    EXPECT_DOUBLE_EQ(std::stod(f[13]), (double)o["sequential_ps"].Int() / 1e6);
    EXPECT_NEAR(std::stod(f[14]), o["exposed_comm_ps"].Num() / 1e6, 1e-6);
    EXPECT_EQ(f[15], o["overlap_efficiency"].NumText());
    EXPECT_EQ(f[16], o["tflops"].NumText());
  }
  // --no-data reaches every point: a shape whose golden check would take
  // minutes runs timing-only, as `run --no-data` gives it
  CliResult nd = RunCli({"sweep", "--algo", "gemm", "--ranks", "1", "--m", "4096", "--k", "4096",
                         "--n", "4096", "--compute-cores", "24", "--no-data", "-o", dir});
  ASSERT_EQ(nd.exit_code, 0) << nd;
  std::vector<std::string> g = CsvFields(Lines(ReadFile(dir + "/sweep.csv"))[1]);
  JsonDoc t;
  ASSERT_TRUE(RunJson({"run", "--algo", "gemm", "--ranks", "1", "--m", "4096", "--k", "4096", "--n",
                       "4096", "--compute-cores", "24", "--no-data", "--json"},
                      &t));
  EXPECT_EQ(g[3], t["time_ns"].NumText());
  EXPECT_EQ(g[15], "true");
  EXPECT_EQ(g[9], "");  // gemm has no overlap card
  CliResult both = RunCli(
      {"sweep", "--algo", "gemm", "--ranks", "1", "--m", "128", "--sizes", "256", "-o", dir});
  EXPECT_EQ(both.exit_code, 2) << both;
  EXPECT_NE(both.err.find("--sizes"), std::string::npos) << both;
  CliResult bad = RunCli({"sweep", "--algo", "gemm", "--ranks", "1", "--m", "128,x", "-o", dir});
  EXPECT_EQ(bad.exit_code, 2) << bad;
  EXPECT_NE(bad.err.find("--m"), std::string::npos) << bad;
}

TEST(SweepGrid, SizeSpecsExpandAsDocumented) {
  struct Case {
    const char *spec;
    std::vector<std::string> sizes;
  };
  const Case cases[] = {
      {"1KiB..4KiB:+1KiB", {"1024", "2048", "3072", "4096"}},
      {"256B..5KiB:x4", {"256", "1024", "4096"}},
      {"4KiB,256,1KB", {"256", "1000", "4096"}},  // a list is sorted
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.spec);
    TempDir tmp;
    CliResult r = RunCli(
        {"sweep", "--algo", "allreduce_mesh", "--ranks", "2", "--sizes", c.spec, "-o", tmp.path()});
    ASSERT_EQ(r.exit_code, 0) << r;
    std::vector<std::string> lines = Lines(ReadFile(tmp.path() + "/sweep.csv"));
    std::vector<std::string> got;
    for (size_t i = 1; i < lines.size(); i++) got.push_back(CsvFields(lines[i])[2]);
    EXPECT_EQ(got, c.sizes);
  }
}

}  // namespace
}  // namespace a2test
