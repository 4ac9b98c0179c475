// The programs of traces/fidelity/ (docs/sources.md): they run without a
// race or a deadlock and move what the measured device code moves. Their times
// against the measurements are the rows of configs/measured/.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/run_cli.h"

namespace a2test {
namespace {

std::string Program(const char *file) {
  return std::string(A2_SOURCE_DIR) + "/traces/fidelity/" + file;
}

// pto-isa's gemm_ar communication on 8 ranks: every rank adds the tiles it
// does not own (64 KiB each) into their owners and sends the 33 or 32 it
// owns to 7 peers (rank 0: 29,884,416 B, as the README's 63.6 "GB/s" counts);
// 2 notifies per subtile it reduces (its 258 tiles' 516); one wait per
// subtile it owns (66 or 64).
TEST(FidelityProgramsTest, GemmArCommMovesWhatPtoIsasKernelMoves) {
  JsonDoc d;
  ASSERT_TRUE(
      RunJson({"run", "--program", Program("gemm_ar_comm.a2t"), "--ranks", "8", "--no-data"}, &d));
  EXPECT_TRUE(d["ok"].Bool());
  EXPECT_EQ(d["race_check"]["races"].Int(), 0);
  for (int r = 0; r < 8; r++) {
    const long long owned = r < 2 ? 33 : 32;
    EXPECT_EQ(d["per_rank"][(size_t)r]["remote_write_bytes"].Int(),
              (258 - owned) * 65536 + owned * 7 * 65536)
        << r;
    EXPECT_EQ(d["per_rank"][(size_t)r]["remote_read_bytes"].Int(), 0) << r;
    EXPECT_EQ(d["per_rank"][(size_t)r]["notifies"].Int(), 2 * 2 * 258) << r;
    EXPECT_EQ(d["per_rank"][(size_t)r]["waits"].Int(), 2 * owned) << r;
  }
}

// TGET and TGET + copy: one core of rank 0 reads the whole size remotely.
TEST(FidelityProgramsTest, TgetProgramsReadTheirSizeFromThePeer) {
  for (const char *k : {"tget.a2t", "tget_copy.a2t"}) {
    JsonDoc d;
    ASSERT_TRUE(
        RunJson({"run", "--program", Program(k), "--ranks", "2", "--param", "size=64KiB"}, &d));
    EXPECT_TRUE(d["ok"].Bool()) << k;
    EXPECT_EQ(d["per_rank"][(size_t)0]["remote_read_bytes"].Int(), 65536) << k;
    EXPECT_EQ(d["per_rank"][(size_t)0]["remote_ops"].Int(), 16) << k;
    EXPECT_EQ(d["per_rank"][(size_t)1]["remote_ops"].Int(), 0) << k;
  }
}

// TGET_ASYNC: rank 0 reads the whole size from rank 1 on the DMA engines, in
// descriptors of at most 1 MiB (3 for 2.5 MiB), and its flag is a local
// copy, no remote write; the run is race-free.
TEST(FidelityProgramsTest, TgetAsyncReadsItsSizeInDescriptorsOfOneMiB) {
  JsonDoc d;
  ASSERT_TRUE(RunJson(
      {"run", "--program", Program("tget_async.a2t"), "--ranks", "2", "--param", "size=2560KiB"},
      &d));
  EXPECT_TRUE(d["ok"].Bool());
  EXPECT_EQ(d["race_check"]["races"].Int(), 0);
  EXPECT_EQ(d["per_rank"][(size_t)0]["remote_read_bytes"].Int(), 2560 * 1024);
  EXPECT_EQ(d["per_rank"][(size_t)0]["remote_write_bytes"].Int(), 0);
  EXPECT_EQ(d["per_rank"][(size_t)0]["remote_ops"].Int(), 3);
  EXPECT_EQ(d["per_rank"][(size_t)1]["remote_ops"].Int(), 0);
}

// HCCL's one-server all-gather: every rank gathers every block (the golden)
// by reading the P-1 peers' blocks, race-free.
TEST(FidelityProgramsTest, HcclAllgatherMeshGathersByReadingEveryPeer) {
  JsonDoc d;
  ASSERT_TRUE(RunJson(
      {"run", "--program", Program("hccl_allgather_mesh.a2t"), "--ranks", "4", "--param", "n=1024"},
      &d));
  EXPECT_TRUE(d["ok"].Bool());
  EXPECT_EQ(d["race_check"]["races"].Int(), 0);
  for (int r = 0; r < 4; r++) {
    EXPECT_EQ(d["per_rank"][(size_t)r]["remote_read_bytes"].Int(), 3 * 1024 * 4) << r;
    EXPECT_EQ(d["per_rank"][(size_t)r]["remote_write_bytes"].Int(), 0) << r;
  }
}

// HCCL's one-server all-reduce (AllReduceMeshDirect): every rank ends with
// the sum (the golden), having added its P-1 foreign slices into their
// owners and read the P-1 reduced slices back, race-free.
TEST(FidelityProgramsTest, HcclAllreduceMeshReducesByWritingAndReadingEveryPeer) {
  JsonDoc d;
  ASSERT_TRUE(RunJson(
      {"run", "--program", Program("hccl_allreduce_mesh.a2t"), "--ranks", "4", "--param", "n=1024"},
      &d));
  EXPECT_TRUE(d["ok"].Bool());
  EXPECT_EQ(d["race_check"]["races"].Int(), 0);
  for (int r = 0; r < 4; r++) {
    EXPECT_EQ(d["per_rank"][(size_t)r]["remote_read_bytes"].Int(), 3 * 1024 * 4) << r;
    EXPECT_EQ(d["per_rank"][(size_t)r]["remote_write_bytes"].Int(), 3 * 1024 * 4) << r;
  }
}

}  // namespace
}  // namespace a2test
