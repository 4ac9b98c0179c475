// End-to-end: `--set interconnect.timing=reservation` and `=ordered`
// (docs/config.md, noc/noc.h), each test under both. Every built-in
// collective still passes its golden check with its card; where nothing
// contends the simulated time (and every other figure of --json but the
// event kernel's activation count) is exactly that of packet timing; under
// contention the two stay within 10 %; runs are deterministic, traces
// included; timing-only runs take the same times as runs that move the
// data.
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "builtins.h"
#include "tests/support/files.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace {

const std::vector<std::string> kPacket = {"--set", "interconnect.timing=packet"};

// The two reservation timings every test here runs under.
const auto kModes = ::testing::Values("reservation", "ordered");
std::vector<std::string> Timing(const std::string &mode) {
  return {"--set", "interconnect.timing=" + mode};
}
// A test's name: its case, then the mode.
template <class T>
std::string Named(const std::string &what, const T &param) {
  return what + "_" + std::get<1>(param);
}

// Every number and boolean of --json except the event kernel's activation
// count (reservation timing has no process per stage: fewer activations).
std::map<std::string, std::string> Figures(const JsonDoc &d) {
  std::map<std::string, std::string> m = JsonScalars(d.root());
  m.erase("$.kernel_activations");
  return m;
}

// ---- every built-in collective, P = 8, with data ----

class ReservationCollective : public ::testing::TestWithParam<std::tuple<Builtin, const char *>> {};

TEST_P(ReservationCollective, PassesItsGoldenCheckWithItsCardAtP8) {
  const Builtin &l = std::get<0>(GetParam());
  const std::vector<std::string> flags = Timing(std::get<1>(GetParam()));
  const uint32_t P = 8;
  const uint64_t N = 64 * 1024;
  ASSERT_TRUE(Divisible(l, P, N));
  JsonDoc d;
  CliResult r;
  ASSERT_TRUE(RunJson(RunArgs(l.algo, P, N, flags), &d, &r));
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(d["ok"].Bool()) << r;
  EXPECT_EQ(d["status"].Str(), "OK") << r;
  EXPECT_EQ(d["mode"].Str(), "functional");
  EXPECT_EQ(d["check"]["mismatches"].Int(), 0);
  EXPECT_EQ(d["race_check"]["races"].Int(), 0);
  EXPECT_GT(d["time_ps"].Int(), 0);
  ASSERT_EQ(d["per_rank"].Size(), (size_t)P);
  for (uint32_t rank = 0; rank < P; rank++) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    EXPECT_EQ((uint64_t)d["per_rank"][rank]["remote_read_bytes"].Int(), l.read(P, N, rank, 0));
    EXPECT_EQ((uint64_t)d["per_rank"][rank]["remote_write_bytes"].Int(), l.write(P, N, rank, 0));
  }
  EXPECT_EQ((uint64_t)d["measured"]["barrier_rounds"].Int(), l.rounds(P));
}

INSTANTIATE_TEST_SUITE_P(All, ReservationCollective,
                         ::testing::Combine(::testing::ValuesIn(AllCollectives()), kModes),
                         [](const ::testing::TestParamInfo<ReservationCollective::ParamType> &i) {
                           return Named(std::get<0>(i.param).algo, i.param);
                         });

// The ring and the two-phase all-reduce over 16 ranks of the two-level
// cluster (two servers behind NICs and a switch).
class ReservationCluster : public ::testing::TestWithParam<std::tuple<const char *, const char *>> {
};

TEST_P(ReservationCluster, PassesItsGoldenCheckAtP16OnTheCluster) {
  JsonDoc d;
  CliResult r;
  ASSERT_TRUE(
      RunJson(Args(RunArgs(std::get<0>(GetParam()), 16, 1 << 20, Timing(std::get<1>(GetParam()))),
                   {"--config", "configs/a2-cluster.yaml"}),
              &d, &r));
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(d["ok"].Bool()) << r;
  EXPECT_EQ(d["topology"].Str(), "two_level");
  EXPECT_EQ(d["check"]["mismatches"].Int(), 0);
  EXPECT_EQ(d["ranks"].Int(), 16);
}

INSTANTIATE_TEST_SUITE_P(
    AllReduce, ReservationCluster,
    ::testing::Combine(::testing::Values("allreduce_ring", "allreduce_two_phase"), kModes),
    [](const ::testing::TestParamInfo<ReservationCluster::ParamType> &i) {
      return Named(std::get<0>(i.param), i.param);
    });

