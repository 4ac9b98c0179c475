// The timeline (`run --timeline FILE`, docs/output.md "Timeline") of a
// P=4 two-phase all-reduce, parsed whole with yajl_tree: Chrome Trace Event
// structure, slice times in us agreeing with the integer picosecond args,
// flows pairing each notify with the wait it released, tracks that never
// overlap, names for every process and track, and utilisation counters and
// per-packet slices that add up to the `links`/`hbm` figures of --json.
// Then the timeline as a side effect: it leaves --json unchanged, is
// deterministic, is written for a deadlocked run too, a path in a missing
// directory is a usage error, and --trace, its deprecated name, warns. Everything is
// checked for both timing modes (interconnect.timing: packet and
// reservation).
#include <gtest/gtest.h>
#include <yajl/yajl_tree.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "diag_util.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace {

constexpr int kRanks = 4;

// ---- raw yajl access (a missing key is a null, checked by the caller) ----

yajl_val Key(yajl_val o, const char *k) {
  if (!YAJL_IS_OBJECT(o)) return nullptr;
  for (size_t i = 0; i < o->u.object.len; i++)
    if (!std::strcmp(o->u.object.keys[i], k)) return o->u.object.values[i];
  return nullptr;
}

bool IsInt(yajl_val v) {
  return YAJL_IS_INTEGER(v) && std::strpbrk(YAJL_GET_NUMBER(v), ".eE") == nullptr;
}

double Num(yajl_val v) {
  if (YAJL_IS_INTEGER(v)) return (double)YAJL_GET_INTEGER(v);
  if (YAJL_IS_DOUBLE(v)) return YAJL_GET_DOUBLE(v);
  return NAN;
}

std::string Str(yajl_val v) {
  return YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : "";
}

// A json value printed for failure messages (small values only).
std::string Show(yajl_val v) {
  if (!v) return "(missing)";
  if (YAJL_IS_STRING(v)) return std::string("\"") + YAJL_GET_STRING(v) + "\"";
  if (YAJL_IS_NUMBER(v)) return YAJL_GET_NUMBER(v);
  if (YAJL_IS_OBJECT(v)) {
    std::string s = "{";
    for (size_t i = 0; i < v->u.object.len; i++)
      s += std::string(i ? ", " : "") + v->u.object.keys[i] + ": " + Show(v->u.object.values[i]);
    return s + "}";
  }
  return "(value)";
}

int64_t UsToPs(double us) {
  return std::llround(us * 1e6);
}

using Track = std::pair<long long, long long>;  // (pid, tid)

struct Slice {
  Track track;
  std::string name;
  int64_t ts_ps, dur_ps;
  yajl_val args;
};

// ---- the run with a timeline, shared by the tests of one process (one per mode) ----

// The timing mode (interconnect.timing) a run uses, as --set flags.
std::vector<std::string> TimingFlags(const std::string &mode) {
  return {"--set", "interconnect.timing=" + mode};
}

struct TimelineRun {
  CliResult run;
  std::string text;
  JsonDoc timeline, json;
};

class Timeline : public ::testing::TestWithParam<const char *> {
 protected:
  void SetUp() override {
    // Owned by the map (freed at exit: LeakSanitizer runs this suite).
    static std::map<std::string, std::unique_ptr<TimelineRun>> runs;
    std::unique_ptr<TimelineRun> &t = runs[GetParam()];
    if (!t) {
      TempDir dir;
      const std::string path = dir.path() + "/two_phase.json";
      t = std::make_unique<TimelineRun>();
      t->run =
          RunCli(Args({"run", "--algo", "allreduce_two_phase", "--ranks", std::to_string(kRanks),
                       "--size", "64KiB", "--timeline", path, "--json"},
                      TimingFlags(GetParam())));
      t->text = diag::ReadFileOrFail(path);
      t->timeline = JsonDoc::Parse(t->text);
      t->json = JsonDoc::Parse(t->run.out);
    }
    run_ = &t->run;
    text_ = &t->text;
    timeline_ = &t->timeline;
    json_ = &t->json;
    ASSERT_EQ(run_->exit_code, 0) << *run_;
    ASSERT_TRUE(run_->err.empty()) << *run_;
    ASSERT_TRUE(json_->ok()) << json_->error() << *run_;
    ASSERT_FALSE(text_->empty()) << "no timeline written";
    ASSERT_TRUE(timeline_->ok()) << "the timeline is not JSON: " << timeline_->error();
    ASSERT_TRUE(YAJL_IS_OBJECT(timeline_->root().raw())) << "the timeline is not a JSON object";
    yajl_val ev = Key(timeline_->root().raw(), "traceEvents");
    ASSERT_TRUE(YAJL_IS_ARRAY(ev)) << "no traceEvents array";
    ASSERT_GT(ev->u.array.len, 0u);
  }

