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

// A remote store of n bytes on a full mesh, acknowledged: MTE-out, link,
// peer HBM, then the acknowledgement (a control message back, not queued).
uint64_t RemoteStore(const a2_config &c, uint64_t n) {
  return Pipe(
             c, n,
             {{c.mte_out_bw, c.mte_lat_ps}, {c.link_bw, c.link_lat_ps}, {c.hbm_bw, c.hbm_lat_ps}}) +
         Ctrl(c);
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
  ASSERT_LT(c.wr_window_bytes, 32768u);
  // pieces of the window's size (it is below a packet), each sent when the
  // one before is acknowledged
  uint64_t want = Load(c, 32768);
  for (uint64_t off = 0; off < 32768; off += c.wr_window_bytes)
    want += RemoteStore(c, 32768 - off < c.wr_window_bytes ? 32768 - off : c.wr_window_bytes);
  for (const char *t : kTimings) EXPECT_EQ(TimePs(f, 2, t), (long long)want) << t;
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
// share each window, piece by piece; both timings agree (nothing else
// contends), and a smaller window takes longer.
TEST(WindowTest, SharedWindowsGiveTheSameTimeUnderBothTimings) {
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
  const long long p = TimePs(f, 3, "packet", small), r = TimePs(f, 3, "reservation", small);
  EXPECT_GT(p, 0);
  EXPECT_EQ(p, r);
  EXPECT_GT(p, TimePs(f, 3, "packet", big));
}

TEST(WindowTest, WindowNotAMultipleOf32BytesIsRefused) {
  EXPECT_TRUE(RunFailsWithUsage(
      {"run", "--algo", "barrier", "--ranks", "2", "--set", "chip.mte.remote_write_window=100B"},
      {"chip.mte.remote_write_window: 100 B is not a multiple of 32 B"}));
}

}  // namespace
}  // namespace a2test
