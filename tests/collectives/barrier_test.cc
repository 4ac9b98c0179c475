// The built-in barrier (a self-clearing credit counter): end-to-end through
// the CLI, and - built with the C API - run back to back on one signal,
// where it must still hold every rank until the slowest arrives and leave
// its counters at zero.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "builtins.h"
#include "collectives/common.h"
#include "model/sim.h"
#include "tests/support/fork_run.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace {

TEST(BarrierCli, NoDataOneRoundAndZeroAlgbw) {
  for (uint32_t P : {2u, 5u, 8u}) {
    SCOPED_TRACE("P=" + std::to_string(P));
    JsonDoc d;
    ASSERT_TRUE(RunJson(RunArgs("barrier", P, 256), &d));
    EXPECT_EQ(d["status"].Str(), "OK");
    EXPECT_FALSE(d["check"]["checked"].Bool());
    EXPECT_EQ(d["measured"]["remote_read_bytes_per_rank"].Int(), 0);
    EXPECT_EQ(d["measured"]["remote_write_bytes_per_rank"].Int(), 0);
    EXPECT_EQ(d["measured"]["barrier_rounds"].Int(), 1);
    EXPECT_GT(d["time_ps"].Int(), 0);
    EXPECT_EQ(d["algbw_gbps"].Num(), 0.0);  // S = 0: a barrier moves no payload
    for (uint32_t r = 0; r < P; r++)
      EXPECT_EQ(d["per_rank"][r]["notifies"].Int(), (long long)P);  // P-1 credits + 1 take-back
  }
}

constexpr uint32_t kMaxP = 8;
constexpr int32_t kSlowCycles = 100000;  // ~56 us at 1.8 GHz: far longer than a barrier

struct BarrierRun {
  a2_code build_rc, create_rc, run_rc;
  a2_run_status status;
  uint64_t end_ps[kMaxP];
  uint64_t rounds[kMaxP];
  int32_t cells[kMaxP][2];
  uint64_t slow_ps;  // when the slow rank reaches the last barrier (at least)
};

// `times` barriers back to back on one 2-cell signal; before the last one,
// rank P-1 computes for kSlowCycles. Runs in a forked child.
BarrierRun RunBarriers(uint32_t P, uint32_t times) {
  BarrierRun out{};
  a2_program k{};
  a2_err err{};
  a2_tb tb;
  a2_config cfg;
  a2_config_default(&cfg);
  a2_tb_begin(&tb, &k, P, 1, &err);
  uint16_t sig = a2_tb_buf(&tb, "counter", A2_BUF_SIGNAL, A2_INT32, 8, A2_INIT_ZERO);
  for (uint32_t r = 0; r < P; r++) {
    a2_tb_at(&tb, r, 0);
    for (uint32_t g = 0; g < times; g++) {
      if (g + 1 == times && r == P - 1) a2_tb_compute(&tb, kSlowCycles);
      a2_coll_credit_barrier(&tb, r, P, sig, g);
    }
  }
  out.build_rc = tb.rc;
  out.slow_ps = (uint64_t)kSlowCycles * 1000000000000ull / cfg.clock_hz;
  if (out.build_rc) return out;
  a2_sim *s = nullptr;
  out.create_rc = a2_sim_create(&cfg, &k, nullptr, "barrier", &s, &err);
  if (out.create_rc) return out;
  out.run_rc = a2_sim_run(s, UINT64_MAX, &out.status, &err);
  for (uint32_t r = 0; r < P; r++) {
    out.end_ps[r] = a2_sim_rank_stats(s, r)->end_ps;
    out.rounds[r] = a2_sim_rank_stats(s, r)->barrier_rounds;
    std::memcpy(out.cells[r], a2_sim_buffer(s, r, sig), sizeof out.cells[r]);
  }
  return out;
}

class BarrierTwice : public ::testing::TestWithParam<uint32_t> {};

TEST_P(BarrierTwice, BackToBackBarriersHoldEveryRankAndClearTheirCounters) {
  const uint32_t P = GetParam();
  for (uint32_t times : {2u, 3u}) {
    SCOPED_TRACE(std::to_string(times) + " barriers");
    BarrierRun b;
    ASSERT_TRUE(RunForked(&b, [&] { return RunBarriers(P, times); }));
    ASSERT_EQ(b.build_rc, A2_OK);
    ASSERT_EQ(b.create_rc, A2_OK);
    ASSERT_EQ(b.run_rc, A2_OK);
    ASSERT_EQ(b.status, A2_RUN_DONE);
    for (uint32_t r = 0; r < P; r++) {
      SCOPED_TRACE("rank " + std::to_string(r));
      // nobody leaves the last barrier before the slow rank has arrived
      EXPECT_GE(b.end_ps[r], b.slow_ps);
      // self-clearing: both counters read 0 again
      EXPECT_EQ(b.cells[r][0], 0);
      EXPECT_EQ(b.cells[r][1], 0);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, BarrierTwice, ::testing::Values(2u, 3u, 5u, 8u));

}  // namespace
}  // namespace a2test
