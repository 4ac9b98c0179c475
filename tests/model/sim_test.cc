// Tests for model/sim.h and model/check.h on tiny programs built with the
// builder API (collectives/builder.h): real bytes moved by load / store /
// remote_load / remote_store, notify and wait semantics, deadlock and time
// limit reports, the per-rank counters, contention on a shared link, the
// validation errors of a2_sim_create and the functional check.
//
// Programs are built in the parent (no SystemC involved); every simulation
// runs in a forked child (fork_run.h), one SystemC elaboration per OS
// process. a2_sim_create validates the program (a2_program_validate, device
// list, window size) before it calls a2k_init or creates any process
// (model/sim.c), so the validation tests call it in the test process.
#include "model/sim.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "collectives/builder.h"
#include "model/check.h"
#include "noc/noc.h"
#include "tests/support/fork_run.h"
#include "traces/validate.h"

namespace {

constexpr uint32_t kMaxRanks = 4;
constexpr size_t kReportMax = 1024;

// A program owned by a test; built with the builder, freed at scope exit.
struct Program {
  a2_program k{};
  a2_tb tb{};
  a2_err err{};
  Program(uint32_t nranks, uint32_t ncores) { a2_tb_begin(&tb, &k, nranks, ncores, &err); }
  ~Program() { a2_program_free(&k); }
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;
  ::testing::AssertionResult Built() const {
    if (tb.rc == A2_OK) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "builder error " << tb.rc << ": " << err.msg;
  }
};

a2_config DefaultConfig() {
  a2_config cfg;
  a2_config_default(&cfg);
  return cfg;
}

// What every simulating child reports.
struct SimBase {
  a2_code create_rc, run_rc;
  char msg[sizeof(a2_err::msg)];
  a2_run_status status;
  uint64_t end_ps;
  a2_rank_stats st[kMaxRanks];
  char report[kReportMax];  // a2_sim_report_blocked unless the run is DONE
};

// In the child: create and run; returns the simulation for inspection, or
// nullptr when something failed (b says what).
a2_sim *CreateAndRun(const a2_config &cfg, const a2_program &k, SimBase *b,
                     uint64_t max_ps = UINT64_MAX) {
  a2_err e{};
  a2_sim *s = nullptr;
  b->create_rc = a2_sim_create(&cfg, &k, nullptr, "test", &s, &e);
  if (b->create_rc != A2_OK) {
    snprintf(b->msg, sizeof b->msg, "%s", e.msg);
    return nullptr;
  }
  b->run_rc = a2_sim_run(s, max_ps, &b->status, &e);
  if (b->run_rc != A2_OK) {
    snprintf(b->msg, sizeof b->msg, "%s", e.msg);
    return nullptr;
  }
  b->end_ps = a2_sim_end_ps(s);
  for (uint32_t r = 0; r < k.nranks && r < kMaxRanks; r++) b->st[r] = *a2_sim_rank_stats(s, r);
  if (b->status != A2_RUN_DONE) {
    char *text = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f) {
      a2_sim_report_blocked(s, f);
      fclose(f);
      snprintf(b->report, sizeof b->report, "%s", text ? text : "");
      free(text);
    }
  }
  return s;
}

// The run itself worked and ended with `want`.
::testing::AssertionResult Ran(const SimBase &b, a2_run_status want = A2_RUN_DONE) {
  if (b.create_rc != A2_OK)
    return ::testing::AssertionFailure() << "a2_sim_create: " << b.create_rc << ": " << b.msg;
  if (b.run_rc != A2_OK)
    return ::testing::AssertionFailure() << "a2_sim_run: " << b.run_rc << ": " << b.msg;
  if (b.status != want)
    return ::testing::AssertionFailure()
           << "status " << b.status << ", expected " << want << "; blocked:\n"
           << b.report;
  return ::testing::AssertionSuccess();
}

// Input element i of rank r, as the model fills a PATTERN fp32 tensor.
float In(uint32_t seed, uint32_t rank, uint64_t i) {
  return a2_pattern_value(seed, rank, i);
}

float F32At(const uint8_t *m, uint64_t i) {
  float f;
  std::memcpy(&f, m + 4 * i, 4);
  return f;
}

int32_t I32At(const uint8_t *m, uint64_t i) {
  int32_t v;
  std::memcpy(&v, m + 4 * i, 4);
  return v;
}

// ---------------------------------------------------------------------------
// Data movement

