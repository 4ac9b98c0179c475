// Tests for how each trace instruction becomes an a2_instr (the fields
// collectives/builder.c fills): element counts become bytes of the indexed
// buffer's type, signal cells become 4-byte offsets, modes and peers.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "trace_util.h"

namespace {

using a2test::FailsAt;
using a2test::Trace;

// Buffers of three element sizes, so that each conversion shows whose type
// it used: h is fp16 (2 bytes), f is fp32, i is int32, s is a signal.
const char *kDecls =
    "tensor f fp32[64]\n"   // buf 0
    "window h fp16[64]\n"   // buf 1
    "window i int32[64]\n"  // buf 2
    "signal s[8]\n"         // buf 3
    "tile tf fp32[32]\n"    // tile 0
    "tile th fp16[32]\n"    // tile 1
    "tile tg fp16[32]\n";   // tile 2

// The single instruction of rank 1's program for `stmt`.
a2_instr One(const std::string &stmt) {
  Trace t(std::string(kDecls) + "program rank 1\n  " + stmt + "\nend\n", 4);
  EXPECT_TRUE(t.ok()) << stmt << ": " << t.Message();
  if (!t.ok() || t.prog(1).n != 1) return a2_instr{};
  a2_instr in = t.prog(1).v[0];
  EXPECT_EQ(in.line, 9u) << stmt;
  return in;
}

TEST(TraceInstrTest, LoadAndStoreUseTheBufferTypeForBytes) {
  a2_instr in = One("load th, h[3:5]");
  EXPECT_EQ(in.op, A2_OP_LOAD);
  EXPECT_EQ(in.tile, 1u);
  EXPECT_EQ(in.buf, 1u);
  EXPECT_EQ(in.off, 6u);
  EXPECT_EQ(in.len, 10u);
  in = One("store tf, f[2:4]");
  EXPECT_EQ(in.op, A2_OP_STORE);
  EXPECT_EQ(in.tile, 0u);
  EXPECT_EQ(in.buf, 0u);
  EXPECT_EQ(in.off, 8u);
  EXPECT_EQ(in.len, 16u);
}

TEST(TraceInstrTest, RemoteLoadAndStoreTakeAPeer) {
  a2_instr in = One("remote_load th, h@($rank + 1) % $nranks[1:2]");
  EXPECT_EQ(in.op, A2_OP_RLOAD);
  EXPECT_EQ(in.peer, 2);
  EXPECT_EQ(in.off, 2u);
  EXPECT_EQ(in.len, 4u);
  EXPECT_EQ(in.mode, A2_MODE_PLAIN);
  in = One("remote_store tf, i@0[4:8]");
  EXPECT_EQ(in.op, A2_OP_RSTORE);
  EXPECT_EQ(in.buf, 2u);
  EXPECT_EQ(in.peer, 0);
  EXPECT_EQ(in.off, 16u);
  EXPECT_EQ(in.len, 32u);
  EXPECT_EQ(in.mode, A2_MODE_PLAIN);
  in = One("remote_store tf, i@3[0:1] atomic_add");
  EXPECT_EQ(in.mode, A2_MODE_ATOMIC_ADD);
}

TEST(TraceInstrTest, PutConvertsEachSideWithItsOwnBufferAndChunkWithTheFirst) {
  a2_instr in = One("put h@2[3:5], i[7] chunk 2 pipeline");
  EXPECT_EQ(in.op, A2_OP_PUT);
  EXPECT_EQ(in.buf, 1u);  // the peer's window
  EXPECT_EQ(in.peer, 2);
  EXPECT_EQ(in.off, 6u);
  EXPECT_EQ(in.len, 10u);
  EXPECT_EQ(in.buf2, 2u);  // the local source
  EXPECT_EQ(in.off2, 28u);
  EXPECT_EQ(in.chunk, 4u);
  EXPECT_EQ(in.mode, A2_MODE_PIPELINE);
  in = One("put h@2[0:4], f[0]");
  EXPECT_EQ(in.chunk, 0u);
  EXPECT_EQ(in.mode, 0u);
}

TEST(TraceInstrTest, GetReadsThePeersWindowIntoALocalRegion) {
  a2_instr in = One("get f[1:2], h@3[5] chunk 8");
  EXPECT_EQ(in.op, A2_OP_GET);
  EXPECT_EQ(in.buf, 0u);  // the local destination
  EXPECT_EQ(in.off, 4u);
  EXPECT_EQ(in.len, 8u);
  EXPECT_EQ(in.buf2, 1u);  // the peer's window
  EXPECT_EQ(in.peer, 3);
  EXPECT_EQ(in.off2, 10u);
  EXPECT_EQ(in.chunk, 32u);
  EXPECT_EQ(in.mode, 0u);
}

TEST(TraceInstrTest, PutAndGetTakeAQueueAndPutAnAtomicAddInAnyOrder) {
  a2_instr in = One("put h@2[0:4], f[0]");
  EXPECT_EQ(in.queue, A2_QUEUE_ANY);  // the core's index modulo the queue count
  in = One("put h@2[0:4], f[0] queue $rank + 2 atomic_add chunk 2 pipeline");
  EXPECT_EQ(in.queue, 3u);
  EXPECT_EQ(in.mode, A2_MODE_PIPELINE | A2_MODE_DMA_ATOMIC_ADD);
  EXPECT_EQ(in.chunk, 4u);
  in = One("put h@2[0:4], f[0] chunk 2 atomic_add");
  EXPECT_EQ(in.mode, A2_MODE_DMA_ATOMIC_ADD);
  EXPECT_EQ(in.queue, A2_QUEUE_ANY);
  in = One("get f[1:2], h@3[5] queue 0");
  EXPECT_EQ(in.queue, 0u);
  EXPECT_EQ(in.mode, 0u);
  Trace t(std::string(kDecls) + "program rank 1\n  get f[1:2], h@3[5]\nend\n", 4);
  ASSERT_TRUE(t.ok()) << t.Message();
  EXPECT_EQ(t.k().uses_dma, 1);  // the model builds the DMA engines for it
  Trace none(std::string(kDecls) + "program rank 1\n  load th, h[0:1]\nend\n", 4);
  ASSERT_TRUE(none.ok()) << none.Message();
  EXPECT_EQ(none.k().uses_dma, 0);
}

TEST(TraceInstrTest, NotifyAndWaitAddressOneInt32Cell) {
  a2_instr in = One("notify s@0[5] add 3");
  EXPECT_EQ(in.op, A2_OP_NOTIFY);
  EXPECT_EQ(in.buf, 3u);
  EXPECT_EQ(in.peer, 0);
  EXPECT_EQ(in.off, 20u);
  EXPECT_EQ(in.len, 4u);
  EXPECT_EQ(in.mode, A2_MODE_ADD);
  EXPECT_EQ(in.value, 3);
  EXPECT_EQ(One("notify s@2[0] set -7").mode, A2_MODE_SET);
  EXPECT_EQ(One("notify s@2[0] set -7").value, -7);
  in = One("wait s[7] ge $nranks - 1");
  EXPECT_EQ(in.op, A2_OP_WAIT);
  EXPECT_EQ(in.off, 28u);
  EXPECT_EQ(in.len, 4u);
  EXPECT_EQ(in.mode, A2_MODE_GE);
  EXPECT_EQ(in.value, 3);
  EXPECT_EQ(One("wait s[0] eq 1").mode, A2_MODE_EQ);
}

TEST(TraceInstrTest, VectorOpsTakeTheLengthInDestinationElements) {
  const struct {
    const char *name;
    a2_opcode op;
  } ops[] = {
      {"vadd", A2_OP_VADD}, {"vmax", A2_OP_VMAX}, {"vmin", A2_OP_VMIN}, {"vmul", A2_OP_VMUL}};
  for (const auto &o : ops) {
    a2_instr in = One(std::string(o.name) + " th, tg, th, 6");
    EXPECT_EQ(in.op, o.op);
    EXPECT_EQ(in.tile, 1u);
    EXPECT_EQ(in.tile_a, 2u);
    EXPECT_EQ(in.tile_b, 1u);
    EXPECT_EQ(in.len, 12u);
  }
}

TEST(TraceInstrTest, ComputeTakesCycles) {
  a2_instr in = One("compute 1000 * $rank");
  EXPECT_EQ(in.op, A2_OP_COMPUTE);
  EXPECT_EQ(in.value, 1000);
}

TEST(TraceInstrTest, UnusedFieldsAreZeroAsTheBuilderLeavesThem) {
  a2_instr in = One("load th, h[0:1]");
  EXPECT_EQ(in.peer, 0);
  EXPECT_EQ(in.value, 0);
  EXPECT_EQ(in.buf2, 0u);
  EXPECT_EQ(in.off2, 0u);
  EXPECT_EQ(in.chunk, 0u);
  EXPECT_EQ(in.tile_a, 0u);
}

TEST(TraceInstrTest, OperandErrorsNameWhatWasExpected) {
  std::string d = kDecls;  // the statement is on line 9, from column 3
  auto at = [&](const std::string &stmt, int col, const std::string &sub) {
    return FailsAt(d + "program\n  " + stmt + "\nend\n", 4, 9, col, sub);
  };
  EXPECT_TRUE(at("load tf f[0:4]", 11, "expected ',' after tile name"));
  EXPECT_TRUE(at("load tf, g[0:4]", 12, "unknown buffer 'g'"));
  EXPECT_TRUE(at("load tx, f[0:4]", 8, "unknown tile 'tx'"));
  EXPECT_TRUE(at("load f, f[0:4]", 8, "'f' is a buffer, not a tile"));
  EXPECT_TRUE(at("load tf, tf[0:4]", 12, "'tf' is a tile, not a buffer"));
  EXPECT_TRUE(at("load tf, f@1[0:4]", 13, "use remote_load"));
  EXPECT_TRUE(at("remote_load tf, h[0:4]", 20, "expected '@' and the peer"));
  EXPECT_TRUE(at("load tf, f[0 4]", 16, "expected ':' and a length"));
  EXPECT_TRUE(at("load tf, f[0:4", 17, "expected ']'"));
  EXPECT_TRUE(at("load tf, f[0:4] extra", 19, "expected end of line"));
  EXPECT_TRUE(at("remote_store tf, i@0[0:1] atomic", 29, "'atomic_add' or end of line"));
  EXPECT_TRUE(at("put h@1[0:4], f[0:4]", 20, "only an offset here"));
  EXPECT_TRUE(at("put h@1[0:4], f[0] pipeline", 22, "'pipeline' needs 'chunk N'"));
  EXPECT_TRUE(at("get f[0:4] h@1[0]", 14, "expected ',' after the destination region"));
  EXPECT_TRUE(at("put h@1[0:4], f[0] chunk 4 queue 1 pipeline", 38,
                 "'pipeline' goes right after 'chunk N'"));
  EXPECT_TRUE(at("put h@1[0:4], f[0] queue 1 queue 2", 30, "'queue' is given twice"));
  EXPECT_TRUE(at("put h@1[0:4], f[0] chunk 1 chunk 2", 30, "'chunk' is given twice"));
  EXPECT_TRUE(at("put h@1[0:4], f[0] atomic_add atomic_add", 33, "'atomic_add' is given twice"));
  EXPECT_TRUE(at("get f[0:4], h@1[0] atomic_add", 22, "'atomic_add' is for put"));
  EXPECT_TRUE(at("put h@1[0:4], f[0] queue", 27, "expected a number"));
  EXPECT_TRUE(
      at("put h@1[0:4], f[0] queue 1 extra", 30, "expected 'atomic_add', 'chunk' or end of line"));
  EXPECT_TRUE(at("get f[0:4], h@1[0] chunk 1 extra", 30, "expected 'queue' or end of line"));
  EXPECT_TRUE(at("notify s@1[0:1] add 1", 15, "one index, not OFF:LEN"));
  EXPECT_TRUE(at("notify s@1[0] inc 1", 17, "expected 'set' or 'add'"));
  EXPECT_TRUE(at("wait s@1[0] ge 1", 9, "without '@PEER'"));
  EXPECT_TRUE(at("wait s[0] gt 1", 13, "expected 'eq' or 'ge'"));
  EXPECT_TRUE(at("vadd tf, tf, tf 4", 19, "expected ',' after the second source tile"));
  EXPECT_TRUE(at("compute", 10, "expected a number"));
}

TEST(TraceInstrTest, ValueErrorsPointAtTheExpression) {
  std::string d = kDecls;
  auto at = [&](const std::string &stmt, int col, const std::string &sub) {
    return FailsAt(d + "program\n  " + stmt + "\nend\n", 4, 9, col, sub);
  };
  EXPECT_TRUE(at("load tf, f[$rank - 1:4]", 14, "offset -1 is negative"));
  EXPECT_TRUE(at("load tf, f[0:-4]", 16, "length -4 is negative"));
  EXPECT_TRUE(at("wait s[-1] eq 1", 10, "cell -1 is negative"));
  EXPECT_TRUE(at("notify s@4_294_967_296[0] add 1", 12, "peer 4294967296 is outside"));
  EXPECT_TRUE(at("put h@1[0:4], f[0] chunk 4_000_000_000", 28, "chunk 4000000000 is too large"));
  EXPECT_TRUE(at("put h@1[0:4], f[0] queue $rank - 1", 28, "queue -1 is negative"));
  EXPECT_TRUE(at("get f[0:4], h@1[0] queue 65535", 28, "queue 65535 is outside 0..65534"));
}

// The one table of names (traces/program.h) that the parser, the writer,
// the CLI and reports use: every opcode and element type has a name of its
// own.
TEST(NamesTest, EveryOpcodeAndElementTypeHasItsOwnName) {
  std::set<std::string> ops, dtypes;
  for (int i = 0; i < A2_OP_COUNT_; i++) {
    ASSERT_NE(a2_op_names[i], nullptr) << "opcode " << i;
    EXPECT_STREQ(a2_op_name(static_cast<a2_opcode>(i)), a2_op_names[i]);
    ops.insert(a2_op_names[i]);
  }
  EXPECT_EQ(ops.size(), static_cast<size_t>(A2_OP_COUNT_));
  for (int i = 0; i < A2_DTYPE_COUNT; i++) {
    ASSERT_NE(a2_dtype_names[i], nullptr) << "dtype " << i;
    EXPECT_STREQ(a2_dtype_name(static_cast<a2_dtype>(i)), a2_dtype_names[i]);
    dtypes.insert(a2_dtype_names[i]);
  }
  EXPECT_EQ(dtypes.size(), static_cast<size_t>(A2_DTYPE_COUNT));
  EXPECT_STREQ(a2_op_name(A2_OP_COUNT_), "?");
  EXPECT_STREQ(a2_dtype_name(static_cast<a2_dtype>(A2_DTYPE_COUNT)), "?");
}

}  // namespace
