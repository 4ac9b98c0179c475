// Tests for configs/config.h: the shipped default file, every class of
// loader error (with line:col and message), --set, validation and the
// print -> load round trip.
#include "configs/config.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "config_print.h"
#include "configs/config_keys.h"

namespace {

const std::string kDefaultFile = std::string(A2_SOURCE_DIR) + "/configs/a2-8p-hccs.yaml";

// Every field, so that a new field cannot be forgotten by one comparison.
// clang-format off
#define A2_FOR_EACH_FIELD(X)                                                                    \
  X(clock_hz) X(vector_cores) X(ub_bytes) X(vec_bytes_per_cycle) X(vec_startup_cycles)          \
  X(mte_in_bw) X(mte_out_bw) X(mte_lat_ps) X(rd_window_bytes) X(wr_window_bytes) X(hbm_bw)      \
  X(hbm_lat_ps) X(window_bytes) X(sdma_queues) X(sdma_launch_ps) X(sdma_write_bw)              \
  X(sdma_read_bw) X(sdma_local_bw) X(topology)                                                           \
  X(ranks) X(link_bw) X(link_lat_ps) X(packet_bytes) X(switch_lat_ps) X(ctrl_bytes)          \
  X(group_size) X(nic_bw) X(nic_lat_ps) X(rdma_launch_ps) X(rdma_bw) X(torus_width) X(timing)
// clang-format on

void ExpectSameConfig(const a2_config &a, const a2_config &b) {
#define A2_CMP(f) EXPECT_EQ(a.f, b.f) << #f;
  A2_FOR_EACH_FIELD(A2_CMP)
#undef A2_CMP
}

std::string Message(const a2_err &e) {
  return e.msg;
}

// Loads yaml over the defaults; fails the test on error.
a2_config LoadOk(const char *yaml) {
  a2_config c;
  a2_err e{};
  EXPECT_EQ(a2_config_load_string(yaml, "t.yaml", &c, &e), A2_OK) << e.msg;
  return c;
}

// Loads yaml expecting an input error at line:col; returns the message.
std::string LoadFails(const char *yaml, int line, int col) {
  a2_config c;
  a2_err e{};
  EXPECT_EQ(a2_config_load_string(yaml, "t.yaml", &c, &e), A2_E_INPUT) << yaml;
  EXPECT_STREQ(e.file, "t.yaml");
  EXPECT_EQ(e.line, line) << e.msg;
  EXPECT_EQ(e.col, col) << e.msg;
  return e.msg;
}

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)

// ---- the default --------------------------------------------------------

TEST(ConfigTest, DefaultHasTheReferenceFigures) {
  a2_config c;
  a2_config_default(&c);
  EXPECT_EQ(c.clock_hz, 1800000000u);
  EXPECT_EQ(c.vector_cores, 48u);
  EXPECT_EQ(c.ub_bytes, 192u * 1024);
  EXPECT_EQ(c.vec_bytes_per_cycle, 121u);
  EXPECT_EQ(c.vec_startup_cycles, 24u);
  EXPECT_EQ(c.mte_in_bw, 230400000000u);
  EXPECT_EQ(c.mte_out_bw, 202400333824u);  // 188.5 GiB/s
  EXPECT_EQ(c.mte_lat_ps, 0u);
  EXPECT_EQ(c.rd_window_bytes, 192u * 1024);
  EXPECT_EQ(c.wr_window_bytes, 8u * 1024);
  EXPECT_EQ(c.atomic_window_bytes, 1888u);
  EXPECT_EQ(c.store_port_bw, 19500000000u);
  EXPECT_EQ(c.hbm_bw, 1600000000000u);
  EXPECT_EQ(c.hbm_lat_ps, 115000u);
  EXPECT_EQ(c.window_bytes, 256u * 1024 * 1024);
  EXPECT_EQ(c.sdma_queues, 8u);
  EXPECT_EQ(c.sdma_launch_ps, 1000000u);
  EXPECT_EQ(c.sdma_write_bw, 19500000000u);
  EXPECT_EQ(c.sdma_read_bw, 27100000000u);
  EXPECT_EQ(c.sdma_local_bw, 77000000000u);
  EXPECT_EQ(c.topology, A2_TOPO_FULL_MESH);
  EXPECT_EQ(c.ranks, 8u);
  EXPECT_EQ(c.link_bw, 28000000000u);
  EXPECT_EQ(c.link_lat_ps, 155000u);
  EXPECT_EQ(c.packet_bytes, 4096u);
  EXPECT_EQ(c.switch_lat_ps, 100000u);
  EXPECT_EQ(c.ctrl_bytes, 64u);
  EXPECT_EQ(c.group_size, 8u);
  EXPECT_EQ(c.nic_bw, 25000000000u);
  EXPECT_EQ(c.nic_lat_ps, 1500000u);
  EXPECT_EQ(c.rdma_launch_ps, 110000u);
  EXPECT_EQ(c.rdma_bw, 23800000000u);
  EXPECT_EQ(c.torus_width, 4u);
  EXPECT_EQ(c.timing, A2_TIMING_PACKET);
  a2_err e{};
  EXPECT_EQ(a2_config_validate(&c, "default", &e), A2_OK) << e.msg;
}

