// A core's windows of outstanding remote bytes and the blocking notify
// (docs/timing-model.md, "Windows" and "The vector core"), through the
// binary on small program files: the simulated time against the equations,
// computed here from the default config, under both network timings.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "configs/config.h"
#include "noc/noc.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace {

const char *const kTimings[] = {"packet", "reservation"};

a2_config Default() {
  a2_config c;
  a2_config_default(&c);
  return c;
}

// T_pipe(n; stages): packets of the config's packet size through stages of
// (bandwidth, latency), D(x, j) = max(D(x-1, j) + lat(x-1), D(x, j-1)) + S_x.
uint64_t Pipe(const a2_config &c, uint64_t n,
              const std::vector<std::pair<uint64_t, uint64_t>> &st) {
  std::vector<uint64_t> D(st.size(), 0);
  for (uint64_t off = 0; off < n; off += c.packet_bytes) {
    uint64_t len = n - off < c.packet_bytes ? n - off : c.packet_bytes, arrive = 0;
    for (size_t x = 0; x < st.size(); x++) {
      D[x] = (arrive > D[x] ? arrive : D[x]) + a2_ser_ps(len, st[x].first);
      arrive = D[x] + st[x].second;
    }
  }
  return D.back() + st.back().second;
}

uint64_t Ctrl(const a2_config &c) {
  return a2_ser_ps(c.ctrl_bytes, c.link_bw) + c.link_lat_ps;
}

uint64_t Load(const a2_config &c, uint64_t n) {
  return Pipe(c, n, {{c.hbm_bw, c.hbm_lat_ps}, {c.mte_in_bw, c.mte_lat_ps}});
}

// A remote store of n bytes on a full mesh, acknowledged: MTE-out, the
// link's store port, the link, peer HBM, then the acknowledgement (a control
// message back, not queued).
uint64_t RemoteStore(const a2_config &c, uint64_t n) {
  return Pipe(c, n,
              {{c.mte_out_bw, c.mte_lat_ps},
               {c.store_port_bw, 0},
               {c.link_bw, c.link_lat_ps},
               {c.hbm_bw, c.hbm_lat_ps}}) +
         Ctrl(c);
}

// Pieces of w bytes (w below a packet), each sent when the one before is
// acknowledged, after the load: a store of n bytes through a window of w.
uint64_t PieceByPiece(const a2_config &c, uint64_t n, uint64_t w) {
  uint64_t t = Load(c, n);
  for (uint64_t off = 0; off < n; off += w) t += RemoteStore(c, n - off < w ? n - off : w);
  return t;
}

long long TimePs(const std::string &file, uint32_t ranks, const char *timing,
                 const std::vector<std::string> &extra = {}) {
  JsonDoc d;
  std::vector<std::string> args = {"run",
                                   "--program",
                                   file,
                                   "--ranks",
                                   std::to_string(ranks),
                                   "--set",
                                   std::string("interconnect.timing=") + timing};
  if (!RunJson(Args(args, extra), &d)) return -1;
  EXPECT_TRUE(d["ok"].Bool()) << file;
  return d["time_ps"].Int();
}

const char kStore[] =
    "ranks 2\ntensor x fp32[8192] = pattern\nwindow data fp32[8192]\ntile t fp32[8192]\n"
    "program rank 0\n  load t, x[0:8192]\n  remote_store t, data@1[0:8192]\nend\n";

TEST(WindowTest, RemoteStoreLargerThanTheWriteWindowGoesOnePieceAtATime) {
  TempDir dir;
  const std::string f = dir.Write("st.a2t", kStore);
  const a2_config c = Default();
  const uint64_t want = PieceByPiece(c, 32768, 1856);
  for (const char *t : kTimings)
    EXPECT_EQ(TimePs(f, 2, t, {"--set", "chip.mte.remote_write_window=1856B"}), (long long)want)
        << t;
}

// An atomic add goes through the atomic window, a plain store through the
// write window: each is timed by its own, whatever the other's size.
TEST(WindowTest, AtomicAddsHoldTheAtomicWindowAndPlainStoresTheWriteWindow) {
  TempDir dir;
  const std::string plain = dir.Write("st.a2t", kStore);
  const std::string atomic = dir.Write(
      "at.a2t",
      "ranks 2\ntensor x fp32[8192] = pattern\nwindow data fp32[8192]\ntile t fp32[8192]\n"
      "program rank 0\n  load t, x[0:8192]\n  remote_store t, data@1[0:8192] atomic_add\nend\n");
  const a2_config c = Default();
  const std::vector<std::string> narrow_atomic = {"--set", "chip.mte.remote_atomic_window=1856B",
                                                  "--set", "chip.mte.remote_write_window=32KiB"};
  const std::vector<std::string> narrow_plain = {"--set", "chip.mte.remote_atomic_window=32KiB",
                                                 "--set", "chip.mte.remote_write_window=1856B"};
  const long long piece = (long long)PieceByPiece(c, 32768, 1856);
  const long long whole = (long long)(Load(c, 32768) + RemoteStore(c, 32768));
  for (const char *t : kTimings) {
    EXPECT_EQ(TimePs(atomic, 2, t, narrow_atomic), piece) << t;
    EXPECT_EQ(TimePs(atomic, 2, t, narrow_plain), whole) << t;
    EXPECT_EQ(TimePs(plain, 2, t, narrow_plain), piece) << t;
    EXPECT_EQ(TimePs(plain, 2, t, narrow_atomic), whole) << t;
  }
}

