// What the A3 configs take from the A2 (a2_config_inherited, docs/config.md
// "Shipped configs", docs/sources.md "The A3 configs"): a config that
// declares chip.device a3 inherits every hardware key its topology reads and
// neither it nor a --set gives; the shipped A3 configs inherit none of the
// DMA, link or switch keys, and docs/sources.md marks each key they do
// inherit.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "configs/config.h"
#include "tests/support/run_cli.h"

namespace {

const std::string kConfigs = std::string(A2_SOURCE_DIR) + "/configs/";

std::vector<std::string> Inherited(const std::string &file,
                                   const std::vector<const char *> &sets = {}) {
  a2_config_inherited_key keys[64];
  unsigned n = 0;
  a2_err e{};
  EXPECT_EQ(a2_config_inherited(file.c_str(), sets.data(), (unsigned)sets.size(), keys, 64, &n, &e),
            A2_OK)
      << e.msg;
  std::vector<std::string> out;
  for (unsigned i = 0; i < n && i < 64; i++) out.push_back(keys[i].path);
  return out;
}

bool StartsWith(const std::string &s, const char *p) {
  return s.rfind(p, 0) == 0;
}

const char *const kA3[] = {"a3-supernode.yaml", "a3-supernode-levels.yaml", "a3-cluster-roce.yaml"};

TEST(A3ProvenanceTest, TheA3ConfigsInheritNoDmaLinkOrSwitchKey) {
  for (const char *f : kA3) {
    SCOPED_TRACE(f);
    std::vector<std::string> inh = Inherited(kConfigs + f);
    EXPECT_FALSE(inh.empty());  // what no A3 source covers is listed, not hidden
    for (const std::string &k : inh) {
      EXPECT_FALSE(StartsWith(k, "chip.sdma.")) << k;
      EXPECT_FALSE(StartsWith(k, "interconnect.link.")) << k;
      EXPECT_FALSE(StartsWith(k, "interconnect.nic.")) << k;
      EXPECT_FALSE(StartsWith(k, "interconnect.switch_latency")) << k;
      EXPECT_FALSE(StartsWith(k, "interconnect.topology")) << k;
      EXPECT_FALSE(StartsWith(k, "interconnect.group_size")) << k;
      EXPECT_NE(k, "chip.clock");
      EXPECT_NE(k, "chip.hbm.bandwidth");
    }
    // the per-core remote windows have no A3 source: inherited, and said so
    EXPECT_NE(std::find(inh.begin(), inh.end(), "chip.mte.remote_write_window"), inh.end());
  }
}

TEST(A3ProvenanceTest, DocsSourcesMarksEveryInheritedKeyOfEachA3Config) {
  std::ifstream in(std::string(A2_SOURCE_DIR) + "/docs/sources.md");
  ASSERT_TRUE(in.good());
  std::vector<std::string> rows;
  for (std::string line; std::getline(in, line);)
    if (line.find("inherited from A2, low") != std::string::npos) rows.push_back(line);
  for (const char *f : kA3) {
    SCOPED_TRACE(f);
    for (const std::string &k : Inherited(kConfigs + f)) {
      bool marked = false;
      for (const std::string &r : rows)
        marked = marked || r.find("`" + k + "`") != std::string::npos;
      EXPECT_TRUE(marked) << k << " is inherited but no row of docs/sources.md says so";
    }
  }
}

TEST(A3ProvenanceTest, OtherDevicesInheritNothing) {
  for (const char *f : {"a2-8p-hccs.yaml", "a2-cluster.yaml", "a2-cluster-levels.yaml",
                        "ring-8.yaml", "torus-4x4.yaml"}) {
    SCOPED_TRACE(f);
    EXPECT_TRUE(Inherited(kConfigs + f).empty());
  }
}

TEST(A3ProvenanceTest, AKeyGivenByTheFileOrASetIsNotInherited) {
  a2test::TempDir dir;
  // An a3 declaration alone: every hardware key a full mesh reads comes
  // from the A2, with its value; not chip.device, interconnect.timing, or
  // the keys of other topologies.
  std::string bare = dir.Write("bare.yaml", "chip:\n  device: a3\n");
  a2_config_inherited_key keys[64];
  unsigned n = 0;
  a2_err e{};
  ASSERT_EQ(a2_config_inherited(bare.c_str(), nullptr, 0, keys, 64, &n, &e), A2_OK) << e.msg;
  std::set<std::string> got;
  for (unsigned i = 0; i < n; i++) got.insert(keys[i].path);
  EXPECT_TRUE(got.count("chip.clock"));
  EXPECT_TRUE(got.count("interconnect.link.bandwidth"));
  EXPECT_TRUE(got.count("interconnect.topology"));
  EXPECT_FALSE(got.count("chip.device"));
  EXPECT_FALSE(got.count("interconnect.timing"));
  EXPECT_FALSE(got.count("interconnect.torus_width"));
  EXPECT_FALSE(got.count("interconnect.nic.bandwidth"));
  EXPECT_FALSE(got.count("interconnect.switch_latency"));
  for (unsigned i = 0; i < n; i++)
    if (std::string(keys[i].path) == "interconnect.link.bandwidth") {
      EXPECT_STREQ(keys[i].value, "28 GB/s");
    }
  // the file gives one, a --set another
  std::string one = dir.Write("one.yaml", "chip:\n  device: a3\n  clock: 1.85GHz\n");
  std::vector<std::string> inh = Inherited(one, {"interconnect.link.bandwidth=224GB/s"});
  EXPECT_EQ(inh.size(), n - 2);
  EXPECT_EQ(std::find(inh.begin(), inh.end(), "chip.clock"), inh.end());
  EXPECT_EQ(std::find(inh.begin(), inh.end(), "interconnect.link.bandwidth"), inh.end());
}

TEST(A3ProvenanceTest, TheRdmaKeysCountOnlyWhereARouteUsesThem) {
  a2test::TempDir dir;
  const char *base = "chip:\n  device: a3\ninterconnect:\n  topology: two_level\n  ranks: 16\n";
  std::vector<std::string> rdma = Inherited(dir.Write("r.yaml", base));
  EXPECT_NE(std::find(rdma.begin(), rdma.end(), "interconnect.nic.rdma_launch"), rdma.end());
  std::vector<std::string> sdma =
      Inherited(dir.Write("s.yaml", std::string(base) + "  nic:\n    engine: sdma\n"));
  EXPECT_EQ(std::find(sdma.begin(), sdma.end(), "interconnect.nic.rdma_launch"), sdma.end());
  EXPECT_EQ(std::find(sdma.begin(), sdma.end(), "interconnect.nic.rdma_bandwidth"), sdma.end());
  // the supernode levels are all SDMA; the cluster's RoCE level is RDMA and
  // the file gives the RDMA keys
  std::vector<std::string> lv = Inherited(kConfigs + "a3-supernode-levels.yaml", {});
  EXPECT_EQ(std::find(lv.begin(), lv.end(), "interconnect.nic.rdma_launch"), lv.end());
  std::vector<std::string> roce =
      Inherited(kConfigs + "a3-cluster-roce.yaml", {"interconnect.levels.3.engine=rdma"});
  EXPECT_EQ(std::find(roce.begin(), roce.end(), "interconnect.nic.rdma_launch"), roce.end());
}

TEST(A3ProvenanceTest, ABadFileOrSetIsTheLoadersError) {
  a2_config_inherited_key keys[4];
  unsigned n = 7;
  a2_err e{};
  EXPECT_EQ(a2_config_inherited((kConfigs + "nope.yaml").c_str(), nullptr, 0, keys, 4, &n, &e),
            A2_E_IO);
  EXPECT_EQ(n, 0u);
  const char *bad[] = {"chip.clok=1GHz"};
  EXPECT_EQ(a2_config_inherited((kConfigs + "a3-supernode.yaml").c_str(), bad, 1, keys, 4, &n, &e),
            A2_E_INPUT);
  EXPECT_NE(std::string(e.msg).find("unknown key 'chip.clok'"), std::string::npos) << e.msg;
}

}  // namespace
