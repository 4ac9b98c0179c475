// Tests for the link faults of noc/topology.h (configs/faults.h): a failed
// link is routed around in a full mesh (through a third NPU) and a ring
// (the other way round), never used by a route that has another way, and
// reported unroutable where there is none; a degraded link serves slower; a
// fault that names no link is an error. Each build runs in a forked child.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "configs/faults.h"
#include "kernel/kernel.h"
#include "noc/topology.h"
#include "tests/support/fork_run.h"

namespace {

constexpr uint32_t kMaxP = 16;
constexpr uint32_t kMaxHops = 16;
constexpr uint32_t kMaxStages = 256;

struct FaultResult {
  a2_code rc;
  char msg[sizeof(a2_err::msg)];
  char file[sizeof(a2_err::file)];
  int32_t a[kMaxStages], b[kMaxStages];
  uint16_t len[kMaxP][kMaxP];
  uint32_t route[kMaxP][kMaxP][kMaxHops];
  int unroutable[kMaxP][kMaxP];
  int own[kMaxP][kMaxP];  // a2_topo_own_link
  int32_t ua[kMaxP][kMaxP], ub[kMaxP][kMaxP];
  uint64_t msg_ps[kMaxStages];  // a 4 KiB message over each stage alone
};

// Links "A-B" down (factor 0) or at a factor, for P ranks of `kind`.
FaultResult Build(a2_topology kind, uint32_t P, const char *const *links, const double *factors,
                  int nlinks) {
  static FaultResult r;
  memset(&r, 0, sizeof r);
  static a2_faults f;
  memset(&f, 0, sizeof f);
  for (int i = 0; i < nlinks; i++) {
    unsigned a, b;
    sscanf(links[i], "%u-%u", &a, &b);
    f.links[f.nlinks++] = a2_link_fault{a, b, factors[i], "--link-down", links[i]};
  }
  a2_err e{};
  a2_config cfg;
  a2_config_default(&cfg);
  cfg.topology = kind;
  cfg.ranks = P;
  cfg.torus_width = 4;
  cfg.faults = &f;
  a2_noc *net = nullptr;
  a2_topo *t = nullptr;
  auto fail = [&](a2_code rc) {
    r.rc = rc;
    snprintf(r.msg, sizeof r.msg, "%s", e.msg);
    memcpy(r.file, e.file, sizeof r.file);
    return r;
  };
  if (a2_code rc = a2k_init(&e)) return fail(rc);
  if (a2_code rc = a2_noc_create(cfg.packet_bytes, 0, &net, &e)) return fail(rc);
  if (a2_code rc = a2_topo_build(&cfg, P, net, &t, &e)) return fail(rc);
  for (uint32_t s = 0; s < a2_noc_stage_count(net) && s < kMaxStages; s++) {
    a2_noc_stage_kind(net, s, &r.a[s], &r.b[s]);
    r.msg_ps[s] = a2_noc_msg_ps(net, &s, 1, 4096);
  }
  for (uint32_t s = 0; s < P; s++)
    for (uint32_t d = 0; d < P; d++) {
      r.len[s][d] = a2_topo_route_len(t, s, d);
      if (r.len[s][d] <= kMaxHops) a2_topo_route(t, s, d, r.route[s][d]);
      r.unroutable[s][d] = a2_topo_unroutable(t, s, d, &r.ua[s][d], &r.ub[s][d], net);
      r.own[s][d] = a2_topo_own_link(t, s, d);
    }
  a2_topo_free(t);
  a2_noc_free(net);
  return r;
}

::testing::AssertionResult BuildForked(FaultResult *out, a2_topology kind, uint32_t P,
                                       const char *const *links, const double *factors,
                                       int nlinks) {
  ::testing::AssertionResult forked =
      a2test::RunForked(out, [&] { return Build(kind, P, links, factors, nlinks); });
  if (!forked) return forked;
  if (out->rc != A2_OK)
    return ::testing::AssertionFailure() << "child error " << out->rc << ": " << out->msg;
  return ::testing::AssertionSuccess();
}

// Every route is a chain of links from s to d and avoids the link a <-> b.
void ExpectChainsAvoiding(const FaultResult &r, uint32_t P, int32_t a, int32_t b) {
  for (uint32_t s = 0; s < P; s++)
    for (uint32_t d = 0; d < P; d++) {
      if (s == d) continue;
      SCOPED_TRACE(::testing::Message() << "route " << s << " -> " << d);
      uint16_t n = r.len[s][d];
      ASSERT_GE(n, 1u);
      ASSERT_LE(n, kMaxHops);
      EXPECT_EQ(r.a[r.route[s][d][0]], (int32_t)s);
      EXPECT_EQ(r.b[r.route[s][d][n - 1]], (int32_t)d);
      for (uint16_t h = 0; h < n; h++) {
        uint32_t id = r.route[s][d][h];
        if (h) {
          EXPECT_EQ(r.a[id], r.b[r.route[s][d][h - 1]]);
        }
        EXPECT_FALSE((r.a[id] == a && r.b[id] == b) || (r.a[id] == b && r.b[id] == a))
            << "hop " << h << " crosses the failed link";
      }
      EXPECT_EQ(r.unroutable[s][d], 0);
    }
}

TEST(LinkFaults, FullMeshGoesThroughTheFirstThirdNpu) {
  static FaultResult r;
  const char *links[] = {"0-1"};
  const double down[] = {0};
  ASSERT_TRUE(BuildForked(&r, A2_TOPO_FULL_MESH, 4, links, down, 1));
  ExpectChainsAvoiding(r, 4, 0, 1);
  EXPECT_EQ(r.len[0][1], 2u);
  EXPECT_EQ(r.b[r.route[0][1][0]], 2) << "through NPU 2, the lowest with both links up";
  EXPECT_EQ(r.len[1][0], 2u);
  EXPECT_EQ(r.len[0][2], 1u) << "other routes stay direct";
  EXPECT_EQ(r.len[2][3], 1u);
  // 0 -> 1 now crosses 0 -> 2, which is no longer a link of its own pair's
  EXPECT_EQ(r.own[0][2], 0);
  EXPECT_EQ(r.own[2][3], 0) << "with a link down no link counts as a pair's own";
}

TEST(LinkFaults, TwoLevelServerGoesThroughAThirdNpuOfItsServer) {
  static FaultResult r;
  const char *links[] = {"8-9"};
  const double down[] = {0};
  ASSERT_TRUE(BuildForked(&r, A2_TOPO_TWO_LEVEL, 16, links, down, 1));  // 2 servers of 8
  ExpectChainsAvoiding(r, 16, 8, 9);
  EXPECT_EQ(r.len[8][9], 2u);
  EXPECT_EQ(r.b[r.route[8][9][0]], 10) << "the lowest NPU of the server besides 8 and 9";
  EXPECT_EQ(r.len[0][9], 2u) << "between servers: the NICs, as before";
  EXPECT_EQ(r.b[r.route[0][9][0]], -1);
}

TEST(LinkFaults, RingGoesTheOtherWayRound) {
  static FaultResult r;
  const char *links[] = {"2-3"};
  const double down[] = {0};
  ASSERT_TRUE(BuildForked(&r, A2_TOPO_RING, 8, links, down, 1));
  ExpectChainsAvoiding(r, 8, 2, 3);
  EXPECT_EQ(r.len[2][3], 7u);
  EXPECT_EQ(r.len[3][2], 7u);
  EXPECT_EQ(r.len[0][4], 4u) << "the tie went clockwise over 2-3: now counter-clockwise";
  EXPECT_EQ(r.b[r.route[0][4][0]], 7);
  EXPECT_EQ(r.len[4][6], 2u);
}

TEST(LinkFaults, RingCutTwiceAndTorusReportTheLink) {
  static FaultResult r;
  const char *links[] = {"2-3", "6-7"};
  const double down[] = {0, 0};
  ASSERT_TRUE(BuildForked(&r, A2_TOPO_RING, 8, links, down, 2));
  EXPECT_EQ(r.unroutable[2][3], 1);
  EXPECT_EQ(r.ua[2][3], 2);
  EXPECT_EQ(r.ub[2][3], 3);
  EXPECT_EQ(r.unroutable[0][1], 0) << "0 and 1 are on the same side of both cuts";
  EXPECT_EQ(r.unroutable[4][5], 0);
  static FaultResult t;
  const char *tl[] = {"5-6"};
  ASSERT_TRUE(BuildForked(&t, A2_TOPO_TORUS, 16, tl, down, 1));
  EXPECT_EQ(t.unroutable[5][6], 1);
  EXPECT_EQ(t.ua[5][6], 5);
  EXPECT_EQ(t.ub[5][6], 6);
  EXPECT_EQ(t.unroutable[5][9], 0);
}

TEST(LinkFaults, DegradedLinkServesAtItsFactor) {
  static FaultResult r;
  const char *links[] = {"0-1"};
  const double half[] = {0.5};
  ASSERT_TRUE(BuildForked(&r, A2_TOPO_FULL_MESH, 4, links, half, 1));
  uint32_t slow = r.route[0][1][0], back = r.route[1][0][0], other = r.route[0][2][0];
  EXPECT_EQ(r.len[0][1], 1u) << "a degraded link is still used";
  uint64_t lat = 155000;  // interconnect.link.latency
  EXPECT_EQ(r.msg_ps[slow] - lat, 2 * (r.msg_ps[other] - lat));
  EXPECT_EQ(r.msg_ps[back], r.msg_ps[slow]);
}

TEST(LinkFaults, AFaultNamingNoLinkIsAnInputError) {
  static FaultResult r;
  const char *links[] = {"0-2"};
  const double down[] = {0};
  ASSERT_TRUE(a2test::RunForked(&r, [&] { return Build(A2_TOPO_RING, 8, links, down, 1); }));
  EXPECT_EQ(r.rc, A2_E_INPUT);
  EXPECT_STREQ(r.file, "--link-down");
  EXPECT_NE(strstr(r.msg, "'0-2': no link joins NPU 0 and NPU 2 in this ring topology of 8 NPUs"),
            nullptr)
      << r.msg;
}

}  // namespace
