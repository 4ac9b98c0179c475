// End-to-end: cube (AIC) cores in the program format. A GEMM on the cube
// cores checks against golden gemm; the hand-written fused GEMM +
// all-reduce runs, checks and is race-free, and without its ready-queue
// wait it is a race; bad shapes, buffers over their capacity and cube
// instructions on a vector core are refused with file:line.
#include <string>
#include <vector>

#include "tests/support/files.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace {

std::string Src(const char *rel) {
  return std::string(A2_SOURCE_DIR) + "/" + rel;
}

// Declarations of a one-rank program with one cube core and one of each tile.
const char kDecls[] =
    "cores 1\n"
    "cube_cores 1\n"
    "tensor a fp16[8192] = pattern\n"
    "tensor b fp16[16384] = pattern\n"
    "tensor c fp16[32768]\n"
    "tile a1 fp16[8192] in l1\n"
    "tile b1 fp16[16384] in l1\n"
    "tile a0 fp16[8192] in l0a\n"
    "tile b0 fp16[16384] in l0b\n"
    "tile acc fp32[32768] in l0c\n"
    "tile u fp16[1024]\n"
    "golden gemm a b -> c 128 64 256 block 128 64 256\n";

const char kGemm[] =
    "program cube all\n"                     // line 13
    "  tload a1, a[0:8192]\n"                // 14
    "  tload b1, b[0:16384]\n"               // 15
    "  textract a0, a1[0:8192]\n"            // 16
    "  textract b0, b1[0:16384]\n"           // 17
    "  tmatmul acc, a0, b0, 128, 64, 256\n"  // 18
    "  tstore_fixpipe acc, c[0:32768]\n"     // 19
    "end\n";

TEST(CubeCores, OneTileGemmMatchesTheGolden) {
  TempDir d;
  CliResult r =
      RunCli({"run", "--program", d.Write("g.a2t", std::string(kDecls) + kGemm), "--ranks", "1"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find("OK  (32768 elements checked, 0 mismatches)"), std::string::npos) << r;
}

TEST(CubeCores, TheGemmArComputeProgramChecksAtASmallShape) {
  CliResult r =
      RunCli({"run", "--program", Src("traces/fidelity/gemm_ar_compute.a2t"), "--ranks", "1",
              "--param", "m=256", "--param", "k=512", "--param", "n=512", "--param", "aic=2"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find("OK  (131072 elements checked, 0 mismatches)"), std::string::npos) << r;
}

TEST(CubeCores, AWrongFixPipeOffsetFailsTheGolden) {
  std::string bad = std::string(kGemm);
  bad.replace(bad.find("c[0:32768]"), 10, "c[0:16384]");  // half the tile is never stored
  TempDir d;
  CliResult r = RunCli({"run", "--program", d.Write("g.a2t", kDecls + bad), "--ranks", "1"});
  EXPECT_EQ(r.exit_code, 1) << r;
  EXPECT_NE(r.out.find("FAIL"), std::string::npos) << r;
}

TEST(CubeCores, FusedExampleRunsChecksAndIsRaceFree) {
  for (const char *ranks : {"2", "4"}) {
    CliResult r = RunCli(
        {"run", "--program", Src("traces/examples/gemm_allreduce_fused.a2t"), "--ranks", ranks});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_NE(r.out.find("OK  ("), std::string::npos) << r;
    EXPECT_NE(r.out.find(" 0 mismatches)"), std::string::npos) << r;
    EXPECT_EQ(r.err.find("race"), std::string::npos) << r;
  }
}

TEST(CubeCores, WithoutTheReadyQueueWaitTheFusedProgramIsARace) {
  std::string text = ReadFileOrFail(Src("traces/examples/gemm_allreduce_fused.a2t"));
  const std::string wait = "    wait tready[$core] ge $j + 1\n";
  size_t at = text.find(wait);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, wait.size(), "    compute 1\n");
  TempDir d;
  CliResult r = RunCli({"run", "--program", d.Write("f.a2t", text), "--ranks", "2"});
  EXPECT_NE(r.exit_code, 0) << r;
  EXPECT_NE(r.err.find("data race"), std::string::npos) << r;
  EXPECT_NE(r.err.find("(tstore_fixpipe)"), std::string::npos) << r;
}

TEST(CubeCores, AllGatherGemmExampleRunsChecksAndIsRaceFree) {
  for (const char *ranks : {"1", "2", "4"}) {
    CliResult r =
        RunCli({"run", "--program", Src("traces/examples/allgather_gemm.a2t"), "--ranks", ranks});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_NE(r.out.find(" 0 mismatches)"), std::string::npos) << r;
    EXPECT_EQ(r.err.find("race"), std::string::npos) << r;
  }
}

TEST(CubeCores, WithoutItsWaitTheAllGatherGemmReadsUnorderedPuts) {
  std::string text = ReadFileOrFail(Src("traces/examples/allgather_gemm.a2t"));
  const std::string wait = "            wait got[$q] ge $cb + 1\n";
  size_t at = text.find(wait);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, wait.size(), "            compute 1\n");
  TempDir d;
  CliResult r = RunCli({"run", "--program", d.Write("g.a2t", text), "--ranks", "2"});
  EXPECT_NE(r.exit_code, 0) << r;
  EXPECT_NE(r.err.find("data race"), std::string::npos) << r;
  EXPECT_NE(r.err.find("(put)"), std::string::npos) << r;
}

