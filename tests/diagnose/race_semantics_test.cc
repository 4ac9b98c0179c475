// Happens-before as docs/timing-model.md ("Races") defines it, on small
// hand-written kernels: which access pairs are races and which are ordered
// by notify/wait chains (put + notify, transitive chains, `set` replacing a
// cell's history, cores of one rank), and that a report names the
// overlapping bytes and the instructions by line.
#include <gtest/gtest.h>

#include <string>

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

// Runs `kernel` (the text of a trace file) at P=3 with --json.
Outcome RunKernel(const std::string &kernel, const std::string &name = "k.a2t") {
  TempDir dir;
  Outcome o;
  o.run = RunCli({"run", "--trace-file", dir.Write(name, kernel), "--ranks", "3", "--json"});
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
  Outcome o = RunKernel(k);
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
  Outcome o = RunKernel(std::string(kDecls) +
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
  Outcome o = RunKernel(std::string(kDecls) +
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
         "  notify sig@2[0] " + notify + "\n"
         "end\n"
         "program rank 2\n"
         "  wait sig[0] ge 5\n"
         "  remote_load t, data@0[0:64]\n"
         "end\n";
}

TEST(RaceSemantics, AddNotifyKeepsEarlierReleasesOfTheCell) {
  Outcome o = RunKernel(SetOrAdd("add 4"));
  EXPECT_EQ(o.status, "OK") << o.run;
  EXPECT_EQ(o.races, 0) << o.run;
}

TEST(RaceSemantics, SetNotifyReplacesTheCellsHistory) {
  Outcome o = RunKernel(SetOrAdd("set 5"));
  EXPECT_EQ(o.status, "RACE") << o.run;
  EXPECT_EQ(o.races, 1) << o.run;
  ASSERT_EQ(o.report.shown.size(), 1u) << o.run;
  EXPECT_EQ(o.report.shown[0].owner, 0);
  ASSERT_TRUE(o.report.shown[0].Read()) << o.run;
  EXPECT_EQ(o.report.shown[0].Read()->rank, 2);
  EXPECT_EQ(o.report.shown[0].Read()->op, "remote_load");
}

TEST(RaceSemantics, CoresOfOneRankRaceWithoutASignal) {
  Outcome o = RunKernel(
      "cores 2\n" + std::string(kDecls) +
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
  Outcome o = RunKernel(
      "cores 2\n" + std::string(kDecls) +
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
  Outcome o = RunKernel(std::string(kDecls) +
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
  Outcome o = RunKernel(std::string(kDecls) +
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

}  // namespace
}  // namespace a2test
