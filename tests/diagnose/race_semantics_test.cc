// Happens-before as docs/timing-model.md ("Races") defines it, on small
// hand-written programs: which access pairs are races and which are ordered
// by notify/wait chains (put + notify, transitive chains, `set` replacing a
// cell's history, cores of one rank), that atomic adds do not race each
// other but do race plain reads and writes, that a report names the
// overlapping bytes, the access kinds and the instructions by line, and that
// a run whose check runs out of memory budget says when it stopped.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <tuple>

#include "diag_util.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace {

struct Outcome {
  CliResult run;
  std::string status;
  long long races = -1;
  diag::RaceReport report;
};

// Runs `program` (the text of a program file) at P=3 with --json.
Outcome RunProgram(const std::string &program, const std::string &name = "k.a2t") {
  TempDir dir;
  Outcome o;
  o.run = RunCli({"run", "--program", dir.Write(name, program), "--ranks", "3", "--json"});
  JsonDoc doc = JsonDoc::Parse(o.run.out);
  EXPECT_TRUE(doc.ok()) << doc.error() << o.run;
  if (!doc.ok()) return o;
  o.status = doc["status"].Str();
  o.races = doc["race_check"]["races"].Int();
  o.report = diag::ParseRaces(o.run.err);
  EXPECT_EQ(o.run.exit_code, o.status == "OK" ? 0 : 1) << o.run;
  return o;
}

const char kDecls[] =
    "tensor x fp32[64] = pattern\n"
    "tensor y fp32[64]\n"
    "window data fp32[64]\n"
    "signal sig[2]\n"
    "tile t fp32[64]\n"
    "golden none\n";

TEST(RaceSemantics, RemoteStoreIntoAnUnsyncedWindowRacesTheOwnersLoad) {
  const std::string k = std::string(kDecls) +
                        "program rank 0\n"
                        "  load t, x[0:64]\n"
                        "  remote_store t, data@1[0:64]   # W\n"
                        "end\n"
                        "program rank 1\n"
                        "  load t, data[0:64]             # R\n"
                        "  store t, y[0:64]\n"
                        "end\n";
  Outcome o = RunProgram(k);
  EXPECT_EQ(o.status, "RACE") << o.run;
  EXPECT_EQ(o.races, 1) << o.run;
  ASSERT_EQ(o.report.shown.size(), 1u) << o.run;
  const diag::Race &r = o.report.shown[0];
  EXPECT_EQ(r.buf, "data");
  EXPECT_EQ(r.owner, 1);
  ASSERT_TRUE(r.Read() && r.Write()) << o.run;
  EXPECT_EQ(r.Write()->rank, 0);
  EXPECT_EQ(r.Write()->op, "remote_store");
  EXPECT_EQ(r.Write()->line, diag::LineOf(k, "# W"));
  EXPECT_EQ(r.Read()->rank, 1);
  EXPECT_EQ(r.Read()->op, "load");
  EXPECT_EQ(r.Read()->line, diag::LineOf(k, "# R"));
}

TEST(RaceSemantics, PutThenNotifyOrdersThePeersLoad) {
  Outcome o = RunProgram(std::string(kDecls) +
                         "program rank 0\n"
                         "  put data@1[0:64], x[0]\n"
                         "  notify sig@1[0] add 1\n"
                         "end\n"
                         "program rank 1\n"
                         "  wait sig[0] ge 1\n"
                         "  load t, data[0:64]\n"
                         "  store t, y[0:64]\n"
                         "end\n");
  EXPECT_EQ(o.status, "OK") << o.run;
  EXPECT_EQ(o.races, 0) << o.run;
  EXPECT_TRUE(o.run.err.empty()) << o.run;
}

