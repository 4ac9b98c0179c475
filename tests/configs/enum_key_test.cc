// Tests for the enumerated config keys (A2_KEY_ENUM rows of the key table:
// interconnect.topology and interconnect.timing): names parse from the file
// and --set, a bad name is an error at file:line:col that lists the names,
// the printed config names the value, and docs/config.md lists the names the
// table has.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "config_print.h"
#include "configs/config.h"
#include "configs/config_keys.h"
#include "tests/support/files.h"
#include "tests/support/run_cli.h"

namespace {

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)

// The names of an enumerated row, from the table.
std::vector<std::string> Names(const a2_config_key &k) {
  std::vector<std::string> out;
  for (const char *const *n = k.names; n && *n; n++) out.push_back(*n);
  return out;
}

std::string Joined(const std::vector<std::string> &v) {
  std::string s;
  for (const std::string &n : v) s += (s.empty() ? "" : ", ") + n;
  return s;
}

const a2_config_key &Row(const char *path) {
  const a2_config_key *k = a2_config_key_find(path);
  EXPECT_NE(k, nullptr) << path;
  return *k;
}

// ---- the table ----------------------------------------------------------

TEST(ConfigEnumKeyTest, TopologyAndTimingAreEnumeratedRows) {
  EXPECT_EQ(Row("interconnect.topology").kind, A2_KEY_ENUM);
  EXPECT_EQ(Row("interconnect.timing").kind, A2_KEY_ENUM);
  EXPECT_EQ(Joined(Names(Row("interconnect.topology"))),
            "full_mesh, ring, switch, two_level, torus, levels");
  EXPECT_EQ(Joined(Names(Row("interconnect.timing"))), "packet, reservation, ordered");
}

TEST(ConfigEnumKeyTest, EveryEnumeratedRowIsConsistent) {
  for (unsigned i = 0; i < a2_config_nkeys; i++) {
    const a2_config_key &k = a2_config_keys[i];
    SCOPED_TRACE(k.path);
    if (k.kind != A2_KEY_ENUM) {
      EXPECT_EQ(k.names, nullptr);
      continue;
    }
    std::vector<std::string> names = Names(k);
    ASSERT_GE(names.size(), 2u);
    EXPECT_EQ(k.min, 0u);
    EXPECT_EQ(k.max, names.size() - 1);
    char list[256];
    a2_config_key_names(&k, list, sizeof list);
    EXPECT_EQ(std::string(list), Joined(names));
    // Each name parses to its index and formats back to itself.
    for (size_t v = 0; v < names.size(); v++) {
      uint64_t got = 99;
      char why[256], out[64];
      ASSERT_EQ(a2_config_key_parse(&k, names[v].c_str(), &got, why, sizeof why), 0) << why;
      EXPECT_EQ(got, v);
      a2_config_key_format(&k, v, out, sizeof out);
      EXPECT_EQ(std::string(out), names[v]);
    }
  }
}

TEST(ConfigEnumKeyTest, DocsListTheNamesOfEveryEnumeratedKey) {
  std::string doc = a2test::ReadFileOrFail(std::string(A2_SOURCE_DIR) + "/docs/config.md");
  ASSERT_FALSE(doc.empty());
  for (unsigned i = 0; i < a2_config_nkeys; i++) {
    const a2_config_key &k = a2_config_keys[i];
    if (k.kind != A2_KEY_ENUM) continue;
    // The keys table row: | `path` | name | default | names | ...
    EXPECT_CONTAINS(
        doc, std::string("| `") + k.path + "` | name | " + k.def + " | " + Joined(Names(k)) + " |");
  }
}

TEST(ConfigEnumKeyTest, KeysOtherThanNamesHaveNoNameList) {
  char list[64] = "x";
  a2_config_key_names(&Row("interconnect.ranks"), list, sizeof list);
  EXPECT_STREQ(list, "");
}

// ---- interconnect.timing ------------------------------------------------

a2_config LoadOk(const char *yaml) {
  a2_config c;
  a2_err e{};
  EXPECT_EQ(a2_config_load_string(yaml, "t.yaml", &c, &e), A2_OK) << e.msg;
  return c;
}

TEST(ConfigTimingTest, DefaultIsPacket) {
  a2_config c;
  a2_config_default(&c);
  EXPECT_EQ(c.timing, A2_TIMING_PACKET);
  EXPECT_EQ(LoadOk("").timing, A2_TIMING_PACKET);
  EXPECT_STREQ(Row("interconnect.timing").def, "packet");
}

TEST(ConfigTimingTest, BothNamesLoad) {
  EXPECT_EQ(LoadOk("interconnect:\n  timing: packet\n").timing, A2_TIMING_PACKET);
  EXPECT_EQ(LoadOk("interconnect:\n  timing: reservation\n").timing, A2_TIMING_RESERVATION);
  EXPECT_EQ(LoadOk("interconnect: {timing: \"reservation\"}\n").timing, A2_TIMING_RESERVATION);
  // Other keys are untouched.
  a2_config c = LoadOk("interconnect: {topology: ring, timing: reservation}\n");
  EXPECT_EQ(c.topology, A2_TOPO_RING);
  EXPECT_EQ(c.ranks, 8u);
}

