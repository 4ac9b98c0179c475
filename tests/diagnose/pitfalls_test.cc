// The tutorial pitfalls of traces/examples/pitfalls/, run end to end at P=2 and
// P=4: the two missing-synchronisation programs are reported as races naming
// the peer's read and the owner's write by trace line; the ring program with
// the C-style left neighbour is refused before anything runs, at the line of
// its first use; the wait on a cell that is only ever notified with 0 ends
// in a deadlock report naming every blocked wait; the races and the deadlock
// under both network timings. Expected line numbers are
// found by searching each file for its marked statement, never hard-coded.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "diag_util.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace {

using diag::LineOf;
using diag::ParseRaces;
using diag::Pitfall;
using diag::Race;
using diag::RaceReport;
using diag::ReadFileOrFail;

// ---- races ----

struct RaceCase {
  const char *file;          // pitfall name
  const char *buffer;        // the window the race is on
  const char *store_marker;  // text of the owner's racing store line
  const char *load_marker;   // text of the peer's racing remote_load line
  bool chunked;              // bytes [owner*256/P, (owner+1)*256/P) instead of [0, 256)
  uint32_t P;
  const char *timing;  // interconnect.timing
};

std::ostream &operator<<(std::ostream &os, const RaceCase &c) {
  return os << c.file << " P=" << c.P << " " << c.timing;
}

std::vector<std::string> Timing(const char *t) {
  return {"--set", std::string("interconnect.timing=") + t};
}

class PitfallRace : public ::testing::TestWithParam<RaceCase> {};

TEST_P(PitfallRace, ReportsPeerRemoteLoadAgainstOwnersStoreByTraceLine) {
  const RaceCase &c = GetParam();
  const std::string path = Pitfall(c.file);
  const std::string text = ReadFileOrFail(path);
  const int store_line = LineOf(text, c.store_marker);
  const int load_line = LineOf(text, c.load_marker);
  ASSERT_GT(store_line, 0);
  ASSERT_GT(load_line, 0);

  CliResult r = RunCli(
      Args({"run", "--program", path, "--ranks", std::to_string(c.P), "--json"}, Timing(c.timing)));
  ASSERT_EQ(r.exit_code, 1) << r;
  JsonDoc doc = JsonDoc::Parse(r.out);
  ASSERT_TRUE(doc.ok()) << doc.error() << r;
  // Reservation timing reads a load's source when the load is reserved, so
  // the racy reads may also get wrong data: the status is then FAIL, and the
  // race is reported all the same.
  const std::string status = doc["status"].Str();
  if (std::string(c.timing) == "packet")
    EXPECT_EQ(status, "RACE") << r;
  else
    EXPECT_TRUE(status == "RACE" || status == "FAIL") << r;
  EXPECT_FALSE(doc["ok"].Bool());
  EXPECT_TRUE(doc["race_check"]["checked"].Bool());
  const long long races = doc["race_check"]["races"].Int();
  EXPECT_GT(races, 0);
  // Every peer's read of every owner's window is unordered with the
  // owner's store: one pair per (reader, owner), reader != owner.
  EXPECT_EQ(races, (long long)c.P * (c.P - 1));

  RaceReport rep = ParseRaces(r.err);
  ASSERT_TRUE(rep.parsed) << "no race header on stderr" << r;
  EXPECT_EQ(rep.header_count, races) << r;
  EXPECT_TRUE(rep.unparsed.empty()) << "unexpected stderr line: " << rep.unparsed.front() << r;
  ASSERT_FALSE(rep.shown.empty()) << r;
  EXPECT_EQ((long long)rep.shown.size() + rep.more, races)
      << "shown + '... and K more' != races" << r;
  EXPECT_LE(rep.shown.size(), 8u);  // docs: at most a handful are spelled out

  std::set<std::pair<int, int>> pairs;  // (reader, owner)
  for (const Race &race : rep.shown) {
    SCOPED_TRACE("race on " + race.buf + "@rank" + std::to_string(race.owner));
    EXPECT_EQ(race.buf, c.buffer);
    EXPECT_GE(race.owner, 0);
    EXPECT_LT(race.owner, (int)c.P);
    const diag::Access *rd = race.Read(), *wr = race.Write();
    ASSERT_TRUE(rd && wr) << "a race here is one read and one write" << r;
    EXPECT_EQ(wr->rank, race.owner) << "the write is the owner's own store";
    EXPECT_EQ(wr->op, "store");
    EXPECT_EQ(wr->where, "line");
    EXPECT_EQ(wr->line, store_line);
    EXPECT_NE(rd->rank, race.owner) << "the read is a peer's";
    EXPECT_EQ(rd->op, "remote_load");
    EXPECT_EQ(rd->where, "line");
    EXPECT_EQ(rd->line, load_line);
    EXPECT_EQ(rd->core, 0);
    EXPECT_EQ(wr->core, 0);
    const uint64_t block = 256 / c.P;
    const uint64_t lo = c.chunked ? race.owner * block : 0, hi = c.chunked ? lo + block : 256;
    EXPECT_EQ(race.lo, lo);
    EXPECT_EQ(race.hi, hi);
    EXPECT_TRUE(pairs.insert({rd->rank, race.owner}).second)
        << "pair reported twice: reader " << rd->rank << ", owner " << race.owner;
  }
  if (c.P == 2) {
    std::set<std::pair<int, int>> want = {{0, 1}, {1, 0}};
    EXPECT_EQ(pairs, want) << r;
  }
}

