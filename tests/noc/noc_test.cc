// Tests for noc/noc.h: the FIFO stages and multi-packet transfers every
// timed access is made of. Times are checked exactly against the equations
// in noc.h / docs/timing-model.md. Every simulation runs in a forked child
// (tests/support/fork_run.h): one SystemC elaboration per OS process.
#include "noc/noc.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "kernel/kernel.h"
#include "packet_oracle.h"
#include "tests/support/fork_run.h"

namespace {

constexpr int kMaxXfers = 8;
constexpr int kMaxStages = 40;
constexpr int kMaxApplies = 256;

using a2oracle::Recurrence;  // the tandem-queue recurrence: a transfer alone on its path
using a2oracle::Ser;
using a2oracle::StageSpec;

struct XferSpec {
  uint64_t bytes, start_ps;
  std::vector<uint32_t> path;  // indices into the StageSpec list
  uint16_t apply_hop;          // A2_NO_HOP for none
};

// What a child reports about one network run.
struct NetResult {
  a2_code rc;
  char msg[sizeof(a2_err::msg)];
  a2k_stop why;
  uint32_t nstages;
  a2_stage_stats st[kMaxStages];
  uint64_t done_ps[kMaxXfers];     // t_done given to on_done
  uint32_t ndone[kMaxXfers];       // on_done calls
  bool done_all_bytes[kMaxXfers];  // with an apply hop: every byte applied by on_done
  uint32_t napply[kMaxXfers];      // on_apply calls
  uint64_t applied[kMaxXfers];     // bytes seen by on_apply
  bool apply_in_order[kMaxXfers];  // each packet's offset follows the previous
  uint32_t norder;
  uint8_t order[kMaxApplies];      // transfer index of each on_apply, in time order
  uint64_t order_ps[kMaxApplies];  // when it happened
};

NetResult *g_res;  // the child's result, reached from the callbacks

// A transfer's context (a2_xfer_context): its index in the spec list.
int &Index(a2_xfer *x) {
  return *static_cast<int *>(a2_xfer_context(x));
}

void OnApply(a2_xfer *x, uint64_t off, uint32_t len) {
  int i = Index(x);
  if (off != g_res->applied[i]) g_res->apply_in_order[i] = false;
  g_res->applied[i] += len;
  g_res->napply[i]++;
  if (g_res->norder < kMaxApplies) {
    g_res->order[g_res->norder] = static_cast<uint8_t>(i);
    g_res->order_ps[g_res->norder] = a2k_now_ps();
    g_res->norder++;
  }
}

void OnDone(a2_xfer *x, uint64_t t_done_ps) {
  int i = Index(x);
  g_res->done_ps[i] = t_done_ps;
  g_res->ndone[i]++;
  g_res->done_all_bytes[i] = x->apply_hop == A2_NO_HOP || g_res->applied[i] == x->bytes;
}

// In the child: build the stages, start the transfers, run to the end.
NetResult Simulate(uint32_t pkt_bytes, const std::vector<StageSpec> &stages,
                   const std::vector<XferSpec> &xfers) {
  static NetResult r;
  r = NetResult{};
  g_res = &r;
  for (int i = 0; i < kMaxXfers; i++) r.apply_in_order[i] = true;
  a2_err e{};
  a2_noc *net = nullptr;
  auto fail = [&](a2_code rc) {
    r.rc = rc;
    snprintf(r.msg, sizeof r.msg, "%s", e.msg);
    return r;
  };
  if (a2_code rc = a2k_init(&e)) return fail(rc);
  if (a2_code rc = a2_noc_create(pkt_bytes, sizeof(int), &net, &e)) return fail(rc);
  std::vector<uint32_t> ids;
  for (size_t s = 0; s < stages.size(); s++) {
    uint32_t id;
    if (a2_code rc = a2_noc_add_stage(net, A2_STAGE_LINK, stages[s].bw, stages[s].lat_ps,
                                      static_cast<int32_t>(s), -1, &id, &e))
      return fail(rc);
    ids.push_back(id);
  }
  for (size_t i = 0; i < xfers.size(); i++) {
    a2_xfer *x = a2_xfer_alloc(net);
    if (!x) return fail(A2_E_NOMEM);
    uint32_t *p = a2_xfer_path(x, static_cast<uint16_t>(xfers[i].path.size()));
    if (!p) return fail(A2_E_NOMEM);
    for (size_t h = 0; h < xfers[i].path.size(); h++) p[h] = ids[xfers[i].path[h]];
    x->bytes = xfers[i].bytes;
    x->apply_hop = xfers[i].apply_hop;
    x->on_apply = OnApply;
    x->on_done = OnDone;
    Index(x) = static_cast<int>(i);
    a2_xfer_start(net, x, xfers[i].start_ps);
  }
  if (a2_code rc = a2k_run(UINT64_MAX, &r.why, &e)) return fail(rc);
  r.nstages = a2_noc_stage_count(net);
  for (uint32_t s = 0; s < r.nstages && s < kMaxStages; s++) r.st[s] = *a2_noc_stage_stats(net, s);
  a2_noc_free(net);
  return r;
}

// Forks, simulates, and checks the run itself went well.
::testing::AssertionResult RunNet(NetResult *out, uint32_t pkt_bytes,
                                  const std::vector<StageSpec> &s, const std::vector<XferSpec> &x) {
  ::testing::AssertionResult forked =
      a2test::RunForked(out, [&] { return Simulate(pkt_bytes, s, x); });
  if (!forked) return forked;
  if (out->rc != A2_OK)
    return ::testing::AssertionFailure() << "child error " << out->rc << ": " << out->msg;
  if (out->why != A2K_IDLE) return ::testing::AssertionFailure() << "events left at the end";
  for (size_t i = 0; i < x.size(); i++)
    if (out->ndone[i] != 1 || !out->done_all_bytes[i])
      return ::testing::AssertionFailure()
             << "transfer " << i << ": on_done called " << out->ndone[i] << " times, "
             << (out->done_all_bytes[i] ? "" : "not ") << "after every byte was applied";
  return ::testing::AssertionSuccess();
}

TEST(StageTest, SerialisationTimeRoundsUpToWholePicoseconds) {
  EXPECT_EQ(a2_ser_ps(0, 1000), 0u);
  EXPECT_EQ(a2_ser_ps(1, 1000000000000ull), 1u);        // exactly 1 ps
  EXPECT_EQ(a2_ser_ps(1, 2000000000000ull), 1u);        // 0.5 ps -> 1
  EXPECT_EQ(a2_ser_ps(3, 2000000000000ull), 2u);        // 1.5 ps -> 2
  EXPECT_EQ(a2_ser_ps(1000, 3000000000ull), 333334u);   // 333333.3 -> 333334
  EXPECT_EQ(a2_ser_ps(3000, 3000000000ull), 1000000u);  // exact: no extra ps
  EXPECT_EQ(a2_ser_ps(4096, 28000000000ull), 146286u);  // 146285.71
  // n * 1e12 overflows 64 bits here: the product must be computed wider.
  EXPECT_EQ(a2_ser_ps(1ull << 40, 1000000000ull), 1099511627776000ull);
  EXPECT_EQ(a2_ser_ps(10000000ull, 1ull), 10000000000000000000ull);  // 1e19 ps still fits
  // Short lengths take a 64-bit division: the same rounding on both sides of
  // where the wide one takes over, at any bandwidth.
  for (uint64_t bw : {1ull, 7ull, 3000000000ull, 28000000000ull, 99999999999999ull,
                      100000000000000ull, 100000000000001ull, 18446744073709551615ull})
    for (uint64_t len : {1ull, 4096ull, 17999999ull, 18000000ull, 18000001ull}) {
      unsigned __int128 want = ((unsigned __int128)len * 1000000000000ull + bw - 1) / bw;
      if (want >> 64) continue;  // does not fit the result type
      EXPECT_EQ(a2_ser_ps(len, bw), (uint64_t)want) << len << " bytes at " << bw << " B/s";
    }
}

TEST(StageTest, ZeroBandwidthStageIsRefused) {
  struct Result {
    a2_code init_rc, zero_rc, ok_rc;
    uint32_t count_after_zero, count_after_ok;
    char msg[sizeof(a2_err::msg)];
  } res;
  ASSERT_TRUE(a2test::RunForked(&res, [] {
    Result r{};
    a2_err e{};
    r.init_rc = a2k_init(&e);  // so that only the bandwidth check can refuse
    a2_noc *net = nullptr;
    if (r.init_rc || a2_noc_create(4096, 0, &net, &e)) return r;
    uint32_t id = 999;
    r.zero_rc = a2_noc_add_stage(net, A2_STAGE_LINK, 0, 100, 0, 1, &id, &e);
    snprintf(r.msg, sizeof r.msg, "%s", e.msg);
    r.count_after_zero = a2_noc_stage_count(net);
    r.ok_rc = a2_noc_add_stage(net, A2_STAGE_LINK, 1, 100, 0, 1, &id, &e);
    r.count_after_ok = a2_noc_stage_count(net);
    a2_noc_free(net);
    return r;
  }));
  ASSERT_EQ(res.init_rc, A2_OK);
  EXPECT_NE(res.zero_rc, A2_OK);
  EXPECT_NE(std::string(res.msg).find("zero bandwidth"), std::string::npos) << res.msg;
  EXPECT_EQ(res.count_after_zero, 0u);
  EXPECT_EQ(res.ok_rc, A2_OK);  // 1 B/s is a valid (slow) stage
  EXPECT_EQ(res.count_after_ok, 1u);
}

// The caller's context (a2_xfer_context): up to 32768 bytes per transfer,
// each transfer's its own, apart from the caller's fields; more is refused.
TEST(StageTest, EachTransferHasItsOwnContextOfTheAskedSize) {
  a2_err e{};
  a2_noc *net = nullptr;
  EXPECT_EQ(a2_noc_create(4096, 32769, &net, &e), A2_E_INTERNAL);
  EXPECT_NE(std::string(e.msg).find("at most 32768"), std::string::npos) << e.msg;
  ASSERT_EQ(a2_noc_create(4096, 32768, &net, &e), A2_OK) << e.msg;
  a2_xfer *x = a2_xfer_alloc(net), *y = a2_xfer_alloc(net);
  ASSERT_TRUE(x && y);
  EXPECT_EQ(x->apply_hop, A2_NO_HOP);
  EXPECT_EQ(x->bytes, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a2_xfer_context(x)) % A2_XFER_CONTEXT_ALIGN, 0u);
  x->bytes = 7;
  x->apply_hop = 3;
  y->bytes = 9;
  memset(a2_xfer_context(x), 0xab, 32768);
  memset(a2_xfer_context(y), 0xcd, 32768);
  const unsigned char *cx = static_cast<const unsigned char *>(a2_xfer_context(x));
  EXPECT_EQ(cx[0], 0xab);
  EXPECT_EQ(cx[32767], 0xab);
  EXPECT_EQ(x->bytes, 7u);  // neither context reached the fields
  EXPECT_EQ(x->apply_hop, 3);
  EXPECT_EQ(y->bytes, 9u);
  a2_noc_free(net);
}

