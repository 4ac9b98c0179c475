// Tests for topology `levels` (noc/topology.h, docs/timing-model.md,
// "Levels"): which stages a route crosses at each level, how many stages
// each level creates, the level and NIC queries, routing around a failed
// die-to-die link, and that the transfers of one NPU across a switch level
// share its port while those of two NPUs do not (measured by running
// transfers through the network). Each build runs in a forked child.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "configs/config.h"
#include "kernel/kernel.h"
#include "noc/topology.h"
#include "tests/support/fork_run.h"

namespace {

constexpr uint32_t kMaxP = 16;
constexpr uint32_t kMaxStages = 256;

// Three levels: pairs of NPUs joined by a mesh link (224 GB/s, 200 ns),
// groups of 2 pairs behind a switch (100 GB/s, 1 us + 100 ns switch), and
// the top switch (25 GB/s, 3 us).
const char kThree[] =
    "interconnect:\n"
    "  topology: levels\n"
    "  ranks: 8\n"
    "  levels:\n"
    "    - name: die\n"
    "      kind: mesh\n"
    "      fanout: 2\n"
    "      bandwidth: 224GB/s\n"
    "      latency: 200ns\n"
    "    - name: node\n"
    "      fanout: 2\n"
    "      bandwidth: 100GB/s\n"
    "      latency: 1us\n"
    "      switch_latency: 100ns\n"
    "    - name: top\n"
    "      bandwidth: 25GB/s\n"
    "      latency: 3us\n";

struct LevelsResult {
  a2_code rc;
  char msg[sizeof(a2_err::msg)];
  uint32_t nstages;
  int32_t a[kMaxStages], b[kMaxStages];
  uint16_t len[kMaxP][kMaxP];
  uint32_t route[kMaxP][kMaxP][4];
  uint32_t level[kMaxP][kMaxP];
  int via_nic[kMaxP][kMaxP];
  int has_nic;
  uint64_t msg_ps[kMaxP][kMaxP];  // a 32-byte message along the route, uncontended
  int unroutable[kMaxP][kMaxP];
  uint64_t done_ps[4];  // RunXfers: each transfer's completion
};

// In a child: cfg from yaml (with ranks P and the faults f), the topology,
// its routes and queries; then, when xfers is not empty, those transfers
// (pairs src, dst of `bytes` each, all at time 0) through the network.
LevelsResult Build(const char *yaml, uint32_t P, const a2_faults *f,
                   const std::vector<std::pair<uint32_t, uint32_t>> &xfers, uint32_t bytes) {
  static LevelsResult r;
  memset(&r, 0, sizeof r);
  a2_err e{};
  a2_config cfg;
  a2_noc *net = nullptr;
  a2_topo *t = nullptr;
  auto fail = [&](a2_code rc) {
    r.rc = rc;
    snprintf(r.msg, sizeof r.msg, "%s", e.msg);
    return r;
  };
  if (a2_code rc = a2_config_load_string(yaml, "t.yaml", &cfg, &e)) return fail(rc);
  cfg.ranks = P;
  cfg.faults = f;
  if (a2_code rc = a2k_init(&e)) return fail(rc);
  if (a2_code rc = a2_noc_create(cfg.packet_bytes, sizeof(int), &net, &e)) return fail(rc);
  if (a2_code rc = a2_topo_build(&cfg, P, net, &t, &e)) return fail(rc);
  r.nstages = a2_noc_stage_count(net);
  for (uint32_t s = 0; s < r.nstages && s < kMaxStages; s++)
    a2_noc_stage_kind(net, s, &r.a[s], &r.b[s]);
  r.has_nic = a2_topo_has_nic(t);
  for (uint32_t s = 0; s < P; s++)
    for (uint32_t d = 0; d < P; d++) {
      r.len[s][d] = a2_topo_route_len(t, s, d);
      if (r.len[s][d] <= 4) a2_topo_route(t, s, d, r.route[s][d]);
      r.level[s][d] = a2_topo_level(t, s, d);
      r.via_nic[s][d] = a2_topo_via_nic(t, s, d);
      r.msg_ps[s][d] = a2_noc_msg_ps(net, r.route[s][d], r.len[s][d], 32);
      int32_t a, b;
      r.unroutable[s][d] = a2_topo_unroutable(t, s, d, &a, &b, net);
    }
  for (size_t i = 0; i < xfers.size(); i++) {
    a2_xfer *x = a2_xfer_alloc(net);
    if (!x) return fail(A2_E_NOMEM);
    uint16_t n = a2_topo_route_len(t, xfers[i].first, xfers[i].second);
    uint32_t *p = a2_xfer_path(x, n);
    if (!p) return fail(A2_E_NOMEM);
    a2_topo_route(t, xfers[i].first, xfers[i].second, p);
    x->bytes = bytes;
    x->apply_hop = A2_NO_HOP;
    *static_cast<int *>(a2_xfer_context(x)) = static_cast<int>(i);
    x->on_done = [](a2_xfer *y, uint64_t t_done) {
      r.done_ps[*static_cast<int *>(a2_xfer_context(y))] = t_done;
    };
    a2_xfer_start(net, x, 0);
  }
  if (!xfers.empty()) {
    a2k_stop why;
    if (a2_code rc = a2k_run(UINT64_MAX, &why, &e)) return fail(rc);
  }
  a2_topo_free(t);
  a2_noc_free(net);
  return r;
}

::testing::AssertionResult BuildForked(LevelsResult *out, const char *yaml, uint32_t P,
                                       const a2_faults *f = nullptr,
                                       std::vector<std::pair<uint32_t, uint32_t>> xfers = {},
                                       uint32_t bytes = 0) {
  ::testing::AssertionResult forked =
      a2test::RunForked(out, [&] { return Build(yaml, P, f, xfers, bytes); });
  if (!forked) return forked;
  if (out->rc != A2_OK)
    return ::testing::AssertionFailure() << "child error " << out->rc << ": " << out->msg;
  return ::testing::AssertionSuccess();
}

TEST(LevelsTopology, EachLevelCreatesItsStages) {
  LevelsResult r;
  ASSERT_TRUE(BuildForked(&r, kThree, 8));
  // die mesh: one link per ordered pair inside a pair (8 x 1); each switch
  // level: an up- and a down-port per NPU (2 x 8, twice)
  EXPECT_EQ(r.nstages, 8u + 2 * 8 + 2 * 8);
}

TEST(LevelsTopology, RoutesCrossOnlyTheLowestLevelHoldingBoth) {
  LevelsResult r;
  ASSERT_TRUE(BuildForked(&r, kThree, 8));
  for (uint32_t s = 0; s < 8; s++)
    for (uint32_t d = 0; d < 8; d++) {
      SCOPED_TRACE(::testing::Message() << s << " -> " << d);
      uint32_t want = s == d ? 0 : s / 2 == d / 2 ? 0 : s / 4 == d / 4 ? 1 : 2;
      EXPECT_EQ(r.level[s][d], want);
      EXPECT_EQ(r.via_nic[s][d], s != d && want > 0);
      if (s == d) {
        EXPECT_EQ(r.len[s][d], 0u);
        continue;
      }
      if (want == 0) {  // the die-to-die link s -> d
        ASSERT_EQ(r.len[s][d], 1u);
        EXPECT_EQ(r.a[r.route[s][d][0]], (int32_t)s);
        EXPECT_EQ(r.b[r.route[s][d][0]], (int32_t)d);
        EXPECT_EQ(r.msg_ps[s][d], 143u + 200000u);  // ceil(32 B / 224 GB/s) + 200 ns
        continue;
      }
      // s's up-port and d's down-port of that level
      ASSERT_EQ(r.len[s][d], 2u);
      EXPECT_EQ(r.a[r.route[s][d][0]], (int32_t)s);
      EXPECT_EQ(r.b[r.route[s][d][0]], -1);
      EXPECT_EQ(r.a[r.route[s][d][1]], -1);
      EXPECT_EQ(r.b[r.route[s][d][1]], (int32_t)d);
      // one way: the level's latency + its switch latency + 2 x 32 B serialised
      uint64_t ser = want == 1 ? 320u : 1280u, lat = want == 1 ? 1100000u : 3000000u;
      EXPECT_EQ(r.msg_ps[s][d], 2 * ser + lat);
    }
  // the ports of level 1 and level 2 of NPU 0 are distinct stages
  EXPECT_NE(r.route[0][2][0], r.route[0][4][0]);
  EXPECT_EQ(r.route[0][2][0], r.route[0][3][0]);  // one up-port per NPU and level
  EXPECT_EQ(r.route[0][4][0], r.route[0][7][0]);
  EXPECT_TRUE(r.has_nic);
}

TEST(LevelsTopology, APartialTopGroupAndOneGroupOnly) {
  LevelsResult r;
  ASSERT_TRUE(BuildForked(&r, kThree, 6));  // groups {0-3}, {4,5}
  EXPECT_EQ(r.level[4][5], 0u);
  EXPECT_EQ(r.level[1][5], 2u);
  EXPECT_EQ(r.len[1][5], 2u);
  LevelsResult one;
  ASSERT_TRUE(BuildForked(&one, kThree, 2));  // one die pair: no NIC crossing
  EXPECT_FALSE(one.has_nic);
  EXPECT_EQ(one.nstages, 2u + 2 * 2 + 2 * 2);
}

TEST(LevelsTopology, AFailedDieLinkIsRoutedThroughTheLevelAbove) {
  static a2_faults f;
  memset(&f, 0, sizeof f);
  f.links[0] = {0, 1, 0.0, "--link-down", "0-1"};
  f.nlinks = 1;
  LevelsResult r;
  ASSERT_TRUE(BuildForked(&r, kThree, 8, &f));
  // no third die in the pair: NPU 0's and NPU 1's ports of level 1
  ASSERT_EQ(r.len[0][1], 2u);
  EXPECT_EQ(r.a[r.route[0][1][0]], 0);
  EXPECT_EQ(r.b[r.route[0][1][0]], -1);
  EXPECT_EQ(r.route[0][1][0], r.route[0][2][0]);
  EXPECT_EQ(r.unroutable[0][1], 0);
  EXPECT_EQ(r.len[2][3], 1u);  // other pairs keep their link
}

TEST(LevelsTopology, AFaultOnAPortIsAnError) {
  static a2_faults f;
  memset(&f, 0, sizeof f);
  f.links[0] = {0, 2, 0.0, "--link-down", "0-2"};
  f.nlinks = 1;
  LevelsResult r;
  ASSERT_TRUE(a2test::RunForked(&r, [&] { return Build(kThree, 8, &f, {}, 0); }));
  EXPECT_EQ(r.rc, A2_E_INPUT);
  EXPECT_NE(std::string(r.msg).find("no link joins NPU 0 and NPU 2 in this levels topology"),
            std::string::npos)
      << r.msg;
}

// Transfers of 1 MiB at time 0. NPU 0 -> 4 and 0 -> 5 cross level 2 by the
// same up-port of NPU 0: they share its 25 GB/s, so the pair takes about
// twice one alone; 0 -> 4 and 1 -> 5 use different ports: each as alone.
TEST(LevelsTopology, APortIsSharedByItsNpusTransfersOnly) {
  const uint32_t kBytes = 1u << 20;
  LevelsResult alone, shared, apart;
  ASSERT_TRUE(BuildForked(&alone, kThree, 8, nullptr, {{0, 4}}, kBytes));
  ASSERT_TRUE(BuildForked(&shared, kThree, 8, nullptr, {{0, 4}, {0, 5}}, kBytes));
  ASSERT_TRUE(BuildForked(&apart, kThree, 8, nullptr, {{0, 4}, {1, 5}}, kBytes));
  uint64_t ser = (uint64_t)kBytes * 1000 / 25;  // ps at 25 GB/s
  EXPECT_GE(alone.done_ps[0], ser + 3000000u);
  EXPECT_LE(alone.done_ps[0], ser + 3000000u + ser / 100);
  uint64_t last = std::max(shared.done_ps[0], shared.done_ps[1]);
  EXPECT_GE(last, 2 * ser + 3000000u);
  EXPECT_LE(last, 2 * ser + 3000000u + ser / 50);
  EXPECT_EQ(apart.done_ps[0], alone.done_ps[0]);
  EXPECT_EQ(apart.done_ps[1], alone.done_ps[0]);
}

}  // namespace