TEST(ConfigTest, DefaultFileEqualsBuiltInDefault) {
  a2_config file, def;
  a2_err e{};
  ASSERT_EQ(a2_config_load(kDefaultFile.c_str(), &file, &e), A2_OK) << e.msg;
  a2_config_default(&def);
  ExpectSameConfig(file, def);
}

TEST(ConfigTest, DefaultFileSetsEveryKeyExplicitly) {
  // Loading over garbage-free defaults hides a key missing from the file, so
  // check the text: every leaf name appears as "name:".
  std::ifstream in(kDefaultFile);
  std::stringstream ss;
  ss << in.rdbuf();
  for (unsigned i = 0; i < a2_config_nkeys; i++) {
    std::string path = a2_config_keys[i].path;
    std::string leaf = path.substr(path.rfind('.') + 1) + ": " + a2_config_keys[i].def;
    EXPECT_CONTAINS(ss.str(), leaf);
  }
}

TEST(ConfigTest, EveryKeyIsDocumented) {
  std::ifstream in(std::string(A2_SOURCE_DIR) + "/docs/config.md");
  ASSERT_TRUE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  for (unsigned i = 0; i < a2_config_nkeys; i++)
    EXPECT_CONTAINS(ss.str(), std::string("`") + a2_config_keys[i].path + "`");
}

TEST(ConfigTest, KeyTableBoundsFitTheFields) {
  a2_config c;
  a2_config_default(&c);
  for (unsigned i = 0; i < a2_config_nkeys; i++) {
    const a2_config_key &k = a2_config_keys[i];
    if (k.width == 4) {
      EXPECT_LE(k.max, 0xffffffffu) << k.path;
    }
    EXPECT_LE(k.min, k.max) << k.path;
    uint64_t v;
    char why[256];
    EXPECT_EQ(a2_config_key_parse(&k, k.def, &v, why, sizeof why), 0) << k.path << why;
  }
}

TEST(ConfigTest, CyclePsIsRoundedToNearest) {
  a2_config c;
  a2_config_default(&c);
  EXPECT_EQ(a2_config_cycle_ps(&c), 556u);  // 1e12 / 1.8e9 = 555.56
  c.clock_hz = 1000000000;
  EXPECT_EQ(a2_config_cycle_ps(&c), 1000u);
  c.clock_hz = 1850000000;
  EXPECT_EQ(a2_config_cycle_ps(&c), 541u);  // 540.54
  c.clock_hz = 1000000000000u;
  EXPECT_EQ(a2_config_cycle_ps(&c), 1u);
}

// ---- loading ------------------------------------------------------------

TEST(ConfigTest, EmptyInputGivesTheDefaults) {
  a2_config def;
  a2_config_default(&def);
  ExpectSameConfig(LoadOk(""), def);
  ExpectSameConfig(LoadOk("# only a comment\n"), def);
  ExpectSameConfig(LoadOk("chip:\ninterconnect: ~\n"), def);  // empty sections
}