// ---- no contention: the same numbers as packet timing ----

struct Uncontended {
  const char *algo;
  uint64_t N;
};

class ReservationUncontended
    : public ::testing::TestWithParam<std::tuple<Uncontended, const char *>> {};

// Two ranks with every resource but the links effectively free (the
// closed-form configuration of tests/cli): each link carries one flow at a
// time, so nothing ever waits for anything and both modes must agree to
// the picosecond, and with the closed form.
TEST_P(ReservationUncontended, TwoRanksGiveTheSameFiguresAsPacketTiming) {
  const Uncontended &c = std::get<0>(GetParam());
  const std::vector<std::string> flags = Timing(std::get<1>(GetParam()));
  JsonDoc pk, rs;
  ASSERT_TRUE(RunJson(Args(RunArgs(c.algo, 2, c.N, UncontendedFlags()), kPacket), &pk));
  ASSERT_TRUE(RunJson(Args(RunArgs(c.algo, 2, c.N, UncontendedFlags()), flags), &rs));
  EXPECT_TRUE(rs["ok"].Bool());
  EXPECT_EQ(rs["time_ps"].Int(), pk["time_ps"].Int());
  EXPECT_EQ(Figures(rs), Figures(pk));
  const long long analytic = rs["analytic"]["time_ps"].Int();
  ASSERT_GT(analytic, 0);
  EXPECT_LE(std::fabs((double)rs["time_ps"].Int() / (double)analytic - 1), 0.001);
}

INSTANTIATE_TEST_SUITE_P(
    P2, ReservationUncontended,
    ::testing::Combine(::testing::Values(Uncontended{"allreduce_mesh", 256},
                                         Uncontended{"allreduce_mesh", 4096},
                                         Uncontended{"allreduce_mesh", 65536},
                                         Uncontended{"allreduce_two_phase", 256},
                                         Uncontended{"allreduce_two_phase", 65536}),
                       kModes),
    [](const ::testing::TestParamInfo<ReservationUncontended::ParamType> &i) {
      const Uncontended &c = std::get<0>(i.param);
      return Named(std::string(c.algo) + "_" + std::to_string(c.N), i.param);
    });

// One primitive alone on the default config (rank 0 acts, rank 1 waits if
// at all): remote_load, remote_store, notify -> wait, put, get.
struct Primitive {
  const char *name;
  const char *program;  // rank 0's instructions (rank 1's when it says so)
};

class ReservationPrimitive : public ::testing::TestWithParam<std::tuple<Primitive, const char *>> {
};

TEST_P(ReservationPrimitive, AloneTakesTheSameTimeAsWithPacketTiming) {
  const Primitive &p = std::get<0>(GetParam());
  const std::vector<std::string> flags = Timing(std::get<1>(GetParam()));
  TempDir dir;
  const std::string file = dir.Write("one.a2t", std::string("tensor x fp32[16384] = pattern\n"
                                                            "window data fp32[16384]\n"
                                                            "signal sig[2]\n"
                                                            "tile t fp32[16384]\n") +
                                                    p.program);
  const std::vector<std::string> args = {"run", "--program", file, "--ranks", "2"};
  JsonDoc pk, rs, quick;
  ASSERT_TRUE(RunJson(Args(args, kPacket), &pk));
  ASSERT_TRUE(RunJson(Args(args, flags), &rs));
  EXPECT_GT(rs["time_ps"].Int(), 0);
  EXPECT_EQ(rs["time_ps"].Int(), pk["time_ps"].Int());
  EXPECT_EQ(Figures(rs), Figures(pk));
  // Without race checking a notify lands by a shorter way (model/transfer.c,
  // a2_notify_land): the same times.
  ASSERT_TRUE(RunJson(Args(Args(args, flags), {"--no-race-check"}), &quick));
  EXPECT_EQ(quick["time_ps"].Int(), pk["time_ps"].Int());
  EXPECT_EQ(quick["per_rank"][(size_t)0]["time_ps"].Int(),
            pk["per_rank"][(size_t)0]["time_ps"].Int());
  EXPECT_EQ(quick["per_rank"][(size_t)1]["time_ps"].Int(),
            pk["per_rank"][(size_t)1]["time_ps"].Int());
}