// n <= packet size: one packet, done at start + ceil(n * 1e12 / B) + L.
// Each transfer has its own stage, so the three do not interact.
TEST(StageTest, SinglePacketTransferTakesSerialisationPlusLatency) {
  const std::vector<StageSpec> stages = {
      {3000000000ull, 777},      // 3 GB/s, 777 ps
      {28000000000ull, 500000},  // 28 GB/s, 500 ns
      {1000000000000ull, 0},     // 1 TB/s, no latency
  };
  const std::vector<XferSpec> xfers = {
      {1000, 0, {0}, A2_NO_HOP},
      {4096, 1000000, {1}, A2_NO_HOP},  // exactly one packet, starting at 1 us
      {1, 0, {2}, A2_NO_HOP},
  };
  NetResult r;
  ASSERT_TRUE(RunNet(&r, 4096, stages, xfers));
  EXPECT_EQ(r.done_ps[0], 333334u + 777u);                // ceil(333333.3) + L
  EXPECT_EQ(r.done_ps[1], 1000000u + 146286u + 500000u);  // t0 + ceil(146285.7) + L
  EXPECT_EQ(r.done_ps[2], 1u);
  ASSERT_EQ(r.nstages, 3u);
  EXPECT_EQ(r.st[0].packets, 1u);
  EXPECT_EQ(r.st[0].bytes, 1000u);
  EXPECT_EQ(r.st[0].busy_ps, 333334u);
  EXPECT_EQ(r.st[1].packets, 1u);
  EXPECT_EQ(r.st[1].busy_ps, 146286u);
}

