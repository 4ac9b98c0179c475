// Tests for put/get on the DMA engines (model/dma.c, docs/timing-model.md,
// "DMA engines"): a queue serves its descriptors one after another at
// launch + engine time each, while their flight overlaps; queues run
// concurrently; puts and gets have their own rates, and a copy within one
// NPU the local-copy rate; between servers a put/get is RDMA on the NIC, or
// SDMA where the NIC or level says so; an A3 queue launches a put while the
// previous one passes the engine; a queue completes in issue order; a put
// can add at its destination; the engines exist only for programs with
// put/get.
// The expected times are written here from the documented equations, with
// the default config's numbers, and both network timings must give them.
//
// Programs are built in the parent; every simulation runs in a forked child
// (fork_run.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "collectives/builder.h"
#include "model/sim.h"
#include "tests/support/fork_run.h"

namespace {

struct Program {
  a2_program k{};
  a2_tb tb{};
  a2_err err{};
  Program(uint32_t nranks) { a2_tb_begin(&tb, &k, nranks, 1, &err); }
  ~Program() { a2_program_free(&k); }
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;
};

// S(n) = ceil(n * 1e12 / bw) ps.
uint64_t Ser(uint64_t n, uint64_t bw) {
  return (uint64_t)(((unsigned __int128)n * 1000000000000ull + bw - 1) / bw);
}

struct Outcome {
  a2_code create_rc, run_rc;
  a2_run_status status;
  uint64_t end_ps;
  uint32_t stages;
  char msg[sizeof(a2_err::msg)];
  bool sums_ok;
};

// In a child: build the model for k (on `devices`, or 0..P-1) with cfg,
// under `timing`, and run it. With `sum_buf` >= 0, also check that rank 0's
// copy of that fp32 buffer holds the sum over ranks of buffer 0's inputs.
Outcome Simulate(a2_config cfg, const a2_program &k, a2_timing timing,
                 const std::vector<uint32_t> &devices = {}, int sum_buf = -1) {
  Outcome o{};
  a2test::RunForked(&o, [&] {
    Outcome r{};
    cfg.timing = timing;
    a2_err e{};
    a2_sim *s = nullptr;
    r.create_rc =
        a2_sim_create(&cfg, &k, devices.empty() ? nullptr : devices.data(), "dma", &s, &e);
    if (r.create_rc) {
      snprintf(r.msg, sizeof r.msg, "%s", e.msg);
      return r;
    }
    r.stages = a2_sim_stage_count(s);
    r.run_rc = a2_sim_run(s, UINT64_MAX, &r.status, &e);
    if (r.run_rc) snprintf(r.msg, sizeof r.msg, "%s", e.msg);
    r.end_ps = a2_sim_end_ps(s);
    if (sum_buf >= 0) {
      r.sums_ok = true;
      const uint8_t *got = a2_sim_buffer(s, 0, (uint32_t)sum_buf);
      for (uint64_t i = 0; i < k.bufs[sum_buf].bytes / 4; i++) {
        float want = 0, v;
        for (uint32_t q = 0; q < k.nranks; q++) want += a2_pattern_value(k.seed, q, i);
        std::memcpy(&v, got + 4 * i, 4);
        if (v != want) r.sums_ok = false;
      }
    }
    a2_sim_free(s);
    return r;
  });
  return o;
}

::testing::AssertionResult Done(const Outcome &o) {
  if (o.create_rc || o.run_rc)
    return ::testing::AssertionFailure()
           << "create " << o.create_rc << ", run " << o.run_rc << ": " << o.msg;
  if (o.status != A2_RUN_DONE) return ::testing::AssertionFailure() << "status " << o.status;
  return ::testing::AssertionSuccess();
}

// The time of the same run under both timings, which must agree.
uint64_t Both(const a2_config &cfg, const a2_program &k, const std::vector<uint32_t> &dev = {}) {
  Outcome p = Simulate(cfg, k, A2_TIMING_PACKET, dev),
          r = Simulate(cfg, k, A2_TIMING_RESERVATION, dev);
  EXPECT_TRUE(Done(p));
  EXPECT_TRUE(Done(r));
  EXPECT_EQ(p.end_ps, r.end_ps) << "packet vs reservation timing";
  return p.end_ps;
}

a2_config Default() {
  a2_config c;
  a2_config_default(&c);
  return c;
}

a2_tb_dma On(uint16_t queue) {
  return a2_tb_dma{0, 0, 0, queue};
}

constexpr uint64_t kBlock = 16384;  // 4 packets of 4 KiB
constexpr uint32_t kM = 8;          // descriptors

// Rank 0: kM puts (or gets) of kBlock bytes with rank 1, descriptor j on
// queue queues[j % queues.size()]; a get writes one local buffer.
void Stream(Program &K, bool put, const std::vector<uint16_t> &queues) {
  a2_tb *tb = &K.tb;
  uint16_t loc = a2_tb_buf(tb, "loc", A2_BUF_TENSOR, A2_FP32, kM * kBlock, A2_INIT_PATTERN);
  uint16_t win = a2_tb_buf(tb, "win", A2_BUF_WINDOW, A2_FP32, kM * kBlock, A2_INIT_ZERO);
  a2_tb_at(tb, 0, 0);
  for (uint32_t j = 0; j < kM; j++) {
    a2_tb_dma how = On(queues[j % queues.size()]);
    if (put)
      a2_tb_put(tb, win, 1, j * kBlock, kBlock, loc, j * kBlock, &how);
    else
      a2_tb_get(tb, loc, j * kBlock, kBlock, win, 1, j * kBlock, &how);
  }
  ASSERT_EQ(tb->rc, A2_OK) << K.err.msg;
}

// T_pipe(kBlock) through engine rate `eng` and then HBM, one link, HBM.
uint64_t Pipe(const a2_config &c, uint64_t eng) {
  const uint64_t p = c.packet_bytes, k = kBlock / p;
  uint64_t first = Ser(p, eng) + Ser(p, c.hbm_bw) + c.hbm_lat_ps + Ser(p, c.link_bw) +
                   c.link_lat_ps + Ser(p, c.hbm_bw) + c.hbm_lat_ps;
  uint64_t slowest = std::max({Ser(p, eng), Ser(p, c.hbm_bw), Ser(p, c.link_bw)});
  return first + (k - 1) * slowest;
}

TEST(DmaTest, OneQueueServesPutsAtLaunchPlusEngineTimeEach) {
  a2_config c = Default();
  Program K(2);
  Stream(K, true, {0});
  const uint64_t a = c.sdma_launch_ps,
                 E = (kBlock / c.packet_bytes) * Ser(c.packet_bytes, c.sdma_write_bw);
  // descriptor j starts at j (a + E); the last one's flight is T_pipe
  EXPECT_EQ(Both(c, K.k), (kM - 1) * (a + E) + a + Pipe(c, c.sdma_write_bw));
}

TEST(DmaTest, GetsRunAtTheReadRateAfterTheirRequest) {
  a2_config c = Default();
  Program K(2);
  Stream(K, false, {0});  // every get writes `loc`: the queue orders them
  const uint64_t a = c.sdma_launch_ps,
                 E = (kBlock / c.packet_bytes) * Ser(c.packet_bytes, c.sdma_read_bw);
  const uint64_t ctrl = Ser(c.ctrl_bytes, c.link_bw) + c.link_lat_ps;
  ASSERT_LT(c.sdma_read_bw, c.link_bw);  // the engine is the slowest stage
  EXPECT_EQ(Both(c, K.k), (kM - 1) * (a + E) + a + ctrl + Pipe(c, c.sdma_read_bw));
}

TEST(DmaTest, GetsOnTwoQueuesIntoOneBufferWaitForEachOther) {
  a2_config c = Default();
  Program K(2);
  Stream(K, false, {0, 1});  // a get writes `loc` after the other queue's get
  const uint64_t ctrl = Ser(c.ctrl_bytes, c.link_bw) + c.link_lat_ps;
  EXPECT_EQ(Both(c, K.k), kM * (c.sdma_launch_ps + ctrl + Pipe(c, c.sdma_read_bw)));
}

// Rank 0 puts kBlock bytes to each of ranks 1..3, on the queues given.
uint64_t FanOut(const std::vector<uint16_t> &queues) {
  a2_config c = Default();
  Program K(4);
  a2_tb *tb = &K.tb;
  uint16_t loc = a2_tb_buf(tb, "loc", A2_BUF_TENSOR, A2_FP32, kBlock, A2_INIT_PATTERN);
  uint16_t win = a2_tb_buf(tb, "win", A2_BUF_WINDOW, A2_FP32, kBlock, A2_INIT_ZERO);
  a2_tb_at(tb, 0, 0);
  for (uint32_t q = 1; q < 4; q++) {
    a2_tb_dma how = On(queues[q - 1]);
    a2_tb_put(tb, win, q, 0, kBlock, loc, 0, &how);
  }
  EXPECT_EQ(tb->rc, A2_OK);
  return Both(c, K.k);
}

TEST(DmaTest, QueuesRunConcurrently) {
  a2_config c = Default();
  const uint64_t a = c.sdma_launch_ps,
                 E = (kBlock / c.packet_bytes) * Ser(c.packet_bytes, c.sdma_write_bw);
  const uint64_t one = a + Pipe(c, c.sdma_write_bw);
  EXPECT_EQ(FanOut({0, 0, 0}), 2 * (a + E) + one);  // one queue: one after another
  // three queues: each alone but for the source HBM, which they share
  uint64_t three = FanOut({0, 1, 2});
  EXPECT_GE(three, one);
  EXPECT_LE(three, one + 3 * Ser(c.packet_bytes, c.hbm_bw));
}

// Rank 0: kM puts (or gets) of kBlock bytes within its own NPU (peer 0) on
// queue 0: a local copy, window to tensor (get) or tensor to window (put).
void SelfStream(Program &K, bool put) {
  a2_tb *tb = &K.tb;
  uint16_t loc = a2_tb_buf(tb, "loc", A2_BUF_TENSOR, A2_FP32, kM * kBlock, A2_INIT_PATTERN);
  uint16_t win = a2_tb_buf(tb, "win", A2_BUF_WINDOW, A2_FP32, kM * kBlock, A2_INIT_ZERO);
  a2_tb_at(tb, 0, 0);
  for (uint32_t j = 0; j < kM; j++) {
    a2_tb_dma how = On(0);
    if (put)
      a2_tb_put(tb, win, 0, j * kBlock, kBlock, loc, j * kBlock, &how);
    else
      a2_tb_get(tb, loc, j * kBlock, kBlock, win, 0, j * kBlock, &how);
  }
  ASSERT_EQ(tb->rc, A2_OK) << K.err.msg;
}

TEST(DmaTest, ACopyWithinOneNpuRunsAtTheLocalRate) {
  // descriptor j starts at j (a + E_L), E_L at chip.sdma.local_bandwidth
  // (the engine binds); the last packet then passes the rank's HBM twice
  for (bool put : {true, false})
    for (uint64_t local : {10000000000ull, 77000000000ull, 200000000000ull}) {
      a2_config c = Default();
      c.sdma_local_bw = local;
      Program K(2);
      SelfStream(K, put);
      const uint64_t p = c.packet_bytes, E = (kBlock / p) * Ser(p, local);
      ASSERT_LT(2 * Ser(p, c.hbm_bw), Ser(p, local));
      EXPECT_EQ(Both(c, K.k), kM * (c.sdma_launch_ps + E) + 2 * (Ser(p, c.hbm_bw) + c.hbm_lat_ps))
          << (put ? "put" : "get") << " at " << local << " B/s";
    }
}

TEST(DmaTest, APutToAnotherNpuDoesNotUseTheLocalRate) {
  a2_config c = Default();
  Program K(2);
  Stream(K, true, {0});
  const uint64_t at_default = Both(c, K.k);
  c.sdma_local_bw = c.sdma_write_bw / 4;
  EXPECT_EQ(Both(c, K.k), at_default);
  const uint64_t a = c.sdma_launch_ps,
                 E = (kBlock / c.packet_bytes) * Ser(c.packet_bytes, c.sdma_write_bw);
  EXPECT_EQ(at_default, (kM - 1) * (a + E) + a + Pipe(c, c.sdma_write_bw));
}

TEST(DmaTest, BetweenServersAPutIsRdmaOnTheNic) {
  a2_config c = Default();
  c.topology = A2_TOPO_TWO_LEVEL;
  c.ranks = 16;  // two servers of 8; devices 0 and 8 are in different ones
  Program K(2);
  Stream(K, true, {0});
  const uint64_t p = c.packet_bytes, k = kBlock / p;
  ASSERT_LT(c.rdma_bw, c.nic_bw);  // the engine is the slowest stage
  const uint64_t E = k * Ser(p, c.rdma_bw);
  const uint64_t pipe = Ser(p, c.rdma_bw) + Ser(p, c.hbm_bw) + c.hbm_lat_ps + Ser(p, c.nic_bw) +
                        c.nic_lat_ps + c.switch_lat_ps + Ser(p, c.nic_bw) + c.nic_lat_ps +
                        Ser(p, c.hbm_bw) + c.hbm_lat_ps + (k - 1) * Ser(p, c.rdma_bw);
  EXPECT_EQ(Both(c, K.k, {0, 8}), (kM - 1) * (c.rdma_launch_ps + E) + c.rdma_launch_ps + pipe);
  // inside a server the same program runs on the SDMA engine
  const uint64_t Es = k * Ser(p, c.sdma_write_bw);
  EXPECT_EQ(Both(c, K.k, {0, 1}),
            (kM - 1) * (c.sdma_launch_ps + Es) + c.sdma_launch_ps + Pipe(c, c.sdma_write_bw));
}

// chip.sdma.launch_overlap = puts (the A3): a put is launched while the put
// before it passes the engine, so a stream takes max(a, E) per descriptor;
// gets stay serial.
TEST(DmaTest, OverlappedLaunchesTakeTheLongerOfLaunchAndEngineTimeEach) {
  a2_config c = Default();
  c.sdma_overlap = A2_OVERLAP_PUTS;
  Program K(2);
  Stream(K, true, {0});
  const uint64_t E = (kBlock / c.packet_bytes) * Ser(c.packet_bytes, c.sdma_write_bw);
  // launch-bound (the default's 1 us > E): descriptor j leaves at (j + 1) a
  ASSERT_GT(c.sdma_launch_ps, E);
  const uint64_t a = c.sdma_launch_ps;
  EXPECT_EQ(Both(c, K.k), kM * a + Pipe(c, c.sdma_write_bw));
  // engine-bound: the engine serves the descriptors back to back from a on
  c.sdma_launch_ps = E / 4;
  EXPECT_EQ(Both(c, K.k), c.sdma_launch_ps + (kM - 1) * E + Pipe(c, c.sdma_write_bw));
  // serial (none), the same launch: a + E each
  c.sdma_overlap = A2_OVERLAP_NONE;
  EXPECT_EQ(Both(c, K.k),
            (kM - 1) * (c.sdma_launch_ps + E) + c.sdma_launch_ps + Pipe(c, c.sdma_write_bw));
}

TEST(DmaTest, OverlappedLaunchesLeaveGetsSerial) {
  a2_config c = Default();
  c.sdma_overlap = A2_OVERLAP_PUTS;
  Program K(2);
  Stream(K, false, {0});
  const uint64_t a = c.sdma_launch_ps,
                 E = (kBlock / c.packet_bytes) * Ser(c.packet_bytes, c.sdma_read_bw);
  const uint64_t ctrl = Ser(c.ctrl_bytes, c.link_bw) + c.link_lat_ps;
  EXPECT_EQ(Both(c, K.k), (kM - 1) * (a + E) + a + ctrl + Pipe(c, c.sdma_read_bw));
}

// interconnect.nic.engine = sdma (the A3 super-node): between groups a put
// runs on the SDMA engine and pays chip.sdma.launch, not the RDMA keys.
TEST(DmaTest, BetweenGroupsAPutRunsOnTheEngineTheNicNames) {
  a2_config c = Default();
  c.topology = A2_TOPO_TWO_LEVEL;
  c.ranks = 16;
  c.nic_engine = A2_ENGINE_SDMA;
  Program K(2);
  Stream(K, true, {0});
  const uint64_t p = c.packet_bytes, k = kBlock / p;
  ASSERT_LT(c.sdma_write_bw, c.nic_bw);  // the engine is the slowest stage
  const uint64_t E = k * Ser(p, c.sdma_write_bw);
  const uint64_t pipe = Ser(p, c.sdma_write_bw) + Ser(p, c.hbm_bw) + c.hbm_lat_ps +
                        Ser(p, c.nic_bw) + c.nic_lat_ps + c.switch_lat_ps + Ser(p, c.nic_bw) +
                        c.nic_lat_ps + Ser(p, c.hbm_bw) + c.hbm_lat_ps +
                        (k - 1) * Ser(p, c.sdma_write_bw);
  const uint64_t want = (kM - 1) * (c.sdma_launch_ps + E) + c.sdma_launch_ps + pipe;
  EXPECT_EQ(Both(c, K.k, {0, 8}), want);
  c.rdma_launch_ps *= 10;  // not read on an sdma NIC
  c.rdma_bw /= 2;
  EXPECT_EQ(Both(c, K.k, {0, 8}), want);
}

// topology levels, 4 NPUs: pairs on a mesh (the default link), then a top
// switch level (the default NIC's bandwidth, its latency both ways).
a2_config PairsAndTop() {
  a2_config c = Default();
  c.topology = A2_TOPO_LEVELS;
  c.ranks = 4;
  c.nlevels = 2;
  c.levels[0] = a2_level{};
  snprintf(c.levels[0].name, sizeof c.levels[0].name, "pair");
  c.levels[0].kind = A2_LEVEL_MESH;
  c.levels[0].fanout = 2;
  c.levels[0].bw = c.link_bw;
  c.levels[0].lat_ps = c.link_lat_ps;
  c.levels[1] = a2_level{};
  snprintf(c.levels[1].name, sizeof c.levels[1].name, "top");
  c.levels[1].bw = c.nic_bw;
  c.levels[1].lat_ps = 2 * c.nic_lat_ps;
  return c;
}

// topology levels: the engine of the lowest level holding both NPUs.
TEST(DmaTest, OnLevelsThePutRunsOnItsLevelsEngine) {
  a2_config c = PairsAndTop();
  Program K(2);
  Stream(K, true, {0});
  auto run = [&](a2_engine e, uint64_t rdma_launch) {
    a2_config x = c;
    x.levels[1].engine = e;
    x.rdma_launch_ps = rdma_launch;
    return Both(x, K.k, {0, 2});
  };
  const uint64_t base = c.rdma_launch_ps, more = base + 1000000;  // +1 us per message
  // rdma: every one of the kM serial launches is 1 us longer
  EXPECT_EQ(run(A2_ENGINE_RDMA, more) - run(A2_ENGINE_RDMA, base), kM * 1000000ull);
  // sdma: the RDMA launch is not read; the SDMA launch (1 us) is paid instead
  EXPECT_EQ(run(A2_ENGINE_SDMA, more), run(A2_ENGINE_SDMA, base));
  EXPECT_GT(run(A2_ENGINE_SDMA, base), run(A2_ENGINE_RDMA, base));
}

// A level's dma_ack_latency / dma_ack_bandwidth: a put/get whose lowest
// common level it is holds its queue H(n) = latency + n / bandwidth after its
// bytes pass the engine, without overlapped launches; the last descriptor
// completes when its bytes land.
TEST(DmaTest, ALevelsAcknowledgementHoldsTheQueueAfterEachDescriptor) {
  a2_config c = PairsAndTop();
  c.levels[1].engine = A2_ENGINE_SDMA;
  for (bool put : {true, false}) {
    Program K(2);
    Stream(K, put, {0});
    const uint64_t plain = Both(c, K.k, {0, 2}), pair = Both(c, K.k, {0, 1});
    a2_config x = c;
    x.levels[1].dma_ack_ps = 2000000;          // 2 us
    x.levels[1].dma_ack_bw = 500000000000ull;  // 500 GB/s
    const uint64_t H = 2000000 + Ser(kBlock, 500000000000ull);
    EXPECT_EQ(Both(x, K.k, {0, 2}), plain + (kM - 1) * H) << (put ? "put" : "get");
    EXPECT_EQ(Both(x, K.k, {0, 1}), pair) << "inside the pair: the top level's keys not read";
    // overlapped launches give way to the acknowledgement: a + E + H each
    x.sdma_overlap = A2_OVERLAP_PUTS;
    EXPECT_EQ(Both(x, K.k, {0, 2}), plain + (kM - 1) * H) << (put ? "put" : "get");
    x.levels[1].dma_ack_bw = 0;  // no byte term
    x.sdma_overlap = A2_OVERLAP_NONE;
    EXPECT_EQ(Both(x, K.k, {0, 2}), plain + (kM - 1) * 2000000ull);
  }
}

TEST(DmaTest, AQueueCompletesInIssueOrder) {
  // Put A (64 KiB to rank 1, a slow link) and then put B (4 KiB to rank 0's
  // own window) on queue 0; B's bytes land first, but B completes with A, so
  // the load that reads B's bytes starts when A lands.
  a2_config c = Default();
  c.link_lat_ps = 5000000;
  Program K(2);
  a2_tb *tb = &K.tb;
  const uint64_t nA = 65536, nB = 4096;
  uint16_t loc = a2_tb_buf(tb, "loc", A2_BUF_TENSOR, A2_FP32, nA, A2_INIT_PATTERN);
  uint16_t win = a2_tb_buf(tb, "win", A2_BUF_WINDOW, A2_FP32, nA, A2_INIT_ZERO);
  uint16_t t = a2_tb_tile(tb, "t", A2_FP32, nB);
  a2_tb_at(tb, 0, 0);
  a2_tb_dma q0 = On(0);
  a2_tb_put(tb, win, 1, 0, nA, loc, 0, &q0);
  a2_tb_put(tb, win, 0, 0, nB, loc, 0, &q0);
  a2_tb_load(tb, t, win, 0, nB);
  ASSERT_EQ(tb->rc, A2_OK);
  const uint64_t p = c.packet_bytes, k = nA / p, Se = Ser(p, c.sdma_write_bw);
  const uint64_t landA = c.sdma_launch_ps + Se + Ser(p, c.hbm_bw) + c.hbm_lat_ps +
                         Ser(p, c.link_bw) + c.link_lat_ps + Ser(p, c.hbm_bw) + c.hbm_lat_ps +
                         (k - 1) * Se;
  const uint64_t load = Ser(nB, c.hbm_bw) + c.hbm_lat_ps + Ser(nB, c.mte_in_bw) + c.mte_lat_ps;
  EXPECT_EQ(Both(c, K.k), landA + load);
}

TEST(DmaTest, AtomicPutsFromEveryRankAddAtTheDestination) {
  a2_config c = Default();
  Program K(3);
  a2_tb *tb = &K.tb;
  const uint64_t n = 3 * 4096 + 64;  // uneven packets
  uint16_t x = a2_tb_buf(tb, "x", A2_BUF_TENSOR, A2_FP32, n, A2_INIT_PATTERN);
  uint16_t w = a2_tb_buf(tb, "w", A2_BUF_WINDOW, A2_FP32, n, A2_INIT_ZERO);
  for (uint32_t r = 0; r < 3; r++) {
    a2_tb_at(tb, r, 0);
    a2_tb_dma how{4096, 1, 1, (uint16_t)r};  // chunked, on a queue each
    a2_tb_put(tb, w, 0, 0, n, x, 0, &how);
  }
  ASSERT_EQ(tb->rc, A2_OK);
  ASSERT_EQ(x, 0);
  for (a2_timing t : {A2_TIMING_PACKET, A2_TIMING_RESERVATION}) {
    Outcome o = Simulate(c, K.k, t, {}, w);
    ASSERT_TRUE(Done(o));
    EXPECT_TRUE(o.sums_ok) << "timing " << t;
  }
}

TEST(DmaTest, EnginesAreBuiltOnlyForProgramsWithPutOrGet) {
  a2_config c = Default();
  Program with(2), without(2);
  Stream(with, true, {0});
  uint16_t loc = a2_tb_buf(&without.tb, "loc", A2_BUF_TENSOR, A2_FP32, 64, A2_INIT_PATTERN);
  uint16_t t = a2_tb_tile(&without.tb, "t", A2_FP32, 64);
  a2_tb_at(&without.tb, 0, 0);
  a2_tb_load(&without.tb, t, loc, 0, 64);
  ASSERT_EQ(without.tb.rc, A2_OK);
  Outcome a = Simulate(c, with.k, A2_TIMING_PACKET), b = Simulate(c, without.k, A2_TIMING_PACKET);
  ASSERT_TRUE(Done(a));
  ASSERT_TRUE(Done(b));
  // a write, a read and a local-copy engine each
  EXPECT_EQ(a.stages, b.stages + 2 * 3 * c.sdma_queues);
  c.topology = A2_TOPO_TWO_LEVEL;
  c.ranks = 16;
  Outcome nic = Simulate(c, with.k, A2_TIMING_PACKET, {0, 8}),
          plain = Simulate(c, without.k, A2_TIMING_PACKET, {0, 8});
  ASSERT_TRUE(Done(nic));
  ASSERT_TRUE(Done(plain));
  EXPECT_EQ(nic.stages, plain.stages + 2 * 4 * c.sdma_queues);  // and an RDMA engine
}

TEST(DmaValidationTest, AQueueTheChipDoesNotHaveIsRefusedWithItsLine) {
  a2_config c = Default();
  Program K(2);
  Stream(K, true, {0, (uint16_t)c.sdma_queues});  // the second descriptor is step 2
  a2_err e{};
  a2_sim *s = nullptr;
  // refused before anything is built (no SystemC in the test process)
  ASSERT_EQ(a2_sim_create(&c, &K.k, nullptr, "q.a2t", &s, &e), A2_E_INPUT);
  EXPECT_STREQ(e.file, "q.a2t");
  EXPECT_EQ(e.line, 2);
  EXPECT_NE(std::string(e.msg).find("put: queue 8 outside 0..7 (chip.sdma.queues)"),
            std::string::npos)
      << e.msg;
}

}  // namespace