TEST(ConfigTest, NestedKeysOverrideOnlyWhatTheyName) {
  a2_config c = LoadOk(
      "chip:\n"
      "  clock: 1.85GHz\n"
      "  vector: { bytes_per_cycle: 64, startup_cycles: 10 }\n"
      "  mte: { gm_to_ub: 100.9GiB/s, latency: 20ns }\n"
      "interconnect:\n"
      "  topology: ring\n"
      "  ranks: 16\n"
      "  link:\n"
      "    bandwidth: 200Gb/s\n"
      "    latency: 1.5us\n");
  EXPECT_EQ(c.clock_hz, 1850000000u);
  EXPECT_EQ(c.vec_bytes_per_cycle, 64u);
  EXPECT_EQ(c.vec_startup_cycles, 10u);
  EXPECT_EQ(c.mte_in_bw, 108340550042u);  // 100.9 * 2^30 = 108340550041.6, rounded
  EXPECT_EQ(c.mte_lat_ps, 20000u);
  EXPECT_EQ(c.topology, A2_TOPO_RING);
  EXPECT_EQ(c.ranks, 16u);
  EXPECT_EQ(c.link_bw, 25000000000u);
  EXPECT_EQ(c.link_lat_ps, 1500000u);
  EXPECT_EQ(c.vector_cores, 48u);          // untouched
  EXPECT_EQ(c.mte_out_bw, 202400333824u);  // untouched sibling
}

TEST(ConfigTest, AnchorsAndAliasesShareValuesAndSections) {
  a2_config c = LoadOk(
      "chip: {mte: {gm_to_ub: &bw 100GB/s, ub_to_gm: *bw}}\n"
      "interconnect: {link: &l {bandwidth: 50GB/s, latency: 1us}, nic: *l}\n");
  EXPECT_EQ(c.mte_in_bw, 100000000000ull);
  EXPECT_EQ(c.mte_out_bw, 100000000000ull);
  EXPECT_EQ(c.nic_bw, 50000000000ull);
  EXPECT_EQ(c.nic_lat_ps, 1000000ull);
}

TEST(ConfigTest, QuotedValuesAreAccepted) {
  EXPECT_EQ(LoadOk("interconnect: {topology: \"switch\", packet_size: '8 KiB'}\n").packet_bytes,
            8192u);
}

TEST(ConfigTest, UnknownKeyNamesLineAndColumn) {
  std::string m = LoadFails("chip:\n  clok: 1GHz\n", 2, 3);
  EXPECT_EQ(m,
            "unknown key 'clok' in chip (did you mean 'clock'?); valid keys: device, clock, "
            "vector_cores, ub_size, vector, mte, cube_cores, cube, l2, hbm, window_size, sdma");
}

TEST(ConfigTest, UnknownNestedKeyListsThatSectionsKeys) {
  std::string m = LoadFails("interconnect:\n  link:\n    bandwith: 1GB/s\n", 3, 5);
  EXPECT_CONTAINS(m, "unknown key 'bandwith' in interconnect.link (did you mean 'bandwidth'?)");
  EXPECT_CONTAINS(m, "valid keys: bandwidth, latency");
}

TEST(ConfigTest, UnknownTopLevelKeyListsTheSections) {
  std::string m = LoadFails("chip: {}\nnetwork:\n  ranks: 4\n", 2, 1);
  EXPECT_CONTAINS(m, "unknown top-level key 'network'; valid keys: chip, interconnect");
}

TEST(ConfigTest, KeyUnderTheWrongSectionIsUnknown) {
  EXPECT_CONTAINS(LoadFails("chip:\n  ranks: 4\n", 2, 3), "unknown key 'ranks' in chip");
}

TEST(ConfigTest, DottedKeyNameIsUnknown) {
  EXPECT_CONTAINS(LoadFails("chip.clock: 1GHz\n", 1, 1), "unknown top-level key 'chip.clock'");
  EXPECT_CONTAINS(LoadFails("chip:\n  mte.latency: 1ns\n", 2, 3), "unknown key 'mte.latency'");
}