// k full packets through two stages: sum(ser + lat) + (k - 1) * max ser,
// whichever stage is the slower one; three stages likewise.
TEST(StageTest, MultiPacketTransferPipelinesThroughStages) {
  const uint32_t pkt = 4096;
  const uint64_t k = 16;
  const std::vector<StageSpec> stages = {
      {10000000000ull, 1000},  // 0: 10 GB/s  -> 409600 ps per packet
      {7000000000ull, 2500},   // 1: 7 GB/s   -> 585143 ps per packet (rounded up)
      {7000000000ull, 2500},   // 2: same as 1
      {10000000000ull, 1000},  // 3: same as 0
      {50000000000ull, 300},   // 4: 50 GB/s  -> 81920 ps
      {3000000000ull, 40},     // 5: 3 GB/s   -> 1365334 ps (rounded up)
      {50000000000ull, 300},   // 6
  };
  const std::vector<XferSpec> xfers = {
      {k * pkt, 0, {0, 1}, A2_NO_HOP},     // fast then slow
      {k * pkt, 0, {2, 3}, A2_NO_HOP},     // slow then fast
      {k * pkt, 0, {4, 5, 6}, A2_NO_HOP},  // slow in the middle
  };
  NetResult r;
  ASSERT_TRUE(RunNet(&r, pkt, stages, xfers));
  const uint64_t s_fast = 409600, s_slow = 585143;
  ASSERT_EQ(a2_ser_ps(pkt, 7000000000ull), s_slow);
  const uint64_t expect_two = s_fast + 1000 + s_slow + 2500 + (k - 1) * s_slow;
  EXPECT_EQ(r.done_ps[0], expect_two);
  EXPECT_EQ(r.done_ps[1], expect_two);
  const uint64_t s4 = 81920, s5 = 1365334;
  EXPECT_EQ(r.done_ps[2], (s4 + 300) + (s5 + 40) + (s4 + 300) + (k - 1) * s5);
  for (uint32_t s = 0; s < 7; s++) {
    EXPECT_EQ(r.st[s].packets, k) << "stage " << s;
    EXPECT_EQ(r.st[s].bytes, k * pkt) << "stage " << s;
    EXPECT_EQ(r.st[s].busy_ps, k * a2_ser_ps(pkt, stages[s].bw)) << "stage " << s;
  }
}

