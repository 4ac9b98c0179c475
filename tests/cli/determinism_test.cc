// End-to-end: runs are deterministic (byte-identical output), rank
// placement by -d is equivalent to --ranks where the topology is symmetric,
// and `list` names every built-in collective.
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "tests/support/run_cli.h"

namespace a2test {
namespace {

struct Repeat {
  const char *name;
  std::vector<std::string> args;
};

// Names the parameter in test listings (instead of the object's raw bytes).
void PrintTo(const Repeat &r, std::ostream *os) {
  *os << r.name;
}

class CliDeterminism : public ::testing::TestWithParam<Repeat> {};

TEST_P(CliDeterminism, IdenticalRunsPrintIdenticalJson) {
  std::vector<std::string> args = Args(GetParam().args, {"--json"});
  CliResult a = RunCli(args), b = RunCli(args);
  ASSERT_EQ(a.exit_code, 0) << a;
  ASSERT_EQ(b.exit_code, 0) << b;
  ASSERT_TRUE(JsonDoc::Parse(a.out).ok()) << a;
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(a.err, b.err);
}

TEST_P(CliDeterminism, IdenticalRunsPrintIdenticalText) {
  CliResult a = RunCli(GetParam().args), b = RunCli(GetParam().args);
  ASSERT_EQ(a.exit_code, 0) << a;
  ASSERT_EQ(b.exit_code, 0) << b;
  EXPECT_NE(a.out.find("OK"), std::string::npos) << a;
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(a.err, b.err);
}

INSTANTIATE_TEST_SUITE_P(Runs, CliDeterminism,
                         ::testing::Values(Repeat{"MeshP8_64KiB",
                                                  {"run", "--algo", "allreduce_mesh", "--ranks",
                                                   "8", "--size", "64KiB"}},
                                           Repeat{"TwoPhaseP4_1MiB",
                                                  {"run", "--algo", "allreduce_two_phase",
                                                   "--ranks", "4", "--size", "1MiB"}}),
                         [](const ::testing::TestParamInfo<Repeat> &info) {
                           return std::string(info.param.name);
                         });

// ---- -d versus --ranks ----

class CliDevices : public ::testing::TestWithParam<const char *> {};

TEST_P(CliDevices, FirstDevicesGiveTheSameNumbersAsRanks) {
  const std::string algo = GetParam();
  JsonDoc by_ranks, by_devices;
  ASSERT_TRUE(RunJson({"run", "--algo", algo, "--ranks", "4", "--size", "64KiB"}, &by_ranks));
  ASSERT_TRUE(RunJson({"run", "--algo", algo, "-d", "0,1,2,3", "--size", "64KiB"}, &by_devices));
  EXPECT_TRUE(by_ranks["ok"].Bool());
  std::map<std::string, std::string> want = JsonScalars(by_ranks.root()),
                                     got = JsonScalars(by_devices.root());
  EXPECT_GT(want.size(), 20u) << "too few numbers to compare";
  EXPECT_EQ(got, want);
}

TEST_P(CliDevices, OtherDevicesTakeTheSameTimeOnAFullMesh) {
  const std::string algo = GetParam();
  JsonDoc low, high;
  ASSERT_TRUE(RunJson({"run", "--algo", algo, "--ranks", "4", "--size", "64KiB"}, &low));
  ASSERT_TRUE(RunJson({"run", "--algo", algo, "-d", "4,5,6,7", "--size", "64KiB"}, &high));
  EXPECT_TRUE(high["ok"].Bool());
  EXPECT_EQ(high["ranks"].Int(), 4);
  EXPECT_EQ(high["time_ps"].Int(), low["time_ps"].Int());
  EXPECT_EQ(high["measured"]["remote_read_bytes_per_rank"].Int(),
            low["measured"]["remote_read_bytes_per_rank"].Int());
}

INSTANTIATE_TEST_SUITE_P(BothAllReduces, CliDevices,
                         ::testing::Values("allreduce_mesh", "allreduce_two_phase"),
                         [](const ::testing::TestParamInfo<const char *> &info) {
                           return std::string(info.param) == "allreduce_mesh" ? "Mesh" : "TwoPhase";
                         });

// ---- list ----

TEST(CliList, ListsBothAllReduceAlgorithms) {
  CliResult r = RunCli({"list"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(r.err.empty()) << r;
  // Each collective's name starts a line.
  for (const char *name : {"allreduce_mesh", "allreduce_two_phase"}) {
    const std::string line_start = std::string(name) + " ";
    bool found =
        r.out.rfind(line_start, 0) == 0 || r.out.find("\n" + line_start) != std::string::npos;
    EXPECT_TRUE(found) << name << " not listed" << r;
  }
}

TEST(CliList, EveryListedNameRuns) {
  CliResult list = RunCli({"list"});
  ASSERT_EQ(list.exit_code, 0) << list;
  std::vector<std::string> names;
  size_t pos = 0;
  while (pos < list.out.size()) {
    size_t eol = list.out.find('\n', pos);
    if (eol == std::string::npos) eol = list.out.size();
    std::string line = list.out.substr(pos, eol - pos);
    if (!line.empty() && line[0] != ' ') names.push_back(line.substr(0, line.find(' ')));
    pos = eol + 1;
  }
  ASSERT_GE(names.size(), 2u) << list;
  for (const std::string &n : names) {
    SCOPED_TRACE(n);
    JsonDoc d;
    ASSERT_TRUE(RunJson({"run", "--algo", n, "--ranks", "2"}, &d));
    EXPECT_EQ(d["algo"].Str(), n);
    EXPECT_TRUE(d["ok"].Bool());
  }
}

}  // namespace
}  // namespace a2test
