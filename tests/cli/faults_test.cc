// End-to-end: faults and stragglers (docs/timing-model.md, "Faults"). A
// failed link is routed around where the topology has another way and
// reported (exit 1, never a hang) where it has none; a slow NPU paces a
// ring; jitter is a pure function of the seed and --seeds reports the
// spread; bad fault flags are refused naming the flag.
#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/run_cli.h"

namespace a2test {
namespace {

// time_ps of a passing run (checked: exit 0, ok), or -1 with a failure.
long long TimeOf(const std::vector<std::string> &args, JsonDoc *out = nullptr) {
  JsonDoc d;
  ::testing::AssertionResult ran = RunJson(args, &d);
  EXPECT_TRUE(ran);
  if (!ran) return -1;
  EXPECT_TRUE(d["ok"].Bool());
  EXPECT_EQ(d["status"].Str(), "OK");
  long long t = d["time_ps"].Int();
  EXPECT_GT(t, 0);
  if (out) *out = std::move(d);
  return t;
}

std::vector<std::string> Ring(uint32_t P, const std::string &size) {
  return {"run", "--algo", "allreduce_ring", "--ranks", std::to_string(P), "--size", size};
}
std::vector<std::string> Mesh(uint32_t P, const std::string &size) {
  return {"run", "--algo", "allreduce_mesh", "--ranks", std::to_string(P), "--size", size};
}

// Bytes the links between NPUs a and b carried (both directions).
long long LinkBytes(const JsonDoc &d, int a, int b) {
  long long sum = 0;
  JsonView links = d["links"];
  for (size_t i = 0; i < links.Size(); i++) {
    long long f = links[i]["from"].Int(), t = links[i]["to"].Int();
    if ((f == a && t == b) || (f == b && t == a)) sum += links[i]["bytes"].Int();
  }
  return sum;
}

// ---- a failed link ----

TEST(Faults, FullMeshWithAFailedLinkCompletesOverTheOthers) {
  JsonDoc base, down;
  long long t0 = TimeOf(Mesh(8, "1MiB"), &base);
  long long t1 = TimeOf(Args(Mesh(8, "1MiB"), {"--link-down", "0-1"}), &down);
  EXPECT_GT(LinkBytes(base, 0, 1), 0);
  EXPECT_EQ(LinkBytes(down, 0, 1), 0) << "nothing crosses the failed link";
  // 0 <-> 1 goes through a third NPU, sharing its links: slower, not stuck
  EXPECT_GT(t1, t0);
  EXPECT_LT(t1, 3 * t0);
}

TEST(Faults, TwoNpuMeshWithItsLinkDownExitsOneNamingLinkAndTransfers) {
  // a server of two NPUs: no third one to go through
  CliResult r =
      RunCli(Args(Mesh(2, "4KiB"), {"--set", "interconnect.ranks=2", "--link-down", "1-0"}), 60);
  EXPECT_FALSE(r.timed_out) << r;
  EXPECT_EQ(r.exit_code, 1) << r;
  EXPECT_NE(r.out.find("UNROUTED"), std::string::npos) << r;
  EXPECT_NE(r.err.find("could not be routed"), std::string::npos) << r;
  EXPECT_NE(r.err.find("rank 0 (NPU 0) -> rank 1 (NPU 1) needs the link NPU 0 - NPU 1"),
            std::string::npos)
      << r;
}

TEST(Faults, TorusLinkDownIsReportedNotRouted) {
  CliResult r = RunCli(Args(Ring(16, "4KiB"), {"--config", A2_SOURCE_DIR "/configs/torus-4x4.yaml",
                                               "--link-down", "5-6"}),
                       60);
  EXPECT_FALSE(r.timed_out) << r;
  EXPECT_EQ(r.exit_code, 1) << r;
  EXPECT_NE(r.err.find("needs the link NPU 5 - NPU 6"), std::string::npos) << r;
}

TEST(Faults, RingRoutesTheOtherWayRoundAFailedLink) {
  std::vector<std::string> cfg = {"--config", A2_SOURCE_DIR "/configs/ring-8.yaml"};
  JsonDoc down;
  long long t0 = TimeOf(Args(Ring(8, "64KiB"), cfg));
  long long t1 = TimeOf(Args(Args(Ring(8, "64KiB"), cfg), {"--link-down", "2-3"}), &down);
  EXPECT_EQ(LinkBytes(down, 2, 3), 0);
  EXPECT_GT(t1, t0);
  // both directions down somewhere else too: 2 <-> 3 has no route left
  CliResult r =
      RunCli(Args(Args(Ring(8, "64KiB"), cfg), {"--link-down", "2-3", "--link-down", "6-7"}), 60);
  EXPECT_EQ(r.exit_code, 1) << r;
  EXPECT_NE(r.err.find("needs the link"), std::string::npos) << r;
}

TEST(Faults, DegradedLinkSlowsALinkBoundRun) {
  long long t0 = TimeOf(Mesh(4, "1MiB"));
  long long t1 = TimeOf(Args(Mesh(4, "1MiB"), {"--slow-link", "0-1=0.5"}));
  long long t2 = TimeOf(Args(Mesh(4, "1MiB"), {"--slow-link", "0-1=0.25"}));
  EXPECT_LT(t0, t1);
  EXPECT_LT(t1, t2);
}

// ---- a slow NPU ----

// Engine-bound: links and HBM far faster than the cores' MTE engines.
std::vector<std::string> EngineBoundRing() {
  return Args(Ring(8, "4MiB"), {"--no-data", "--set", "interconnect.link.bandwidth=10TB/s", "--set",
                                "chip.hbm.bandwidth=100TB/s"});
}

TEST(Faults, ARingGoesAtThePaceOfItsSlowestNpu) {
  long long t1 = TimeOf(EngineBoundRing());
  long long one = TimeOf(Args(EngineBoundRing(), {"--slow-rank", "3=0.5"}));
  std::vector<std::string> all = EngineBoundRing();
  for (int r = 0; r < 8; r++) all = Args(all, {"--slow-rank", std::to_string(r) + "=0.5"});
  long long every = TimeOf(all);
  EXPECT_GT((double)one, 1.5 * (double)t1) << "the ring waits for NPU 3 at every step";
  EXPECT_EQ(one, every) << "one slow NPU costs what all of them slow cost";
  // the part the slow NPU does scales as 1 / factor: T(f) = a + b / f
  long long quarter = TimeOf(Args(EngineBoundRing(), {"--slow-rank", "3=0.25"}));
  double b = (double)(one - t1);
  EXPECT_NEAR((double)(quarter - t1), 3 * b, 0.01 * 3 * b);
}

TEST(Faults, SlowNpuIsTheChipAtItsSpeedFactor) {
  // every NPU at 0.5 = the config's clock and engine rates halved
  std::vector<std::string> all = EngineBoundRing();
  for (int r = 0; r < 8; r++) all = Args(all, {"--slow-rank", std::to_string(r) + "=0.5"});
  long long slow = TimeOf(all);
  long long halved = TimeOf(
      Args(EngineBoundRing(), {"--set", "chip.clock=0.9GHz", "--set", "chip.mte.gm_to_ub=115.2GB/s",
                               "--set", "chip.mte.ub_to_gm=94.25GiB/s"}));
  EXPECT_NEAR((double)slow, (double)halved, 0.001 * (double)halved);
}

// ---- jitter ----

TEST(Faults, JitterIsAPureFunctionOfTheSeed) {
  std::vector<std::string> j = Args(Ring(8, "64KiB"), {"--jitter", "500ns"});
  long long base = TimeOf(Ring(8, "64KiB"));
  long long s1 = TimeOf(Args(j, {"--seed", "1"}));
  long long s1again = TimeOf(Args(j, {"--seed", "1"}));
  long long s2 = TimeOf(Args(j, {"--seed", "2"}));
  EXPECT_EQ(s1, s1again);
  EXPECT_NE(s1, s2);
  EXPECT_GT(s1, base);
  EXPECT_EQ(TimeOf(Args(Ring(8, "64KiB"), {"--jitter", "0ns"})), base);
}

TEST(Faults, SeedsReportsEachRunAndTheSpread) {
  std::vector<std::string> j = Args(Ring(8, "64KiB"), {"--jitter", "500ns", "--seed", "7"});
  JsonDoc d;
  ASSERT_TRUE(RunJson(Args(j, {"--seeds", "4"}), &d));
  ASSERT_EQ(d["seeds"].Size(), 4u);
  std::vector<double> t;
  for (size_t i = 0; i < 4; i++) {
    EXPECT_EQ(d["seeds"][i]["seed"].Int(), 7 + (long long)i);
    t.push_back(d["seeds"][i]["time_us"].Num());
  }
  // each is the single run of its seed
  long long t8 = TimeOf(Args(Ring(8, "64KiB"), {"--jitter", "500ns", "--seed", "8"}));
  EXPECT_NEAR(t[1], (double)t8 / 1e6, 1e-6);
  std::sort(t.begin(), t.end());
  EXPECT_DOUBLE_EQ(d["time_min_us"].Num(), t[0]);
  EXPECT_DOUBLE_EQ(d["time_max_us"].Num(), t[3]);
  EXPECT_NEAR(d["time_median_us"].Num(), (t[1] + t[2]) / 2, 1e-6);
  EXPECT_LT(t[0], t[3]) << "jitter spreads the times";
  CliResult r = RunCli(Args(j, {"--seeds", "3"}), 60);
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find("seeds 7..9 (3 runs, jitter 0.500 us): time min"), std::string::npos) << r;
}

// ---- bad fault flags ----

TEST(FaultErrors, BadSpecsAreRefusedNamingTheFlag) {
  EXPECT_TRUE(RunFailsWithUsage(Args(Ring(8, "4KiB"), {"--link-down", "0-9"}),
                                {"error: --link-down: '0-9': no link joins NPU 0 and NPU 9"}));
  EXPECT_TRUE(RunFailsWithUsage(
      Args(Ring(8, "4KiB"),
           {"--config", A2_SOURCE_DIR "/configs/ring-8.yaml", "--link-down", "0-2"}),
      {"--link-down: '0-2': no link joins NPU 0 and NPU 2 in this ring topology"}));
  EXPECT_TRUE(RunFailsWithUsage(Args(Ring(8, "4KiB"), {"--link-down", "0"}),
                                {"error: --link-down: expected A-B"}));
  EXPECT_TRUE(RunFailsWithUsage(Args(Ring(8, "4KiB"), {"--slow-link", "0-1=0"}),
                                {"error: --slow-link:", "factor > 0"}));
  EXPECT_TRUE(RunFailsWithUsage(Args(Ring(8, "4KiB"), {"--slow-link", "0-1"}),
                                {"error: --slow-link: expected A-B=FACTOR"}));
  EXPECT_TRUE(RunFailsWithUsage(Args(Ring(8, "4KiB"), {"--slow-rank", "2=-0.5"}),
                                {"error: --slow-rank:", "factor > 0"}));
  EXPECT_TRUE(RunFailsWithUsage(Args(Ring(8, "4KiB"), {"--slow-rank", "8=0.5"}),
                                {"error: --slow-rank: NPU 8 outside 0..7"}));
  EXPECT_TRUE(RunFailsWithUsage(Args(Ring(8, "4KiB"), {"--jitter", "fast"}), {"error: --jitter:"}));
  EXPECT_TRUE(RunFailsWithUsage(Args(Ring(8, "4KiB"), {"--seeds", "0"}), {"error: --seeds:"}));
}

}  // namespace
}  // namespace a2test
