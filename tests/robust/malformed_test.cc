// End-to-end robustness (docs/robustness.md): a table of malformed and
// hostile inputs - config files, program files and flags - each run through the
// real binary (A2_BINARY) as a subprocess. Every one must be refused as a
// usage/input error: exit status 2, nothing on stdout, one line on stderr that
// says where (FILE:LINE:COL for a file's content, the flag's name for a flag),
// never a signal (crash, sanitizer abort) and never a hang or runaway memory.
// The hostile shapes (deep nesting, long sequences, many anchors or program
// blocks, wide expressions, loops at the limits) are generated when their
// case runs. Each case prints its wall time; the limit below is generous so
// that a loaded machine does not fail it (on an idle one every case takes
// well under a second in Release, docs/robustness.md).
#include <chrono>
#include <cstdio>
#include <ostream>
#include <regex>
#include <string>
#include <vector>

#include "tests/support/run_cli.h"

namespace a2test {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr int kTimeoutS = 60;  // ASan + UBSan at -O0: ten to fifty times slower
#else
constexpr int kTimeoutS = 5;
#endif

enum class Via { kConfig, kTrace, kFlags };

struct Malformed {
  const char *name;  // test name suffix
  Via via;
  std::string content;              // the file (kConfig, kTrace)
  std::vector<std::string> flags;   // extra flags (kFlags), after `run --algo allreduce_mesh`
  int line;                         // kConfig/kTrace: expected line; 0 = any line; -1 = the whole
                                    // file (FILE: error:, no line)
  std::string needle;               // part of the message that says what is wrong
  int col = 0;                      // kConfig/kTrace: expected column; 0 = any
  std::string (*make)() = nullptr;  // makes the content when the case runs (large shapes)
  // kTrace: flags instead of `--ranks 2` (a larger P)
  std::vector<std::string> trace_flags = {"--ranks", "2"};
};

// gtest prints a failing parameter with this (the case's name, not its bytes).
void PrintTo(const Malformed &m, std::ostream *os) {
  *os << m.name;
}

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

// Lines that each open one more block mapping, 200 KB in all.
std::string DeepBlockMappings() {
  std::string s;
  for (int d = 0; s.size() < 200000; d++)
    s += std::string(d, ' ') + "k" + std::to_string(d) + ":\n";
  return s;
}

// A flow sequence of n plain scalars.
std::string FlowSequence(int n) {
  std::string s = "chip: [x";
  for (int i = 1; i < n; i++) s += ", x";
  return s + "]\n";
}

// A sum of about `bytes` bytes of "+1" whose operator chains stay within the
// 1000-deep limit: groups of 500, chains of 400 groups, chains of those.
std::string WideSum(size_t bytes) {
  std::string group = "(1" + Repeat("+1", 500) + ")", chain = "(" + group, s;
  for (int i = 1; i < 400; i++) chain += "+" + group;
  chain += ")";
  s = chain;
  while (s.size() < bytes) s += "+" + chain;
  return s;
}

// 250 variables, then 7 MiB of program referring to the last one (1.2 M
// times), ending in an error on its last line (so all of it is read).
std::string ManyVariableLookups() {
  std::string s;
  for (int i = 0; i < 250; i++)
    s += "let v" + std::to_string(100 + i) + " = " + std::to_string(i) + "\n";
  std::string line = "  compute $v349" + Repeat("+$v349", 100) + "\n";
  s += "tile a fp32[1]\nprogram\n";
  while (s.size() < (7u << 20)) s += line; /* 3.4 M expression nodes, under the 2^22 limit */
  return s + "  bogus\nend\n";
}

std::vector<Malformed> Cases() {
  std::vector<Malformed> c;
  // ---- config files: run --algo allreduce_mesh --ranks 2 --config FILE ----
  c.push_back({"ConfigTruncatedFlow",
               Via::kConfig,
               "chip:\n  clock: 1.8GHz\n  vector: { bytes_per_cycle: 121, startup",
               {},
               0,
               "invalid YAML"});
  c.push_back({"ConfigTruncatedBlock",
               Via::kConfig,
               "chip:\n  clock: 1.8GHz\n  vector:\n    bytes_per_c",
               {},
               4,
               "chip.vector"});
  c.push_back({"ConfigTabIndentation", Via::kConfig, "chip:\n\tclock: 1.8GHz\n", {}, 2, "tabs"});
  c.push_back({"ConfigDuplicateKey",
               Via::kConfig,
               "chip:\n  clock: 1GHz\n  clock: 2GHz\n",
               {},
               3,
               "duplicate key 'chip.clock'"});
  c.push_back({"ConfigDuplicateSection",
               Via::kConfig,
               "chip:\n  clock: 1GHz\ninterconnect: {}\nchip:\n  ub_size: 1KiB\n",
               {},
               4,
               "duplicate key"});
  // interconnect.levels (docs/config.md, "Levels") and jobs:
  const std::string lv = "interconnect:\n  topology: levels\n  levels:\n";
  c.push_back({"LevelsNotAList",
               Via::kConfig,
               "interconnect:\n  topology: levels\n  levels:\n    name: die\n",
               {},
               4,
               "interconnect.levels: expected a list of levels",
               5});
  c.push_back({"LevelsMissingFanout",
               Via::kConfig,
               lv + "    - name: die\n      bandwidth: 1GB/s\n      latency: 1us\n" +
                   "    - name: top\n      bandwidth: 1GB/s\n      latency: 1us\n",
               {},
               4,
               "interconnect.levels[0] (die): fanout required",
               7});
  c.push_back({"LevelsZeroBandwidth",
               Via::kConfig,
               lv + "    - name: die\n      bandwidth: 0GB/s\n      latency: 1us\n",
               {},
               5,
               "interconnect.levels[0].bandwidth: '0GB/s': out of range",
               18});
  c.push_back({"LevelsUnknownKey",
               Via::kConfig,
               lv + "    - name: die\n      bandwith: 1GB/s\n      latency: 1us\n",
               {},
               5,
               "unknown key 'bandwith' in interconnect.levels[0]",
               7});
  c.push_back(
      {"LevelsFanoutOnTop",
       Via::kConfig,
       lv + "    - name: top\n      fanout: 4\n      bandwidth: 1GB/s\n      latency: 1us\n",
       {},
       5,
       "the top level has no fanout",
       15});
  c.push_back({"LevelsMeshAboveTheBottom",
               Via::kConfig,
               lv + "    - {name: a, fanout: 2, bandwidth: 1GB/s, latency: 1us}\n" +
                   "    - {name: b, kind: mesh, bandwidth: 1GB/s, latency: 1us}\n",
               {},
               5,
               "kind mesh only on the lowest level",
               23});
  c.push_back({"LevelsWithoutALevel",
               Via::kConfig,
               "interconnect:\n  topology: levels\n",
               {},
               2,
               "needs interconnect.levels",
               13});
  c.push_back({"JobsNotAList",
               Via::kConfig,
               "jobs: allreduce_ring\n",
               {},
               1,
               "jobs: expected a list of jobs",
               7});
  c.push_back({"ConfigHugeNumber",
               Via::kConfig,
               "interconnect:\n  ranks: 99999999999999999999\n",
               {},
               2,
               "interconnect.ranks"});
  c.push_back({"ConfigHugeFraction",
               Via::kConfig,
               "chip:\n  clock: " + std::string(3000, '9') + "." + std::string(3000, '9') + "GHz\n",
               {},
               2,
               "chip.clock"});
  c.push_back({"ConfigNegativeSize", Via::kConfig, "chip:\n  ub_size: -1KiB\n", {}, 2, "negative"});
  c.push_back({"ConfigBinaryGarbage", Via::kConfig, Garbage(4096), {}, 1, "invalid YAML"});
  c.push_back({"ConfigNulByte",
               Via::kConfig,
               std::string("chip:\n  clock: 1.8\0GHz\n", 22),
               {},
               2,
               "invalid YAML"});
  c.push_back({"ConfigDeepNesting",
               Via::kConfig,
               "chip: " + std::string(10000, '[') + std::string(10000, ']') + "\n",
               {},
               1,
               "nested more than 16 levels deep",
               22});
  // hostile shapes: unbounded, each would take libYAML seconds to minutes.
  // Pins: libyaml's time grows faster than the input with nesting depth,
  // anchors, aliases of a late anchor and %TAG directives (100 K levels of
  // `[`: 33 s; a 200 KB config kept a core busy for more than 30 s), so the
  // reader counts levels, nodes, anchors and directive lines before libyaml
  // composes anything (a past failure these cases pin).
  c.push_back(
      {"ConfigDeepFlowSequences200KB", Via::kConfig, "", {}, 1, "nested more than 16", 22, [] {
         return "chip: " + std::string(100000, '[') + std::string(100000, ']') + "\n";
       }});
  c.push_back(
      {"ConfigUnclosedFlowSequences200KB", Via::kConfig, "", {}, 1, "nested more than 16", 22, [] {
         return "chip: " + std::string(200000, '[');
       }});
  c.push_back({"ConfigDeepFlowMappings", Via::kConfig, "", {}, 1, "nested more than 16", 0, [] {
                 return "chip: " + Repeat("{a: ", 50000) + "1" + std::string(50000, '}') + "\n";
               }});
  c.push_back({"ConfigDeepBlockMappings",
               Via::kConfig,
               "",
               {},
               17,
               "nested more than 16",
               0,
               DeepBlockMappings});
  c.push_back(
      {"ConfigLongFlowSequence", Via::kConfig, "", {}, 1, "more than 10000 YAML nodes", 0, [] {
         return FlowSequence(300000);
       }});
  c.push_back({"ConfigManyKeys", Via::kConfig, "", {}, 1, "more than 10000 YAML nodes", 0, [] {
                 std::string s = "chip: {k0: 1";
                 for (int i = 1; i < 80000; i++) s += ", k" + std::to_string(i) + ": 1";
                 return s + "}\n";
               }});
  c.push_back({"ConfigManyAnchors", Via::kConfig, "", {}, 1, "more than 100 YAML anchors", 0, [] {
                 std::string s = "chip: [&a0 x";
                 for (int i = 1; i < 60000; i++) s += ", &a" + std::to_string(i) + " x";
                 return s + "]\n";
               }});
  c.push_back({"ConfigBillionLaughs", Via::kConfig, "", {}, 2, "unknown key 'a0' in chip", 3, [] {
                 std::string s = "chip:\n  a0: &a0 [x, x, x, x, x, x, x, x, x]\n";
                 for (int i = 1; i < 10; i++) {
                   std::string prev = "*a" + std::to_string(i - 1);
                   s += "  a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + prev;
                   for (int j = 1; j < 9; j++) s += ", " + prev;
                   s += "]\n";
                 }
                 return s;
               }});
  c.push_back(
      {"ConfigTagDirectives", Via::kConfig, "", {}, 65, "YAML directives such as %TAG", 1, [] {
         std::string s;
         for (int i = 0; i < 30000; i++) s += "%TAG !t" + std::to_string(i) + "! tag:x,2000:\n";
         return s + "---\nchip: {}\n";
       }});
  c.push_back({"ConfigDeepSecondDocument", Via::kConfig, "", {}, 3, "found a second one", 1, [] {
                 return "chip: {}\n---\n" + std::string(500000, '[') + "\n";
               }});
  c.push_back({"ConfigManyDocuments", Via::kConfig, "", {}, 0, "found a second one", 0, [] {
                 return Repeat("---\n", 200000);
               }});
  c.push_back({"ConfigLongScalar", Via::kConfig, "", {}, 2, "chip.clock", 10, [] {
                 return "chip:\n  clock: " + std::string(900000, '9') + "\n";
               }});
  c.push_back({"ConfigTooLarge", Via::kConfig, "", {}, -1, "1 MiB", 0, [] {
                 return "# " + std::string(2u << 20, 'c') + "\n";
               }});
  c.push_back({"ConfigAliasBomb",
               Via::kConfig,
               "chip: &a [x, x, x, x, x, x, x, x, x]\n"
               "interconnect: [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n",
               {},
               1,
               "chip"});
  c.push_back({"ConfigTwoDocuments",
               Via::kConfig,
               "chip: {clock: 1GHz}\n---\nchip: {}\n",
               {},
               0,
               "second"});
  // ---- program files: run --program FILE --ranks 2 ----
  c.push_back({"TraceEndlessLoop",
               Via::kTrace,
               std::string(kTraceHeader) +
                   "program\n  for i in 0 .. 9223372036854775807\n    compute 1\n  end\nend\n",
               {},
               5,
               "loop"});
  c.push_back(
      {"TraceFullRangeLoop",
       Via::kTrace,
       std::string(kTraceHeader) +
           "program\n  for i in -9223372036854775807 - 1 .. 9223372036854775807\n  end\nend\n",
       {},
       5,
       ""});
  c.push_back({"TraceNested100Loops", Via::kTrace, NestedLoops(100), {}, 0, "nested"});
  // Pins a past failure: a 50-byte file could ask for 2^26 instructions
  // (3.7 GB, 41 s) or 2^28 expansion steps and get them; the limits are 2^21
  // instructions and 2^25 steps, and one loop past either is refused at its
  // `for`.
  c.push_back({"Trace1e8InstructionsOneLoop",
               Via::kTrace,
               "tile a fp32[1]\nprogram\n  for i in 0 .. 100_000_000\n    compute 1\n  end\nend\n",
               {},
               3,
               "passes the expansion limit of 2^25 steps"});
  c.push_back({"Trace3e6InstructionsOneLoop",
               Via::kTrace,
               "tile a fp32[1]\nprogram\n  for i in 0 .. 3_000_000\n    compute 1\n  end\nend\n",
               {},
               3,
               "makes more than 2^21 instructions (rank 0)"});
  // Pins a past failure: a nest of 10^8 instructions took 0.5 s (33 s under
  // the fuzzer) to be refused; a nest is refused where the running count
  // passes the limit (at the inner `for`, after counting), in milliseconds.
  c.push_back({"Trace1e8InstructionsNestedLoops",
               Via::kTrace,
               "tile a fp32[1]\nprogram\n  for i in 0 .. 10000\n    for j in 0 .. 10000\n"
               "      compute 1\n    end\n  end\nend\n",
               {},
               4,
               "2^21 instructions"});
  c.push_back({"TraceStepsPassTheLimitWhileRunning",
               Via::kTrace,
               "tile a fp32[1]\nprogram\n  compute 1\n  for i in 0 .. 11_500_000\n"
               "    let x = $i + 1\n  end\nend\n",
               {},
               0,
               "more than 2^25 steps"});
  c.push_back({"TraceDeepIfs", Via::kTrace, "", {}, 66, "nested more than 64 deep", 1, [] {
                 return "program\n" + Repeat("if 1 == 1\n", 100000);
               }});
  // Pins a past failure: work of the expansion that no limit counted - a wide expression
  // evaluated on every rank, core and iteration (8 ranks x 1024 cores: 7.5 s),
  // empty program blocks run for every rank (1.4 M at P = 1024: 17 s), each
  // variable reference searching every visible variable. Expression nodes
  // and program blocks run for a rank count as expansion steps.
  c.push_back({"TraceWideExpressionOnEveryRank",
               Via::kTrace,
               "",
               {},
               2,
               "more than 2^25 steps",
               11,
               [] { return "program\n  compute " + WideSum(1u << 20) + "\nend\n"; },
               {"--ranks", "1024", "--set", "interconnect.topology=switch", "--set",
                "interconnect.ranks=1024"}});
  c.push_back({"TraceWideExpressionInALoop", Via::kTrace, "", {}, 0, "more than 2^25 steps", 0, [] {
                 return "program\n  for i in 0 .. 1_000_000\n    compute " + WideSum(1u << 20) +
                        "\n  end\nend\n";
               }});
  c.push_back({"TraceTooManyExpressionNodes",
               Via::kTrace,
               "",
               {},
               2,
               "more than 2^22 numbers, variables and operators",
               0,
               [] { return "program\n  compute " + WideSum(5u << 20) + "\nend\n"; }});
  c.push_back({"TraceManyVariableLookups",
               Via::kTrace,
               "",
               {},
               0,
               "unknown instruction 'bogus'",
               3,
               ManyVariableLookups});
  c.push_back({"TraceManyEmptyProgramBlocks",
               Via::kTrace,
               "",
               {},
               1,
               "no instruction on any of the 2 ranks",
               1,
               [] { return Repeat("program\nend\n", 400000); }});
  c.push_back({"TraceManyProgramBlocksAtP1024",
               Via::kTrace,
               "",
               {},
               0,
               "more than 2^25 steps",
               1,
               [] { return Repeat("program\nend\n", 400000); },
               {"--ranks", "1024", "--set", "interconnect.topology=switch", "--set",
                "interconnect.ranks=1024"}});
  // Pins a past failure: a file with no instruction on any rank (`--program
  // /dev/null`, declarations only, blocks that give this P nothing) ran and
  // printed OK.
  c.push_back({"TraceEmptyFile", Via::kTrace, "", {}, 1, "no 'program' block", 1});
  c.push_back({"TraceDeclarationsOnly",
               Via::kTrace,
               kTraceHeader,
               {},
               3,
               "add one after the declarations",
               16});
  c.push_back({"TraceProgramsEmptyForThisP",
               Via::kTrace,
               std::string(kTraceHeader) + "program\n  if $nranks > 2\n    compute 1\n  end\nend\n",
               {},
               4,
               "no instruction on any of the 2 ranks",
               1});
  // Pins a past failure: a missing `end` inside a `for` was reported past the
  // last line as an unterminated 'program', and a peer or region error inside
  // a loop named the line only (the errors name the block the `end` closed,
  // and the rank and column).
  c.push_back({"TraceMissingEndInsideFor",
               Via::kTrace,
               std::string(kTraceHeader) +
                   "program\n  for i in 0 .. 4\n    compute 1\n  if $i == 0\n    compute 2\n"
                   "  end\nend\n",
               {},
               5,
               "expected 'end' for the 'for' at line 5",
               3});
  c.push_back({"TracePeerOutsideInALoopNamesTheRank",
               Via::kTrace,
               std::string(kTraceHeader) + "window w fp32[64]\nprogram\n  for i in 0 .. 2\n"
                                           "    remote_load a, w@$rank + $i[0:64]\n  end\nend\n",
               {},
               7,
               "remote_load: peer 2 outside 0..1 (rank 1)",
               22});
  c.push_back({"TraceRegionOutsideInALoopNamesTheRank",
               Via::kTrace,
               std::string(kTraceHeader) +
                   "program\n  for i in 0 .. 2\n    load a, x[($rank + $i) * 16:48]\n  end\nend\n",
               {},
               6,
               "elements [32, 80) are outside 'x' (64 elements",
               15});
  // tile arrays, 2-D signals and rooted goldens (docs/program-format.md)
  c.push_back({"TraceTileArrayIndexOutside",
               Via::kTrace,
               std::string(kTraceHeader) +
                   "tile b[2] fp32[64]\nprogram\n  load b[$rank + 1], x[0:64]\nend\n",
               {},
               6,
               "load: tile index 2 is outside 'b' (2 tiles: 0..1) (rank 1)",
               10});
  c.push_back({"TraceTileArrayUnindexed",
               Via::kTrace,
               std::string(kTraceHeader) + "tile b[2] fp32[64]\nprogram\n  load b, x[0:64]\nend\n",
               {},
               6,
               "'b' is an array of 2 tiles: name one, b[INDEX]",
               8});
  c.push_back({"TraceTileArrayCountNotANumber",
               Via::kTrace,
               std::string(kTraceHeader) + "tile b[$nranks] fp32[64]\n",
               {},
               4,
               "expected the number of tiles of the array",
               8});
  c.push_back({"TraceTileArrayTooManyTiles",
               Via::kTrace,
               std::string(kTraceHeader) + "tile b[64] fp32[1]\n",
               {},
               4,
               "tile array of 64 tiles: expected 1..63",
               8});
  c.push_back({"TraceSignal2dColumnOutside",
               Via::kTrace,
               std::string(kTraceHeader) +
                   "signal s[2, $nranks]\nprogram\n  notify s@0[1, $rank + 1] add 1\nend\n",
               {},
               6,
               "notify: column 2 is outside signal 's' of 2 rows x 2 columns (columns 0..1) (rank "
               "1)",
               17});
  c.push_back({"TraceSignal2dOneIndex",
               Via::kTrace,
               std::string(kTraceHeader) + "signal s[2, 2]\nprogram\n  wait s[1] ge 1\nend\n",
               {},
               6,
               "signal 's' has rows and columns, s[ROW, COL]",
               11});
  c.push_back({"TraceTensorTwoDimensions",
               Via::kTrace,
               std::string(kTraceHeader) + "tensor z fp32[4, 4]\n",
               {},
               4,
               "only a signal takes two dimensions",
               16});
  c.push_back(
      {"TraceGoldenRootOutside",
       Via::kTrace,
       std::string(kTraceHeader) + "golden reduce sum 5 x -> y 64\nprogram\n  compute 1\nend\n",
       {},
       4,
       "golden root 5 is outside 0..1",
       19});
  c.push_back({"TraceBinaryGarbage", Via::kTrace, Garbage(4096), {}, 1, "unexpected character"});
  c.push_back({"TraceTruncated",
               Via::kTrace,
               std::string(kTraceHeader) + "program\n  for i in 0 .. 4\n    load a, x[0:",
               {},
               0,
               ""});
  c.push_back({"TraceUnterminatedLoop",
               Via::kTrace,
               std::string(kTraceHeader) + "program\n  for i in 0 .. 4\n    load a, x[0:64]\n",
               {},
               0,
               ""});
  c.push_back({"TraceDeepParentheses",
               Via::kTrace,
               "let a = " + std::string(5000, '(') + "1" + std::string(5000, ')') + "\n",
               {},
               1,
               "nested"});
  c.push_back({"TraceLongOperatorChain",
               Via::kTrace,
               "let a = 1" + Repeat("+1", 100000) + "\n",
               {},
               1,
               "operators"});
  c.push_back(
      {"TraceHugeNumber", Via::kTrace, "tensor x fp32[99999999999999999999999]\n", {}, 1, ""});
  c.push_back({"TraceHugeBuffer", Via::kTrace, "tensor x fp32[274877906945]\n", {}, 1, ""});
  c.push_back({"TraceTooLarge", Via::kTrace, "", {}, -1, "16 MiB", 0, [] {
                 return "# " + std::string(17u << 20, 'x') + "\n";
               }});
  // ---- flags: run --algo allreduce_mesh FLAGS ----
  c.push_back({"FlagNegativeSize", Via::kFlags, "", {"--ranks", "2", "--size", "-4"}, 0, "--size"});
  c.push_back({"FlagHugeSize",
               Via::kFlags,
               "",
               {"--ranks", "2", "--size", "99999999999999999999"},
               0,
               "--size"});
  c.push_back({"FlagSetNegativeUbSize",
               Via::kFlags,
               "",
               {"--ranks", "2", "--set", "chip.ub_size=-1KiB"},
               0,
               "--set"});
  c.push_back(
      {"FlagHugeRanks", Via::kFlags, "", {"--ranks", "99999999999999999999"}, 0, "--ranks"});
  c.push_back(
      {"FlagNegativeCores", Via::kFlags, "", {"--ranks", "2", "--cores", "-1"}, 0, "--cores"});
  c.push_back({"FlagNegativeMaxSimTime",
               Via::kFlags,
               "",
               {"--ranks", "2", "--max-sim-time", "-1ns"},
               0,
               "--max-sim-time"});
  c.push_back({"FlagGarbageDevices", Via::kFlags, "", {"-d", "\xff\xfe,\x01"}, 0, "-d"});
  c.push_back(
      {"FlagGarbageSet", Via::kFlags, "", {"--ranks", "2", "--set", Garbage(64)}, 0, "--set"});
  // --set values as long as one argument may be (128 KiB)
  c.push_back({"FlagSetLongNumber",
               Via::kFlags,
               "",
               {"--ranks", "2", "--set", "chip.clock=" + std::string(100000, '9') + "GHz"},
               0,
               "--set"});
  c.push_back({"FlagSetLongFraction",
               Via::kFlags,
               "",
               {"--ranks", "2", "--set", "chip.clock=1." + std::string(100000, '9') + "THz"},
               0,
               "--set"});
  c.push_back({"FlagSetLongKey",
               Via::kFlags,
               "",
               {"--ranks", "2", "--set", std::string(100000, 'k') + "=1"},
               0,
               "--set"});
  c.push_back({"FlagSetManyDots",
               Via::kFlags,
               "",
               {"--ranks", "2", "--set", "chip" + std::string(100000, '.') + "clock=1GHz"},
               0,
               "--set"});
  c.push_back(
      {"FlagSetPaddedName",
       Via::kFlags,
       "",
       {"--ranks", "2", "--set", "interconnect.topology=" + std::string(100000, ' ') + "rnig"},
       0,
       "--set"});
  return c;
}

class MalformedInput : public ::testing::TestWithParam<Malformed> {};

TEST_P(MalformedInput, IsRefusedWithExit2AndALocatedMessage) {
  const Malformed &m = GetParam();
  TempDir dir;
  std::vector<std::string> args;
  std::string file;
  const std::string content = m.make ? m.make() : m.content;
  switch (m.via) {
  case Via::kConfig:
    file = dir.Write("bad.yaml", content);
    args = {"run", "--algo", "allreduce_mesh", "--ranks", "2", "--config", file};
    break;
  case Via::kTrace:
    file = dir.Write("bad.a2t", content);
    args = Args({"run", "--program", file}, m.trace_flags);
    break;
  case Via::kFlags: args = Args({"run", "--algo", "allreduce_mesh"}, m.flags); break;
  }
  auto start = std::chrono::steady_clock::now();
  CliResult r = RunCli(args, kTimeoutS);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("[ robust   ] %s: %zu bytes answered in %.0f ms\n", m.name, content.size(), ms);
  RecordProperty("wall_ms", static_cast<int>(ms));
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
    if (m.col > 0) {
      EXPECT_EQ(std::stoi(where[2]), m.col) << r;
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