TEST(RaceSemantics, OrderIsTransitiveThroughAThirdRank) {
  Outcome o = RunProgram(std::string(kDecls) +
                         "program rank 0\n"
                         "  load t, x[0:64]\n"
                         "  store t, data[0:64]\n"
                         "  notify sig@1[0] add 1\n"
                         "end\n"
                         "program rank 1\n"
                         "  wait sig[0] ge 1\n"
                         "  notify sig@2[0] add 1\n"
                         "end\n"
                         "program rank 2\n"
                         "  wait sig[0] ge 1\n"
                         "  remote_load t, data@0[0:64]\n"
                         "end\n");
  EXPECT_EQ(o.status, "OK") << o.run;
  EXPECT_EQ(o.races, 0) << o.run;
}

// Rank 0 stores and adds 1 to rank 2's cell; much later rank 1, which is
// not ordered after rank 0, writes the same cell: `add 4` or `set 5`. Rank 2
// waits for the cell to reach 5 (only possible once rank 1's notify has
// landed), then reads rank 0's window. With `add` the cell still carries
// rank 0's release; a `set` replaces the cell's history, so the read is no
// longer ordered after rank 0's store.
std::string SetOrAdd(const char *notify) {
  return std::string(kDecls) +
         "program rank 0\n"
         "  load t, x[0:64]\n"
         "  store t, data[0:64]\n"
         "  notify sig@2[0] add 1\n"
         "end\n"
         "program rank 1\n"
         "  compute 100000\n"
         "  notify sig@2[0] " +
         notify +
         "\n"
         "end\n"
         "program rank 2\n"
         "  wait sig[0] ge 5\n"
         "  remote_load t, data@0[0:64]\n"
         "end\n";
}

TEST(RaceSemantics, AddNotifyKeepsEarlierReleasesOfTheCell) {
  Outcome o = RunProgram(SetOrAdd("add 4"));
  EXPECT_EQ(o.status, "OK") << o.run;
  EXPECT_EQ(o.races, 0) << o.run;
}

TEST(RaceSemantics, SetNotifyReplacesTheCellsHistory) {
  Outcome o = RunProgram(SetOrAdd("set 5"));
  EXPECT_EQ(o.status, "RACE") << o.run;
  EXPECT_EQ(o.races, 1) << o.run;
  ASSERT_EQ(o.report.shown.size(), 1u) << o.run;
  EXPECT_EQ(o.report.shown[0].owner, 0);
  ASSERT_TRUE(o.report.shown[0].Read()) << o.run;
  EXPECT_EQ(o.report.shown[0].Read()->rank, 2);
  EXPECT_EQ(o.report.shown[0].Read()->op, "remote_load");
}

TEST(RaceSemantics, CoresOfOneRankRaceWithoutASignal) {
  Outcome o = RunProgram("cores 2\n" + std::string(kDecls) +
                         "program core 0\n"
                         "  load t, x[0:64]\n"
                         "  store t, data[0:64]\n"
                         "end\n"
                         "program core 1\n"
                         "  load t, data[0:64]\n"
                         "end\n");
  EXPECT_EQ(o.status, "RACE") << o.run;
  EXPECT_EQ(o.races, 3) << "one per rank" << o.run;
  for (const diag::Race &r : o.report.shown) {
    ASSERT_TRUE(r.Read() && r.Write()) << o.run;
    EXPECT_EQ(r.Read()->rank, r.owner);
    EXPECT_EQ(r.Write()->rank, r.owner);
    EXPECT_EQ(r.Read()->core, 1);
    EXPECT_EQ(r.Write()->core, 0);
  }
}

TEST(RaceSemantics, CoresOfOneRankOrderedByTheirOwnSignal) {
  Outcome o = RunProgram("cores 2\n" + std::string(kDecls) +
                         "program core 0\n"
                         "  load t, x[0:64]\n"
                         "  store t, data[0:64]\n"
                         "  notify sig@$rank[0] add 1\n"
                         "end\n"
                         "program core 1\n"
                         "  wait sig[0] ge 1\n"
                         "  load t, data[0:64]\n"
                         "end\n");
  EXPECT_EQ(o.status, "OK") << o.run;
  EXPECT_EQ(o.races, 0) << o.run;
}

