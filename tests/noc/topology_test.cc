// Tests for noc/topology.h: how many link stages each topology creates,
// route lengths, and that every route is a chain of links from src to dst
// (checked through the stages' recorded endpoints). Building a topology
// creates event-kernel processes, so each test does it in a forked child
// (tests/support/fork_run.h).
#include "noc/topology.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <set>
#include <string>

#include "kernel/kernel.h"
#include "tests/support/fork_run.h"

namespace {

constexpr uint32_t kMaxP = 8;
constexpr uint32_t kMaxStages = 80;
constexpr uint32_t kPrefix = 3;  // stages created before the topology's
constexpr int kSwitch = -1;      // endpoint of a switch-side link

struct TopoResult {
  a2_code rc;
  char msg[sizeof(a2_err::msg)];
  uint32_t nstages;  // including the kPrefix stages
  a2_stage_kind kind[kMaxStages];
  int32_t a[kMaxStages], b[kMaxStages];
  uint16_t len[kMaxP][kMaxP];
  uint32_t route[kMaxP][kMaxP][kMaxP];
  uint8_t own[kMaxP][kMaxP];  // a2_topo_own_link
  int relays;                 // a2_topo_relays
  char name[16];
};

// In a child: a network with kPrefix HBM stages first (so the topology's
// links do not start at id 0), then the topology for P ranks.
TopoResult Build(a2_topology kind, uint32_t P, uint32_t group = 8, uint32_t width = 4) {
  TopoResult r{};
  a2_err e{};
  a2_config cfg;
  a2_config_default(&cfg);
  cfg.topology = kind;
  cfg.ranks = P;
  cfg.group_size = group;
  cfg.torus_width = width;
  a2_noc *net = nullptr;
  a2_topo *t = nullptr;
  uint32_t id;
  auto fail = [&](a2_code rc) {
    r.rc = rc;
    snprintf(r.msg, sizeof r.msg, "%s", e.msg);
    return r;
  };
  if (a2_code rc = a2k_init(&e)) return fail(rc);
  if (a2_code rc = a2_noc_create(cfg.packet_bytes, 0, &net, &e)) return fail(rc);
  for (uint32_t i = 0; i < kPrefix; i++)
    if (a2_code rc = a2_noc_add_stage(net, A2_STAGE_HBM, cfg.hbm_bw, 0, (int32_t)i, -1, &id, &e))
      return fail(rc);
  if (a2_code rc = a2_topo_build(&cfg, P, net, &t, &e)) return fail(rc);
  r.nstages = a2_noc_stage_count(net);
  for (uint32_t s = 0; s < r.nstages && s < kMaxStages; s++)
    r.kind[s] = a2_noc_stage_kind(net, s, &r.a[s], &r.b[s]);
  for (uint32_t s = 0; s < P; s++)
    for (uint32_t d = 0; d < P; d++) {
      r.len[s][d] = a2_topo_route_len(t, s, d);
      if (r.len[s][d] <= kMaxP) a2_topo_route(t, s, d, r.route[s][d]);
      r.own[s][d] = (uint8_t)a2_topo_own_link(t, s, d);
    }
  r.relays = a2_topo_relays(t);
  snprintf(r.name, sizeof r.name, "%s", a2_topo_name(kind));
  a2_topo_free(t);
  a2_noc_free(net);
  return r;
}

::testing::AssertionResult BuildForked(TopoResult *out, a2_topology kind, uint32_t P,
                                       uint32_t group = 8, uint32_t width = 4) {
  ::testing::AssertionResult forked =
      a2test::RunForked(out, [&] { return Build(kind, P, group, width); });
  if (!forked) return forked;
  if (out->rc != A2_OK)
    return ::testing::AssertionFailure() << "child error " << out->rc << ": " << out->msg;
  return ::testing::AssertionSuccess();
}

// Every route must be made of link stages of this topology (not the prefix
// stages), its first link must leave src, its last must reach dst, and
// consecutive links must meet (through the switch, for a switch).
void ExpectRoutesAreChains(const TopoResult &r, uint32_t P) {
  for (uint32_t s = 0; s < P; s++)
    for (uint32_t d = 0; d < P; d++) {
      SCOPED_TRACE(::testing::Message() << "route " << s << " -> " << d);
      uint16_t n = r.len[s][d];
      if (s == d) {
        EXPECT_EQ(n, 0u);
        continue;
      }
      ASSERT_GE(n, 1u);
      ASSERT_LE(n, kMaxP);
      for (uint16_t h = 0; h < n; h++) {
        uint32_t id = r.route[s][d][h];
        ASSERT_GE(id, kPrefix) << "hop " << h << " uses a stage created before the topology";
        ASSERT_LT(id, r.nstages) << "hop " << h;
        EXPECT_EQ(r.kind[id], A2_STAGE_LINK) << "hop " << h;
      }
      EXPECT_EQ(r.a[r.route[s][d][0]], (int32_t)s) << "first link does not leave src";
      EXPECT_EQ(r.b[r.route[s][d][n - 1]], (int32_t)d) << "last link does not reach dst";
      for (uint16_t h = 1; h < n; h++)
        EXPECT_EQ(r.a[r.route[s][d][h]], r.b[r.route[s][d][h - 1]])
            << "hops " << h - 1 << ", " << h;
    }
}

TEST(TopologyTest, FullMeshHasOneDirectLinkPerOrderedPair) {
  const uint32_t P = 8;
  TopoResult r;
  ASSERT_TRUE(BuildForked(&r, A2_TOPO_FULL_MESH, P));
  EXPECT_STREQ(r.name, "full_mesh");
  EXPECT_EQ(r.nstages - kPrefix, P * (P - 1));
  std::set<uint32_t> ids;
  for (uint32_t s = 0; s < P; s++)
    for (uint32_t d = 0; d < P; d++) {
      EXPECT_EQ(r.len[s][d], s == d ? 0u : 1u) << s << " -> " << d;
      if (s != d) ids.insert(r.route[s][d][0]);
    }
  EXPECT_EQ(ids.size(), size_t{P * (P - 1)}) << "two ordered pairs share a link";
  ExpectRoutesAreChains(r, P);
}

// A link of the pair's own (a2_topo_own_link): the route is that one link,
// and no other pair's route crosses it. Where the topology has them, every
// one-link route is one (full mesh, inside a two_level server); ring and
// torus links carry routes through their ends, and a switch's ports are
// shared, so none is.
TEST(TopologyTest, OwnLinkIsAOneLinkRouteThatNoOtherRouteCrosses) {
  struct Case {
    a2_topology kind;
    uint32_t P, group, width;
  };
  for (const Case &c :
       {Case{A2_TOPO_FULL_MESH, 8, 8, 4}, Case{A2_TOPO_TWO_LEVEL, 8, 3, 4},
        Case{A2_TOPO_RING, 8, 8, 4}, Case{A2_TOPO_TORUS, 8, 8, 4}, Case{A2_TOPO_SWITCH, 8, 8, 4}}) {
    TopoResult r;
    ASSERT_TRUE(BuildForked(&r, c.kind, c.P, c.group, c.width));
    SCOPED_TRACE(r.name);
    for (uint32_t s = 0; s < c.P; s++)
      for (uint32_t d = 0; d < c.P; d++) {
        SCOPED_TRACE(::testing::Message() << "route " << s << " -> " << d);
        bool crossed = false;  // the route's one link is on another pair's route
        for (uint32_t s2 = 0; s2 < c.P && r.len[s][d] == 1; s2++) {
          for (uint32_t d2 = 0; d2 < c.P; d2++) {
            if (s2 == s && d2 == d) continue;
            for (uint16_t h = 0; h < r.len[s2][d2]; h++)
              crossed = crossed || r.route[s2][d2][h] == r.route[s][d][0];
          }
        }
        bool possible = r.len[s][d] == 1 && !crossed;
        bool has_own = c.kind == A2_TOPO_FULL_MESH || c.kind == A2_TOPO_TWO_LEVEL;
        EXPECT_EQ(r.own[s][d] != 0, has_own && possible);
      }
  }
}

// Routes that relay (a2_topo_relays): some route passes through another
// NPU, every link of it joining two NPUs, so that links carry other pairs'
// routes through their ends (a ring or a torus of more than three). Routes
// through a switch or a NIC do not count; a ring of three has none.
TEST(TopologyTest, RelaysWhereARoutePassesThroughAnotherNpu) {
  struct Case {
    a2_topology kind;
    uint32_t P, group, width;
  };
  for (const Case &c : {Case{A2_TOPO_FULL_MESH, 8, 8, 4}, Case{A2_TOPO_TWO_LEVEL, 8, 3, 4},
                        Case{A2_TOPO_RING, 8, 8, 4}, Case{A2_TOPO_RING, 3, 8, 4},
                        Case{A2_TOPO_TORUS, 8, 8, 4}, Case{A2_TOPO_SWITCH, 8, 8, 4}}) {
    TopoResult r;
    ASSERT_TRUE(BuildForked(&r, c.kind, c.P, c.group, c.width));
    SCOPED_TRACE(::testing::Message() << r.name << ", P=" << c.P);
    bool through = false;  // a route of two links or more, NPU to NPU at every hop
    for (uint32_t s = 0; s < c.P; s++)
      for (uint32_t d = 0; d < c.P; d++) {
        bool npus = r.len[s][d] >= 2;
        for (uint16_t h = 0; h < r.len[s][d]; h++) {
          uint32_t id = r.route[s][d][h];
          npus = npus && r.a[id] >= 0 && r.b[id] >= 0;
        }
        through = through || npus;
      }
    EXPECT_EQ(r.relays != 0, through);
  }
}

TEST(TopologyTest, RingTakesTheShorterDirectionAndTiesGoClockwise) {
  const uint32_t P = 8;
  TopoResult r;
  ASSERT_TRUE(BuildForked(&r, A2_TOPO_RING, P));
  EXPECT_STREQ(r.name, "ring");
  EXPECT_EQ(r.nstages - kPrefix, 2 * P);
  // Route lengths for P = 8 by clockwise distance 0..7.
  const uint16_t want_len[8] = {0, 1, 2, 3, 4, 3, 2, 1};
  for (uint32_t s = 0; s < P; s++)
    for (uint32_t d = 0; d < P; d++) {
      uint32_t cw = (d + P - s) % P;
      SCOPED_TRACE(::testing::Message() << "route " << s << " -> " << d);
      ASSERT_EQ(r.len[s][d], want_len[cw]);
      // Direction: every hop goes +1 (clockwise, including the tie at 4)
      // or -1 around the ring.
      int step = cw <= P / 2 ? 1 : -1;
      for (uint16_t h = 0; h < r.len[s][d]; h++) {
        uint32_t id = r.route[s][d][h];
        EXPECT_EQ(r.a[id], (int32_t)((s + P + step * h) % P)) << "hop " << h;
        EXPECT_EQ(r.b[id], (int32_t)((s + P + step * (h + 1)) % P)) << "hop " << h;
      }
    }
  ExpectRoutesAreChains(r, P);
  // The two directions use different links: 0 -> 1 and 1 -> 0 are not one
  // stage, nor are 0 -> 1 and 2 -> 1.
  EXPECT_NE(r.route[0][1][0], r.route[1][0][0]);
  EXPECT_NE(r.route[0][1][0], r.route[2][1][0]);
}

TEST(TopologyTest, OddRingHasNoTies) {
  const uint32_t P = 5;
  TopoResult r;
  ASSERT_TRUE(BuildForked(&r, A2_TOPO_RING, P));
  EXPECT_EQ(r.nstages - kPrefix, 2 * P);
  const uint16_t want_len[5] = {0, 1, 2, 2, 1};
  for (uint32_t s = 0; s < P; s++)
    for (uint32_t d = 0; d < P; d++) EXPECT_EQ(r.len[s][d], want_len[(d + P - s) % P]);
  ExpectRoutesAreChains(r, P);
}

TEST(TopologyTest, SwitchRoutesGoUpFromSrcThenDownToDst) {
  const uint32_t P = 8;
  TopoResult r;
  ASSERT_TRUE(BuildForked(&r, A2_TOPO_SWITCH, P));
  EXPECT_STREQ(r.name, "switch");
  EXPECT_EQ(r.nstages - kPrefix, 2 * P);
  std::set<uint32_t> ups, downs;
  for (uint32_t s = 0; s < P; s++)
    for (uint32_t d = 0; d < P; d++) {
      SCOPED_TRACE(::testing::Message() << "route " << s << " -> " << d);
      if (s == d) {
        EXPECT_EQ(r.len[s][d], 0u);
        continue;
      }
      ASSERT_EQ(r.len[s][d], 2u);
      uint32_t up = r.route[s][d][0], down = r.route[s][d][1];
      EXPECT_EQ(r.a[up], (int32_t)s);
      EXPECT_EQ(r.b[up], kSwitch);
      EXPECT_EQ(r.a[down], kSwitch);
      EXPECT_EQ(r.b[down], (int32_t)d);
      // up[src] depends only on src, down[dst] only on dst.
      EXPECT_EQ(up, r.route[s][(d + 1) % P == s ? (d + 2) % P : (d + 1) % P][0]);
      EXPECT_EQ(down, r.route[(s + 1) % P == d ? (s + 2) % P : (s + 1) % P][d][1]);
      ups.insert(up);
      downs.insert(down);
    }
  EXPECT_EQ(ups.size(), size_t{P});
  EXPECT_EQ(downs.size(), size_t{P});
  for (uint32_t u : ups) EXPECT_EQ(downs.count(u), 0u) << "stage " << u << " is up and down";
  ExpectRoutesAreChains(r, P);
}

TEST(TopologyTest, SingleRankHasNoLinks) {
  for (a2_topology k : {A2_TOPO_FULL_MESH, A2_TOPO_RING, A2_TOPO_SWITCH}) {
    TopoResult r;
    ASSERT_TRUE(BuildForked(&r, k, 1)) << a2_topo_name(k);
    EXPECT_EQ(r.nstages, kPrefix) << a2_topo_name(k);
    EXPECT_EQ(r.len[0][0], 0u) << a2_topo_name(k);
  }
}

TEST(TopologyTest, LinkStageCountPerTopology) {
  struct Case {
    a2_topology kind;
    uint32_t P, links;
  } cases[] = {
      {A2_TOPO_FULL_MESH, 2, 2}, {A2_TOPO_FULL_MESH, 4, 12}, {A2_TOPO_FULL_MESH, 8, 56},
      {A2_TOPO_RING, 2, 4},      {A2_TOPO_RING, 3, 6},       {A2_TOPO_RING, 8, 16},
      {A2_TOPO_SWITCH, 2, 4},    {A2_TOPO_SWITCH, 4, 8},     {A2_TOPO_SWITCH, 8, 16},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(::testing::Message() << a2_topo_name(c.kind) << " P=" << c.P);
    TopoResult r;
    ASSERT_TRUE(BuildForked(&r, c.kind, c.P));
    EXPECT_EQ(r.nstages - kPrefix, c.links);
    ExpectRoutesAreChains(r, c.P);
  }
}

}  // namespace

