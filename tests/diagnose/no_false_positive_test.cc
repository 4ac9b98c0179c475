// No false positives: every built-in collective `a2a3sim list` names, at
// P = 2, 3, 4 and 8, and the hand-written correct examples of
// traces/examples/, run with the race check on, report status OK and zero
// races.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "collectives/collective.h"
#include "diag_util.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace {

// The collective names of `a2a3sim list`: the first word of every line that
// does not start with a blank (continuation lines are indented).
std::vector<std::string> ListedCollectives() {
  CliResult r = RunCli({"list"});
  EXPECT_EQ(r.exit_code, 0) << r;
  std::vector<std::string> names;
  for (const std::string &l : diag::Lines(r.out)) {
    if (l.empty() || l[0] == ' ' || l[0] == '\t') continue;
    std::istringstream in(l);
    std::string name;
    in >> name;
    names.push_back(name);
  }
  return names;
}

TEST(BuiltinCollectives, ListNamesTheAllReduces) {
  std::vector<std::string> names = ListedCollectives();
  for (const char *want : {"allreduce_mesh", "allreduce_two_phase", "allreduce_ring"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
}

class BuiltinNoRace : public ::testing::TestWithParam<uint32_t> {};

TEST_P(BuiltinNoRace, EveryListedCollectiveIsRaceFreeAndCorrect) {
  const uint32_t P = GetParam();
  std::vector<std::string> names = ListedCollectives();
  ASSERT_GE(names.size(), 3u);
  for (const std::string &algo : names) {
    SCOPED_TRACE(algo + " P=" + std::to_string(P));
    JsonDoc doc;
    // the GEMM built-ins take --size as M: 128 rows (their golden check
    // grows as M K N P, P^2 for allgather_gemm)
    const a2_collective *c = a2_collective_find(algo.c_str());
    uint64_t size = c && c->kind != A2_KIND_COMM ? 128 : 4 * P * 64;
    ASSERT_TRUE(RunJson(
        {"run", "--algo", algo, "--ranks", std::to_string(P), "--size", std::to_string(size)},
        &doc));
    EXPECT_EQ(doc["status"].Str(), "OK");
    EXPECT_TRUE(doc["ok"].Bool());
    EXPECT_TRUE(doc["race_check"]["checked"].Bool());
    EXPECT_EQ(doc["race_check"]["races"].Int(), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, BuiltinNoRace, ::testing::Values(2u, 3u, 4u, 8u));

TEST(BuiltinNoRace, MultiCoreMeshIsRaceFree) {
  JsonDoc doc;
  ASSERT_TRUE(RunJson(
      {"run", "--algo", "allreduce_mesh", "--ranks", "4", "--cores", "3", "--size", "96KiB"},
      &doc));
  EXPECT_EQ(doc["status"].Str(), "OK");
  EXPECT_TRUE(doc["race_check"]["checked"].Bool());
  EXPECT_EQ(doc["race_check"]["races"].Int(), 0);
}

class ExampleNoRace : public ::testing::TestWithParam<uint32_t> {};

TEST_P(ExampleNoRace, HandWrittenAllReducesAreRaceFree) {
  std::vector<std::string> files;
  for (const auto &e : std::filesystem::directory_iterator(diag::Src("traces/examples"))) {
    const std::string name = e.path().filename().string();
    if (name.rfind("allreduce_", 0) == 0 && e.path().extension() == ".a2t")
      files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 2u) << "expected at least the mesh and two-phase examples";
  for (const std::string &f : files) {
    SCOPED_TRACE(f);
    JsonDoc doc;
    ASSERT_TRUE(RunJson({"run", "--program", f, "--ranks", std::to_string(GetParam())}, &doc));
    EXPECT_EQ(doc["status"].Str(), "OK");
    EXPECT_TRUE(doc["race_check"]["checked"].Bool());
    EXPECT_EQ(doc["race_check"]["races"].Int(), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, ExampleNoRace, ::testing::Values(2u, 4u));

}  // namespace
}  // namespace a2test