  std::vector<yajl_val> Events() const {
    yajl_val ev = Key(timeline_->root().raw(), "traceEvents");
    std::vector<yajl_val> v;
    for (size_t i = 0; i < ev->u.array.len; i++) v.push_back(ev->u.array.values[i]);
    return v;
  }
  std::vector<yajl_val> Events(const char *ph) const {
    std::vector<yajl_val> v;
    for (yajl_val e : Events())
      if (Str(Key(e, "ph")) == ph) v.push_back(e);
    return v;
  }
  static Track TrackOf(yajl_val e) {
    return {YAJL_GET_INTEGER(Key(e, "pid")), YAJL_GET_INTEGER(Key(e, "tid"))};
  }
  std::vector<Slice> Slices() const {
    std::vector<Slice> v;
    for (yajl_val e : Events("X")) {
      yajl_val a = Key(e, "args");
      v.push_back({TrackOf(e), Str(Key(e, "name")), YAJL_GET_INTEGER(Key(a, "ts_ps")),
                   YAJL_GET_INTEGER(Key(a, "dur_ps")), a});
    }
    return v;
  }
  // thread_name metadata: (pid, tid) -> name
  std::map<Track, std::string> ThreadNames() const {
    std::map<Track, std::string> m;
    for (yajl_val e : Events("M"))
      if (Str(Key(e, "name")) == "thread_name") m[TrackOf(e)] = Str(Key(Key(e, "args"), "name"));
    return m;
  }
  // The track of `pid` called `name`; (-1, -1) if there is none.
  Track Named(long long pid, const std::string &name) const {
    for (const auto &kv : ThreadNames())
      if (kv.first.first == pid && kv.second == name) return kv.first;
    return {-1, -1};
  }

  const std::string *text_ = nullptr;
  const CliResult *run_ = nullptr;
  const JsonDoc *timeline_ = nullptr, *json_ = nullptr;
};

INSTANTIATE_TEST_SUITE_P(Modes, Timeline, ::testing::Values("packet", "reservation"),
                         [](const ::testing::TestParamInfo<const char *> &i) {
                           return std::string(i.param);
                         });

TEST_P(Timeline, EveryEventHasPhasePidAndTid) {
  int bad = 0;
  for (yajl_val e : Events()) {
    bool ok = YAJL_IS_OBJECT(e) && !Str(Key(e, "ph")).empty() && IsInt(Key(e, "pid")) &&
              IsInt(Key(e, "tid"));
    if (!ok && bad++ < 5) ADD_FAILURE() << "event without ph/pid/tid: " << Show(e);
  }
  EXPECT_EQ(bad, 0);
}