TEST(TopologyTest, TwoLevelStaysInsideAServerAndCrossesServersThroughNics) {
  const uint32_t P = 8, G = 3;  // servers {0,1,2} {3,4,5} {6,7}: the last is partial
  TopoResult r;
  ASSERT_TRUE(BuildForked(&r, A2_TOPO_TWO_LEVEL, P, G));
  EXPECT_STREQ(r.name, "two_level");
  EXPECT_EQ(r.nstages - kPrefix, 3u * 2 + 3u * 2 + 2u * 1 + 2 * P);  // intra links + NIC up/down
  std::set<uint32_t> intra;
  for (uint32_t s = 0; s < P; s++)
    for (uint32_t d = 0; d < P; d++) {
      if (s == d) continue;
      SCOPED_TRACE(::testing::Message() << "route " << s << " -> " << d);
      if (s / G == d / G) {
        ASSERT_EQ(r.len[s][d], 1u);
        EXPECT_TRUE(intra.insert(r.route[s][d][0]).second) << "link shared by two pairs";
      } else {
        ASSERT_EQ(r.len[s][d], 2u);
        EXPECT_EQ(r.b[r.route[s][d][0]], kSwitch);
        EXPECT_EQ(r.a[r.route[s][d][1]], kSwitch);
      }
    }
  EXPECT_EQ(intra.size(), 14u);
  ExpectRoutesAreChains(r, P);
}