TEST(ConfigTest, ScalarWhereAMappingIsExpected) {
  std::string m = LoadFails("chip:\n  mte: 5GB/s\n", 2, 8);
  EXPECT_CONTAINS(m,
                  "chip.mte: expected a mapping with keys gm_to_ub, ub_to_gm, latency, "
                  "remote_read_window, remote_write_window, remote_atomic_window, "
                  "remote_store_bandwidth, found a scalar");
}

TEST(ConfigTest, SequenceWhereAMappingIsExpected) {
  EXPECT_CONTAINS(LoadFails("interconnect:\n  - ranks\n", 2, 3),
                  "interconnect: expected a mapping with keys topology, ranks, link");
}

TEST(ConfigTest, MappingWhereAValueIsExpected) {
  std::string m = LoadFails("chip:\n  clock: {value: 1GHz}\n", 2, 10);
  EXPECT_CONTAINS(m, "chip.clock: expected a single value such as 1.8GHz, found a mapping");
}

TEST(ConfigTest, SequenceWhereAValueIsExpected) {
  EXPECT_CONTAINS(LoadFails("interconnect:\n  ranks: [8, 16]\n", 2, 10),
                  "interconnect.ranks: expected a single value such as 8, found a sequence");
}

TEST(ConfigTest, NonScalarKeyIsAnError) {
  EXPECT_CONTAINS(LoadFails("chip:\n  ? [a, b]\n  : 1\n", 2, 5), "expected a key name");
}

TEST(ConfigTest, DuplicateKeyNamesBothLines) {
  std::string m = LoadFails("chip:\n  clock: 1GHz\n  ub_size: 1KiB\n  clock: 2GHz\n", 4, 3);
  EXPECT_CONTAINS(m, "duplicate key 'chip.clock' (first given on line 2)");
}

TEST(ConfigTest, DuplicateSectionIsAnError) {
  EXPECT_CONTAINS(LoadFails("chip: {clock: 1GHz}\nchip: {ub_size: 4KiB}\n", 2, 1),
                  "duplicate key 'chip'");
  EXPECT_CONTAINS(LoadFails("interconnect:\n  link: {}\n  link: {latency: 1ns}\n", 3, 3),
                  "duplicate key 'interconnect.link'");
}

TEST(ConfigTest, BadUnitNamesKeyValueAndExpectedForm) {
  std::string m = LoadFails("interconnect:\n  link: { bandwidth: 28GBps }\n", 2, 22);
  EXPECT_CONTAINS(m,
                  "interconnect.link.bandwidth: '28GBps': unknown unit 'GBps'; "
                  "expected a bandwidth such as 28GB/s");
}

TEST(ConfigTest, BadNumberIsAnError) {
  EXPECT_CONTAINS(LoadFails("chip:\n  vector_cores: forty\n", 2, 17),
                  "chip.vector_cores: 'forty': expected a whole number such as 8");
  EXPECT_CONTAINS(LoadFails("chip:\n  hbm: {latency: -5ns}\n", 2, 18), "negative");
  EXPECT_CONTAINS(LoadFails("chip:\n  clock:\n", 2, 9), "chip.clock: '': empty value");
}

struct RangeCase {
  const char *yaml;
  const char *needle;
};

class ConfigRangeTest : public testing::TestWithParam<RangeCase> {};

TEST_P(ConfigRangeTest, OutOfRangeValueIsAnErrorAtTheValue) {
  a2_config c;
  a2_err e{};
  ASSERT_EQ(a2_config_load_string(GetParam().yaml, "t.yaml", &c, &e), A2_E_INPUT);
  EXPECT_EQ(e.line, 2);
  EXPECT_GT(e.col, 1);
  EXPECT_CONTAINS(e.msg, GetParam().needle);
  EXPECT_CONTAINS(e.msg, "out of range");
}

