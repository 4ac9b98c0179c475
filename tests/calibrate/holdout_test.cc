// Rows a fit does not use: `a2a3sim calibrate --holdout SOURCE` leaves a
// source's rows out of the fit and reports them at the start and after it;
// rows of role predict are never fitted to either. Each group of rows has a
// summary line: its rows, median and worst |error| = |simulated / measured - 1|.
#include <cstdio>
#include <string>
#include <vector>

#include "tests/calibrate/calibrate_util.h"

namespace a2test {
namespace {

// A TGET row of `size`, measured by the simulator at link latency `lat`.
std::string TgetRow(const std::string &id, const char *size, const char *lat,
                    const std::string &source, const char *role) {
  long long ps = SimulatedPs({"--program", TgetProgram(), "--ranks", "2", "--param",
                              std::string("size=") + size, "--set",
                              std::string("interconnect.link.latency=") + lat});
  return id + "," + TgetProgram() + ",2," + size + ",,time," + std::to_string(ps) + "ps,1%," +
         source + "," + role + "\n";
}

// Source near: measured at 300 ns; source far: at 1 us. A fit of the
// latency to both lands between them; without far, at 300 ns.
std::string NearFarCsv(const char *far_role) {
  return std::string(CsvHeaderWithRole()) + TgetRow("near-16KiB", "16KiB", "300ns", "near", "fit") +
         TgetRow("near-64KiB", "64KiB", "300ns", "near", "fit") +
         TgetRow("far-16KiB", "16KiB", "1us", "far", far_role) +
         TgetRow("far-64KiB", "64KiB", "1us", "far", far_role);
}

const std::vector<std::string> kFitLatency = {"--fit", "interconnect.link.latency"};

// The summary line of `label` ("held-out rows") after the line `after`
// of the output.
std::string Summary(const std::string &out, const std::string &after, const std::string &label) {
  size_t at = out.find(after);
  return at == std::string::npos ? "" : LineStarting(out.substr(at), label + ": ");
}

TEST(CalibrateHoldout, HeldOutRowsAreNotUsedByTheFit) {
  TempDir tmp;
  std::string csv = tmp.Write("t.csv", NearFarCsv("fit"));
  CliResult both = RunCli(Args({"calibrate", csv}, kFitLatency));
  ASSERT_EQ(both.exit_code, 0) << both;
  double between = Fitted(both.out, "interconnect.link.latency");
  EXPECT_GT(between, 300e3 * 1.2) << both.out;  // the far rows pull it up
  EXPECT_LT(between, 1000e3 / 1.2) << both.out;

  std::string yaml = tmp.path() + "/fit.yaml";
  CliResult held = RunCli(Args({"calibrate", csv, "--holdout", "far", "-o", yaml}, kFitLatency));
  ASSERT_EQ(held.exit_code, 0) << held;
  EXPECT_NEAR(Fitted(held.out, "interconnect.link.latency"), 300e3, 300e3 * 0.01) << held.out;
  EXPECT_NE(held.out.find("held out (--holdout): 2 rows of far; the fit uses the 2 fit rows not "
                          "held out; "),
            std::string::npos)
      << held.out;
  // The fit's tables hold the near rows only; the far rows are reported at
  // the start and after the fit, with their summary lines.
  size_t before = held.out.find("before the fit"), held_start = held.out.find("held-out rows (");
  ASSERT_NE(held_start, std::string::npos) << held.out;
  EXPECT_EQ(held.out.substr(before, held_start - before).find("far-"), std::string::npos)
      << held.out;
  EXPECT_NE(Summary(held.out, "\nafter the fit", "fit rows").find("fit rows: 2, median |error| "),
            std::string::npos)
      << held.out;
  std::string at_start = Summary(held.out, ", at the start:", "held-out rows");
  std::string fitted = Summary(held.out, ", after the fit:", "held-out rows");
  EXPECT_NE(at_start.find("held-out rows: 2, median |error| "), std::string::npos) << held.out;
  // At 300 ns the far rows (measured at 1 us) are far too fast: outside 1 %.
  EXPECT_NE(fitted.find(", 0 within their tolerance"), std::string::npos) << held.out;
  EXPECT_NE(held.out.find("\nfar-64KiB "), std::string::npos) << held.out;
  // The fitted YAML names what was held out.
  std::string y = ReadFileOrFail(yaml);
  EXPECT_NE(y.find(", 2 rows:\n#   near-16KiB, near-64KiB\n# Held out (--holdout), not used by "
                   "the fit:\n#   far-16KiB, far-64KiB\n"),
            std::string::npos)
      << y;
}

TEST(CalibrateHoldout, PredictRowsAreNeverFitted) {
  TempDir tmp;
  std::string csv = tmp.Write("t.csv", NearFarCsv("predict"));
  CliResult r = RunCli(Args({"calibrate", csv}, kFitLatency));
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NEAR(Fitted(r.out, "interconnect.link.latency"), 300e3, 300e3 * 0.01) << r.out;
  EXPECT_NE(r.out.find("predicted rows (role predict: not used by the fit), after the fit:"),
            std::string::npos)
      << r.out;
  EXPECT_NE(Summary(r.out, "not used by the fit), after the fit:", "predicted rows")
                .find("predicted rows: 2, "),
            std::string::npos)
      << r.out;
  // --check pins every row, predicted ones too.
  CliResult check = RunCli(Args({"calibrate", csv, "--check"}, kFitLatency));
  EXPECT_EQ(check.exit_code, 1) << check;
}

TEST(CalibrateHoldout, ListsAndRepeatsAreTheSameAndBadSourcesAreRefused) {
  TempDir tmp;
  std::string csv = tmp.Write("t.csv", std::string(CsvHeaderWithRole()) +
                                           TgetRow("a", "16KiB", "300ns", "src-a", "fit") +
                                           TgetRow("b", "16KiB", "300ns", "src-b", "fit") +
                                           TgetRow("c", "64KiB", "300ns", "src-c", "fit"));
  CliResult list = RunCli(Args({"calibrate", csv, "--holdout", "src-a,src-b"}, kFitLatency));
  CliResult repeat =
      RunCli(Args({"calibrate", csv, "--holdout", "src-a", "--holdout", "src-b"}, kFitLatency));
  EXPECT_EQ(list.exit_code, 0) << list;
  EXPECT_EQ(list.out, repeat.out);
  EXPECT_NE(list.out.find("held out (--holdout): 2 rows of src-a, src-b; "), std::string::npos)
      << list.out;
  EXPECT_TRUE(RunFailsWithUsage(Args({"calibrate", csv, "--holdout", "src-x"}, kFitLatency),
                                {"error: --holdout: no row has source 'src-x'",
                                 "the sources of these rows are: src-a, src-b, src-c"}));
  EXPECT_TRUE(RunFailsWithUsage(Args({"calibrate", csv, "--holdout", "src-a,,src-b"}, kFitLatency),
                                {"error: --holdout: empty item in 'src-a,,src-b'"}));
  EXPECT_TRUE(
      RunFailsWithUsage(Args({"calibrate", csv, "--holdout", "src-a,src-b,src-c"}, kFitLatency),
                        {"error: --holdout: no row is left for the fit to use"}));
  EXPECT_TRUE(RunFailsWithUsage({"calibrate", csv, "--holdout", "src-a"},
                                {"error: --holdout: only with --fit"}));
}

// Rows of the mesh all-reduce, measured = simulated / factor: error factor - 1.
std::string MeshRow(const std::string &id, const char *size, double factor, const char *role) {
  long long ps = SimulatedPs({"--algo", "allreduce_mesh", "--ranks", "4", "--size", size});
  char line[256];
  snprintf(line, sizeof line, "%s,allreduce_mesh,4,%s,,time,%lldps,10%%,test,%s\n", id.c_str(),
           size, (long long)(ps / factor + 0.5), role);
  return line;
}

TEST(CalibrateSummary, EachGroupHasItsRowsMedianAndWorstError) {
  TempDir tmp;
  std::string csv = tmp.Write(
      "t.csv", std::string(CsvHeaderWithRole()) + MeshRow("f1", "4KiB", 1.02, "fit") +
                   MeshRow("f2", "64KiB", 0.94, "fit") + MeshRow("f3", "1MiB", 1.05, "fit") +
                   MeshRow("p1", "16KiB", 1.20, "predict"));
  CliResult r = RunCli({"calibrate", csv});
  ASSERT_EQ(r.exit_code, 0) << r;
  // |error| 2 %, 6 %, 5 %: median 5 %, worst 6 % (f2).
  EXPECT_EQ(LineStarting(r.out, "fit rows: "),
            "fit rows: 3, median |error| 5.00 %, worst |error| 6.00 % (f2), 3 within their "
            "tolerance")
      << r;
  EXPECT_EQ(LineStarting(r.out, "predicted rows: "),
            "predicted rows: 1, median |error| 20.00 %, worst |error| 20.00 % (p1), 0 within "
            "their tolerance")
      << r;
  EXPECT_NE(r.out.find("3 of 4 rows within their tolerance"), std::string::npos) << r;
  // The predicted row outside its tolerance fails --check.
  CliResult check = RunCli({"calibrate", "--check", csv});
  EXPECT_EQ(check.exit_code, 1) << check;
  // Markdown: a table per group, each with its summary line.
  CliResult md = RunCli({"calibrate", "--markdown", csv});
  ASSERT_EQ(md.exit_code, 0) << md;
  EXPECT_NE(md.out.find("| f3 | test |"), std::string::npos) << md;
  EXPECT_NE(md.out.find("\n\n**Fitted rows** (role `fit`): 3, median |error| 5.00 %, worst "
                        "|error| 6.00 % (f2), 3 within their tolerance.\n\n| row | source |"),
            std::string::npos)
      << md.out;
  EXPECT_NE(md.out.find("\n\n**Predicted rows** (role `predict`, used by no fit): 1, median "
                        "|error| 20.00 %"),
            std::string::npos)
      << md.out;
  // Several files: each file's tables after a comment naming it, then every row's summary.
  std::string other =
      tmp.Write("u.csv", std::string(CsvHeaderWithRole()) + MeshRow("g1", "4KiB", 1.10, "fit"));
  CliResult two = RunCli({"calibrate", "--markdown", csv, other});
  ASSERT_EQ(two.exit_code, 0) << two;
  size_t a = two.out.find("<!-- calibrate: " + csv + " -->\n| row |"),
         b = two.out.find("\n<!-- calibrate: " + other + " -->\n| row |"),
         all = two.out.find(
             "\n<!-- calibrate: every file -->\n**Fitted rows** (role `fit`): 4, "
             "median |error| 5.50 %, worst |error| 10.00 % (g1)");
  EXPECT_EQ(a, 0u) << two.out;
  EXPECT_NE(b, std::string::npos) << two.out;
  EXPECT_NE(all, std::string::npos) << two.out;
  EXPECT_LT(b, all) << two.out;
}

}  // namespace
}  // namespace a2test