INSTANTIATE_TEST_SUITE_P(
    DefaultConfig, ReservationPrimitive,
    ::testing::Combine(
        ::testing::Values(
            Primitive{"RemoteLoad", "program rank 0\n  remote_load t, data@1[0:16384]\nend\n"},
            Primitive{
                "RemoteStore",
                "program rank 0\n  load t, x[0:16384]\n  remote_store t, data@1[0:16384]\nend\n"},
            Primitive{"NotifyWait",
                      "program rank 0\n  notify sig@1[0] add 1\nend\n"
                      "program rank 1\n  wait sig[0] ge 1\nend\n"},
            // started ahead (it drains the load first), it lands at its time,
            // not when it is reserved: the wait holds the compute until then
            Primitive{"NotifyOwnRankAfterALoad",
                      "program rank 0\n  load t, x[0:16384]\n"
                      "  notify sig@0[0] add 1\n  wait sig[0] ge 1\n"
                      "  compute 1000\nend\n"},
            Primitive{"Put", "program rank 0\n  put data@1[0:16384], x[0] chunk 4096\nend\n"},
            Primitive{"Get", "program rank 0\n  get x[0:16384], data@1[0] chunk 4096\nend\n"}),
        kModes),
    [](const ::testing::TestParamInfo<ReservationPrimitive::ParamType> &i) {
      return Named(std::get<0>(i.param).name, i.param);
    });

// The tests below take only the mode.
class ReservationMode : public ::testing::TestWithParam<const char *> {
 protected:
  std::vector<std::string> flags() const { return Timing(GetParam()); }
};

// A lone remote_load of 64 KiB matches the closed form exactly:
//   ctrl + T_pipe(n; hbm, link, mte_in), ctrl = S_link(64) + lat_link.
TEST_P(ReservationMode, LoneRemoteLoadIsCtrlPlusTPipe) {
  const std::vector<std::string> flags = this->flags();
  TempDir dir;
  const std::string file = dir.Write("rl.a2t",
                                     "window data fp32[16384]\n"
                                     "tile t fp32[16384]\n"
                                     "program rank 0\n  remote_load t, data@1[0:16384]\nend\n");
  JsonDoc d;
  ASSERT_TRUE(RunJson(Args({"run", "--program", file, "--ranks", "2"}, flags), &d));
  auto ser = [](uint64_t n, double bw) { return (uint64_t)std::ceil(n * 1e12 / bw - 1e-9); };
  const double hbm = 1.6e12, link = 28e9, mte_in = 230.4e9;
  const uint64_t hbm_lat = 115000, link_lat = 155000; /* configs/a2-8p-hccs.yaml */
  const uint64_t ctrl = ser(64, link) + link_lat;
  const uint64_t pipe = ser(4096, hbm) + hbm_lat + ser(4096, link) + link_lat + ser(4096, mte_in) +
                        15 * ser(4096, link);
  EXPECT_EQ((uint64_t)d["time_ps"].Int(), ctrl + pipe);
}

// A load and a store of 1 MiB (256 packets) are reserved in steps of 16
// packets (noc/noc.h): alone they take the times of packet timing, and the
// bytes they move are checked (a copy: the broadcast golden on one rank).
TEST_P(ReservationMode, ALongLoadAndStoreTakePacketTimesAndMoveTheData) {
  const std::vector<std::string> flags = this->flags();
  TempDir dir;
  const std::string file = dir.Write("copy.a2t",
                                     "ranks 1\n"
                                     "tensor x fp32[262144] = pattern\n"
                                     "tensor y fp32[262144]\n"
                                     "tile t fp32[262144]\n"
                                     "golden broadcast 0 x -> y 262144\n"
                                     "program rank 0\n"
                                     "  load t, x[0:262144]\n"
                                     "  store t, y[0:262144]\n"
                                     "end\n");
  const std::vector<std::string> args = {"run",   "--program",        file, "--ranks", "1",
                                         "--set", "chip.ub_size=1MiB"};
  JsonDoc pk, rs;
  ASSERT_TRUE(RunJson(Args(args, kPacket), &pk));
  ASSERT_TRUE(RunJson(Args(args, flags), &rs));
  EXPECT_TRUE(pk["ok"].Bool());
  EXPECT_TRUE(rs["ok"].Bool());
  EXPECT_GT(rs["time_ps"].Int(), 0);
  EXPECT_EQ(rs["time_ps"].Int(), pk["time_ps"].Int());
  EXPECT_EQ(Figures(rs), Figures(pk));
}

