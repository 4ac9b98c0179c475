// End-to-end robustness (docs/robustness.md): a table of malformed inputs -
// config files, trace files and flags - each run through the real binary
// (A2_BINARY) as a subprocess. Every one must be refused as a usage/input
// error: exit status 2, nothing on stdout, one line on stderr that says where
// (FILE:LINE:COL for a file's content, the flag's name for a flag), never a
// signal (crash, sanitizer abort) and never a hang (the runner's 30 s limit)
// or runaway memory (the reader's limits refuse before allocating).
#include <ostream>
#include <regex>
#include <string>
#include <vector>

#include "tests/cli/run_cli.h"

namespace a2test {
namespace {

constexpr int kTimeoutS = 30;

enum class Via { kConfig, kTrace, kFlags };

struct Malformed {
  const char *name;  // test name suffix
  Via via;
  std::string content;            // the file (kConfig, kTrace)
  std::vector<std::string> flags; // extra flags (kFlags), after `run --algo allreduce_mesh`
  int line;                       // kConfig/kTrace: expected line; 0 = any line; -1 = the whole
                                  // file (FILE: error:, no line)
  std::string needle;             // part of the message that says what is wrong
};

// gtest prints a failing parameter with this (the case's name, not its bytes).
void PrintTo(const Malformed &m, std::ostream *os) { *os << m.name; }

// Deterministic "binary garbage": every byte value, high bytes first, from a
// fixed linear congruential sequence.
std::string Garbage(size_t n) {
  std::string s;
  uint32_t x = 12345;
  s.push_back('\xff');
  while (s.size() < n) {
    x = x * 1103515245u + 12345u;
    s.push_back(static_cast<char>(x >> 16));
  }
  return s;
}

std::string Repeat(const std::string &s, int n) {
  std::string r;
  for (int i = 0; i < n; i++) r += s;
  return r;
}

std::string NestedLoops(int depth) {
  std::string t = "tile a fp32[1]\nprogram\n";
  for (int i = 0; i < depth; i++)
    t += std::string(2 * (i + 1), ' ') + "for i" + std::to_string(i) + " in 0 .. 2\n";
  t += std::string(2 * (depth + 1), ' ') + "compute 1\n";
  for (int i = depth - 1; i >= 0; i--) t += std::string(2 * (i + 1), ' ') + "end\n";
  return t + "end\n";
}

const char kTraceHeader[] = "tensor x fp32[64] = pattern\ntensor y fp32[64]\ntile a fp32[64]\n";

std::vector<Malformed> Cases() {
  std::vector<Malformed> c;
  // ---- config files: run --algo allreduce_mesh --ranks 2 --config FILE ----
  c.push_back({"ConfigTruncatedFlow", Via::kConfig,
               "chip:\n  clock: 1.8GHz\n  vector: { bytes_per_cycle: 121, startup", {}, 0,
               "invalid YAML"});
  c.push_back({"ConfigTruncatedBlock", Via::kConfig, "chip:\n  clock: 1.8GHz\n  vector:\n    bytes_per_c",
               {}, 4, "chip.vector"});
  c.push_back({"ConfigTabIndentation", Via::kConfig, "chip:\n\tclock: 1.8GHz\n", {}, 2, "tabs"});
  c.push_back({"ConfigDuplicateKey", Via::kConfig, "chip:\n  clock: 1GHz\n  clock: 2GHz\n", {}, 3,
               "duplicate key 'chip.clock'"});
  c.push_back({"ConfigDuplicateSection", Via::kConfig,
               "chip:\n  clock: 1GHz\ninterconnect: {}\nchip:\n  ub_size: 1KiB\n", {}, 4,
               "duplicate key"});
  c.push_back({"ConfigHugeNumber", Via::kConfig, "interconnect:\n  ranks: 99999999999999999999\n",
               {}, 2, "interconnect.ranks"});
  c.push_back({"ConfigHugeFraction", Via::kConfig,
               "chip:\n  clock: " + std::string(3000, '9') + "." + std::string(3000, '9') + "GHz\n",
               {}, 2, "chip.clock"});
  c.push_back({"ConfigNegativeSize", Via::kConfig, "chip:\n  ub_size: -1KiB\n", {}, 2,
               "negative"});
  c.push_back({"ConfigBinaryGarbage", Via::kConfig, Garbage(4096), {}, 1, "invalid YAML"});
  c.push_back({"ConfigNulByte", Via::kConfig, std::string("chip:\n  clock: 1.8\0GHz\n", 22), {}, 2,
               "invalid YAML"});
  c.push_back({"ConfigDeepNesting", Via::kConfig,
               "chip: " + std::string(10000, '[') + std::string(10000, ']') + "\n", {}, 1,
               "chip"});
  c.push_back({"ConfigAliasBomb", Via::kConfig,
               "chip: &a [x, x, x, x, x, x, x, x, x]\n"
               "interconnect: [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n",
               {}, 1, "chip"});
  c.push_back({"ConfigTwoDocuments", Via::kConfig, "chip: {clock: 1GHz}\n---\nchip: {}\n", {}, 0,
               "second"});
  // ---- trace files: run --trace-file FILE --ranks 2 ----
  c.push_back({"TraceEndlessLoop", Via::kTrace,
               std::string(kTraceHeader) +
                   "program\n  for i in 0 .. 9223372036854775807\n    compute 1\n  end\nend\n",
               {}, 5, "loop"});
  c.push_back({"TraceFullRangeLoop", Via::kTrace,
               std::string(kTraceHeader) +
                   "program\n  for i in -9223372036854775807 - 1 .. 9223372036854775807\n  end\nend\n",
               {}, 5, ""});
  c.push_back({"TraceNested100Loops", Via::kTrace, NestedLoops(100), {}, 0, "nested"});
  c.push_back({"Trace1e8InstructionsOneLoop", Via::kTrace,
               "tile a fp32[1]\nprogram\n  for i in 0 .. 100_000_000\n    compute 1\n  end\nend\n",
               {}, 3, "2^24 instructions"});
  c.push_back({"Trace1e8InstructionsNestedLoops", Via::kTrace,
               "tile a fp32[1]\nprogram\n  for i in 0 .. 10000\n    for j in 0 .. 10000\n"
               "      compute 1\n    end\n  end\nend\n",
               {}, 0, "2^24 instructions"});
  c.push_back({"TraceBinaryGarbage", Via::kTrace, Garbage(4096), {}, 1, "unexpected character"});
  c.push_back({"TraceTruncated", Via::kTrace,
               std::string(kTraceHeader) + "program\n  for i in 0 .. 4\n    load a, x[0:", {}, 0,
               ""});
  c.push_back({"TraceUnterminatedLoop", Via::kTrace,
               std::string(kTraceHeader) + "program\n  for i in 0 .. 4\n    load a, x[0:64]\n", {}, 0,
               ""});
  c.push_back({"TraceDeepParentheses", Via::kTrace,
               "let a = " + std::string(5000, '(') + "1" + std::string(5000, ')') + "\n", {}, 1,
               "nested"});
  c.push_back({"TraceLongOperatorChain", Via::kTrace, "let a = 1" + Repeat("+1", 100000) + "\n",
               {}, 1, "operators"});
  c.push_back({"TraceHugeNumber", Via::kTrace, "tensor x fp32[99999999999999999999999]\n", {}, 1,
               ""});
  c.push_back({"TraceHugeBuffer", Via::kTrace, "tensor x fp32[274877906945]\n", {}, 1, ""});
  c.push_back({"TraceTooLarge", Via::kTrace, "# " + std::string(17u << 20, 'x') + "\n", {}, -1,
               "16 MiB"});
  // ---- flags: run --algo allreduce_mesh FLAGS ----
  c.push_back({"FlagNegativeSize", Via::kFlags, "", {"--ranks", "2", "--size", "-4"}, 0, "--size"});
  c.push_back({"FlagHugeSize", Via::kFlags, "", {"--ranks", "2", "--size", "99999999999999999999"},
               0, "--size"});
  c.push_back({"FlagSetNegativeUbSize", Via::kFlags, "",
               {"--ranks", "2", "--set", "chip.ub_size=-1KiB"}, 0, "--set"});
  c.push_back({"FlagHugeRanks", Via::kFlags, "", {"--ranks", "99999999999999999999"}, 0,
               "--ranks"});
  c.push_back({"FlagNegativeCores", Via::kFlags, "", {"--ranks", "2", "--cores", "-1"}, 0,
               "--cores"});
  c.push_back({"FlagNegativeMaxSimTime", Via::kFlags, "", {"--ranks", "2", "--max-sim-time", "-1ns"},
               0, "--max-sim-time"});
  c.push_back({"FlagGarbageDevices", Via::kFlags, "", {"-d", "\xff\xfe,\x01"}, 0, "-d"});
  c.push_back({"FlagGarbageSet", Via::kFlags, "", {"--ranks", "2", "--set", Garbage(64)}, 0,
               "--set"});
  return c;
}

class MalformedInput : public ::testing::TestWithParam<Malformed> {};

TEST_P(MalformedInput, IsRefusedWithExit2AndALocatedMessage) {
  const Malformed &m = GetParam();
  TempDir dir;
  std::vector<std::string> args;
  std::string file;
  switch (m.via) {
    case Via::kConfig:
      file = dir.Write("bad.yaml", m.content);
      args = {"run", "--algo", "allreduce_mesh", "--ranks", "2", "--config", file};
      break;
    case Via::kTrace:
      file = dir.Write("bad.a2t", m.content);
      args = {"run", "--trace-file", file, "--ranks", "2"};
      break;
    case Via::kFlags:
      args = Args({"run", "--algo", "allreduce_mesh"}, m.flags);
      break;
  }
  CliResult r = RunCli(args, kTimeoutS);
  ASSERT_FALSE(r.timed_out) << "no answer within " << kTimeoutS << " s" << r;
  ASSERT_EQ(r.term_signal, 0) << "killed by a signal" << r;
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_TRUE(r.out.empty()) << "expected nothing on stdout" << r;
  // docs/cli.md: one line on stderr
  ASSERT_FALSE(r.err.empty()) << r;
  EXPECT_TRUE(r.err.back() == '\n' && r.err.find('\n') == r.err.size() - 1)
      << "expected exactly one line on stderr" << r;
  if (m.via == Via::kFlags) {
    EXPECT_EQ(r.err.rfind("a2a3sim: error: " + m.needle + ":", 0), 0u)
        << "expected 'a2a3sim: error: " << m.needle << ": ...'" << r;
    return;
  }
  const std::string prefix = "a2a3sim: " + file + ":";
  ASSERT_EQ(r.err.rfind(prefix, 0), 0u) << "expected the message to start with " << prefix << r;
  std::smatch where;
  const std::string rest = r.err.substr(prefix.size());
  if (m.line < 0) {
    EXPECT_EQ(rest.rfind(" error: ", 0), 0u) << "expected FILE: error:" << r;
  } else {
    // the content's fault: FILE:LINE:COL
    ASSERT_TRUE(std::regex_search(rest, where, std::regex("^([0-9]+):([0-9]+): error: ")))
        << "expected FILE:LINE:COL" << r;
    EXPECT_GE(std::stoi(where[1]), 1) << r;
    EXPECT_GE(std::stoi(where[2]), 1) << r;
    if (m.line > 0) {
      EXPECT_EQ(std::stoi(where[1]), m.line) << r;
    }
  }
  if (!m.needle.empty()) {
    EXPECT_NE(r.err.find(m.needle), std::string::npos) << "expected '" << m.needle << "'" << r;
  }
}

INSTANTIATE_TEST_SUITE_P(Robust, MalformedInput, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Malformed> &i) {
                           return std::string(i.param.name);
                         });

}  // namespace
}  // namespace a2test