INSTANTIATE_TEST_SUITE_P(
    Bounds, ConfigRangeTest,
    testing::Values(
        RangeCase{"chip:\n  vector_cores: 0\n",
                  "chip.vector_cores: '0': out of range; "
                  "expected 1 to 1024"},
        RangeCase{"chip:\n  vector_cores: 1025\n", "expected 1 to 1024"},
        RangeCase{"chip:\n  clock: 0GHz\n", "chip.clock"},
        RangeCase{"chip:\n  clock: 1001GHz\n", "expected 1 Hz to 1000 GHz"},
        RangeCase{"chip:\n  ub_size: 1023B\n", "expected at least 1 KiB"},
        RangeCase{"chip:\n  window_size: 2KiB\n", "expected at least 4 KiB"},
        RangeCase{"chip:\n  mte: {gm_to_ub: 0GB/s}\n", "expected more than 0 B/s"},
        RangeCase{"chip:\n  hbm: {bandwidth: 0.1B/s}\n", "chip.hbm.bandwidth"},
        RangeCase{"chip:\n  hbm: {latency: 2s}\n", "expected 0 ps to 1 s"},
        RangeCase{"chip:\n  vector: {bytes_per_cycle: 0}\n", "chip.vector.bytes_per_cycle"},
        RangeCase{"chip:\n  vector: {startup_cycles: 4294967296}\n", "chip.vector.startup"},
        RangeCase{"interconnect:\n  ranks: 0\n", "expected 1 to 1048576"},
        RangeCase{"interconnect:\n  ranks: 1048577\n", "interconnect.ranks"},
        RangeCase{"interconnect:\n  link: {bandwidth: 0Gb/s}\n", "interconnect.link.bandwidth"},
        RangeCase{"interconnect:\n  packet_size: 16B\n", "expected 32 B to 16 MiB"},
        RangeCase{"interconnect:\n  packet_size: 17MiB\n", "interconnect.packet_size"},
        RangeCase{"interconnect:\n  control_message_size: 2B\n", "expected 4 B to 16 MiB"}),
    [](const testing::TestParamInfo<RangeCase> &info) { return std::to_string(info.index); });

TEST(ConfigTest, BoundaryValuesAreAccepted) {
  a2_config c = LoadOk(
      "chip: {vector_cores: 1024, ub_size: 1KiB, window_size: 4KiB, clock: 1000GHz}\n"
      "interconnect: {topology: switch, ranks: 1048576, packet_size: 16MiB,"
      " control_message_size: 16MiB}\n");
  EXPECT_EQ(c.vector_cores, 1024u);
  EXPECT_EQ(c.ranks, 1048576u);
  c = LoadOk("interconnect: {ranks: 1, packet_size: 32B, control_message_size: 4B}\n");
  EXPECT_EQ(c.packet_bytes, 32u);
  EXPECT_EQ(c.ctrl_bytes, 4u);
}

TEST(ConfigTest, ControlMessageLargerThanPacketIsAnError) {
  std::string m =
      LoadFails("interconnect:\n  packet_size: 64B\n  control_message_size: 128B\n", 3, 25);
  EXPECT_CONTAINS(m,
                  "interconnect.control_message_size (128 B) must not be larger than "
                  "interconnect.packet_size (64 B)");
  // When only the packet size is in the file, the error points there.
  LoadFails("interconnect:\n  packet_size: 32B\n", 2, 16);
}

TEST(ConfigTest, UnknownTopologyListsTheValidNames) {
  std::string m = LoadFails("interconnect:\n  topology: mesh\n", 2, 13);
  EXPECT_CONTAINS(m,
                  "interconnect.topology: 'mesh': unknown topology; expected one of "
                  "full_mesh, ring, switch");
}

TEST(ConfigTest, EveryTopologyNameLoads) {
  EXPECT_EQ(LoadOk("interconnect: {topology: full_mesh}").topology, A2_TOPO_FULL_MESH);
  EXPECT_EQ(LoadOk("interconnect: {topology: ring}").topology, A2_TOPO_RING);
  EXPECT_EQ(LoadOk("interconnect: {topology: switch}").topology, A2_TOPO_SWITCH);
}

TEST(ConfigTest, YamlSyntaxErrorHasLibyamlLocation) {
  std::string m = LoadFails("chip:\n  clock: [1GHz\n  ub_size: 4KiB\n", 3, 10);
  EXPECT_CONTAINS(m, "invalid YAML: did not find expected ',' or ']'");
}

TEST(ConfigTest, TabIndentationIsReportedWithLocation) {
  std::string m = LoadFails("chip:\n\tclock: 1GHz\n", 2, 1);
  EXPECT_CONTAINS(m, "invalid YAML: found character that cannot start any token");
  EXPECT_CONTAINS(m, "indent with spaces");
}