TEST(TopologyTest, TorusRoutesAreShortestAndXBeforeY) {
  const uint32_t P = 8, X = 4, Y = 2;
  TopoResult r;
  ASSERT_TRUE(BuildForked(&r, A2_TOPO_TORUS, P, 8, X));
  EXPECT_STREQ(r.name, "torus");
  EXPECT_EQ(r.nstages - kPrefix, 4 * P);
  auto ring = [](uint32_t a, uint32_t b, uint32_t m) {
    uint32_t f = (b + m - a) % m;
    return f < m - f ? f : m - f;
  };
  for (uint32_t s = 0; s < P; s++)
    for (uint32_t d = 0; d < P; d++) {
      SCOPED_TRACE(::testing::Message() << "route " << s << " -> " << d);
      ASSERT_EQ(r.len[s][d], ring(s % X, d % X, X) + ring(s / X, d / X, Y));
      bool y_started = false;
      for (uint16_t h = 0; h < r.len[s][d]; h++) {
        uint32_t id = r.route[s][d][h];
        bool y_move = r.a[id] % (int32_t)X == r.b[id] % (int32_t)X;
        if (y_move) y_started = true;
        EXPECT_FALSE(!y_move && y_started) << "an x hop after a y hop at " << h;
      }
    }
  ExpectRoutesAreChains(r, P);
}