TEST_P(Timeline, CompleteSlicesCarryTimesInUsAndIntegerPicoseconds) {
  std::vector<yajl_val> xs = Events("X");
  ASSERT_GT(xs.size(), 0u);
  int bad = 0;
  for (yajl_val e : xs) {
    yajl_val ts = Key(e, "ts"), dur = Key(e, "dur"), a = Key(e, "args");
    yajl_val ts_ps = Key(a, "ts_ps"), dur_ps = Key(a, "dur_ps");
    bool ok = YAJL_IS_NUMBER(ts) && YAJL_IS_NUMBER(dur) && IsInt(Key(e, "pid")) &&
              IsInt(Key(e, "tid")) && YAJL_IS_STRING(Key(e, "name")) && IsInt(ts_ps) &&
              IsInt(dur_ps) && YAJL_GET_INTEGER(ts_ps) >= 0 && YAJL_GET_INTEGER(dur_ps) >= 0 &&
              std::fabs(Num(ts) - YAJL_GET_INTEGER(ts_ps) / 1e6) <= 1e-6 &&
              std::fabs(Num(dur) - YAJL_GET_INTEGER(dur_ps) / 1e6) <= 1e-6;
    if (!ok && bad++ < 5) ADD_FAILURE() << "bad X slice: " << Show(e);
  }
  EXPECT_EQ(bad, 0) << "of " << xs.size() << " slices";
}

TEST_P(Timeline, SlicesOnOneTrackNeverOverlap) {
  std::map<Track, std::vector<std::pair<int64_t, int64_t>>> by_track;
  for (const Slice &s : Slices()) by_track[s.track].push_back({s.ts_ps, s.dur_ps});
  ASSERT_GT(by_track.size(), 1u);
  std::map<Track, std::string> names = ThreadNames();
  int overlaps = 0;
  for (auto &kv : by_track) {
    std::sort(kv.second.begin(), kv.second.end());
    for (size_t i = 1; i < kv.second.size(); i++) {
      const auto &prev = kv.second[i - 1], &cur = kv.second[i];
      if (cur.first < prev.first + prev.second && overlaps++ < 5)
        ADD_FAILURE() << "overlap on pid " << kv.first.first << " '" << names[kv.first] << "': ["
                      << prev.first << " +" << prev.second << ") and [" << cur.first << " +"
                      << cur.second << ")";
    }
  }
  EXPECT_EQ(overlaps, 0);
}

TEST_P(Timeline, EveryFlowHasOneStartAndOneFinishAndEveryRankTakesPart) {
  struct Ends {
    int s = 0, f = 0;
    int64_t s_ps = 0, f_ps = 0;
  };
  std::map<std::string, Ends> flows;
  std::set<long long> start_pids, finish_pids;
  for (yajl_val e : Events()) {
    const std::string ph = Str(Key(e, "ph"));
    if (ph != "s" && ph != "f") continue;
    yajl_val id = Key(e, "id");
    ASSERT_TRUE(YAJL_IS_NUMBER(id) || YAJL_IS_STRING(id)) << "flow event without id: " << Show(e);
    ASSERT_TRUE(YAJL_IS_NUMBER(Key(e, "ts"))) << Show(e);
    Ends &f = flows[YAJL_IS_NUMBER(id) ? YAJL_GET_NUMBER(id) : YAJL_GET_STRING(id)];
    const int64_t ps = UsToPs(Num(Key(e, "ts")));
    if (ph == "s") {
      f.s++;
      f.s_ps = ps;
      start_pids.insert(TrackOf(e).first);
    } else {
      f.f++;
      f.f_ps = ps;
      finish_pids.insert(TrackOf(e).first);
    }
  }
  ASSERT_FALSE(flows.empty()) << "no notify->wait flows";
  for (const auto &kv : flows) {
    EXPECT_EQ(kv.second.s, 1) << "flow " << kv.first;
    EXPECT_EQ(kv.second.f, 1) << "flow " << kv.first;
    EXPECT_GE(kv.second.f_ps, kv.second.s_ps) << "flow " << kv.first << " ends before it starts";
  }
  for (long long r = 0; r < kRanks; r++) {
    EXPECT_EQ(start_pids.count(r), 1u) << "no flow starts on rank " << r;
    EXPECT_EQ(finish_pids.count(r), 1u) << "no flow ends on rank " << r;
  }
}