TEST(ConfigTest, InvalidUtf8IsReportedWithLocation) {
  std::string m = LoadFails("chip:\n  clock: \xff\n", 2, 10);
  EXPECT_CONTAINS(m, "invalid YAML: invalid leading UTF-8 octet (byte 0xff)");
}

TEST(ConfigTest, TopLevelThatIsNotAMappingIsAnError) {
  EXPECT_CONTAINS(LoadFails("- chip\n- interconnect\n", 1, 1),
                  "expected a mapping with keys chip, interconnect at the top level, found a "
                  "sequence");
  EXPECT_CONTAINS(LoadFails("hello\n", 1, 1), "found a scalar");
}

TEST(ConfigTest, SecondDocumentIsAnError) {
  EXPECT_CONTAINS(LoadFails("chip: {}\n---\ninterconnect: {}\n", 3, 1),
                  "expected a single YAML document");
}

TEST(ConfigTest, MissingFileIsAnIoErrorNamingThePath) {
  a2_config c;
  a2_err e{};
  EXPECT_EQ(a2_config_load("/nonexistent/dir/x.yaml", &c, &e), A2_E_IO);
  EXPECT_STREQ(e.file, "/nonexistent/dir/x.yaml");
  EXPECT_EQ(e.line, 0);
  EXPECT_CONTAINS(e.msg, std::strerror(ENOENT));
}

TEST(ConfigTest, DirectoryIsAnIoError) {
  a2_config c;
  a2_err e{};
  EXPECT_EQ(a2_config_load(A2_SOURCE_DIR, &c, &e), A2_E_IO);
  EXPECT_CONTAINS(e.msg, std::strerror(EISDIR));
}

TEST(ConfigTest, FileErrorsNameTheFileLineAndColumn) {
  std::string path = testing::TempDir() + "a2_config_test_bad.yaml";
  std::ofstream(path) << "chip:\n  clock: 1.8GHz\n  vector_cores: 0\n";
  a2_config c;
  a2_err e{};
  ASSERT_EQ(a2_config_load(path.c_str(), &c, &e), A2_E_INPUT);
  char out[1024];
  a2_err_format(&e, out, sizeof out);
  EXPECT_EQ(std::string(out), path +
                                  ":3:17: error: chip.vector_cores: '0': out of range; "
                                  "expected 1 to 1024");
  std::remove(path.c_str());
}

// ---- --set --------------------------------------------------------------

TEST(ConfigSetTest, SetParsesUnitsLikeTheFile) {
  a2_config c;
  a2_config_default(&c);
  a2_err e{};
  ASSERT_EQ(a2_config_set(&c, "interconnect.link.bandwidth", "56GB/s", &e), A2_OK) << e.msg;
  ASSERT_EQ(a2_config_set(&c, "interconnect.topology", "switch", &e), A2_OK) << e.msg;
  ASSERT_EQ(a2_config_set(&c, "chip.vector.startup_cycles", "0", &e), A2_OK) << e.msg;
  EXPECT_EQ(c.link_bw, 56000000000u);
  EXPECT_EQ(c.topology, A2_TOPO_SWITCH);
  EXPECT_EQ(c.vec_startup_cycles, 0u);
}

TEST(ConfigSetTest, BadValueNamesKeyAndValue) {
  a2_config c, before;
  a2_config_default(&c);
  before = c;
  a2_err e{};
  EXPECT_EQ(a2_config_set(&c, "interconnect.link.bandwidth", "abc", &e), A2_E_INPUT);
  EXPECT_STREQ(e.file, "--set");
  EXPECT_EQ(e.line, 0);
  EXPECT_EQ(e.col, 0);
  EXPECT_EQ(Message(e),
            "interconnect.link.bandwidth=abc: expected a bandwidth such as 28GB/s "
            "(units: B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, Mb/s, Gb/s)");
  ExpectSameConfig(c, before);  // a failed --set changes nothing
}