// A local copy far longer than the 64-instruction window. Under reservation
// timing the core retires a full window's oldest instruction ahead, for the
// time it completes (model/core.c, retire_ahead), instead of sleeping until
// then. A wait makes it read the signal at the time dispatch has reached,
// that is, sleep until then: with a (trivially satisfied) wait after every
// pair the core wakes at each step as it would without retiring ahead. The
// times must be the same, the activations far fewer without the waits.
TEST_P(ReservationMode, RetiringAheadGivesTheTimesOfWakingWithFewActivations) {
  const std::vector<std::string> flags = this->flags();
  const std::string head =
      "tensor x fp32[262144] = pattern\n"
      "window w fp32[262144]\n"
      "signal sig[1]\n"
      "tile a fp32[1024]\n"
      "tile b fp32[1024]\n"
      "program rank 0\n";
  std::string plain = head, waits = head;
  for (int i = 0; i < 256; i++) {
    const std::string t = i % 2 ? "b" : "a", at = "[" + std::to_string(i * 1024) + ":1024]";
    const std::string pair = "  load " + t + ", x" + at + "\n  store " + t + ", w" + at + "\n";
    plain += pair;
    waits += pair + "  wait sig[0] eq 0\n";
  }
  plain += "end\n";
  waits += "end\n";
  TempDir dir;
  JsonDoc p, w;
  ASSERT_TRUE(RunJson(
      Args({"run", "--program", dir.Write("plain.a2t", plain), "--ranks", "1"}, flags), &p));
  ASSERT_TRUE(RunJson(
      Args({"run", "--program", dir.Write("waits.a2t", waits), "--ranks", "1"}, flags), &w));
  EXPECT_GT(p["time_ps"].Int(), 0);
  EXPECT_EQ(p["time_ps"].Int(), w["time_ps"].Int());
  EXPECT_LE(p["kernel_activations"].Int(), 16);   // 512 instructions, a window per activation
  EXPECT_GE(w["kernel_activations"].Int(), 200);  // about one per pair
}

INSTANTIATE_TEST_SUITE_P(Modes, ReservationMode, kModes,
                         [](const ::testing::TestParamInfo<const char *> &i) {
                           return std::string(i.param);
                         });

// ---- ordered timing: a remote load's reply is reserved when its request arrives ----

// Runs args under packet and ordered timing; every one of the ranks ranks
// ends at packet timing's time under ordered. *od: the ordered run.
void ExpectOrderedIsPacketTimingPerRank(const std::vector<std::string> &args, size_t ranks,
                                        JsonDoc *od) {
  JsonDoc pk;
  ASSERT_TRUE(RunJson(Args(args, kPacket), &pk));
  ASSERT_TRUE(RunJson(Args(args, Timing("ordered")), od));
  ASSERT_EQ((*od)["per_rank"].Size(), ranks);
  for (size_t r = 0; r < ranks; r++)
    EXPECT_EQ((*od)["per_rank"][r]["time_ps"].Int(), pk["per_rank"][r]["time_ps"].Int())
        << "rank " << r;
}

// The program with DELAY replaced by delay, run with args (its file
// appended after --program): ordered timing gives packet timing's time on
// every one of the ranks, and rank `early` ends before rank `late`.
void ExpectOrderedIsPacketTimingAndEndsFirst(std::string program, const char *delay,
                                             const std::vector<std::string> &args, size_t ranks,
                                             size_t early, size_t late) {
  SCOPED_TRACE(delay);
  TempDir dir;
  program.replace(program.find("DELAY"), 5, delay);
  std::vector<std::string> a = {"run", "--program", dir.Write("delay.a2t", program), "--ranks",
                                std::to_string(ranks)};
  a.insert(a.end(), args.begin(), args.end());
  JsonDoc od;
  ASSERT_NO_FATAL_FAILURE(ExpectOrderedIsPacketTimingPerRank(a, ranks, &od));
  EXPECT_LT(od["per_rank"][early]["time_ps"].Int(), od["per_rank"][late]["time_ps"].Int());
}