// A partial last packet: compared with the recurrence itself. The apply
// hook sees every byte once, packet by packet, in order.
TEST(StageTest, PartialLastPacketFollowsTheTandemRecurrence) {
  const uint32_t pkt = 4096;
  const std::vector<StageSpec> stages = {
      {7000000000ull, 333}, {10000000000ull, 1000}, {5000000000ull, 70}};
  const uint64_t bytes = 10000;  // 4096 + 4096 + 1808
  const std::vector<XferSpec> xfers = {{bytes, 12345, {0, 1, 2}, 1}};
  NetResult r;
  ASSERT_TRUE(RunNet(&r, pkt, stages, xfers));
  EXPECT_EQ(r.done_ps[0], Recurrence(bytes, pkt, stages, 12345));
  EXPECT_EQ(r.napply[0], 3u);
  EXPECT_EQ(r.applied[0], bytes);
  EXPECT_TRUE(r.apply_in_order[0]);
  EXPECT_EQ(r.st[2].bytes, bytes);
  EXPECT_EQ(r.st[2].packets, 3u);
  // The hook runs when the packet starts service at hop 1: packet 0 arrives
  // there after its service and the latency of hop 0.
  ASSERT_GE(r.norder, 1u);
  EXPECT_EQ(r.order_ps[0], 12345 + a2_ser_ps(pkt, 7000000000ull) + 333);
}