TEST(ConfigSetTest, OutOfRangeValueIsAnError) {
  a2_config c;
  a2_config_default(&c);
  a2_err e{};
  EXPECT_EQ(a2_config_set(&c, "chip.vector_cores", "2000", &e), A2_E_INPUT);
  EXPECT_EQ(Message(e), "chip.vector_cores=2000: out of range; expected 1 to 1024");
  EXPECT_EQ(a2_config_set(&c, "interconnect.topology", "hypercube", &e), A2_E_INPUT);
  EXPECT_CONTAINS(e.msg, "expected one of full_mesh, ring, switch, two_level, torus");
}

TEST(ConfigSetTest, UnknownKeySuggestsCloseMatches) {
  a2_config c;
  a2_config_default(&c);
  a2_err e{};
  EXPECT_EQ(a2_config_set(&c, "interconnect.link.bandwith", "1GB/s", &e), A2_E_INPUT);
  EXPECT_EQ(Message(e),
            "unknown key 'interconnect.link.bandwith'; did you mean "
            "'interconnect.link.bandwidth'?");
  a2_config_set(&c, "bandwidth", "1GB/s", &e);
  EXPECT_EQ(Message(e),
            "unknown key 'bandwidth'; did you mean 'chip.l2.bandwidth', 'chip.hbm.bandwidth', "
            "'interconnect.link.bandwidth', 'interconnect.nic.bandwidth'?");
  a2_config_set(&c, "link.latency", "1ns", &e);
  EXPECT_EQ(Message(e), "unknown key 'link.latency'; did you mean 'interconnect.link.latency'?");
  a2_config_set(&c, "clock", "1GHz", &e);
  EXPECT_CONTAINS(e.msg, "did you mean 'chip.clock'?");
  a2_config_set(&c, "zzz", "1", &e);
  EXPECT_CONTAINS(e.msg, "unknown key 'zzz'; keys are dotted paths such as chip.clock");
}

TEST(ConfigSetTest, SectionIsNotAKey) {
  a2_config c;
  a2_config_default(&c);
  a2_err e{};
  EXPECT_EQ(a2_config_set(&c, "chip.mte", "1GB/s", &e), A2_E_INPUT);
  EXPECT_EQ(Message(e),
            "'chip.mte' is a section, not a key; its keys are gm_to_ub, ub_to_gm, "
            "latency, remote_read_window, remote_write_window, remote_atomic_window, "
            "remote_store_bandwidth");
  EXPECT_EQ(a2_config_set(&c, "", "1", &e), A2_E_INPUT);
  EXPECT_CONTAINS(e.msg, "unknown key ''");
}

// ---- validation ---------------------------------------------------------

TEST(ConfigValidateTest, RejectsAFieldOutOfRange) {
  a2_config c;
  a2_config_default(&c);
  c.ranks = 0;
  a2_err e{};
  EXPECT_EQ(a2_config_validate(&c, "cfg.yaml", &e), A2_E_INPUT);
  EXPECT_STREQ(e.file, "cfg.yaml");
  EXPECT_EQ(e.line, 0);
  EXPECT_EQ(Message(e), "interconnect.ranks: '0': out of range; expected 1 to 1048576");
  a2_config_default(&c);
  c.topology = static_cast<a2_topology>(7);
  EXPECT_EQ(a2_config_validate(&c, "cfg.yaml", &e), A2_E_INPUT);
  EXPECT_CONTAINS(e.msg, "interconnect.topology");
}

TEST(ConfigValidateTest, RejectsControlMessageLargerThanPacket) {
  a2_config c;
  a2_config_default(&c);
  a2_err e{};
  ASSERT_EQ(a2_config_set(&c, "interconnect.control_message_size", "8KiB", &e), A2_OK);
  EXPECT_EQ(a2_config_validate(&c, "--set", &e), A2_E_INPUT);
  EXPECT_CONTAINS(e.msg,
                  "interconnect.control_message_size (8 KiB) must not be larger than "
                  "interconnect.packet_size (4 KiB)");
  ASSERT_EQ(a2_config_set(&c, "interconnect.packet_size", "8KiB", &e), A2_OK);
  EXPECT_EQ(a2_config_validate(&c, "--set", &e), A2_OK);
}

