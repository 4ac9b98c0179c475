// Rank trends: rows of one program measured at several rank counts must
// move, in the simulator, the way they move on the hardware; --check fails
// when a step goes the other way even though every row is within its
// tolerance.
#include <cmath>
#include <cstdio>
#include <string>

#include "tests/calibrate/calibrate_util.h"

namespace a2test {
namespace {

// The non-blocking all-reduce at 16 MiB: its simulated time grows a little
// from 4 to 8 ranks.
struct Step {
  long long s4, s8;
};

Step NbStep() {
  return {SimulatedPs({"--algo", "allreduce_nb", "--ranks", "4", "--size", "16MiB", "--no-data"}),
          SimulatedPs({"--algo", "allreduce_nb", "--ranks", "8", "--size", "16MiB", "--no-data"})};
}

// Two rows of the series at ranks 4 and 8, measured m4 and m8 ps.
std::string TwoRanks(double m4, double m8, double tolerance) {
  char csv[512];
  snprintf(csv, sizeof csv,
           "%snb-4,allreduce_nb,4,16MiB,--no-data,time,%.0fps,%.2f%%,test\n"
           "nb-8,allreduce_nb,8,16MiB,--no-data,time,%.0fps,%.2f%%,test\n",
           CsvHeader(), m4, tolerance * 100, m8, tolerance * 100);
  return csv;
}

TEST(CalibrateTrend, ASeriesThatMovesAsMeasuredPasses) {
  Step s = NbStep();
  TempDir tmp;
  std::string csv = tmp.Write("t.csv", TwoRanks(s.s4, s.s8, 0.15));
  CliResult r = RunCli({"calibrate", "--check", csv});
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find("rank trends: 1 step from one rank count to the next, 0 the other way"),
            std::string::npos)
      << r;
}

TEST(CalibrateTrend, AStepTheOtherWayFailsTheCheckWithEveryRowWithinItsTolerance) {
  Step s = NbStep();
  double S = (double)s.s8 / (double)s.s4;
  ASSERT_GT(S, 1.0) << "the premise: allreduce_nb takes longer at 8 ranks than at 4";
  ASSERT_LT(S, 1.8) << "the premise: by less than the tolerance can hide";
  // Each row at the edge of its tolerance t, the 4-rank one fast and the
  // 8-rank one slow: measured falls by more than t while simulated rises.
  double t = S - 1 + 0.1;
  TempDir tmp;
  std::string csv = tmp.Write("t.csv", TwoRanks(s.s4 / (1 - 0.98 * t), s.s8 / (1 + 0.98 * t), t));
  CliResult plain = RunCli({"calibrate", csv});
  EXPECT_EQ(plain.exit_code, 0) << plain;
  EXPECT_NE(plain.out.find("2 of 2 rows within their tolerance"), std::string::npos) << plain;
  EXPECT_NE(plain.out.find("1 the other way than measured:"), std::string::npos) << plain;
  std::string line = LineStarting(plain.out, "  ");
  EXPECT_NE(line.find("nb-4 (4 ranks) -> nb-8 (8 ranks): measured x0."), std::string::npos)
      << plain;
  EXPECT_NE(line.find("simulated x1."), std::string::npos) << plain;
  CliResult check = RunCli({"calibrate", "--check", csv});
  EXPECT_EQ(check.exit_code, 1) << check;
}

TEST(CalibrateTrend, AStepWithinTheTolerancesIsFlatAndEitherWayPasses) {
  Step s = NbStep();
  TempDir tmp;
  // measured falls 5 %, simulated rises: within 15 %, no direction to keep
  std::string csv = tmp.Write("t.csv", TwoRanks(s.s4, s.s4 * 0.95, 0.15));
  CliResult r = RunCli({"calibrate", csv});
  EXPECT_NE(r.out.find("1 step from one rank count to the next, 0 the other way"),
            std::string::npos)
      << r;
}

TEST(CalibrateTrend, RowsOfOtherSizesOrProgramsAreNotASeries) {
  Step s = NbStep();
  TempDir tmp;
  char csv[512];
  snprintf(csv, sizeof csv,
           "%snb-4,allreduce_nb,4,16MiB,--no-data,time,%lldps,99%%,test\n"
           "nb-8-small,allreduce_nb,8,1MiB,--no-data,time,%lldps,99%%,test\n",
           CsvHeader(), s.s4, s.s8);
  CliResult r = RunCli({"calibrate", tmp.Write("t.csv", csv)});
  EXPECT_EQ(r.out.find("rank trends"), std::string::npos) << r;
}

}  // namespace
}  // namespace a2test