// Under ordered timing a remote load's reply is held until its request
// reaches the peer's HBM (model/transfer.c, a2_replies_reserve). Rank 1's
// own load, started after rank 0's request (behind a vector op) but at its
// HBM before the request, then goes first there, as under packet timing;
// reserved when the request starts, the reply would have held the HBM
// ahead of it. With the HBM slow enough for the two to meet, every rank's
// time is packet timing's.
TEST(OrderedHeldReplies, APeersOwnLoadThatReachesItsHbmFirstGoesFirst) {
  TempDir dir;
  const std::string file = dir.Write("meet.a2t",
                                     "window data fp32[16384]\n"
                                     "tensor x fp32[2048] = pattern\n"
                                     "tile t fp32[16384]\n"
                                     "tile u fp32[2048]\n"
                                     "program rank 0\n"
                                     "  remote_load t, data@1[0:16384]\n"
                                     "end\n"
                                     "program rank 1\n"
                                     "  vadd u, u, u, 2048\n"
                                     "  load u, x[0:2048]\n"
                                     "end\n");
  for (const char *hbm : {"60GB/s", "40GB/s"}) {
    SCOPED_TRACE(hbm);
    const std::vector<std::string> args = {"run",
                                           "--program",
                                           file,
                                           "--ranks",
                                           "2",
                                           "--set",
                                           std::string("chip.hbm.bandwidth=") + hbm};
    JsonDoc od;
    ASSERT_NO_FATAL_FAILURE(ExpectOrderedIsPacketTimingPerRank(args, 2, &od));
    // the load is the short one: it did not wait behind the 64 KiB reply
    EXPECT_LT(od["per_rank"][(size_t)1]["time_ps"].Int(),
              od["per_rank"][(size_t)0]["time_ps"].Int() / 4);
  }
}

// Rank 0's request reaches rank 2's HBM first, so the hold is due then; rank
// 1's, started before that (behind a vector op), arrives later. Rank 2's own
// load reaches its HBM in between. Over a link of its own (the full mesh),
// rank 1's reply is reserved only when its request arrives, so the load
// goes first at the HBM, as under packet timing; reserved with rank 0's,
// the reply would have held the HBM ahead of the load.
TEST(OrderedHeldReplies, AReplyOverALinkOfItsOwnWaitsForItsRequest) {
  const std::string program =
      "window data fp32[1024]\n"
      "tensor x fp32[1024] = pattern\n"
      "tile t fp32[1024]\n"
      "tile v fp32[8192]\n"
      "tile w fp32[16384]\n"
      "program rank 0\n"
      "  remote_load t, data@2[0:1024]\n"
      "end\n"
      "program rank 1\n"
      "  vadd v, v, v, 7168\n"
      "  remote_load v, data@2[0:1024]\n"
      "end\n"
      "program rank 2\n"
      "  vadd w, w, w, DELAY\n"
      "  load w, x[0:1024]\n"
      "end\n";
  // the load went first: rank 2 ends before rank 1's reply is in
  for (const char *delay : {"13312", "14336"})  // rank 2's vector op: elements
    ExpectOrderedIsPacketTimingAndEndsFirst(program, delay, {"--set", "chip.hbm.bandwidth=40GB/s"},
                                            3, 2, 1);
}

// The same meeting across a switch, where a reply's route is shared: with
// one core a rank rank 1's reply would be reserved with rank 0's, ahead of
// rank 2's own load (rank 2 then ends 127-164 ns later than under packet
// timing). With several cores a rank every reply waits for its request, so
// the load goes first and every rank's time is packet timing's.
TEST(OrderedHeldReplies, WithSeveralCoresARankAReplyAcrossASwitchWaitsForItsRequest) {
  const std::string program =
      "cores 2\n"
      "window data fp32[1024]\n"
      "tensor x fp32[1024] = pattern\n"
      "tile t fp32[1024]\n"
      "tile v fp32[16384]\n"
      "tile w fp32[16384]\n"
      "program rank 0 core 0\n"
      "  remote_load t, data@2[0:1024]\n"
      "end\n"
      "program rank 1 core 0\n"
      "  vadd v, v, v, 8192\n"
      "  remote_load v, data@2[0:1024]\n"
      "end\n"
      "program rank 2 core 0\n"
      "  vadd w, w, w, 16384\n"
      "  vadd w, w, w, DELAY\n"
      "  load w, x[0:1024]\n"
      "end\n"
      "program rank 0 core 1\nend\n"
      "program rank 1 core 1\nend\n"
      "program rank 2 core 1\nend\n";
  for (const char *delay : {"8192", "12288"})  // rank 2's second vector op: elements
    ExpectOrderedIsPacketTimingAndEndsFirst(
        program, delay,
        {"--set", "interconnect.topology=switch", "--set", "chip.hbm.bandwidth=40GB/s"}, 3, 2, 1);
}