// "Flow arrows join the notify that made a wait pass to that wait": a start
// lies inside a notify slice on its track whose peer is the finishing rank,
// and a finish is where a wait slice on its track ends.
TEST_P(Timeline, FlowsJoinANotifyToTheWaitItReleasedOnThePeer) {
  std::map<Track, std::vector<Slice>> by_track;
  for (const Slice &s : Slices()) by_track[s.track].push_back(s);
  std::map<std::string, yajl_val> starts, finishes;
  for (yajl_val e : Events()) {
    const std::string ph = Str(Key(e, "ph"));
    if (ph != "s" && ph != "f") continue;
    std::string id =
        YAJL_IS_NUMBER(Key(e, "id")) ? YAJL_GET_NUMBER(Key(e, "id")) : Str(Key(e, "id"));
    (ph == "s" ? starts : finishes)[id] = e;
  }
  ASSERT_FALSE(starts.empty());
  int bad = 0;
  for (const auto &kv : starts) {
    yajl_val s = kv.second;
    auto it = finishes.find(kv.first);
    if (it == finishes.end()) continue;  // reported by the pairing test
    yajl_val f = it->second;
    const int64_t s_ps = UsToPs(Num(Key(s, "ts"))), f_ps = UsToPs(Num(Key(f, "ts")));
    const long long f_rank = TrackOf(f).first;
    bool notify_ok = false, wait_ok = false;
    for (const Slice &x : by_track[TrackOf(s)])
      if (x.name == "notify" && x.ts_ps <= s_ps && s_ps <= x.ts_ps + x.dur_ps &&
          IsInt(Key(x.args, "peer")) && YAJL_GET_INTEGER(Key(x.args, "peer")) == f_rank)
        notify_ok = true;
    for (const Slice &x : by_track[TrackOf(f)])
      if (x.name == "wait" && x.ts_ps + x.dur_ps == f_ps) wait_ok = true;
    if ((!notify_ok || !wait_ok) && bad++ < 5)
      ADD_FAILURE() << "flow " << kv.first << ": start " << Show(s) << " finish " << Show(f)
                    << (notify_ok ? "" : ": no notify to the finishing rank around the start")
                    << (wait_ok ? "" : ": no wait ends at the finish");
  }
  EXPECT_EQ(bad, 0);
}

TEST_P(Timeline, EveryRankAndEveryUsedTrackIsNamed) {
  std::map<long long, std::string> procs;
  for (yajl_val e : Events("M"))
    if (Str(Key(e, "name")) == "process_name")
      procs[TrackOf(e).first] = Str(Key(Key(e, "args"), "name"));
  for (int r = 0; r < kRanks; r++)
    EXPECT_EQ(procs[r], "rank " + std::to_string(r) + " (npu " + std::to_string(r) + ")");
  std::map<Track, std::string> names = ThreadNames();
  std::set<Track> missing;
  for (const Slice &s : Slices())
    if (!names.count(s.track) || names[s.track].empty()) missing.insert(s.track);
  for (const Track &t : missing)
    ADD_FAILURE() << "X slices on pid " << t.first << " tid " << t.second << " without thread_name";
}

TEST_P(Timeline, TracksCoverLinkPortsHbmMteEnginesAndCorePipes) {
  std::map<Track, std::string> names = ThreadNames();
  std::set<Track> used;
  for (const Slice &s : Slices()) used.insert(s.track);
  auto has = [&](long long pid, const std::string &name) {
    Track t = Named(pid, name);
    return t.first >= 0 && used.count(t) > 0;
  };
  for (int r = 0; r < kRanks; r++) {
    SCOPED_TRACE("rank " + std::to_string(r));
    for (int p = 0; p < kRanks; p++)
      if (p != r) {
        std::string link = "link npu" + std::to_string(r) + "->npu" + std::to_string(p);
        EXPECT_TRUE(has(r, link)) << "no slices on '" << link << "' in rank " << r << "'s process";
      }
    for (const char *t : {"hbm", "mte_in core0", "mte_out core0", "core0 mte_in #0",
                          "core0 mte_out #0", "core0 vector #0", "core0 scalar #0", "core0 waits"})
      EXPECT_TRUE(has(r, t)) << "no slices on track '" << t << "'";
  }
}

