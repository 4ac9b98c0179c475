// allreduce_sdma_mesh (collectives/allreduce_sdma_mesh.c) end to end: at
// every P from 2 to 8 it passes its golden check, race free, with its card's
// remote writes and nearly the same time under both network timings; at a large
// size its time is the two phases' puts at the SDMA write rate (one queue
// per peer, so the P-1 puts of a phase run side by side), which is how it
// reproduces HCCL's one-server all-reduce (configs/measured/hccl-allreduce.csv).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/run_cli.h"

namespace a2test {
namespace {

class SdmaMesh : public ::testing::TestWithParam<uint32_t> {};

TEST_P(SdmaMesh, PassesItsGoldenCheckUnderBothTimingsWithItsCard) {
  const uint32_t P = GetParam();
  for (const char *dtype : {"fp32", "fp16"}) {
    SCOPED_TRACE(dtype);
    const uint64_t N = P * 12288ull;  // slices of 12 KiB: 3 packets
    JsonDoc pk, rs;
    std::vector<std::string> run = {"run",
                                    "--algo",
                                    "allreduce_sdma_mesh",
                                    "--ranks",
                                    std::to_string(P),
                                    "--size",
                                    std::to_string(N),
                                    "--dtype",
                                    dtype,
                                    "--set"};
    std::vector<std::string> packet = run, reservation = run;
    packet.push_back("interconnect.timing=packet");
    reservation.push_back("interconnect.timing=reservation");
    ASSERT_TRUE(RunJson(packet, &pk));
    ASSERT_TRUE(RunJson(reservation, &rs));
    for (JsonDoc *d : {&pk, &rs}) {
      EXPECT_EQ((*d)["status"].Str(), "OK");
      EXPECT_EQ((*d)["check"]["mismatches"].Int(), 0);
      EXPECT_EQ((*d)["race_check"]["races"].Int(), 0);
      EXPECT_EQ((*d)["measured"]["remote_write_bytes_per_rank"].Int(),
                (long long)(2 * (P - 1) * (N / P)));
      EXPECT_EQ((*d)["measured"]["remote_read_bytes_per_rank"].Int(), 0);
      EXPECT_EQ((*d)["measured"]["barrier_rounds"].Int(), 3);
    }
    // the ranks' own HBM is shared by the puts they send and receive: the
    // two timings may order those packets differently, by a few services
    const double tp = (double)pk["time_ps"].Int(), tr = (double)rs["time_ps"].Int();
    EXPECT_NEAR(tr, tp, 1e-2 * tp);
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, SdmaMesh, ::testing::Values(2u, 3u, 4u, 5u, 6u, 7u, 8u));

TEST(SdmaMeshRate, LargeSizesRunAtTwoSlicesPerQueueAtTheWriteRate) {
  // 8 MiB slices at the default 19.5 GB/s write rate: each phase's puts take
  // S / 19.5 GB/s plus a 1 us launch per 1 MiB descriptor (1.9 %), and the
  // three barriers P-1 blocking notifies each (a notify: out over a link,
  // served at the peer's HBM, acknowledged: 2 (S_l(64) + 155 ns) + S_h(64) +
  // 115 ns on the default config, ~0.43 us): within 0.5 % of their sum.
  const uint32_t P = 8;
  const double S = 8.0 * 1024 * 1024, rate = 19.5e9;
  JsonDoc d;
  ASSERT_TRUE(RunJson({"run", "--algo", "allreduce_sdma_mesh", "--ranks", std::to_string(P),
                       "--size", std::to_string((uint64_t)(P * S)), "--no-data"},
                      &d));
  const double ideal_ps = 2 * S / rate * 1e12, t = (double)d["time_ps"].Int();
  const double launches_ps = 2 * (S / (1024 * 1024)) * 1e6;
  const double notify_ps = 2 * (64 / 28e9 * 1e12 + 155000) + 64 / 1.6e12 * 1e12 + 115000;
  EXPECT_GT(t, ideal_ps);
  EXPECT_LT(t, 1.005 * (ideal_ps + launches_ps + 3 * (P - 1) * notify_ps));
}

}  // namespace
}  // namespace a2test