TEST(RaceSemantics, ReportNamesOnlyTheOverlappingBytes) {
  Outcome o = RunProgram(std::string(kDecls) +
                         "program rank 0\n"
                         "  load t, x[0:64]\n"
                         "  remote_store t, data@2[0:32]\n"
                         "end\n"
                         "program rank 1\n"
                         "  load t, x[0:64]\n"
                         "  remote_store t, data@2[16:32]\n"
                         "end\n");
  EXPECT_EQ(o.status, "RACE") << o.run;
  ASSERT_EQ(o.report.shown.size(), 1u) << o.run;
  const diag::Race &r = o.report.shown[0];
  EXPECT_EQ(r.owner, 2);
  EXPECT_EQ(r.lo, 64u);  // elements [16, 32) of fp32
  EXPECT_EQ(r.hi, 128u);
  EXPECT_TRUE(r.a.write && r.b.write) << "a write/write race" << o.run;
}

TEST(RaceSemantics, DisjointRegionsDoNotRace) {
  Outcome o = RunProgram(std::string(kDecls) +
                         "program rank 0\n"
                         "  load t, x[0:64]\n"
                         "  store t, data[0:32]\n"
                         "end\n"
                         "program rank 1\n"
                         "  remote_load t, data@0[32:32]\n"
                         "end\n");
  EXPECT_EQ(o.status, "OK") << o.run;
  EXPECT_EQ(o.races, 0) << o.run;
}

// ---- atomic adds ----

// Ranks 0 and 1 add into rank 2's window; `sync` is rank 2's side.
std::string TwoAdders(const std::string &sync) {
  return std::string(kDecls) +
         "program rank 0\n"
         "  load t, x[0:64]\n"
         "  remote_store t, data@2[0:64] atomic_add   # A0\n"
         "  notify sig@2[0] add 1\n"
         "end\n"
         "program rank 1\n"
         "  load t, x[0:64]\n"
         "  remote_store t, data@2[16:32] atomic_add  # A1\n"
         "  notify sig@2[0] add 1\n"
         "end\n"
         "program rank 2\n" +
         sync +
         "  load t, data[0:64]                        # R\n"
         "  store t, y[0:64]\n"
         "end\n";
}

TEST(RaceSemantics, AtomicAddsIntoOneRegionDoNotRaceEachOther) {
  Outcome o = RunProgram(TwoAdders("  wait sig[0] ge 2\n"));
  EXPECT_EQ(o.status, "OK") << o.run;
  EXPECT_EQ(o.races, 0) << o.run;
  EXPECT_TRUE(o.run.err.empty()) << o.run;
}

TEST(RaceSemantics, AtomicAddRacesAnUnorderedPlainLoad) {
  const std::string k = TwoAdders("  wait sig[0] ge 1\n");  // ordered after one adder only
  Outcome o = RunProgram(k);
  EXPECT_EQ(o.status, "RACE") << o.run;
  EXPECT_EQ(o.races, 1) << o.run;
  ASSERT_EQ(o.report.shown.size(), 1u) << o.run;
  const diag::Race &r = o.report.shown[0];
  EXPECT_EQ(r.owner, 2);
  ASSERT_TRUE(r.Read() && r.Write()) << o.run;
  EXPECT_EQ(r.Write()->kind, "atomic");
  EXPECT_EQ(r.Write()->op, "remote_store atomic_add");
  EXPECT_EQ(r.Read()->kind, "read");
  EXPECT_EQ(r.Read()->op, "load");
  EXPECT_EQ(r.Read()->line, diag::LineOf(k, "# R"));
  const int a0 = diag::LineOf(k, "# A0"), a1 = diag::LineOf(k, "# A1");
  EXPECT_TRUE(r.Write()->line == a0 || r.Write()->line == a1) << o.run;
  // the bytes of the add that the wait did not order
  const bool second = r.Write()->line == a1;
  EXPECT_EQ(r.lo, second ? 64u : 0u);
  EXPECT_EQ(r.hi, second ? 192u : 256u);
}