// Per-packet slices on a link or HBM track add up to that port's bytes and
// busy time in --json.
TEST_P(Timeline, PacketSlicesAddUpToJsonLinkAndHbmFigures) {
  std::map<Track, std::pair<long long, long long>> sum;  // bytes, busy
  for (const Slice &s : Slices()) {
    yajl_val b = Key(s.args, "bytes");
    if (IsInt(b)) sum[s.track].first += YAJL_GET_INTEGER(b);
    sum[s.track].second += s.dur_ps;
  }
  JsonView links = (*json_)["links"];
  ASSERT_EQ(links.Size(), (size_t)kRanks * (kRanks - 1));
  for (size_t i = 0; i < links.Size(); i++) {
    long long from = links[i]["from"].Int(), to = links[i]["to"].Int();
    std::string name = "link npu" + std::to_string(from) + "->npu" + std::to_string(to);
    Track t = Named(from, name);
    ASSERT_GE(t.first, 0) << "no track " << name;
    EXPECT_EQ(sum[t].first, links[i]["bytes"].Int()) << name;
    EXPECT_EQ(sum[t].second, links[i]["busy_ps"].Int()) << name;
  }
  JsonView hbm = (*json_)["hbm"];
  ASSERT_EQ(hbm.Size(), (size_t)kRanks);
  for (size_t i = 0; i < hbm.Size(); i++) {
    Track t = Named(hbm[i]["rank"].Int(), "hbm");
    ASSERT_GE(t.first, 0);
    EXPECT_EQ(sum[t].first, hbm[i]["bytes"].Int()) << "hbm of rank " << i;
    EXPECT_EQ(sum[t].second, hbm[i]["busy_ps"].Int()) << "hbm of rank " << i;
  }
}