TEST(SimDataTest, LoadStoreAndRemoteStoreMoveRealBytes) {
  constexpr uint64_t N = 12000;  // 3 packets of 4 KiB: the last one partial
  constexpr uint32_t kSeed = 7;
  Program K(2, 1);
  K.k.seed = kSeed;
  uint16_t in = a2_tb_buf(&K.tb, "in", A2_BUF_TENSOR, A2_FP32, N, A2_INIT_PATTERN);
  uint16_t out = a2_tb_buf(&K.tb, "out", A2_BUF_TENSOR, A2_FP32, N, A2_INIT_ZERO);
  uint16_t win = a2_tb_buf(&K.tb, "win", A2_BUF_WINDOW, A2_FP32, N, A2_INIT_ZERO);
  uint16_t t = a2_tb_tile(&K.tb, "t", A2_FP32, N);
  a2_tb_at(&K.tb, 0, 0);
  a2_tb_load(&K.tb, t, in, 0, N);
  a2_tb_store(&K.tb, t, out, 0, N);
  a2_tb_rstore(&K.tb, t, win, 1, 4000, 8000, 0);  // tile[0:8000] -> win@1[4000:12000]
  ASSERT_TRUE(K.Built());

  struct Result {
    SimBase b;
    uint8_t out0[N], out1[N], win0[N], win1[N], in0[N];
  } res;
  ASSERT_TRUE(a2test::RunForked(&res, [&] {
    static Result r;
    r = Result{};
    a2_config cfg = DefaultConfig();
    a2_sim *s = CreateAndRun(cfg, K.k, &r.b);
    if (!s) return r;
    std::memcpy(r.out0, a2_sim_buffer(s, 0, out), N);
    std::memcpy(r.out1, a2_sim_buffer(s, 1, out), N);
    std::memcpy(r.win0, a2_sim_buffer(s, 0, win), N);
    std::memcpy(r.win1, a2_sim_buffer(s, 1, win), N);
    std::memcpy(r.in0, a2_sim_buffer(s, 0, in), N);
    a2_sim_free(s);
    return r;
  }));
  ASSERT_TRUE(Ran(res.b));
  for (uint64_t i = 0; i < N / 4; i++) {
    ASSERT_EQ(F32At(res.in0, i), In(kSeed, 0, i)) << "input pattern, element " << i;
    ASSERT_EQ(F32At(res.out0, i), In(kSeed, 0, i)) << "load+store, element " << i;
    ASSERT_EQ(F32At(res.out1, i), 0.0f) << "rank 1's out was never written, element " << i;
    ASSERT_EQ(F32At(res.win0, i), 0.0f) << "rank 0's window was never written, element " << i;
    float want = i < 1000 ? 0.0f : In(kSeed, 0, i - 1000);
    ASSERT_EQ(F32At(res.win1, i), want) << "remote_store at offset 4000, element " << i;
  }
  EXPECT_EQ(res.b.st[0].remote_write_bytes, 8000u);
  EXPECT_EQ(res.b.st[0].remote_ops, 1u);
  EXPECT_GT(res.b.st[0].end_ps, 0u);
  EXPECT_EQ(res.b.end_ps, res.b.st[0].end_ps);
}

TEST(SimDataTest, RemoteLoadReadsThePeersWindowAfterItsNotify) {
  constexpr uint64_t N = 10000;
  constexpr uint32_t kSeed = 11;
  Program K(2, 1);
  K.k.seed = kSeed;
  uint16_t in = a2_tb_buf(&K.tb, "in", A2_BUF_TENSOR, A2_FP32, N, A2_INIT_PATTERN);
  uint16_t out = a2_tb_buf(&K.tb, "out", A2_BUF_TENSOR, A2_FP32, N, A2_INIT_ZERO);
  uint16_t win = a2_tb_buf(&K.tb, "win", A2_BUF_WINDOW, A2_FP32, N, A2_INIT_ZERO);
  uint16_t sig = a2_tb_buf(&K.tb, "sig", A2_BUF_SIGNAL, A2_INT32, 16, A2_INIT_ZERO);
  uint16_t t = a2_tb_tile(&K.tb, "t", A2_FP32, N);
  a2_tb_at(&K.tb, 0, 0);
  a2_tb_load(&K.tb, t, in, 0, N);
  a2_tb_store(&K.tb, t, win, 0, N);
  a2_tb_notify(&K.tb, sig, 1, 0, A2_MODE_SET, 1);  // drains the store first
  a2_tb_at(&K.tb, 1, 0);
  a2_tb_wait(&K.tb, sig, 0, A2_MODE_EQ, 1);
  a2_tb_rload(&K.tb, t, win, 0, 0, N);
  a2_tb_store(&K.tb, t, out, 0, N);
  ASSERT_TRUE(K.Built());

  struct Result {
    SimBase b;
    uint8_t out1[N];
  } res;
  ASSERT_TRUE(a2test::RunForked(&res, [&] {
    static Result r;
    r = Result{};
    a2_config cfg = DefaultConfig();
    a2_sim *s = CreateAndRun(cfg, K.k, &r.b);
    if (!s) return r;
    std::memcpy(r.out1, a2_sim_buffer(s, 1, out), N);
    a2_sim_free(s);
    return r;
  }));
  ASSERT_TRUE(Ran(res.b));
  for (uint64_t i = 0; i < N / 4; i++)
    ASSERT_EQ(F32At(res.out1, i), In(kSeed, 0, i)) << "element " << i;
  EXPECT_EQ(res.b.st[1].remote_read_bytes, N);
  EXPECT_EQ(res.b.st[1].remote_ops, 1u);
  EXPECT_EQ(res.b.st[0].remote_ops, 0u);
  EXPECT_GT(res.b.st[1].end_ps, res.b.st[0].end_ps);  // it had to wait for rank 0
}

