// Reservation timing against packet timing under contention: the cases of
// docs/timing-model.md, "Reservation under contention", as
// bench/contention.cases lists them. Simulated times are deterministic, so
// each case's ratio (reservation / packet, and ordered / packet) is pinned:
// within 5 % where the list says 1, else within 2 points of the ratio it
// shows (a move either way is a change the list and the table must follow).
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/files.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace {

struct Case {
  std::string name;
  std::vector<std::string> args;
  double reservation, ordered;  // the table's ratios; 1.0: within 5 %
};

// Shown as its name (gtest and ctest's test names show a parameter).
void PrintTo(const Case &c, std::ostream *os) {
  *os << c.name;
}

std::string Trim(const std::string &s) {
  size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// bench/contention.cases: name | label | reservation | ordered | arguments,
// {src} standing for the source tree. A line that does not parse is a case
// named after its line number with no arguments, which then fails.
std::vector<Case> Cases() {
  const std::string src = A2_SOURCE_DIR;
  std::istringstream in(ReadFileOrFail(src + "/bench/contention.cases"));
  std::vector<Case> v;
  std::string line;
  for (int n = 1; std::getline(in, line); n++) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    for (size_t at = 0;;) {
      size_t bar = line.find(" | ", at);
      f.push_back(Trim(line.substr(at, bar == std::string::npos ? bar : bar - at)));
      if (bar == std::string::npos) break;
      at = bar + 3;
    }
    Case c{"Line" + std::to_string(n), {}, 0, 0};
    if (f.size() == 5) {
      c.name = f[0];
      c.reservation = std::atof(f[2].c_str());
      c.ordered = std::atof(f[3].c_str());
      std::istringstream a(f[4]);
      for (std::string w; a >> w;) {
        size_t at = w.find("{src}");
        if (at != std::string::npos) w.replace(at, 5, src);
        c.args.push_back(w);
      }
    }
    v.push_back(c);
  }
  return v;
}

class ContentionCase : public ::testing::TestWithParam<Case> {};

double TimePs(const Case &c, const char *timing) {
  std::vector<std::string> args = {"run"};
  for (const std::string &a : c.args) args.push_back(a);
  for (const char *a : {"--no-data", "--no-race-check", "--json", "--set"}) args.push_back(a);
  args.push_back(std::string("interconnect.timing=") + timing);
  JsonDoc d;
  CliResult r;
  if (!RunJson(args, &d, &r)) return -1;
  return (double)d["time_ps"].Int();
}

void ExpectRatio(double got, double table, const char *what) {
  if (table == 1.0) {
    EXPECT_NEAR(got, 1.0, 0.05) << what;
  } else {
    EXPECT_NEAR(got, table, 0.02) << what << ": bench/contention.cases shows " << table;
  }
}

TEST_P(ContentionCase, RatioToPacketTimingIsTheTables) {
  const Case &c = GetParam();
  ASSERT_FALSE(c.args.empty()) << "bench/contention.cases: " << c.name
                               << " is not name | label | reservation | ordered | arguments";
  const double p = TimePs(c, "packet"), r = TimePs(c, "reservation"), o = TimePs(c, "ordered");
  ASSERT_GT(p, 0);
  ASSERT_GT(r, 0);
  ASSERT_GT(o, 0);
  std::cout << c.name << ": packet " << (long long)p << " ps, reservation " << r / p << ", ordered "
            << o / p << "\n";
  ExpectRatio(r / p, c.reservation, "reservation / packet");
  ExpectRatio(o / p, c.ordered, "ordered / packet");
}

INSTANTIATE_TEST_SUITE_P(Table, ContentionCase, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case> &i) {
                           return std::string(i.param.name);
                         });

}  // namespace
}  // namespace a2test