// ---- printing -----------------------------------------------------------

TEST(ConfigPrintTest, PrintsTheFileLayoutWithUnits) {
  a2_config c;
  a2_config_default(&c);
  EXPECT_EQ(Print(c),
            "chip:\n"
            "  device: a2\n"
            "  clock: 1.8 GHz\n"
            "  vector_cores: 48\n"
            "  ub_size: 192 KiB\n"
            "  vector:\n"
            "    bytes_per_cycle: 121\n"
            "    startup_cycles: 24\n"
            "  mte:\n"
            "    gm_to_ub: 230.4 GB/s\n"
            "    ub_to_gm: 188.5 GiB/s\n"
            "    latency: 0 ps\n"
            "    remote_read_window: 192 KiB\n"
            "    remote_write_window: 8 KiB\n"
            "    remote_atomic_window: 1.888 KB\n"
            "    remote_store_bandwidth: 19.5 GB/s\n"
            "  cube_cores: 24\n"
            "  cube:\n"
            "    l1_size: 512 KiB\n"
            "    l0a_size: 64 KiB\n"
            "    l0b_size: 64 KiB\n"
            "    l0c_size: 128 KiB\n"
            "    fp16_macs_per_cycle: 4096\n"
            "    startup_cycles: 0\n"
            "    gm_to_l1: 135 GiB/s\n"
            "    l1_to_l0a: 441 GiB/s\n"
            "    l1_to_l0b: 220.5 GiB/s\n"
            "    l0c_to_gm: 70 GiB/s\n"
            "  l2:\n"
            "    bandwidth: 4 TB/s\n"
            "    latency: 0 ps\n"
            "  hbm:\n"
            "    bandwidth: 1.6 TB/s\n"
            "    latency: 115 ns\n"
            "  window_size: 256 MiB\n"
            "  sdma:\n"
            "    queues: 8\n"
            "    launch: 1 us\n"
            "    write_bandwidth: 19.5 GB/s\n"
            "    read_bandwidth: 27.1 GB/s\n"
            "    local_bandwidth: 77 GB/s\n"
            "    launch_overlap: none\n"
            "interconnect:\n"
            "  topology: full_mesh\n"
            "  ranks: 8\n"
            "  link:\n"
            "    bandwidth: 28 GB/s\n"
            "    latency: 155 ns\n"
            "  packet_size: 4 KiB\n"
            "  switch_latency: 100 ns\n"
            "  control_message_size: 64 B\n"
            "  group_size: 8\n"
            "  nic:\n"
            "    bandwidth: 25 GB/s\n"
            "    latency: 1.5 us\n"
            "    rdma_launch: 110 ns\n"
            "    rdma_bandwidth: 23.8 GB/s\n"
            "    engine: rdma\n"
            "  torus_width: 4\n"
            "  timing: packet\n");
}

TEST(ConfigPrintTest, PrintedConfigLoadsBackIdentical) {
  a2_config c;
  a2_config_default(&c);
  ExpectSameConfig(LoadOk(Print(c).c_str()), c);
  // Odd values that no unit makes whole still round-trip exactly.
  a2_err e{};
  const char *sets[][2] = {{"chip.clock", "1234567891Hz"},
                           {"chip.ub_size", "1025"},
                           {"chip.mte.gm_to_ub", "123456789012B/s"},
                           {"chip.mte.latency", "7"},
                           {"chip.hbm.latency", "0.123456789us"},
                           {"chip.window_size", "18446744073709551615"},
                           {"interconnect.topology", "ring"},
                           {"interconnect.ranks", "1048576"},
                           {"interconnect.link.bandwidth", "18446744073709551615B/s"},
                           {"interconnect.packet_size", "12352"},
                           {"interconnect.control_message_size", "33"},
                           {"interconnect.switch_latency", "1s"},
                           {"interconnect.timing", "reservation"}};
  for (auto &kv : sets) ASSERT_EQ(a2_config_set(&c, kv[0], kv[1], &e), A2_OK) << kv[0] << e.msg;
  std::string text = Print(c);
  ExpectSameConfig(LoadOk(text.c_str()), c);
}

}  // namespace