TEST(SimDataTest, AtomicRemoteStoresFromEveryPeerAccumulate) {
  constexpr uint64_t N = 10000;  // packets of three ranks interleave at rank 0's HBM
  constexpr uint32_t kSeed = 3;
  Program K(4, 1);
  K.k.seed = kSeed;
  uint16_t in = a2_tb_buf(&K.tb, "in", A2_BUF_TENSOR, A2_INT32, N, A2_INIT_PATTERN);
  uint16_t win = a2_tb_buf(&K.tb, "win", A2_BUF_WINDOW, A2_INT32, N, A2_INIT_ZERO);
  uint16_t t = a2_tb_tile(&K.tb, "t", A2_INT32, N);
  for (uint32_t r = 1; r < 4; r++) {
    a2_tb_at(&K.tb, r, 0);
    a2_tb_load(&K.tb, t, in, 0, N);
    a2_tb_rstore(&K.tb, t, win, 0, 0, N, 1);
  }
  ASSERT_TRUE(K.Built());

  struct Result {
    SimBase b;
    uint8_t win0[N], win1[N];
  } res;
  ASSERT_TRUE(a2test::RunForked(&res, [&] {
    static Result r;
    r = Result{};
    a2_config cfg = DefaultConfig();
    a2_sim *s = CreateAndRun(cfg, K.k, &r.b);
    if (!s) return r;
    std::memcpy(r.win0, a2_sim_buffer(s, 0, win), N);
    std::memcpy(r.win1, a2_sim_buffer(s, 1, win), N);
    a2_sim_free(s);
    return r;
  }));
  ASSERT_TRUE(Ran(res.b));
  for (uint64_t i = 0; i < N / 4; i++) {
    int32_t want = 0;
    for (uint32_t r = 1; r < 4; r++) want += (int32_t)(In(kSeed, r, i) * 64.0f);
    ASSERT_EQ(I32At(res.win0, i), want) << "element " << i;
    ASSERT_EQ(I32At(res.win1, i), 0) << "element " << i;
  }
  for (uint32_t r = 1; r < 4; r++) EXPECT_EQ(res.b.st[r].remote_write_bytes, N) << "rank " << r;
}

// A packet size that is not a multiple of 32 B would let an element straddle
// two packets (1002 B splits int32 elements 250, 501, 751), so it is refused;
// with an odd multiple of 32 B (1056 B) and a transfer that is not a whole
// number of packets, an atomic remote_store must still add every element once.
TEST(SimDataTest, AtomicRemoteStoreIsExactWithUnevenPackets) {
  constexpr uint64_t N = 4008;  // 1002 int32: packets of 1056, 1056, 1056, 840 B
  constexpr uint32_t kSeed = 9;
  Program K(3, 1);
  K.k.seed = kSeed;
  uint16_t in = a2_tb_buf(&K.tb, "in", A2_BUF_TENSOR, A2_INT32, N, A2_INIT_PATTERN);
  uint16_t win = a2_tb_buf(&K.tb, "win", A2_BUF_WINDOW, A2_INT32, N, A2_INIT_ZERO);
  uint16_t t = a2_tb_tile(&K.tb, "t", A2_INT32, N);
  for (uint32_t r = 1; r < 3; r++) {
    a2_tb_at(&K.tb, r, 0);
    a2_tb_load(&K.tb, t, in, 0, N);
    a2_tb_rstore(&K.tb, t, win, 0, 0, N, 1);
  }
  ASSERT_TRUE(K.Built());
  a2_config cfg = DefaultConfig();
  cfg.packet_bytes = 1002;
  a2_err verr{};
  ASSERT_EQ(a2_config_validate(&cfg, "test", &verr), A2_E_INPUT);
  EXPECT_NE(std::string(verr.msg).find("multiple of 32"), std::string::npos) << verr.msg;
  a2_sim *refused = nullptr;
  ASSERT_EQ(a2_sim_create(&cfg, &K.k, nullptr, "test", &refused, &verr), A2_E_INPUT);
  a2_sim_free(refused);
  cfg.packet_bytes = 1056;
  ASSERT_EQ(a2_config_validate(&cfg, "test", &verr), A2_OK) << verr.msg;

  struct Result {
    SimBase b;
    uint8_t win0[N];
  } res;
  ASSERT_TRUE(a2test::RunForked(&res, [&] {
    static Result r;
    r = Result{};
    a2_sim *s = CreateAndRun(cfg, K.k, &r.b);
    if (!s) return r;
    std::memcpy(r.win0, a2_sim_buffer(s, 0, win), N);
    a2_sim_free(s);
    return r;
  }));
  ASSERT_TRUE(Ran(res.b));
  int bad = 0;
  for (uint64_t i = 0; i < N / 4; i++) {
    int32_t want = (int32_t)(In(kSeed, 1, i) * 64.0f) + (int32_t)(In(kSeed, 2, i) * 64.0f);
    if (I32At(res.win0, i) != want && ++bad <= 5)
      ADD_FAILURE() << "element " << i << " (bytes " << 4 * i << ".." << 4 * i + 4 << "): got "
                    << I32At(res.win0, i) << ", want " << want;
  }
  EXPECT_EQ(bad, 0) << "elements wrong";
}

// ---------------------------------------------------------------------------
// Signals