std::vector<RaceCase> RaceCases() {
  std::vector<RaceCase> v;
  for (const char *t : {"packet", "reservation"})
    for (uint32_t P : {2u, 4u}) {
      v.push_back({"mesh_no_barrier", "data", "store acc, data[0:64]", "remote_load recv, data@",
                   false, P, t});
      v.push_back({"two_phase_one_signal_row", "result", "store acc, result[",
                   "remote_load recv, result@", true, P, t});
    }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Seeds, PitfallRace, ::testing::ValuesIn(RaceCases()),
                         [](const ::testing::TestParamInfo<RaceCase> &i) {
                           return std::string(i.param.file) + "_P" + std::to_string(i.param.P) +
                                  "_" + i.param.timing;
                         });

class PitfallNoRaceCheck : public ::testing::TestWithParam<const char *> {};

TEST_P(PitfallNoRaceCheck, FlagSkipsDetectionAndNeverReportsRace) {
  const std::string path = Pitfall(GetParam());
  CliResult r = RunCli({"run", "--program", path, "--ranks", "4", "--no-race-check", "--json"});
  JsonDoc doc = JsonDoc::Parse(r.out);
  ASSERT_TRUE(doc.ok()) << doc.error() << r;
  EXPECT_FALSE(doc["race_check"]["checked"].Bool());
  EXPECT_EQ(doc["race_check"]["races"].Int(), 0);
  const std::string status = doc["status"].Str();
  EXPECT_TRUE(status == "OK" || status == "FAIL") << "status " << status << r;
  EXPECT_EQ(r.exit_code, status == "OK" ? 0 : 1) << r;
  EXPECT_EQ(r.err.find("data race"), std::string::npos) << "no race report without the check" << r;
  EXPECT_EQ(r.err.find("race on "), std::string::npos) << "no race report without the check" << r;
}

INSTANTIATE_TEST_SUITE_P(Seeds, PitfallNoRaceCheck,
                         ::testing::Values("mesh_no_barrier", "two_phase_one_signal_row"));

// ---- the ring's left neighbour ----

class PitfallRingLeft : public ::testing::TestWithParam<uint32_t> {};

