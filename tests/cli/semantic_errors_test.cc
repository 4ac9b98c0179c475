// Semantic errors in a program file are refused before any instruction runs,
// with the file and the instruction's line (docs/program-format.md): one test
// per class. (Parse errors, with line:col, are tests/traces/errors_test.cc.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "tests/support/run_cli.h"

namespace {

const char kHead[] =
    "tensor x fp32[64] = pattern\n"  // line 1
    "window w fp32[64]\n"            // line 2
    "signal s[4]\n"                  // line 3
    "tile t fp32[64]\n"              // line 4
    "tile h fp16[64]\n"              // line 5
    "program\n";                     // line 6; the body starts at line 7

// Runs a file made of kHead + body + "end" at P=2 and expects exit 2, empty
// stdout and one error naming FILE:LINE with `what`.
void ExpectRefused(const std::string &body, int line, const std::string &what) {
  a2test::TempDir dir;
  std::string f = dir.Write("k.a2t", std::string(kHead) + body + "end\n");
  a2test::CliResult r = a2test::RunCli({"run", "--program", f, "--ranks", "2"});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_EQ(r.out, "") << r;
  EXPECT_NE(r.err.find(f + ":" + std::to_string(line) + ":"), std::string::npos) << r;
  EXPECT_NE(r.err.find(what), std::string::npos) << r;
}

TEST(TraceSemanticErrors, UnknownTileOrWindowIsNamed) {
  ExpectRefused("  load q, x[0:64]\n", 7, "unknown tile 'q'");
  ExpectRefused("  remote_load t, nowin@1[0:64]\n", 7, "unknown buffer 'nowin'");
}

TEST(TraceSemanticErrors, RegionOutOfBoundsIsRefused) {
  ExpectRefused("  load t, x[0:8]\n  load t, x[32:64]\n", 8,
                "elements [32, 96) are outside 'x' (64 elements");
}

TEST(TraceSemanticErrors, PeerOutsideTheRanksIsRefused) {
  ExpectRefused("  remote_load t, w@2[0:64]\n", 7, "peer 2 outside 0..1");
}

TEST(TraceSemanticErrors, ElementTypeMismatchInVaddIsRefused) {
  ExpectRefused("  vadd t, t, h, 64\n", 7, "element type mismatch");
}

TEST(TraceSemanticErrors, WaitOnANonSignalIsRefused) {
  ExpectRefused("  wait w[0] ge 1\n", 7, "'w' is not a signal");
}

TEST(TraceSemanticErrors, RemoteAccessToATensorIsRefused) {
  ExpectRefused("  remote_load t, x@1[0:64]\n", 7, "'x' is not a window");
}

TEST(TraceSemanticErrors, TilesLargerThanTheUnifiedBufferAreRefused) {
  a2test::TempDir dir;
  std::string f = dir.Write("big.a2t",
                            "tensor x fp32[64] = pattern\ntile t fp32[65536]\n"
                            "program\n  load t, x[0:64]\nend\n");
  a2test::CliResult r = a2test::RunCli({"run", "--program", f, "--ranks", "2"});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_NE(r.err.find(f + ": error: tiles need 262144 bytes of unified buffer"), std::string::npos)
      << r;
}

TEST(TraceSemanticErrors, NothingRunsBeforeTheErrorIsFound) {
  // The error is on rank 1's last instruction; rank 0's work never starts:
  // no output, no timeline file.
  a2test::TempDir dir;
  std::string f = dir.Write("late.a2t", std::string(kHead) + "  load t, x[0:64]\nend\n" +
                                            "program rank 1\n  wait w[0] ge 1\nend\n");
  std::string timeline = dir.path() + "/t.json";
  a2test::CliResult r =
      a2test::RunCli({"run", "--program", f, "--ranks", "2", "--timeline", timeline});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_NE(r.err.find(f + ":10:"), std::string::npos) << r;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(access(timeline.c_str(), F_OK), 0) << "a timeline was written";
}

}  // namespace