// Rank 0's first reply keeps the link from rank 1 busy; its second is
// requested later. Rank 1, which has read from rank 0 before (a request over
// that link), sends its next request after a vector op: it reaches the link
// after rank 0's second request reached rank 1's HBM but before the reply's
// first packet reaches the link. Packet timing serves it between the two
// replies. Reserved in two legs, the second reply takes the link only when
// its first packet arrives, so ordered timing does too; reserved whole when
// its request arrived, the reply would have held the link ahead of the
// request (rank 1 then ends 1.2 us later).
TEST(OrderedHeldReplies, ARequestThatReachesTheLinkBeforeAReplyGoesFirst) {
  const std::string program =
      "window data fp32[16384]\n"
      "tile t fp32[8192]\n"
      "tile w fp32[8192]\n"
      "tile a fp32[1024]\n"
      "tile u fp32[16384]\n"
      "program rank 0\n"
      "  remote_load t, data@1[0:8192]\n"
      "  vadd w, w, w, 8192\n"
      "  vadd w, w, w, 8192\n"
      "  vadd w, w, w, 8192\n"
      "  vadd w, w, w, 8192\n"
      "  remote_load w, data@1[0:8192]\n"
      "end\n"
      "program rank 1\n"
      "  remote_load a, data@0[0:1024]\n"
      "  vadd u, u, u, 16384\n"
      "  vadd u, u, u, 14336\n"
      "  vadd u, u, u, DELAY\n"
      "  remote_load u, data@0[0:1024]\n"
      "end\n";
  // the request went between the replies: rank 1 ends before rank 0
  for (const char *delay : {"12288", "14336"})  // rank 1's last vector op: elements
    ExpectOrderedIsPacketTimingAndEndsFirst(program, delay, {}, 2, 1, 0);
}

// With several cores a rank, across a switch: rank 0's two cores read four
// one-packet pieces each from ranks 2 and 3, whose replies meet on the
// switch's link to rank 0, one packet every 146 ns from each. Rank 1's
// request to rank 0, started after a delay, reaches that link between them.
// Packet timing serves it before the replies that reach the link after it.
// Reserved a link at a time (each leg when its packet reaches the link),
// requests and replies take the link in order of arrival there, so ordered
// timing does too; reserved through every link ahead, the replies took the
// link first and rank 1 ended 1.0 us later, after rank 0.
TEST(OrderedHeldReplies, AcrossASwitchRequestsAndRepliesTakeALinkInOrderOfArrival) {
  std::string program =
      "cores 2\n"
      "window data fp32[4096]\n"
      "tile v fp32[64]\n";
  for (int i = 0; i < 4; i++)
    program +=
        "tile t" + std::to_string(i) + " fp32[1024]\ntile u" + std::to_string(i) + " fp32[1024]\n";
  for (int c = 0; c < 2; c++) { /* core c of rank 0 reads from rank 2 + c */
    program += "program rank 0 core " + std::to_string(c) + "\n";
    for (int i = 0; i < 4; i++)
      program += std::string("  remote_load ") + (c ? "u" : "t") + std::to_string(i) + ", data@" +
                 std::to_string(2 + c) + "[" + std::to_string(i * 1024) + ":1024]\n";
    program += "end\n";
  }
  program +=
      "program rank 1 core 0\n"
      "  compute DELAY\n"
      "  vadd v, v, v, 64\n"
      "  remote_load v, data@0[0:64]\n"
      "end\n"
      "program rank 1 core 1\nend\n"
      "program rank 2 core 0\nend\n"
      "program rank 2 core 1\nend\n"
      "program rank 3 core 0\nend\n"
      "program rank 3 core 1\nend\n";
  for (const char *delay : {"1200", "1400"})  // rank 1's delay: cycles
    ExpectOrderedIsPacketTimingAndEndsFirst(program, delay,
                                            {"--set", "interconnect.topology=switch"}, 4, 1, 0);
}

// ---- contention: close to packet timing ----