// Counters `util ...` give utilisation per 1 us window: each value is in
// [0, 1] and the step function integrates to the port's busy time.
TEST_P(Timeline, UtilisationCountersIntegrateToBusyTime) {
  std::map<std::pair<long long, std::string>, std::vector<std::pair<int64_t, double>>> series;
  for (yajl_val e : Events("C")) {
    const std::string name = Str(Key(e, "name"));
    yajl_val v = Key(Key(e, "args"), "value");
    ASSERT_TRUE(YAJL_IS_NUMBER(v) && YAJL_IS_NUMBER(Key(e, "ts"))) << Show(e);
    EXPECT_GE(Num(v), 0.0) << Show(e);
    EXPECT_LE(Num(v), 1.0) << Show(e);
    if (name.rfind("util ", 0) == 0)
      series[{TrackOf(e).first, name.substr(5)}].push_back({UsToPs(Num(Key(e, "ts"))), Num(v)});
  }
  ASSERT_FALSE(series.empty()) << "no 'util ...' counters";
  const long long time_ps = (*json_)["time_ps"].Int();
  // each window's value is printed to 4 decimals: 50 ps of busy time per window
  const double tolerance = 50.0 * (time_ps / 1000000 + 2) + 1;
  std::map<std::pair<long long, std::string>, long long> busy;
  JsonView links = (*json_)["links"];
  for (size_t i = 0; i < links.Size(); i++)
    busy[{links[i]["from"].Int(), "npu" + std::to_string(links[i]["from"].Int()) + "->npu" +
                                      std::to_string(links[i]["to"].Int())}] =
        links[i]["busy_ps"].Int();
  JsonView hbm = (*json_)["hbm"];
  for (size_t i = 0; i < hbm.Size(); i++)
    busy[{hbm[i]["rank"].Int(), "hbm"}] = hbm[i]["busy_ps"].Int();
  ASSERT_EQ(busy.size(), (size_t)kRanks * (kRanks - 1) + kRanks) << "12 links and 4 HBMs";
  for (const auto &kv : busy) {
    SCOPED_TRACE("util " + kv.first.second + " on pid " + std::to_string(kv.first.first));
    auto it = series.find(kv.first);
    ASSERT_NE(it, series.end()) << "no counter for a port that moved data";
    std::vector<std::pair<int64_t, double>> v = it->second;
    std::stable_sort(v.begin(), v.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    double integral = 0;
    for (size_t i = 0; i + 1 < v.size(); i++)
      integral += v[i].second * (v[i + 1].first - v[i].first);
    EXPECT_NEAR(integral, (double)kv.second, tolerance);
  }
}

// ---- the timeline as a side effect ----

class TimelineOutput : public ::testing::TestWithParam<const char *> {
 protected:
  std::vector<std::string> TwoPhase() const {
    return Args({"run", "--algo", "allreduce_two_phase", "--ranks", "4", "--size", "64KiB"},
                TimingFlags(GetParam()));
  }
};

INSTANTIATE_TEST_SUITE_P(Modes, TimelineOutput, ::testing::Values("packet", "reservation"),
                         [](const ::testing::TestParamInfo<const char *> &i) {
                           return std::string(i.param);
                         });

TEST_P(TimelineOutput, AddingATimelineLeavesJsonByteIdentical) {
  TempDir dir;
  JsonDoc plain, with;
  CliResult a, b;
  ASSERT_TRUE(RunJson(TwoPhase(), &plain, &a));
  ASSERT_TRUE(RunJson(Args(TwoPhase(), {"--timeline", dir.path() + "/t.json"}), &with, &b));
  EXPECT_EQ(a.out, b.out);
}

TEST_P(TimelineOutput, TwoRunsWriteByteIdenticalTimelines) {
  TempDir dir;
  for (const char *name : {"/one.json", "/two.json"}) {
    CliResult r = RunCli(Args(TwoPhase(), {"--timeline", dir.path() + name}));
    ASSERT_EQ(r.exit_code, 0) << r;
  }
  std::string one = diag::ReadFileOrFail(dir.path() + "/one.json");
  std::string two = diag::ReadFileOrFail(dir.path() + "/two.json");
  ASSERT_FALSE(one.empty());
  EXPECT_TRUE(one == two) << "the timelines differ (" << one.size() << " and " << two.size()
                          << " bytes)";
}

TEST_P(TimelineOutput, PathInAMissingDirectoryIsAUsageErrorNamingIt) {
  TempDir dir;
  const std::string path = dir.path() + "/no/such/dir/t.json";
  EXPECT_TRUE(RunFailsWithUsage(Args(TwoPhase(), {"--timeline", path}), {path}));
}

TEST_P(TimelineOutput, DeadlockedRunStillWritesACompleteTimeline) {
  TempDir dir;
  const std::string path = dir.path() + "/deadlock.json";
  CliResult r = RunCli(Args({"run", "--program", diag::Pitfall("wait_ge1_on_notify_0"), "--ranks",
                             "2", "--timeline", path},
                            TimingFlags(GetParam())));
  EXPECT_EQ(r.exit_code, 1) << r;
  JsonDoc doc = JsonDoc::Parse(diag::ReadFileOrFail(path));
  ASSERT_TRUE(doc.ok()) << doc.error();
  yajl_val ev = Key(doc.root().raw(), "traceEvents");
  ASSERT_TRUE(YAJL_IS_ARRAY(ev));
  int slices = 0;
  for (size_t i = 0; i < ev->u.array.len; i++)
    slices += Str(Key(ev->u.array.values[i], "ph")) == "X";
  EXPECT_GT(slices, 0) << "the work done before the hang is on the timeline";
}

// A deadlocked run is reported at the time it stopped: its last event, here
// the notifies landing on the peers (their slices end when they land), which
// may be after the last instruction a core completed. Pins a past failure:
// after a DEADLOCK under reservation timing the summary gave the time of the
// last completed instruction (0.233 us) although the notifies landed at
// 0.390 us.
TEST_P(TimelineOutput, DeadlockedRunReportsTheTimeItStopped) {
  TempDir dir;
  const std::string path = dir.path() + "/deadlock.json";
  CliResult r = RunCli(Args({"run", "--program", diag::Pitfall("wait_ge1_on_notify_0"), "--ranks",
                             "2", "--timeline", path, "--json"},
                            TimingFlags(GetParam())));
  EXPECT_EQ(r.exit_code, 1) << r;
  JsonDoc json = JsonDoc::Parse(r.out);
  ASSERT_TRUE(json.ok()) << json.error() << r;
  ASSERT_EQ(json["status"].Str(), "DEADLOCK") << r;
  const long long stopped = json["time_ps"].Int();
  JsonDoc doc = JsonDoc::Parse(diag::ReadFileOrFail(path));
  ASSERT_TRUE(doc.ok()) << doc.error();
  yajl_val ev = Key(doc.root().raw(), "traceEvents");
  ASSERT_TRUE(YAJL_IS_ARRAY(ev));
  int notifies = 0;
  long long landed = 0;
  for (size_t i = 0; i < ev->u.array.len; i++) {
    yajl_val e = ev->u.array.values[i], a = Key(e, "args");
    if (Str(Key(e, "ph")) != "X" || Str(Key(e, "name")) != "notify") continue;
    notifies++;
    landed = std::max(landed, (long long)(YAJL_GET_INTEGER(Key(a, "ts_ps")) +
                                          YAJL_GET_INTEGER(Key(a, "dur_ps"))));
  }
  EXPECT_EQ(notifies, 2) << "one notify per rank";
  EXPECT_GE(stopped, landed) << "the notifies landed at " << landed << " ps";
  long long last_done = 0;
  for (int q = 0; q < 2; q++) last_done = std::max(last_done, json["per_rank"][q]["time_ps"].Int());
  EXPECT_GE(stopped, last_done) << r;
  CliResult text =
      RunCli(Args({"run", "--program", diag::Pitfall("wait_ge1_on_notify_0"), "--ranks", "2"},
                  TimingFlags(GetParam())));
  char want[64];
  std::snprintf(want, sizeof want, "time %.3f us when stopped", (double)stopped / 1e6);
  EXPECT_NE(text.out.find(want), std::string::npos) << "expected '" << want << "'" << text;
}

// --trace FILE is the deprecated name of --timeline: the same file, and one
// warning on stderr naming the new flag (once, however often it is given).
TEST_P(TimelineOutput, DeprecatedTraceWarnsAndNamesTimeline) {
  TempDir dir;
  CliResult a = RunCli(Args(TwoPhase(), {"--timeline", dir.path() + "/a.json"}));
  CliResult b = RunCli(
      Args(TwoPhase(), {"--trace", dir.path() + "/x.json", "--trace", dir.path() + "/b.json"}));
  ASSERT_EQ(a.exit_code, 0) << a;
  ASSERT_EQ(b.exit_code, 0) << b;
  EXPECT_EQ(a.err, "") << a;
  EXPECT_EQ(b.err, "a2a3sim: warning: --trace is deprecated, use --timeline\n") << b;
  EXPECT_EQ(a.out, b.out);
  const std::string one = diag::ReadFileOrFail(dir.path() + "/a.json");
  ASSERT_FALSE(one.empty());
  EXPECT_TRUE(one == diag::ReadFileOrFail(dir.path() + "/b.json"));
}

TEST(TimelineFlag, HelpListsTheDeprecatedNames) {
  CliResult r = RunCli({"run", "--help"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find("--timeline FILE"), std::string::npos) << r;
  EXPECT_NE(r.out.find("--trace FILE       use --timeline FILE"), std::string::npos) << r;
  EXPECT_NE(r.out.find("--trace-file FILE  use --program FILE"), std::string::npos) << r;
}

// --trace-file FILE is the deprecated name of --program: the same run, and
// one warning naming the new flag.
TEST(ProgramFlag, DeprecatedTraceFileWarnsAndNamesProgram) {
  const std::string file = std::string(A2_SOURCE_DIR) + "/traces/examples/allreduce_ring.a2t";
  CliResult a = RunCli({"run", "--program", file, "--ranks", "4"});
  CliResult b = RunCli({"run", "--trace-file", file, "--ranks", "4"});
  ASSERT_EQ(a.exit_code, 0) << a;
  ASSERT_EQ(b.exit_code, 0) << b;
  EXPECT_EQ(a.err, "") << a;
  EXPECT_EQ(b.err, "a2a3sim: warning: --trace-file is deprecated, use --program\n") << b;
  EXPECT_EQ(a.out, b.out);
}

}  // namespace
}  // namespace a2test