TEST_P(PitfallRingLeft, RefusedBeforeRunningAtFirstUseOfTheBadNeighbour) {
  const std::string path = Pitfall("ring_left_without_plus_p");
  const std::string text = ReadFileOrFail(path);
  const int line = LineOf(text, "wait sig[$s * $nranks + $left]");
  ASSERT_GT(line, 0);
  const std::string line_text = diag::Lines(text)[line - 1];

  for (bool json : {false, true}) {
    SCOPED_TRACE(json ? "--json" : "text");
    std::vector<std::string> args = {"run", "--program", path, "--ranks",
                                     std::to_string(GetParam())};
    if (json) args.push_back("--json");
    CliResult r = RunCli(args);
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_TRUE(r.out.empty()) << "refused before anything runs: nothing on stdout" << r;
    std::smatch m;
    static const std::regex shape(R"(^a2a3sim: (.*):(\d+):(\d+): error: (.+)\n$)");
    ASSERT_TRUE(std::regex_match(r.err, m, shape)) << "one FILE:LINE:COL error line" << r;
    EXPECT_EQ(m[1].str(), path);
    EXPECT_EQ(std::stoi(m[2]), line) << "the line of the first instruction using $left" << r;
    const int col = std::stoi(m[3]);
    EXPECT_GE(col, (int)line_text.find("wait") + 1) << r;
    EXPECT_LE(col, (int)line_text.size()) << r;
    EXPECT_NE(m[4].str().find("-1"), std::string::npos) << "names the bad value -1" << r;
    EXPECT_EQ(m[4].str().find("race"), std::string::npos) << "refused, not run" << r;
    EXPECT_EQ(m[4].str().find("deadlock"), std::string::npos) << "refused, not run" << r;
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, PitfallRingLeft, ::testing::Values(2u, 4u));

// ---- the wait for 1 on a cell notified with 0 ----

class PitfallNotifyZero : public ::testing::TestWithParam<std::tuple<uint32_t, const char *>> {
};  // P, timing

TEST_P(PitfallNotifyZero, DeadlockListsEveryRanksBlockedWaitCellAndValue) {
  const uint32_t P = std::get<0>(GetParam());
  const std::string path = Pitfall("wait_ge1_on_notify_0");
  const std::string text = ReadFileOrFail(path);
  const int line = LineOf(text, "wait sig[$left] ge 1");
  ASSERT_GT(line, 0);

  CliResult r = RunCli(Args({"run", "--program", path, "--ranks", std::to_string(P), "--json"},
                            Timing(std::get<1>(GetParam()))));
  EXPECT_EQ(r.exit_code, 1) << r;
  JsonDoc doc = JsonDoc::Parse(r.out);
  ASSERT_TRUE(doc.ok()) << doc.error() << r;
  EXPECT_EQ(doc["status"].Str(), "DEADLOCK") << r;
  EXPECT_FALSE(doc["ok"].Bool());
  EXPECT_EQ(doc["race_check"]["races"].Int(), 0) << "a hang is not a race";
  for (uint32_t rank = 0; rank < P; rank++) {
    EXPECT_EQ(doc["per_rank"][rank]["notifies"].Int(), 1);
    EXPECT_EQ(doc["per_rank"][rank]["waits"].Int(), 0) << "no wait was satisfied";
  }

  std::vector<std::string> lines = diag::Lines(r.err);
  ASSERT_FALSE(lines.empty()) << r;
  EXPECT_NE(lines[0].find("deadlock"), std::string::npos) << r;
  for (uint32_t rank = 0; rank < P; rank++) {
    const uint32_t left = (rank + P - 1) % P;
    const std::string want = "rank " + std::to_string(rank) + " core 0: blocked at line " +
                             std::to_string(line) + " (wait sig[" + std::to_string(left) +
                             "] ge 1): cell value is 0";
    int hits = 0;
    for (const std::string &l : lines) hits += l == want;
    EXPECT_EQ(hits, 1) << "expected the line '" << want << "'" << r;
  }
  // one header line plus one line per blocked core, nothing else
  EXPECT_EQ(lines.size(), (size_t)P + 1) << r;
}

INSTANTIATE_TEST_SUITE_P(Seeds, PitfallNotifyZero,
                         ::testing::Combine(::testing::Values(2u, 4u),
                                            ::testing::Values("packet", "reservation")),
                         [](const ::testing::TestParamInfo<PitfallNotifyZero::ParamType> &i) {
                           return "P" + std::to_string(std::get<0>(i.param)) + "_" +
                                  std::get<1>(i.param);
                         });

}  // namespace
}  // namespace a2test