// Paths longer than A2_INLINE_HOPS live on the heap (a2_xfer_path); the
// heap path is freed when the transfer is recycled (valgrind checks that).
TEST(StageTest, PathsLongerThanTheInlineHopsWork) {
  const uint32_t pkt = 4096;
  const uint32_t hops = A2_INLINE_HOPS + 5;
  std::vector<StageSpec> stages;
  std::vector<uint32_t> long_path, other_long;
  for (uint32_t i = 0; i < hops; i++) {
    stages.push_back({(5 + i % 3) * 1000000000ull, 100 + i});
    long_path.push_back(i);
  }
  for (uint32_t i = 0; i < hops; i++) {
    stages.push_back({(5 + i % 3) * 1000000000ull, 100 + i});
    other_long.push_back(hops + i);
  }
  stages.push_back({10000000000ull, 7});
  const std::vector<XferSpec> xfers = {
      {3 * pkt + 100, 0, long_path, A2_NO_HOP},
      {pkt, 0, {2 * hops}, A2_NO_HOP},
      {5 * pkt, 1000, other_long, static_cast<uint16_t>(hops - 1)},
  };
  NetResult r;
  ASSERT_TRUE(RunNet(&r, pkt, stages, xfers));
  std::vector<StageSpec> first(stages.begin(), stages.begin() + hops);
  std::vector<StageSpec> second(stages.begin() + hops, stages.begin() + 2 * hops);
  EXPECT_EQ(r.done_ps[0], Recurrence(3 * pkt + 100, pkt, first, 0));
  EXPECT_EQ(r.done_ps[1], a2_ser_ps(pkt, 10000000000ull) + 7);
  EXPECT_EQ(r.done_ps[2], Recurrence(5 * pkt, pkt, second, 1000));
  EXPECT_EQ(r.applied[2], 5u * pkt);
  EXPECT_TRUE(r.apply_in_order[2]);
}

// Two transfers started together on one stage interleave packet by packet:
// the stage never idles (the last packet leaves at 2 * single busy time),
// each takes about twice as long as alone, and they finish within one
// packet time of each other. A third, identical stage carries the same
// transfer alone as the reference.
TEST(StageTest, TwoFlowsShareBandwidthFairly) {
  const uint32_t pkt = 4096;
  const uint64_t m = 32;  // packets per transfer
  const uint64_t lat = 5000;
  const std::vector<StageSpec> stages = {{10000000000ull, lat}, {10000000000ull, lat}};
  const std::vector<XferSpec> xfers = {
      {m * pkt, 0, {0}, 0}, {m * pkt, 0, {0}, 0}, {m * pkt, 0, {1}, A2_NO_HOP},  // alone
  };
  NetResult r;
  ASSERT_TRUE(RunNet(&r, pkt, stages, xfers));
  const uint64_t s = a2_ser_ps(pkt, 10000000000ull);
  const uint64_t single = r.done_ps[2];
  EXPECT_EQ(single, m * s + lat);
  const uint64_t a = r.done_ps[0], b = r.done_ps[1];
  EXPECT_EQ(std::max(a, b), 2 * m * s + lat);  // work-conserving
  EXPECT_LE(std::max(a, b) - std::min(a, b), s) << "finish more than one packet apart";
  for (uint64_t t : {a, b}) {
    double ratio = static_cast<double>(t) / static_cast<double>(single);
    EXPECT_GT(ratio, 1.9);
    EXPECT_LT(ratio, 2.05);
  }
  // Service order on the shared stage strictly alternates.
  ASSERT_EQ(r.norder, 2 * m);
  for (uint32_t i = 1; i < r.norder; i++)
    EXPECT_NE(r.order[i], r.order[i - 1])
        << "packets " << i - 1 << " and " << i << " both from transfer " << int(r.order[i]);
  EXPECT_EQ(r.st[0].busy_ps, 2 * m * s);
  EXPECT_EQ(r.st[0].bytes, 2 * m * pkt);
}