// notify ADD accumulates, SET overwrites (in order, from one core), and waits
// EQ / GE see the values; the ping back to rank 0 shows waits unblock.
TEST(SimSignalTest, NotifyAddAndSetWithWaitEqAndGe) {
  Program K(3, 1);
  uint16_t sig = a2_tb_buf(&K.tb, "sig", A2_BUF_SIGNAL, A2_INT32, 16, A2_INIT_ZERO);
  a2_tb_at(&K.tb, 0, 0);
  a2_tb_notify(&K.tb, sig, 1, 0, A2_MODE_ADD, 2);
  a2_tb_notify(&K.tb, sig, 1, 0, A2_MODE_ADD, 3);
  a2_tb_notify(&K.tb, sig, 1, 1, A2_MODE_SET, 7);
  a2_tb_notify(&K.tb, sig, 1, 1, A2_MODE_SET, 9);
  a2_tb_wait(&K.tb, sig, 0, A2_MODE_EQ, 42);
  a2_tb_at(&K.tb, 1, 0);
  a2_tb_wait(&K.tb, sig, 0, A2_MODE_EQ, 5);  // 0 -> 2 -> 5
  a2_tb_wait(&K.tb, sig, 1, A2_MODE_GE, 9);  // 7 is not enough
  a2_tb_wait(&K.tb, sig, 2, A2_MODE_GE, 1);  // from rank 2
  a2_tb_notify(&K.tb, sig, 0, 0, A2_MODE_SET, 42);
  a2_tb_at(&K.tb, 2, 0);
  a2_tb_notify(&K.tb, sig, 1, 2, A2_MODE_ADD, 1);
  ASSERT_TRUE(K.Built());

  struct Result {
    SimBase b;
    int32_t cell[3][4];
  } res;
  ASSERT_TRUE(a2test::RunForked(&res, [&] {
    Result r{};
    a2_config cfg = DefaultConfig();
    a2_sim *s = CreateAndRun(cfg, K.k, &r.b);
    if (!s) return r;
    for (uint32_t q = 0; q < 3; q++)
      for (int c = 0; c < 4; c++) r.cell[q][c] = I32At(a2_sim_buffer(s, q, sig), c);
    a2_sim_free(s);
    return r;
  }));
  ASSERT_TRUE(Ran(res.b));
  const int32_t want[3][4] = {{42, 0, 0, 0}, {5, 9, 1, 0}, {0, 0, 0, 0}};
  for (int q = 0; q < 3; q++)
    for (int c = 0; c < 4; c++)
      EXPECT_EQ(res.cell[q][c], want[q][c]) << "rank " << q << " cell " << c;
  EXPECT_EQ(res.b.st[0].notifies, 4u);
  EXPECT_EQ(res.b.st[0].waits, 1u);
  EXPECT_EQ(res.b.st[1].notifies, 1u);
  EXPECT_EQ(res.b.st[1].waits, 3u);
  EXPECT_EQ(res.b.st[2].notifies, 1u);
  EXPECT_EQ(res.b.st[2].waits, 0u);
}

// GE accepts a larger value, EQ does not: the second wait can never be
// satisfied, the run ends in DEADLOCK, and the report names the rank, the
// step, the wait and the cell's value. Rank 0 finished and is not listed.
TEST(SimSignalTest, UnsatisfiableWaitEndsInDeadlockAndIsReported) {
  Program K(2, 1);
  uint16_t sig = a2_tb_buf(&K.tb, "sig", A2_BUF_SIGNAL, A2_INT32, 16, A2_INIT_ZERO);
  a2_tb_at(&K.tb, 0, 0);
  a2_tb_notify(&K.tb, sig, 1, 2, A2_MODE_ADD, 5);  // rank 0, step 1
  a2_tb_at(&K.tb, 1, 0);
  a2_tb_wait(&K.tb, sig, 2, A2_MODE_GE, 4);  // rank 1, step 1: 5 >= 4
  a2_tb_wait(&K.tb, sig, 2, A2_MODE_EQ, 4);  // rank 1, step 2: 5 != 4, forever
  ASSERT_TRUE(K.Built());

  SimBase res;
  ASSERT_TRUE(a2test::RunForked(&res, [&] {
    SimBase b{};
    a2_config cfg = DefaultConfig();
    a2_sim *s = CreateAndRun(cfg, K.k, &b);
    if (s) a2_sim_free(s);
    return b;
  }));
  ASSERT_TRUE(Ran(res, A2_RUN_DEADLOCK));
  std::string report = res.report;
  EXPECT_NE(report.find("rank 1 core 0"), std::string::npos) << report;
  EXPECT_NE(report.find("step 2"), std::string::npos) << report;
  EXPECT_NE(report.find("sig[2]"), std::string::npos) << report;
  EXPECT_NE(report.find("eq 4"), std::string::npos) << report;
  EXPECT_NE(report.find("cell value is 5"), std::string::npos) << report;
  EXPECT_EQ(report.find("rank 0"), std::string::npos) << report;
  EXPECT_EQ(std::count(report.begin(), report.end(), '\n'), 1) << report;
  EXPECT_EQ(res.st[1].waits, 1u);
  EXPECT_EQ(res.st[0].notifies, 1u);
}

TEST(SimSignalTest, TimeLimitStopsARunWithWorkLeft) {
  Program K(1, 1);
  a2_tb_at(&K.tb, 0, 0);
  a2_tb_compute(&K.tb, 1000000);  // ~556 us at 1.8 GHz
  a2_tb_compute(&K.tb, 1);
  ASSERT_TRUE(K.Built());
  SimBase res;
  ASSERT_TRUE(a2test::RunForked(&res, [&] {
    SimBase b{};
    a2_config cfg = DefaultConfig();
    a2_sim *s = CreateAndRun(cfg, K.k, &b, 1000000 /* 1 us */);
    if (s) a2_sim_free(s);
    return b;
  }));
  ASSERT_TRUE(Ran(res, A2_RUN_TIME_LIMIT));
  std::string report = res.report;
  EXPECT_NE(report.find("rank 0 core 0"), std::string::npos) << report;
  EXPECT_NE(report.find("unfinished"), std::string::npos) << report;
}