TEST(RaceSemantics, AtomicAddRacesAnUnorderedPlainStore) {
  const std::string k = std::string(kDecls) +
                        "program rank 0\n"
                        "  load t, x[0:64]\n"
                        "  remote_store t, data@1[0:64] atomic_add  # A\n"
                        "end\n"
                        "program rank 1\n"
                        "  load t, x[0:64]\n"
                        "  store t, data[0:64]                      # W\n"
                        "end\n";
  Outcome o = RunProgram(k);
  EXPECT_EQ(o.status, "RACE") << o.run;
  EXPECT_EQ(o.races, 1) << o.run;
  ASSERT_EQ(o.report.shown.size(), 1u) << o.run;
  const diag::Race &r = o.report.shown[0];
  const diag::Access *add = r.a.kind == "atomic" ? &r.a : &r.b;
  const diag::Access *store = add == &r.a ? &r.b : &r.a;
  EXPECT_EQ(add->kind, "atomic") << o.run;
  EXPECT_EQ(add->line, diag::LineOf(k, "# A"));
  EXPECT_EQ(store->kind, "write") << o.run;
  EXPECT_EQ(store->op, "store");
  EXPECT_EQ(store->line, diag::LineOf(k, "# W"));
}

// The example all-reduce by atomic adds: every rank adds into every window,
// one barrier, no race and the right sum at every P, under both timings.
class AtomicAllReduce : public ::testing::TestWithParam<std::tuple<uint32_t, const char *>> {};

TEST_P(AtomicAllReduce, IsCorrectAndRaceFree) {
  const uint32_t P = std::get<0>(GetParam());
  JsonDoc doc;
  ASSERT_TRUE(RunJson(
      {"run", "--program", diag::Src("traces/examples/allreduce_atomic.a2t"), "--ranks",
       std::to_string(P), "--set", std::string("interconnect.timing=") + std::get<1>(GetParam())},
      &doc));
  EXPECT_EQ(doc["status"].Str(), "OK");
  EXPECT_TRUE(doc["ok"].Bool());
  EXPECT_TRUE(doc["race_check"]["checked"].Bool());
  EXPECT_EQ(doc["race_check"]["races"].Int(), 0);
  EXPECT_EQ(doc["measured"]["remote_write_bytes_per_rank"].Int(), (long long)(P - 1) * 256);
}

INSTANTIATE_TEST_SUITE_P(Ranks, AtomicAllReduce,
                         ::testing::Combine(::testing::Range(2u, 9u),
                                            ::testing::Values("packet", "reservation")),
                         [](const ::testing::TestParamInfo<AtomicAllReduce::ParamType> &i) {
                           return "P" + std::to_string(std::get<0>(i.param)) + "_" +
                                  std::get<1>(i.param);
                         });

// ---- the memory budget ----

TEST(RaceSemantics, ACheckOutOfBudgetStopsAndSaysWhen) {
  CliResult r = RunCli({"run", "--algo", "allreduce_mesh", "--ranks", "4", "--cores", "8", "--size",
                        "1MiB", "--race-memory", "1MiB", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r;
  JsonDoc doc = JsonDoc::Parse(r.out);
  ASSERT_TRUE(doc.ok()) << doc.error() << r;
  EXPECT_TRUE(doc["race_check"]["abandoned"].Bool());
  EXPECT_FALSE(doc["race_check"]["checked"].Bool());
  std::smatch m;
  static const std::regex stopped(
      R"(warning: the race check stopped at (\d+\.\d{3}) us when it reached its memory budget \(1 MiB)");
  ASSERT_TRUE(std::regex_search(r.err, m, stopped)) << r;
  const double at_us = std::stod(m[1]);
  EXPECT_GT(at_us, 0.0) << "it checked a while before stopping" << r;
  EXPECT_LT(at_us * 1e6, (double)doc["time_ps"].Int()) << "and stopped before the end" << r;
}

}  // namespace
}  // namespace a2test