class ReservationContended
    : public ::testing::TestWithParam<std::tuple<const char *, const char *>> {};

TEST_P(ReservationContended, WithinTenPercentOfPacketTimingAtP8With1MiB) {
  const char *algo = std::get<0>(GetParam()), *mode = std::get<1>(GetParam());
  JsonDoc pk, rs;
  ASSERT_TRUE(RunJson(RunArgs(algo, 8, 1 << 20, kPacket), &pk));
  ASSERT_TRUE(RunJson(RunArgs(algo, 8, 1 << 20, Timing(mode)), &rs));
  EXPECT_TRUE(rs["ok"].Bool());
  const double p = (double)pk["time_ps"].Int(), r = (double)rs["time_ps"].Int();
  std::cout << algo << " P=8 1 MiB: packet " << (long long)p << " ps, " << mode << " "
            << (long long)r << " ps (" << (r / p - 1) * 100 << " %)\n";
  RecordProperty("packet_ps", std::to_string((long long)p));
  RecordProperty("reservation_ps", std::to_string((long long)r));
  ASSERT_GT(p, 0);
  EXPECT_LE(std::fabs(r / p - 1), 0.10);
}

INSTANTIATE_TEST_SUITE_P(
    AllReduce, ReservationContended,
    ::testing::Combine(::testing::Values("allreduce_mesh", "allreduce_two_phase", "allreduce_ring"),
                       kModes),
    [](const ::testing::TestParamInfo<ReservationContended::ParamType> &i) {
      return Named(std::get<0>(i.param), i.param);
    });

// ---- ordered timing where routes relay: remote loads in order of arrival ----

// On a ring or a torus a remote load's request and reply are reserved
// link by link as they reach each link (noc.h, a2_xfer_start_arrival).
// The mesh and the two-phase all-reduce still pass their golden check
// with their card's bytes, and twice give identical figures and
// timelines.
class OrderedRelays : public ::testing::TestWithParam<std::tuple<const char *, const char *>> {};

TEST_P(OrderedRelays, PassesItsGoldenCheckAndRepeatsItself) {
  const auto &[algo, config] = GetParam();
  const uint32_t P = std::string(config) == "configs/torus-4x4.yaml" ? 16 : 8;
  TempDir dir;
  JsonDoc d[2];
  std::string timeline[2];
  for (int i = 0; i < 2; i++) {
    CliResult r;
    std::string tl = dir.path() + "/t" + std::to_string(i) + ".json";
    ASSERT_TRUE(RunJson(Args(RunArgs(algo, P, 64 * 1024, Timing("ordered")),
                             {"--config", config, "--timeline", tl}),
                        &d[i], &r));
    EXPECT_EQ(r.exit_code, 0) << r;
    EXPECT_EQ(d[i]["check"]["mismatches"].Int(), 0);
    EXPECT_EQ(d[i]["race_check"]["races"].Int(), 0);
    timeline[i] = ReadFileOrFail(tl);
  }
  EXPECT_EQ(Figures(d[0]), Figures(d[1]));
  EXPECT_FALSE(timeline[0].empty());
  EXPECT_TRUE(timeline[0] == timeline[1]) << "the timelines differ";
}

INSTANTIATE_TEST_SUITE_P(
    RingAndTorus, OrderedRelays,
    ::testing::Combine(::testing::Values("allreduce_mesh", "allreduce_two_phase"),
                       ::testing::Values("configs/ring-8.yaml", "configs/torus-4x4.yaml")),
    [](const ::testing::TestParamInfo<OrderedRelays::ParamType> &i) {
      std::string c = std::get<1>(i.param);
      return std::string(std::get<0>(i.param)) + "_" +
             (c.find("torus") != std::string::npos ? "torus" : "ring");
    });

// A program in dir whose every rank stages 16 KiB in its window and reads
// it back from rank `peer` (an expression) with one remote load.
std::string OneRemoteLoad(TempDir &dir, const std::string &peer) {
  return dir.Write("one.a2t",
                   "tensor x fp32[4096] = pattern\n"
                   "window data fp32[4096]\n"
                   "tile acc fp32[4096]\n"
                   "tile recv fp32[4096]\n"
                   "program\n"
                   "  load acc, x[0:4096]\n"
                   "  store acc, data[0:4096]\n"
                   "  remote_load recv, data@" +
                       peer +
                       "[0:4096]\n"
                       "end\n");
}