// A program that ends with a wait completes when the wait is satisfied:
// rank 1's notify reaches rank 0's HBM after ctrl = S_link(64 B) + link
// latency (docs/timing-model.md: "notify->wait = ctrl"), and only then can
// rank 0 pass its wait, so rank 0 (and the run) end at ctrl, not at 0.
TEST(SimSignalTest, WaitAtTheEndOfAProgramCountsTowardsTheEndTime) {
  Program K(2, 1);
  uint16_t sig = a2_tb_buf(&K.tb, "sig", A2_BUF_SIGNAL, A2_INT32, 16, A2_INIT_ZERO);
  a2_tb_at(&K.tb, 0, 0);
  a2_tb_wait(&K.tb, sig, 0, A2_MODE_GE, 1);
  a2_tb_at(&K.tb, 1, 0);
  a2_tb_notify(&K.tb, sig, 0, 0, A2_MODE_SET, 1);
  ASSERT_TRUE(K.Built());
  SimBase res;
  ASSERT_TRUE(a2test::RunForked(&res, [&] {
    SimBase b{};
    a2_config cfg = DefaultConfig();
    a2_sim *s = CreateAndRun(cfg, K.k, &b);
    if (s) a2_sim_free(s);
    return b;
  }));
  ASSERT_TRUE(Ran(res));
  a2_config cfg = DefaultConfig();
  const uint64_t ctrl = a2_ser_ps(cfg.ctrl_bytes, cfg.link_bw) + cfg.link_lat_ps;
  EXPECT_EQ(res.st[0].waits, 1u);
  EXPECT_EQ(res.st[0].end_ps, ctrl) << "rank 0 cannot be done before its wait is satisfied";
  // rank 1's notify blocks until acknowledged: out, served at rank 0's HBM, back
  EXPECT_EQ(res.end_ps, 2 * ctrl + a2_ser_ps(cfg.ctrl_bytes, cfg.hbm_bw) + cfg.hbm_lat_ps);
}

// ---------------------------------------------------------------------------
// Counters

TEST(SimCounterTest, RemoteTrafficNotifiesWaitsAndBarrierRounds) {
  Program K(3, 1);
  uint16_t in = a2_tb_buf(&K.tb, "in", A2_BUF_TENSOR, A2_FP32, 1024, A2_INIT_PATTERN);
  uint16_t win = a2_tb_buf(&K.tb, "win", A2_BUF_WINDOW, A2_FP32, 1024, A2_INIT_ZERO);
  uint16_t sig = a2_tb_buf(&K.tb, "sig", A2_BUF_SIGNAL, A2_INT32, 16, A2_INIT_ZERO);
  uint16_t t = a2_tb_tile(&K.tb, "t", A2_FP32, 1024);
  a2_tb_at(&K.tb, 0, 0);
  a2_tb_rload(&K.tb, t, win, 0, 0, 256);           // from itself: local
  a2_tb_rload(&K.tb, t, win, 1, 0, 512);           // remote read
  a2_tb_rstore(&K.tb, t, win, 1, 0, 128, 0);       // remote write
  a2_tb_rstore(&K.tb, t, win, 0, 0, 64, 0);        // to itself: local
  a2_tb_notify(&K.tb, sig, 1, 0, A2_MODE_ADD, 1);  // barrier 1
  a2_tb_wait(&K.tb, sig, 0, A2_MODE_GE, 1);
  a2_tb_load(&K.tb, t, in, 0, 256);                // separates the barriers
  a2_tb_notify(&K.tb, sig, 1, 0, A2_MODE_ADD, 1);  // barrier 2
  a2_tb_wait(&K.tb, sig, 0, A2_MODE_GE, 2);
  a2_tb_at(&K.tb, 1, 0);  // both barriers back to back: one run, one round
  a2_tb_notify(&K.tb, sig, 0, 0, A2_MODE_ADD, 1);
  a2_tb_wait(&K.tb, sig, 0, A2_MODE_GE, 1);
  a2_tb_notify(&K.tb, sig, 0, 0, A2_MODE_ADD, 1);
  a2_tb_wait(&K.tb, sig, 0, A2_MODE_GE, 2);
  a2_tb_at(&K.tb, 2, 0);  // notifies only: no round
  a2_tb_notify(&K.tb, sig, 0, 1, A2_MODE_SET, 1);
  a2_tb_notify(&K.tb, sig, 1, 1, A2_MODE_SET, 1);
  ASSERT_TRUE(K.Built());

  SimBase res;
  ASSERT_TRUE(a2test::RunForked(&res, [&] {
    SimBase b{};
    a2_config cfg = DefaultConfig();
    a2_sim *s = CreateAndRun(cfg, K.k, &b);
    if (s) a2_sim_free(s);
    return b;
  }));
  ASSERT_TRUE(Ran(res));
  const a2_rank_stats &r0 = res.st[0], &r1 = res.st[1], &r2 = res.st[2];
  EXPECT_EQ(r0.remote_read_bytes, 512u);
  EXPECT_EQ(r0.remote_write_bytes, 128u);
  EXPECT_EQ(r0.remote_ops, 2u);
  EXPECT_EQ(r0.notifies, 2u);
  EXPECT_EQ(r0.waits, 2u);
  EXPECT_EQ(r0.barrier_rounds, 2u);
  EXPECT_EQ(r1.remote_read_bytes + r1.remote_write_bytes + r1.remote_ops, 0u);
  EXPECT_EQ(r1.notifies, 2u);
  EXPECT_EQ(r1.waits, 2u);
  EXPECT_EQ(r1.barrier_rounds, 1u);
  EXPECT_EQ(r2.notifies, 2u);
  EXPECT_EQ(r2.waits, 0u);
  EXPECT_EQ(r2.barrier_rounds, 0u);
}

