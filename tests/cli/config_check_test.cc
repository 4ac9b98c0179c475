// `a2a3sim config check` on the A3 configs (docs/config.md, "Shipped
// configs"): one comment line per parameter still inherited from the A2,
// none of them a DMA, link or switch key; none for an A2 config; the output
// (comments and all) loads back to the same config.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/files.h"
#include "tests/support/run_cli.h"

namespace {

const std::string kConfigs = std::string(A2_SOURCE_DIR) + "/configs/";
const std::string kMark = "# inherited from A2 (low confidence): ";

std::vector<std::string> InheritedLines(const std::string &out) {
  std::vector<std::string> v;
  for (const std::string &l : a2test::Lines(out))
    if (l.rfind(kMark, 0) == 0) v.push_back(l.substr(kMark.size()));
  return v;
}

TEST(ConfigCheckA3Test, TheSupernodeListsWhatItInheritsAndNoDmaLinkOrSwitchKey) {
  a2test::CliResult r = a2test::RunCli({"config", "check", kConfigs + "a3-supernode.yaml"});
  ASSERT_EQ(r.exit_code, 0) << r;
  std::vector<std::string> inh = InheritedLines(r.out);
  ASSERT_FALSE(inh.empty()) << r.out;
  EXPECT_NE(r.out.find("# chip.device a3: " + std::to_string(inh.size()) +
                       " parameters inherited from the A2 defaults"),
            std::string::npos)
      << r.out;
  bool window = false;
  for (const std::string &l : inh) {
    for (const char *p :
         {"chip.sdma.", "interconnect.link.", "interconnect.nic.", "interconnect.switch_latency"})
      EXPECT_NE(l.rfind(p, 0), 0u) << l;
    window = window || l == "chip.mte.remote_write_window = 8 KiB";
  }
  EXPECT_TRUE(window) << r.out;  // KEY = VALUE, as the config prints it
}

TEST(ConfigCheckA3Test, ASetRemovesItsKeyFromTheList) {
  a2test::CliResult a = a2test::RunCli({"config", "check", kConfigs + "a3-supernode.yaml"});
  a2test::CliResult b = a2test::RunCli(
      {"config", "check", kConfigs + "a3-supernode.yaml", "--set", "chip.hbm.latency=100ns"});
  ASSERT_EQ(b.exit_code, 0) << b;
  EXPECT_EQ(InheritedLines(b.out).size() + 1, InheritedLines(a.out).size());
  EXPECT_EQ(b.out.find("chip.hbm.latency ="), std::string::npos) << b.out;
}

TEST(ConfigCheckA3Test, AnA2ConfigListsNothing) {
  for (const char *f : {"a2-8p-hccs.yaml", "a2-cluster-levels.yaml"}) {
    a2test::CliResult r = a2test::RunCli({"config", "check", kConfigs + f});
    ASSERT_EQ(r.exit_code, 0) << r;
    EXPECT_TRUE(InheritedLines(r.out).empty()) << r.out;
    EXPECT_EQ(r.out.find("chip.device a3"), std::string::npos) << r.out;
  }
}

TEST(ConfigCheckA3Test, TheOutputLoadsBackToTheSameConfig) {
  for (const char *f : {"a3-supernode.yaml", "a3-cluster-roce.yaml"}) {
    SCOPED_TRACE(f);
    a2test::CliResult r = a2test::RunCli({"config", "check", kConfigs + f});
    ASSERT_EQ(r.exit_code, 0) << r;
    a2test::TempDir dir;
    std::string again = dir.Write("again.yaml", r.out);
    a2test::CliResult r2 = a2test::RunCli({"config", "check", again});
    ASSERT_EQ(r2.exit_code, 0) << r2;
    // the same config; printed, only the header line differs; and every key
    // is given now, so nothing is inherited
    auto body = [](const std::string &out) { return out.substr(out.find("\nchip:")); };
    EXPECT_EQ(body(r.out), body(r2.out));
    EXPECT_TRUE(InheritedLines(r2.out).empty()) << r2.out;
  }
}

}  // namespace