// Runs kDecls + program and expects exit 2 with every needle on stderr.
void Refused(const std::string &program, const std::vector<std::string> &needles) {
  TempDir d;
  CliResult r = RunCli({"run", "--program", d.Write("t.a2t", kDecls + program), "--ranks", "1"});
  EXPECT_EQ(r.exit_code, 2) << r;
  for (const std::string &n : needles)
    EXPECT_NE(r.err.find(n), std::string::npos) << n << "\n" << r;
}

TEST(CubeCores, AMatmulOnAVectorCoreIsRefusedWithItsLine) {
  Refused("program core all\n  tmatmul acc, a0, b0, 128, 64, 256\nend\n",
          {"t.a2t:14", "tmatmul on a vector core"});
}

TEST(CubeCores, AVectorOpOnACubeCoreIsRefusedWithItsLine) {
  Refused("program cube all\n  vadd u, u, u, 16\nend\n", {"t.a2t:14", "vadd on a cube core"});
}

TEST(CubeCores, ShapesNotOfWholeFractalsAreRefused) {
  Refused("program cube all\n  tmatmul acc, a0, b0, 100, 64, 256\nend\n",
          {"t.a2t:14", "multiples of 16"});
  Refused("program cube all\n  tmatmul acc, a0, b0, 128, 128, 256\nend\n",
          {"t.a2t:14", "does not fit"});
}

TEST(CubeCores, OperandsInTheWrongBufferAreRefused) {
  Refused("program cube all\n  tmatmul acc, a1, b0, 128, 64, 256\nend\n",
          {"t.a2t:14", "'a1' is in l1; it must be a tile in l0a"});
  Refused("program cube all\n  tload a0, a[0:8192]\nend\n", {"t.a2t:14", "must be a tile in l1"});
}

TEST(CubeCores, TilesOverABufferCapacityAreRefused) {
  TempDir d;
  std::string text = std::string(kDecls) + "tile more fp16[32768] in l0a\n" + kGemm;
  CliResult r = RunCli({"run", "--program", d.Write("t.a2t", text), "--ranks", "1"});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_NE(r.err.find("tiles in l0a need 81920 bytes"), std::string::npos) << r;
  EXPECT_NE(r.err.find("chip.cube.l0a_size"), std::string::npos) << r;
  // the same file fits a chip with a larger L0A
  r = RunCli({"run", "--program", d.path() + "/t.a2t", "--ranks", "1", "--set",
              "chip.cube.l0a_size=128KiB"});
  EXPECT_EQ(r.exit_code, 0) << r;
}

TEST(CubeCores, MoreCubeCoresThanTheChipHasAreRefused) {
  TempDir d;
  std::string text = std::string(kDecls) + kGemm;
  CliResult r = RunCli(
      {"run", "--program", d.Write("t.a2t", text), "--ranks", "1", "--set", "chip.cube_cores=0"});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_NE(r.err.find("chip.cube_cores"), std::string::npos) << r;
}

TEST(CubeCores, ACubeBlockNeedsCubeCores) {
  TempDir d;
  CliResult r =
      RunCli({"run", "--program", d.Write("t.a2t", "cores 1\nprogram cube all\n  compute 1\nend\n"),
              "--ranks", "1"});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_NE(r.err.find("declare 'cube_cores N'"), std::string::npos) << r;
}

// The cube's time is its rate: 128 x 64 x 256 MACs at 4096 a cycle is 512
// cycles; doubling chip.cube.fp16_macs_per_cycle takes 256 off the time.
TEST(CubeCores, TheMatmulTakesItsMacsOverTheCubeRate) {
  TempDir d;
  std::string p = d.Write("g.a2t", std::string(kDecls) + kGemm);
  auto time_ns = [&](const std::vector<std::string> &more) {
    CliResult r = RunCli(Args({"run", "--program", p, "--ranks", "1", "--json"}, more));
    EXPECT_EQ(r.exit_code, 0) << r;
    size_t at = r.out.find("\"time_ns\":");
    EXPECT_NE(at, std::string::npos) << r;
    return std::stod(r.out.substr(at + 10));
  };
  double t1 = time_ns({}), t2 = time_ns({"--set", "chip.cube.fp16_macs_per_cycle=8192"});
  double cycle_ns = 0.556;  // 1 / 1.8 GHz, rounded to whole ps (chip.clock)
  EXPECT_NEAR(t1 - t2, 256 * cycle_ns, 0.01);
}

}  // namespace
}  // namespace a2test