// A rank's barrier_rounds is the largest over its cores; a run ended by the
// end of the program counts. Notifies to the rank itself are fine.
TEST(SimCounterTest, BarrierRoundsIsTheMaximumOverCores) {
  Program K(1, 2);
  uint16_t sig = a2_tb_buf(&K.tb, "sig", A2_BUF_SIGNAL, A2_INT32, 16, A2_INIT_ZERO);
  a2_tb_at(&K.tb, 0, 0);
  for (uint32_t c = 0; c < 3; c++) {  // three rounds separated by compute
    a2_tb_notify(&K.tb, sig, 0, c, A2_MODE_ADD, 1);
    a2_tb_wait(&K.tb, sig, c, A2_MODE_GE, 1);
    a2_tb_compute(&K.tb, 10);
  }
  a2_tb_at(&K.tb, 0, 1);  // one round, closed by the end of the program
  a2_tb_notify(&K.tb, sig, 0, 3, A2_MODE_ADD, 1);
  a2_tb_wait(&K.tb, sig, 3, A2_MODE_GE, 1);
  ASSERT_TRUE(K.Built());
  SimBase res;
  ASSERT_TRUE(a2test::RunForked(&res, [&] {
    SimBase b{};
    a2_config cfg = DefaultConfig();
    a2_sim *s = CreateAndRun(cfg, K.k, &b);
    if (s) a2_sim_free(s);
    return b;
  }));
  ASSERT_TRUE(Ran(res));
  EXPECT_EQ(res.st[0].barrier_rounds, 3u);
  EXPECT_EQ(res.st[0].notifies, 4u);
  EXPECT_EQ(res.st[0].waits, 4u);
  EXPECT_EQ(res.st[0].remote_ops, 0u);
}

// ---------------------------------------------------------------------------
// Contention

// Switch, P = 4: ranks 1..3 each remote_load N bytes from rank 0, whose
// up-link then carries 3N, against a permutation (rank i reads from
// (i+1) % 4) where every up-link carries N. Everything else is the same
// per reader, so the difference is the extra 2N on the shared link:
// 2 * N / link_bw.
uint64_t ContentionRun(bool contended) {
  constexpr uint64_t N = 1 << 20;
  Program K(4, 1);
  uint16_t win = a2_tb_buf(&K.tb, "win", A2_BUF_WINDOW, A2_FP32, N, A2_INIT_ZERO);
  uint16_t t = a2_tb_tile(&K.tb, "t", A2_FP32, N);
  for (uint32_t r = contended ? 1 : 0; r < 4; r++) {
    a2_tb_at(&K.tb, r, 0);
    a2_tb_rload(&K.tb, t, win, contended ? 0 : (r + 1) % 4, 0, N);
  }
  EXPECT_TRUE(K.Built());
  SimBase res;
  EXPECT_TRUE(a2test::RunForked(&res, [&] {
    SimBase b{};
    a2_config cfg = DefaultConfig();
    cfg.topology = A2_TOPO_SWITCH;
    cfg.ranks = 4;
    cfg.ub_bytes = 2 * N;  // one 1 MiB tile: a single remote_load per reader
    a2_sim *s = CreateAndRun(cfg, K.k, &b);
    if (s) a2_sim_free(s);
    return b;
  }));
  EXPECT_TRUE(Ran(res));
  for (uint32_t r = contended ? 1 : 0; r < 4; r++)
    EXPECT_EQ(res.st[r].remote_read_bytes, N) << "rank " << r;
  return res.end_ps;
}

TEST(SimContentionTest, SharedUplinkCarriesThreeTimesTheBytes) {
  const uint64_t N = 1 << 20;
  const uint64_t contended = ContentionRun(true);
  const uint64_t spread = ContentionRun(false);
  ASSERT_GT(spread, 0u);
  ASSERT_GT(contended, spread);
  a2_config cfg = DefaultConfig();
  const double predicted = 2.0 * static_cast<double>(N) * 1e12 / static_cast<double>(cfg.link_bw);
  const double measured = static_cast<double>(contended - spread);
  RecordProperty("contended_ps", std::to_string(contended));
  RecordProperty("permutation_ps", std::to_string(spread));
  EXPECT_NEAR(measured, predicted, 0.05 * predicted)
      << "contended " << contended << " ps, permutation " << spread << " ps";
}

// ---------------------------------------------------------------------------
// Validation (no fork: a2_sim_create refuses these before touching SystemC)

enum class Defect {
  kNone,
  kTilesTooLargeForUb,
  kRegionOutOfBounds,
  kPeerOutOfRange,
  kVaddTypeMismatch,
  kWaitOnNonSignal,
  kNotifyCellOutOfRange,
};

