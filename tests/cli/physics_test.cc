// End-to-end physical sanity: more bytes take longer, faster links shorten
// a link-bound run, and a switch (one port per NPU) is slower than a full
// mesh and caps the bus bandwidth below one link's.
#include <cstdint>
#include <string>
#include <vector>

#include "tests/support/run_cli.h"

namespace a2test {
namespace {

// time_ps of a passing run, or -1 (with a recorded failure).
long long TimeOf(const std::vector<std::string> &args, JsonDoc *out = nullptr) {
  JsonDoc d;
  ::testing::AssertionResult ran = RunJson(args, &d);
  EXPECT_TRUE(ran);
  if (!ran) return -1;
  EXPECT_TRUE(d["ok"].Bool());
  long long t = d["time_ps"].Int();
  EXPECT_GT(t, 0);
  if (out) *out = std::move(d);
  return t;
}

std::vector<std::string> RunArgs(const std::string &algo, uint32_t P, const std::string &size) {
  return {"run", "--algo", algo, "--ranks", std::to_string(P), "--size", size};
}

class CliPhysics : public ::testing::TestWithParam<const char *> {};

TEST_P(CliPhysics, TimeGrowsWithSliceSize) {
  const char *algo = GetParam();
  long long t256 = TimeOf(RunArgs(algo, 4, "256"));
  long long t64k = TimeOf(RunArgs(algo, 4, "64KiB"));
  long long t1m = TimeOf(RunArgs(algo, 4, "1MiB"));
  EXPECT_LT(t256, t64k);
  EXPECT_LT(t64k, t1m);
}

INSTANTIATE_TEST_SUITE_P(BothAllReduces, CliPhysics,
                         ::testing::Values("allreduce_mesh", "allreduce_two_phase"),
                         [](const ::testing::TestParamInfo<const char *> &info) {
                           return std::string(info.param) == "allreduce_mesh" ? "Mesh" : "TwoPhase";
                         });

TEST(CliPhysicsLinks, DoublingLinkBandwidthShortensMeshRunByMoreThanAFifth) {
  // Mesh all-reduce of 1 MiB at P=4 moves 3 MiB per rank over the links:
  // link-bound, so twice the bandwidth must save well over 20%.
  long long base = TimeOf(RunArgs("allreduce_mesh", 4, "1MiB"));
  long long fast = TimeOf(
      Args(RunArgs("allreduce_mesh", 4, "1MiB"), {"--set", "interconnect.link.bandwidth=56GB/s"}));
  EXPECT_LT((double)fast, 0.8 * (double)base) << "28 GB/s: " << base << " ps, 56 GB/s: " << fast;
}

TEST(CliPhysicsLinks, DoublingLinkBandwidthShortensTwoPhaseRun) {
  long long base = TimeOf(RunArgs("allreduce_two_phase", 4, "1MiB"));
  long long fast = TimeOf(Args(RunArgs("allreduce_two_phase", 4, "1MiB"),
                               {"--set", "interconnect.link.bandwidth=56GB/s"}));
  EXPECT_LT(fast, base) << "28 GB/s: " << base << " ps, 56 GB/s: " << fast;
}

TEST(CliPhysicsLinks, DefaultLinkBandwidthIs28GBps) {
  // The next test compares busbw against 28 GB/s: make sure that is the link.
  CliResult r = RunCli(RunArgs("allreduce_mesh", 2, "256"));
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find("link 28 GB/s"), std::string::npos) << r;
}

TEST(CliPhysicsSwitch, SwitchIsSlowerThanFullMeshAndItsPortCapsBusBandwidth) {
  JsonDoc mesh_doc, switch_doc;
  long long mesh = TimeOf(RunArgs("allreduce_mesh", 8, "64KiB"), &mesh_doc);
  long long sw =
      TimeOf(Args(RunArgs("allreduce_mesh", 8, "64KiB"), {"--set", "interconnect.topology=switch"}),
             &switch_doc);
  ASSERT_TRUE(mesh_doc.ok());
  ASSERT_TRUE(switch_doc.ok());
  EXPECT_EQ(mesh_doc["topology"].Str(), "full_mesh");
  EXPECT_EQ(switch_doc["topology"].Str(), "switch");
  EXPECT_GT(sw, mesh);
  // Every NPU has one 28 GB/s port to the switch: the bus bandwidth cannot
  // exceed it (the full mesh has 7 links per NPU).
  EXPECT_LT(switch_doc["busbw_gbps"].Num(), 28.0);
  EXPECT_GT(switch_doc["busbw_gbps"].Num(), 0.0);
  EXPECT_LT(switch_doc["busbw_gbps"].Num(), mesh_doc["busbw_gbps"].Num());
}

}  // namespace
}  // namespace a2test