// A flow that arrives while another is being served joins the queue in
// arrival order and then shares: it is not starved until the first ends.
// The long flow's next packet is queued when its current one starts, so it
// is already ahead of a packet arriving during that service.
TEST(StageTest, LateFlowSharesInsteadOfWaitingForTheFirstToFinish) {
  const uint32_t pkt = 4096;
  const uint64_t m = 32;
  const std::vector<StageSpec> stages = {{10000000000ull, 0}};
  const uint64_t s = a2_ser_ps(pkt, 10000000000ull);
  // The short flow arrives halfway through the long one's 4th packet
  // (served [3s, 4s)), behind its 5th (queued at 3s).
  const std::vector<XferSpec> xfers = {{m * pkt, 0, {0}, 0}, {4 * pkt, 3 * s + s / 2, {0}, 0}};
  NetResult r;
  ASSERT_TRUE(RunNet(&r, pkt, stages, xfers));
  // Slots (0-based, each s long): long 0..4, then short 5, 7, 9, 11
  // alternating with long 6, 8, 10; the short one is done at 12 s.
  EXPECT_EQ(r.done_ps[1], 12 * s);
  EXPECT_EQ(r.done_ps[0], (m + 4) * s);  // the stage never idles
  ASSERT_EQ(r.norder, m + 4);
  const uint8_t want[12] = {0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1};
  for (int i = 0; i < 12; i++) EXPECT_EQ(r.order[i], want[i]) << "slot " << i;
}

// Equal arrivals (docs/timing-model.md, "Equal arrivals"): a stage's queue
// is ordered by arrival, and packets that arrive in the same picosecond go
// in the order they were queued there. A packet is queued at a stage when it
// starts service at the stage before (at its first stage: when its transfer
// is started, or when its previous packet starts service there).
TEST(StageTest, EqualArrivalsGoInTheOrderTheyWereQueued) {
  const uint32_t pkt = 1000;
  // stage 0: B, S = 50 ps; stage 1: A, S = 100 ps; stage 2: X, S = 100 ps; no latency
  const std::vector<StageSpec> stages = {
      {20000000000000ull, 0}, {10000000000000ull, 0}, {10000000000000ull, 0}};
  // Transfer 0 starts first (issue order) from the lower stage id (B), at 50:
  // it starts service at B at 50 and reaches X at 100. Transfer 1 starts
  // service at A at 0, is queued at X then, and reaches X at 100 too.
  const std::vector<XferSpec> xfers = {{pkt, 50, {0, 2}, 1}, {pkt, 0, {1, 2}, 1}};
  NetResult r;
  ASSERT_TRUE(RunNet(&r, pkt, stages, xfers));
  ASSERT_EQ(r.norder, 2u);
  EXPECT_EQ(r.order[0], 1) << "the packet queued at X first (at 0) goes first";
  EXPECT_EQ(r.order_ps[0], 100u);
  EXPECT_EQ(r.done_ps[1], 200u);
  EXPECT_EQ(r.done_ps[0], 300u);
}

// Queued in the same picosecond at the same first stage: in the order the
// transfers are started.
TEST(StageTest, EqualArrivalsQueuedTogetherGoInStartOrder) {
  const uint32_t pkt = 1000;
  const std::vector<StageSpec> stages = {{10000000000000ull, 0}};
  for (uint64_t t0 : {0ull, 40ull}) {  // now, and ahead of now
    const std::vector<XferSpec> xfers = {{pkt, t0, {0}, 0}, {pkt, t0, {0}, 0}, {pkt, t0, {0}, 0}};
    NetResult r;
    ASSERT_TRUE(RunNet(&r, pkt, stages, xfers));
    ASSERT_EQ(r.norder, 3u);
    for (uint32_t i = 0; i < 3; i++) {
      EXPECT_EQ(r.order[i], i) << "t0 " << t0;
      EXPECT_EQ(r.done_ps[i], t0 + 100 * (i + 1)) << "t0 " << t0;
    }
  }
}

}  // namespace