// A valid two-rank program (5 instructions), plus one defect; the defective
// instruction, when there is one, is step 5 of rank 0 (steps count within
// each program).
void BuildWithDefect(Program &K, const a2_config &cfg, Defect d) {
  a2_tb *tb = &K.tb;
  uint16_t in = a2_tb_buf(tb, "in", A2_BUF_TENSOR, A2_FP32, 1024, A2_INIT_PATTERN);
  uint16_t win = a2_tb_buf(tb, "win", A2_BUF_WINDOW, A2_FP32, 1024, A2_INIT_ZERO);
  uint16_t sig = a2_tb_buf(tb, "sig", A2_BUF_SIGNAL, A2_INT32, 16, A2_INIT_ZERO);
  uint16_t ta = a2_tb_tile(tb, "ta", A2_FP32, 1024);
  uint16_t tb2 = a2_tb_tile(tb, "tb", A2_FP32, 1024);
  uint16_t th = a2_tb_tile(tb, "th", A2_FP16, 1024);
  if (d == Defect::kTilesTooLargeForUb)
    a2_tb_tile(tb, "huge", A2_FP32, cfg.ub_bytes - 3 * 1024 + 4);
  a2_tb_at(tb, 0, 0);
  a2_tb_load(tb, ta, in, 0, 1024);
  a2_tb_rload(tb, tb2, win, 1, 0, 1024);
  a2_tb_vop(tb, A2_OP_VADD, ta, ta, tb2, 1024);
  a2_tb_notify(tb, sig, 1, 0, A2_MODE_ADD, 1);
  a2_tb_at(tb, 1, 0);
  a2_tb_wait(tb, sig, 0, A2_MODE_GE, 1);
  a2_tb_at(tb, 0, 0);
  switch (d) {
  case Defect::kRegionOutOfBounds: a2_tb_load(tb, ta, in, 1020, 8); break;
  case Defect::kPeerOutOfRange: a2_tb_rload(tb, tb2, win, 2, 0, 4); break;
  case Defect::kVaddTypeMismatch: a2_tb_vop(tb, A2_OP_VADD, ta, ta, th, 1024); break;
  case Defect::kWaitOnNonSignal: a2_tb_wait(tb, win, 0, A2_MODE_GE, 1); break;
  case Defect::kNotifyCellOutOfRange: a2_tb_notify(tb, sig, 1, 4, A2_MODE_ADD, 1); break;
  default: break;
  }
}

struct Rejection {
  a2_code rc;
  int line;
  std::string file, msg;
};

Rejection CreateExpectingRejection(const a2_config &cfg, const a2_program &k) {
  a2_err e{};
  a2_sim *s = nullptr;
  a2_code rc = a2_sim_create(&cfg, &k, nullptr, "bad.trace", &s, &e);
  if (rc == A2_OK) {
    // Not expected: it also elaborated SystemC in the test process.
    ADD_FAILURE() << "a2_sim_create accepted the program";
    a2_sim_free(s);
  }
  return {rc, e.line, e.file, e.msg};
}

TEST(SimValidationTest, TheUndamagedProgramIsValid) {
  a2_config cfg = DefaultConfig();
  Program K(2, 1);
  BuildWithDefect(K, cfg, Defect::kNone);
  ASSERT_TRUE(K.Built());
  a2_err e{};
  EXPECT_EQ(a2_program_validate(&K.k, cfg.ub_bytes, cfg.vector_cores, "ok.trace", &e), A2_OK)
      << e.msg;
}

struct DefectCase {
  Defect d;
  const char *substring;
  int line;  // 0: a declaration, not an instruction
};

void ExpectRejected(const DefectCase &c) {
  a2_config cfg = DefaultConfig();
  Program K(2, 1);
  BuildWithDefect(K, cfg, c.d);
  ASSERT_TRUE(K.Built());
  Rejection r = CreateExpectingRejection(cfg, K.k);
  EXPECT_EQ(r.rc, A2_E_INPUT);
  EXPECT_NE(r.msg.find(c.substring), std::string::npos) << r.msg;
  EXPECT_EQ(r.file, "bad.trace");
  EXPECT_EQ(r.line, c.line) << r.msg;
}

TEST(SimValidationTest, TilesLargerThanTheUnifiedBufferAreRejected) {
  ExpectRejected({Defect::kTilesTooLargeForUb, "unified buffer", 0});
}

TEST(SimValidationTest, RegionOutsideTheBufferIsRejected) {
  ExpectRejected({Defect::kRegionOutOfBounds,
                  "elements [255, 257) are outside 'in' (256 elements; bytes [1020, 1028)", 5});
}

TEST(SimValidationTest, PeerOutOfRangeIsRejected) {
  ExpectRejected({Defect::kPeerOutOfRange, "peer 2 outside 0..1", 5});
}

TEST(SimValidationTest, VaddElementTypeMismatchIsRejected) {
  ExpectRejected({Defect::kVaddTypeMismatch, "element type mismatch", 5});
}

TEST(SimValidationTest, WaitOnANonSignalBufferIsRejected) {
  ExpectRejected({Defect::kWaitOnNonSignal, "'win' is not a signal", 5});
}

TEST(SimValidationTest, NotifyCellOutOfRangeIsRejected) {
  ExpectRejected({Defect::kNotifyCellOutOfRange, "outside signal 'sig'", 5});
}

TEST(SimValidationTest, BadDeviceListsAreRejected) {
  a2_config cfg = DefaultConfig();
  Program K(2, 1);
  BuildWithDefect(K, cfg, Defect::kNone);
  ASSERT_TRUE(K.Built());
  const uint32_t out_of_range[2] = {0, 8}, twice[2] = {3, 3};
  for (const uint32_t *dev : {out_of_range, twice}) {
    a2_err e{};
    a2_sim *s = nullptr;
    a2_code rc = a2_sim_create(&cfg, &K.k, dev, "bad.trace", &s, &e);
    EXPECT_EQ(rc, A2_E_INPUT);
    if (rc == A2_OK) a2_sim_free(s);
    EXPECT_NE(std::string(e.msg).find(dev == twice ? "listed twice" : "outside 0..7"),
              std::string::npos)
        << e.msg;
  }
}

