// Tests for interconnect.levels in configs/ (config.h, docs/config.md,
// "Levels"): loading, the group sizes collectives read
// (a2_config_group_ranks), printing that loads back, --set of one level's
// field, and the errors of --set and validation.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "configs/config.h"
#include "tests/configs/config_print.h"

namespace {

const char kA3[] =
    "interconnect:\n"
    "  topology: levels\n"
    "  ranks: 1536\n"
    "  levels:\n"
    "    - {name: die, kind: mesh, fanout: 2, bandwidth: 224GB/s, latency: 200ns}\n"
    "    - {name: node, fanout: 8, bandwidth: 196GB/s, latency: 500ns}\n"
    "    - {name: supernode, fanout: 48, bandwidth: 196GB/s, latency: 5.5us}\n"
    "    - {name: roce, bandwidth: 200Gb/s, latency: 3us, switch_latency: 100ns}\n";

a2_config Load(const char *yaml) {
  a2_config c;
  a2_err e{};
  EXPECT_EQ(a2_config_load_string(yaml, "t.yaml", &c, &e), A2_OK) << e.msg;
  return c;
}

TEST(LevelsConfig, LoadsEveryField) {
  a2_config c = Load(kA3);
  EXPECT_EQ(c.topology, A2_TOPO_LEVELS);
  ASSERT_EQ(c.nlevels, 4u);
  EXPECT_STREQ(c.levels[0].name, "die");
  EXPECT_EQ(c.levels[0].kind, A2_LEVEL_MESH);
  EXPECT_EQ(c.levels[1].kind, A2_LEVEL_SWITCH);
  EXPECT_EQ(c.levels[2].fanout, 48u);
  EXPECT_EQ(c.levels[3].fanout, 0u);  // the top: follows ranks
  EXPECT_EQ(c.levels[0].bw, 224000000000ull);
  EXPECT_EQ(c.levels[2].lat_ps, 5500000ull);
  EXPECT_EQ(c.levels[3].bw, 25000000000ull);
  EXPECT_EQ(c.levels[3].switch_lat_ps, 100000ull);
  EXPECT_EQ(c.levels[1].switch_lat_ps, 0ull);  // the default
}

TEST(LevelsConfig, GroupRanksPerLevel) {
  a2_config c = Load(kA3);
  EXPECT_EQ(a2_config_nlevels(&c), 4u);
  EXPECT_EQ(a2_config_group_ranks(&c, 0), 2u);
  EXPECT_EQ(a2_config_group_ranks(&c, 1), 16u);
  EXPECT_EQ(a2_config_group_ranks(&c, 2), 768u);
  EXPECT_EQ(a2_config_group_ranks(&c, 3), 1536u);
  EXPECT_EQ(a2_config_group_ranks(&c, 9), 1536u);
  c.ranks = 10;  // fewer NPUs than a super-node: groups stop at the system
  EXPECT_EQ(a2_config_group_ranks(&c, 1), 10u);
  a2_config d;
  a2_config_default(&d);
  EXPECT_EQ(a2_config_nlevels(&d), 1u);
  EXPECT_EQ(a2_config_group_ranks(&d, 0), 8u);
  d.topology = A2_TOPO_TWO_LEVEL;
  d.ranks = 32;
  EXPECT_EQ(a2_config_nlevels(&d), 2u);
  EXPECT_EQ(a2_config_group_ranks(&d, 0), 8u);
  EXPECT_EQ(a2_config_group_ranks(&d, 1), 32u);
}

TEST(LevelsConfig, PrintLoadsBackIdentical) {
  a2_config c = Load(kA3);
  std::string text = Print(c);
  EXPECT_NE(text.find("  levels:\n    - name: die\n      kind: mesh\n"), std::string::npos) << text;
  a2_config back = Load(text.c_str());
  EXPECT_EQ(std::memcmp(&back, &c, sizeof c), 0) << text;
}

TEST(LevelsConfig, SetOneFieldOfALevel) {
  a2_config c = Load(kA3);
  a2_err e{};
  ASSERT_EQ(a2_config_set(&c, "interconnect.levels.3.bandwidth", "50GB/s", &e), A2_OK) << e.msg;
  EXPECT_EQ(c.levels[3].bw, 50000000000ull);
  EXPECT_EQ(a2_config_get(&c, "interconnect.levels.3.bandwidth"), 50000000000ull);
  ASSERT_EQ(a2_config_set(&c, "interconnect.levels.1.name", "board", &e), A2_OK);
  EXPECT_STREQ(c.levels[1].name, "board");
  EXPECT_EQ(a2_config_set(&c, "interconnect.levels.7.latency", "1us", &e), A2_E_INPUT);
  EXPECT_NE(std::string(e.msg).find("the config has 4 level(s)"), std::string::npos) << e.msg;
  EXPECT_EQ(a2_config_set(&c, "interconnect.levels.0.speed", "1", &e), A2_E_INPUT);
  EXPECT_NE(std::string(e.msg).find("unknown field 'speed'"), std::string::npos) << e.msg;
  EXPECT_EQ(a2_config_set(&c, "interconnect.levels", "x", &e), A2_E_INPUT);
  EXPECT_NE(std::string(e.msg).find("is a list"), std::string::npos) << e.msg;
  EXPECT_EQ(a2_config_set(&c, "interconnect.levels.0.bandwidth", "0B/s", &e), A2_E_INPUT);
}

TEST(LevelsConfig, ValidateNamesTheLevelAtFault) {
  a2_config c = Load(kA3);
  c.levels[1].fanout = 0;
  a2_err e{};
  EXPECT_EQ(a2_config_validate(&c, "--set", &e), A2_E_INPUT);
  EXPECT_NE(std::string(e.msg).find("interconnect.levels[1] (node): fanout required"),
            std::string::npos)
      << e.msg;
  c = Load(kA3);
  c.levels[3].fanout = 4;
  EXPECT_EQ(a2_config_validate(&c, "--set", &e), A2_E_INPUT);
  EXPECT_NE(std::string(e.msg).find("the top level has no fanout"), std::string::npos) << e.msg;
  c = Load(kA3);
  c.nlevels = 0;
  EXPECT_EQ(a2_config_validate(&c, "--set", &e), A2_E_INPUT);
  EXPECT_NE(std::string(e.msg).find("needs interconnect.levels"), std::string::npos) << e.msg;
}

TEST(LevelsConfig, OtherTopologiesIgnoreLevels) {
  std::string y = kA3;
  y.replace(y.find("topology: levels"), 16, "topology: ring  ");
  a2_config c = Load(y.c_str());
  EXPECT_EQ(c.topology, A2_TOPO_RING);
  EXPECT_EQ(c.nlevels, 4u);
  EXPECT_EQ(a2_config_nlevels(&c), 1u);
  EXPECT_EQ(a2_config_group_ranks(&c, 0), 1536u);
}

}  // namespace