TEST(ConfigTimingTest, UnknownNameIsAnErrorAtTheValueListingTheNames) {
  a2_config c;
  a2_err e{};
  ASSERT_EQ(a2_config_load_string("interconnect:\n  ranks: 8\n  timing: fast\n", "t.yaml", &c, &e),
            A2_E_INPUT);
  char out[1024];
  a2_err_format(&e, out, sizeof out);
  EXPECT_EQ(std::string(out),
            "t.yaml:3:11: error: interconnect.timing: 'fast': unknown timing; expected one of "
            "packet, reservation, ordered");
  // Names are case-sensitive, and a number is not a name.
  ASSERT_EQ(a2_config_load_string("interconnect: {timing: Packet}\n", "t.yaml", &c, &e),
            A2_E_INPUT);
  EXPECT_EQ(e.line, 1);
  EXPECT_EQ(e.col, 24);
  EXPECT_CONTAINS(e.msg, "unknown timing");
  ASSERT_EQ(a2_config_load_string("interconnect: {timing: 1}\n", "t.yaml", &c, &e), A2_E_INPUT);
  EXPECT_CONTAINS(e.msg, "interconnect.timing: '1': unknown timing");
}

TEST(ConfigTimingTest, MappingWhereTheNameIsExpected) {
  a2_config c;
  a2_err e{};
  ASSERT_EQ(a2_config_load_string("interconnect:\n  timing: {a: 1}\n", "t.yaml", &c, &e),
            A2_E_INPUT);
  EXPECT_EQ(e.line, 2);
  EXPECT_CONTAINS(e.msg, "interconnect.timing: expected a single value such as packet");
}

TEST(ConfigTimingTest, DuplicateTimingIsAnError) {
  a2_config c;
  a2_err e{};
  ASSERT_EQ(a2_config_load_string("interconnect:\n  timing: packet\n  timing: reservation\n",
                                  "t.yaml", &c, &e),
            A2_E_INPUT);
  EXPECT_EQ(e.line, 3);
  EXPECT_CONTAINS(e.msg, "duplicate key 'interconnect.timing' (first given on line 2)");
}

TEST(ConfigTimingTest, SetWorks) {
  a2_config c;
  a2_config_default(&c);
  a2_err e{};
  ASSERT_EQ(a2_config_set(&c, "interconnect.timing", "reservation", &e), A2_OK) << e.msg;
  EXPECT_EQ(c.timing, A2_TIMING_RESERVATION);
  ASSERT_EQ(a2_config_set(&c, "interconnect.timing", "packet", &e), A2_OK) << e.msg;
  EXPECT_EQ(c.timing, A2_TIMING_PACKET);
  a2_config before = c;
  EXPECT_EQ(a2_config_set(&c, "interconnect.timing", "fast", &e), A2_E_INPUT);
  EXPECT_STREQ(e.file, "--set");
  EXPECT_EQ(
      std::string(e.msg),
      "interconnect.timing=fast: unknown timing; expected one of packet, reservation, ordered");
  EXPECT_EQ(c.timing, before.timing);
  // A typo of the key is suggested like any other.
  EXPECT_EQ(a2_config_set(&c, "interconnect.timimg", "packet", &e), A2_E_INPUT);
  EXPECT_CONTAINS(e.msg, "did you mean 'interconnect.timing'?");
}

TEST(ConfigTimingTest, ValidateRejectsAValueWithoutAName) {
  a2_config c;
  a2_config_default(&c);
  c.timing = static_cast<a2_timing>(3);
  a2_err e{};
  EXPECT_EQ(a2_config_validate(&c, "cfg.yaml", &e), A2_E_INPUT);
  EXPECT_EQ(
      std::string(e.msg),
      "interconnect.timing: '3': unknown timing; expected one of packet, reservation, ordered");
}

TEST(ConfigTimingTest, PrintNamesTheValueAndLoadsBack) {
  a2_config c;
  a2_config_default(&c);
  EXPECT_CONTAINS(Print(c), "\n  timing: packet\n");
  c.timing = A2_TIMING_RESERVATION;
  std::string text = Print(c);
  EXPECT_CONTAINS(text, "\n  timing: reservation\n");
  EXPECT_EQ(LoadOk(text.c_str()).timing, A2_TIMING_RESERVATION);
}

// ---- through the CLI ----------------------------------------------------

TEST(ConfigTimingCliTest, ConfigCheckPrintsTheName) {
  std::string def = std::string(A2_SOURCE_DIR) + "/configs/a2-8p-hccs.yaml";
  a2test::CliResult r = a2test::RunCli({"config", "check", def});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_CONTAINS(r.out, "\n  timing: packet\n");
  r = a2test::RunCli({"config", "check", def, "--set", "interconnect.timing=reservation"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_CONTAINS(r.out, "\n  timing: reservation\n");
  a2test::TempDir dir;
  std::string f = dir.Write("t.yaml", "interconnect:\n  timing: reservation\n");
  r = a2test::RunCli({"config", "check", f});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_CONTAINS(r.out, "\n  timing: reservation\n");
}

TEST(ConfigTimingCliTest, BadNameIsAUsageErrorWithItsLocation) {
  a2test::TempDir dir;
  std::string f = dir.Write("bad.yaml", "chip: {}\ninterconnect:\n  timing: exact\n");
  a2test::CliResult r = a2test::RunCli({"config", "check", f});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_CONTAINS(r.err, f + ":3:11: error: interconnect.timing: 'exact': unknown timing; "
                             "expected one of packet, reservation, ordered");
  r = a2test::RunCli({"config", "check", std::string(A2_SOURCE_DIR) + "/configs/ring-8.yaml",
                      "--set", "interconnect.timing=exact"});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_CONTAINS(r.err,
                  "--set: interconnect.timing=exact: unknown timing; expected one "
                  "of packet, reservation");
}

}  // namespace