TEST(WindowTest, RemoteStoreThatFitsTheWindowIsOneTransferAcknowledged) {
  TempDir dir;
  const std::string f = dir.Write("st.a2t", kStore);
  const a2_config c = Default();
  const uint64_t want = Load(c, 32768) + RemoteStore(c, 32768);
  for (const char *t : kTimings)
    EXPECT_EQ(TimePs(f, 2, t, {"--set", "chip.mte.remote_write_window=32KiB"}), (long long)want)
        << t;
}

TEST(WindowTest, NotifyBlocksTheInstructionsAfterIt) {
  TempDir dir;
  const std::string f = dir.Write("n.a2t",
                                  "ranks 2\nsignal sig[1]\n"
                                  "program rank 0\n  notify sig@1[0] add 1\n  compute 1000\nend\n");
  const a2_config c = Default();
  // out, served at the peer's HBM, acknowledged; then the compute
  const uint64_t notify = 2 * Ctrl(c) + a2_ser_ps(c.ctrl_bytes, c.hbm_bw) + c.hbm_lat_ps;
  const uint64_t want = notify + 1000 * a2_config_cycle_ps(&c);
  for (const char *t : kTimings) EXPECT_EQ(TimePs(f, 2, t), (long long)want) << t;
}

// Two remote loads of 64 KiB from two peers into two tiles, and two remote
// stores to them, against windows smaller than one access: the accesses
// share each window, piece by piece; ordered reservation timing gives
// packet timing's time (a store's pieces meet the other load's requests on
// a link, which plain reservation timing books by earliest fit), and a
// smaller window takes longer.
TEST(WindowTest, SharedWindowsGiveTheSameTimeUnderPacketAndOrderedTiming) {
  TempDir dir;
  const std::string f = dir.Write(
      "rw.a2t",
      "ranks 3\nwindow data fp32[16384]\ntile a fp32[16384]\ntile b fp32[16384]\n"
      "program rank 0\n  remote_load a, data@1[0:16384]\n  remote_load b, data@2[0:16384]\n"
      "  remote_store a, data@2[0:16384]\n  remote_store b, data@1[0:16384]\nend\n");
  const std::vector<std::string> small = {"--set", "chip.mte.remote_read_window=8KiB", "--set",
                                          "chip.mte.remote_write_window=4KiB"};
  const std::vector<std::string> big = {"--set", "chip.mte.remote_read_window=128KiB", "--set",
                                        "chip.mte.remote_write_window=128KiB"};
  const long long p = TimePs(f, 3, "packet", small), r = TimePs(f, 3, "ordered", small);
  EXPECT_GT(p, 0);
  EXPECT_EQ(p, r);
  EXPECT_GT(p, TimePs(f, 3, "packet", big));
}

TEST(WindowTest, WindowNotAMultipleOf32BytesIsRefused) {
  EXPECT_TRUE(RunFailsWithUsage(
      {"run", "--algo", "barrier", "--ranks", "2", "--set", "chip.mte.remote_write_window=100B"},
      {"chip.mte.remote_write_window: 100 B is not a multiple of 32 B"}));
  EXPECT_TRUE(RunFailsWithUsage(
      {"run", "--algo", "barrier", "--ranks", "2", "--set", "chip.mte.remote_atomic_window=33B"},
      {"chip.mte.remote_atomic_window: 33 B is not a multiple of 32 B"}));
}

// A link's store port (docs/timing-model.md, "Store ports"): the remote
// stores of a rank's cores over one link share its rate; remote loads over
// the same link do not pass it.
const char kTwoStores[] =
    "ranks 2\ncores 2\ntensor x fp32[16384] = pattern\nwindow data fp32[32768]\n"
    "tile t fp32[16384]\n"
    "program rank 0 core 0\n  load t, x[0:16384]\n  remote_store t, data@1[0:16384]\nend\n"
    "program rank 0 core 1\n  load t, x[0:16384]\n  remote_store t, data@1[16384:16384]\nend\n";

TEST(StorePortTest, TwoCoresStoringOverOneLinkShareItsStorePort) {
  TempDir dir;
  const std::string f = dir.Write("two.a2t", kTwoStores);
  const std::vector<std::string> wide = {"--set", "chip.mte.remote_write_window=64KiB"};
  const std::vector<std::string> slow = {"--set", "chip.mte.remote_write_window=64KiB", "--set",
                                         "chip.mte.remote_store_bandwidth=2GB/s"};
  for (const char *t : kTimings) {
    const long long fast = TimePs(f, 2, t, wide), capped = TimePs(f, 2, t, slow);
    // 128 KiB through one 2 GB/s port: at least 65.5 us, where the link
    // alone would take 4.7 us
    EXPECT_GE(capped, 2LL * 65536 * 1000 / 2) << t;
    EXPECT_LT(fast, capped / 4) << t;
  }
}

TEST(StorePortTest, RemoteLoadsOverTheLinkDoNotPassIt) {
  TempDir dir;
  const std::string f = dir.Write("rl.a2t",
                                  "ranks 2\nwindow data fp32[16384]\ntile t fp32[16384]\n"
                                  "program rank 1\n  remote_load t, data@0[0:16384]\nend\n");
  for (const char *t : kTimings)
    EXPECT_EQ(TimePs(f, 2, t), TimePs(f, 2, t, {"--set", "chip.mte.remote_store_bandwidth=1GB/s"}))
        << t;
}

}  // namespace
}  // namespace a2test