// A remote load from the core's own rank crosses no link: its request is
// there at once, and its reply takes packet timing's time on every rank.
TEST(OrderedRelays, ARemoteLoadFromItsOwnRankTakesPacketTimingsTime) {
  TempDir dir;
  JsonDoc od;
  ASSERT_NO_FATAL_FAILURE(
      ExpectOrderedIsPacketTimingPerRank({"run", "--program", OneRemoteLoad(dir, "$rank"),
                                          "--ranks", "8", "--config", "configs/ring-8.yaml"},
                                         8, &od));
  EXPECT_TRUE(od["ok"].Bool());
}

// With start jitter (--jitter) both legs of a remote load are delayed, the
// request and the reply, as under packet timing: two hops round a ring,
// without contention, every rank ends at packet timing's time.
TEST(OrderedRelays, JitterDelaysTheRequestAndTheReplyAsUnderPacketTiming) {
  TempDir dir;
  JsonDoc od;
  ASSERT_NO_FATAL_FAILURE(ExpectOrderedIsPacketTimingPerRank(
      {"run", "--program", OneRemoteLoad(dir, "($rank + 2) % $nranks"), "--ranks", "8", "--config",
       "configs/ring-8.yaml", "--jitter", "100ns", "--no-race-check"},
      8, &od));
}

// ---- determinism and timing-only runs ----

class ReservationRepeat : public ::testing::TestWithParam<std::tuple<const char *, const char *>> {
 protected:
  const char *algo() const { return std::get<0>(GetParam()); }
  std::vector<std::string> timing() const { return Timing(std::get<1>(GetParam())); }
};

TEST_P(ReservationRepeat, TwoRunsPrintIdenticalJsonAndWriteIdenticalTimelines) {
  const std::vector<std::string> flags = timing();
  TempDir dir;
  std::vector<CliResult> runs;
  for (const char *name : {"/one.json", "/two.json"}) {
    runs.push_back(RunCli(
        Args(RunArgs(algo(), 8, 64 * 1024, flags), {"--json", "--timeline", dir.path() + name})));
    ASSERT_EQ(runs.back().exit_code, 0) << runs.back();
  }
  EXPECT_EQ(runs[0].out, runs[1].out);
  EXPECT_EQ(runs[0].err, runs[1].err);
  const std::string one = ReadFileOrFail(dir.path() + "/one.json");
  const std::string two = ReadFileOrFail(dir.path() + "/two.json");
  ASSERT_FALSE(one.empty());
  EXPECT_TRUE(one == two) << "the timelines differ (" << one.size() << " and " << two.size()
                          << " bytes)";
  CliResult text1 = RunCli(RunArgs(algo(), 8, 64 * 1024, flags));
  CliResult text2 = RunCli(RunArgs(algo(), 8, 64 * 1024, flags));
  ASSERT_EQ(text1.exit_code, 0) << text1;
  EXPECT_EQ(text1.out, text2.out);
}

TEST_P(ReservationRepeat, NoDataGivesTheSameTimesAsWithData) {
  const std::vector<std::string> flags = timing();
  JsonDoc data, nodata;
  ASSERT_TRUE(RunJson(RunArgs(algo(), 8, 64 * 1024, flags), &data));
  ASSERT_TRUE(RunJson(Args(RunArgs(algo(), 8, 64 * 1024, flags), {"--no-data"}), &nodata));
  EXPECT_EQ(nodata["mode"].Str(), "timing-only");
  EXPECT_EQ(nodata["time_ps"].Int(), data["time_ps"].Int());
  std::map<std::string, std::string> a = Figures(data), b = Figures(nodata);
  for (auto *m : {&a, &b})
    for (auto it = m->begin(); it != m->end();)
      it = it->first.rfind("$.check.", 0) == 0 ? m->erase(it) : std::next(it);
  EXPECT_EQ(a, b);
}

INSTANTIATE_TEST_SUITE_P(
    Algos, ReservationRepeat,
    ::testing::Combine(::testing::Values("allreduce_mesh", "allreduce_two_phase", "allreduce_ring",
                                         "all_to_all", "broadcast"),
                       kModes),
    [](const ::testing::TestParamInfo<ReservationRepeat::ParamType> &i) {
      return Named(std::get<0>(i.param), i.param);
    });

}  // namespace
}  // namespace a2test