// ---------------------------------------------------------------------------
// Functional check

// A program declaring an all-reduce golden whose instructions do nothing: the
// output stays zero, so a2_check fails, first at rank 0 index 0.
TEST(SimCheckTest, FindsAPlantedMismatch) {
  constexpr uint64_t N = 256;
  uint32_t seed = 1;
  while (In(seed, 0, 0) + In(seed, 1, 0) == 0.0f) seed++;  // element 0 must be non-zero
  Program K(2, 1);
  K.k.seed = seed;
  uint16_t x = a2_tb_buf(&K.tb, "x", A2_BUF_TENSOR, A2_FP32, N, A2_INIT_PATTERN);
  uint16_t y = a2_tb_buf(&K.tb, "y", A2_BUF_TENSOR, A2_FP32, N, A2_INIT_ZERO);
  K.k.golden = a2_golden{A2_GOLDEN_ALLREDUCE, A2_RED_SUM, x, y, N, 0};
  ASSERT_TRUE(K.Built());

  struct Result {
    SimBase b;
    a2_check_result check;
  } res;
  ASSERT_TRUE(a2test::RunForked(&res, [&] {
    Result r{};
    a2_config cfg = DefaultConfig();
    a2_sim *s = CreateAndRun(cfg, K.k, &r.b);
    if (!s) return r;
    a2_check(&K.k, s, &r.check);
    a2_sim_free(s);
    return r;
  }));
  ASSERT_TRUE(Ran(res.b));
  const a2_check_result &c = res.check;
  EXPECT_TRUE(c.checked);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.elements, 2 * N / 4);
  uint64_t nonzero = 0;
  for (uint64_t i = 0; i < N / 4; i++) nonzero += In(seed, 0, i) + In(seed, 1, i) != 0.0f;
  EXPECT_EQ(c.mismatches, 2 * nonzero);
  ASSERT_GE(c.nshow, 2u);
  EXPECT_EQ(c.show[0].rank, 0u);
  EXPECT_EQ(c.show[0].index, 0u);
  EXPECT_EQ(c.show[0].got, 0.0);
  EXPECT_EQ(c.show[0].want, static_cast<double>(In(seed, 0, 0)) + In(seed, 1, 0));
  EXPECT_EQ(c.show[1].rank, 1u);  // (index, rank) order
  EXPECT_EQ(c.show[1].index, 0u);
}

// The positive control: a correct two-rank all-reduce passes.
TEST(SimCheckTest, PassesACorrectTwoRankAllReduce) {
  constexpr uint64_t N = 8192;
  Program K(2, 1);
  K.k.seed = 5;
  uint16_t x = a2_tb_buf(&K.tb, "x", A2_BUF_TENSOR, A2_FP32, N, A2_INIT_PATTERN);
  uint16_t y = a2_tb_buf(&K.tb, "y", A2_BUF_TENSOR, A2_FP32, N, A2_INIT_ZERO);
  uint16_t win = a2_tb_buf(&K.tb, "win", A2_BUF_WINDOW, A2_FP32, N, A2_INIT_ZERO);
  uint16_t sig = a2_tb_buf(&K.tb, "sig", A2_BUF_SIGNAL, A2_INT32, 8, A2_INIT_ZERO);
  uint16_t ta = a2_tb_tile(&K.tb, "a", A2_FP32, N);
  uint16_t tb = a2_tb_tile(&K.tb, "b", A2_FP32, N);
  K.k.golden = a2_golden{A2_GOLDEN_ALLREDUCE, A2_RED_SUM, x, y, N, 0};
  for (uint32_t me = 0; me < 2; me++) {
    a2_tb_at(&K.tb, me, 0);
    a2_tb_load(&K.tb, ta, x, 0, N);
    a2_tb_store(&K.tb, ta, win, 0, N);
    a2_tb_notify(&K.tb, sig, 1 - me, 0, A2_MODE_SET, 1);
    a2_tb_wait(&K.tb, sig, 0, A2_MODE_EQ, 1);
    a2_tb_rload(&K.tb, tb, win, 1 - me, 0, N);
    a2_tb_vop(&K.tb, A2_OP_VADD, ta, ta, tb, N);
    a2_tb_store(&K.tb, ta, y, 0, N);
  }
  ASSERT_TRUE(K.Built());
  struct Result {
    SimBase b;
    a2_check_result check;
  } res;
  ASSERT_TRUE(a2test::RunForked(&res, [&] {
    Result r{};
    a2_config cfg = DefaultConfig();
    a2_sim *s = CreateAndRun(cfg, K.k, &r.b);
    if (!s) return r;
    a2_check(&K.k, s, &r.check);
    a2_sim_free(s);
    return r;
  }));
  ASSERT_TRUE(Ran(res.b));
  EXPECT_TRUE(res.check.checked);
  EXPECT_TRUE(res.check.ok) << res.check.mismatches << " mismatches, first at rank "
                            << res.check.show[0].rank << " index " << res.check.show[0].index;
  EXPECT_EQ(res.check.elements, 2 * N / 4);
  EXPECT_EQ(res.b.st[0].barrier_rounds, 1u);
}

}  // namespace
