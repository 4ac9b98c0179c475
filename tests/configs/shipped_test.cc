// Every shipped config (configs/*.yaml) passes `a2a3sim config check` and
// runs the mesh all-reduce OK, race-free, at its own rank count.
#include <dirent.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/support/run_cli.h"

namespace {

std::vector<std::string> ShippedConfigs() {
  std::vector<std::string> out;
  std::string dir = std::string(A2_SOURCE_DIR) + "/configs";
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 5 && n.compare(n.size() - 5, 5, ".yaml") == 0) out.push_back(dir + "/" + n);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The resolved ranks, from the printed config ("  ranks: 16").
long RanksOf(const std::string &printed) {
  size_t at = printed.find("\n  ranks: ");
  return at == std::string::npos ? -1 : std::stol(printed.substr(at + 10));
}

TEST(ShippedConfigTest, ThereAreAtLeastFive) {
  EXPECT_GE(ShippedConfigs().size(), 5u);
}

TEST(ShippedConfigTest, EachPassesConfigCheckAndRunsMeshAllReduceOk) {
  for (const std::string &f : ShippedConfigs()) {
    SCOPED_TRACE(f);
    a2test::CliResult check = a2test::RunCli({"config", "check", f});
    ASSERT_EQ(check.exit_code, 0) << check;
    EXPECT_NE(check.out.find("OK"), std::string::npos);
    long P = RanksOf(check.out);
    ASSERT_GE(P, 2) << check.out;
    a2test::JsonDoc doc;
    ASSERT_TRUE(a2test::RunJson({"run", "--config", f, "--algo", "allreduce_mesh", "--ranks",
                                 std::to_string(P), "--size", "4KiB"},
                                &doc));
    EXPECT_TRUE(doc["ok"].Bool());
    EXPECT_EQ(doc["race_check"]["races"].Int(), 0);
    EXPECT_EQ(doc["measured"]["remote_read_bytes_per_rank"].Int(), (P - 1) * 4096);
  }
}

TEST(ShippedConfigTest, ClusterScalesToMoreServersWithSet) {
  a2test::JsonDoc doc;
  ASSERT_TRUE(a2test::RunJson(
      {"run", "--config", std::string(A2_SOURCE_DIR) + "/configs/a2-cluster.yaml", "--set",
       "interconnect.ranks=32", "--algo", "allreduce_two_phase", "--ranks", "32", "--size", "4KiB"},
      &doc));
  EXPECT_TRUE(doc["ok"].Bool());
  EXPECT_EQ(doc["topology"].Str(), "two_level");
}

TEST(ShippedConfigTest, ConfigCheckRefusesABadFileWithItsLocation) {
  a2test::TempDir dir;
  std::string f = dir.Write("bad.yaml",
                            "interconnect:\n  topology: torus\n  ranks: 6\n"
                            "  torus_width: 4\n");
  a2test::CliResult r = a2test::RunCli({"config", "check", f});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_NE(r.err.find(f + ":4:"), std::string::npos) << r;
  EXPECT_NE(r.err.find("must divide"), std::string::npos) << r;
}

}  // namespace

namespace {

// libyaml marks the end of input one line past the last one; the error must
// point at the last line instead. Pins a past failure: a 3-line file
// truncated inside a flow mapping reported `bad.yaml:4:1`.
TEST(ConfigErrorTest, AnErrorAtTheEndOfTheFilePointsAtItsLastLine) {
  a2test::TempDir dir;
  std::string f = dir.Write("eof.yaml",
                            "interconnect:\n  link: {bandwidth: 28GB/s,\n"
                            "  latency: 1ns\n");
  a2test::CliResult r = a2test::RunCli({"config", "check", f});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_NE(r.err.find(f + ":3:15: error:"), std::string::npos) << r;
  EXPECT_NE(r.err.find("at the end of the file"), std::string::npos) << r;
}

}  // namespace

namespace {

// A network too large to build is refused before anything is built (it used
// to try to build 10^10 links), with the key named; other topologies scale.
TEST(ConfigLimitTest, AFullMeshTooLargeToBuildIsRefusedAtOnce) {
  EXPECT_TRUE(a2test::RunFailsWithUsage(
      {"run", "--algo", "allreduce_mesh", "--ranks", "2", "--set", "interconnect.ranks=100000"},
      {"interconnect.ranks (100000)", "9999900000 links", "two_level or switch"}));
  a2test::JsonDoc doc;
  ASSERT_TRUE(
      a2test::RunJson({"run", "--algo", "allreduce_mesh", "--ranks", "2", "--set",
                       "interconnect.ranks=100000", "--set", "interconnect.topology=switch"},
                      &doc));
  EXPECT_TRUE(doc["ok"].Bool());
}

}  // namespace
