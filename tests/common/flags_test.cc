// The table-driven flag parser (common/flags.h) on a small table of its
// own: each kind converts and stores its value, the errors name the flag as
// docs/cli.md says, and --help and the Markdown table come from the rows.
#include "common/flags.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/err.h"

namespace {

struct Opts {
  const char *name;
  bool on;
  unsigned count;
  uint64_t size, big, time;
  int color;
  const char *items[4];
  int nitems;
  const char *tags[2];
  size_t ntags;
  const char *out;
};

int AddItem(const a2_flag *, const char *v, void *opts) {
  Opts *o = static_cast<Opts *>(opts);
  o->items[o->nitems++] = v;
  return 0;
}

const char *const kColors[] = {"red", "green", NULL};

// Commands 0 ("main") and 1 ("other"): bit 0 and bit 1 of a row's cmds.
a2_flag MakeRow(a2_flag_kind kind, const char *name) {
  a2_flag f{};
  f.kind = kind;
  f.name = name;
  return f;
}

std::vector<a2_flag> Rows() {
  std::vector<a2_flag> r;
  a2_flag f = MakeRow(A2_FLAG_STRING, "--name");
  f.arg = "NAME";
  f.off = offsetof(Opts, name);
  f.help = "a `name` to use";
  r.push_back(f);
  f = MakeRow(A2_FLAG_BOOL, "--on");
  f.off = offsetof(Opts, on);
  f.help = "switch it on";
  f.cmds = 1;  // main only
  r.push_back(f);
  f = MakeRow(A2_FLAG_UINT, "--count");
  f.letter = "-c";
  f.arg = "N";
  f.off = offsetof(Opts, count);
  f.lo = 1;
  f.hi = 9;
  f.def = "3";
  f.twice = "given twice";
  f.group = 1;
  f.help = "how many";
  r.push_back(f);
  f = MakeRow(A2_FLAG_SIZE, "--size");
  f.arg = "BYTES";
  f.off = offsetof(Opts, size);
  f.group = 1;
  f.help =
      "bytes; a long help text that the help printer has to wrap over more than one line "
      "of eighty columns, with a | bar";
  r.push_back(f);
  f = MakeRow(A2_FLAG_U64, "--big");
  f.arg = "N";
  f.off = offsetof(Opts, big);
  f.lo = 1;
  f.bad = "expected a positive integer";
  f.help = "a large count";
  r.push_back(f);
  f = MakeRow(A2_FLAG_SECTION, "More");
  f.help = "a note";
  r.push_back(f);
  f = MakeRow(A2_FLAG_TIME, "--time");
  f.arg = "T";
  f.off = offsetof(Opts, time);
  f.lo = 1;
  f.help = "a time";
  r.push_back(f);
  f = MakeRow(A2_FLAG_CHOICE, "--color");
  f.arg = "C";
  f.off = offsetof(Opts, color);
  f.choices = kColors;
  f.help = "a color";
  r.push_back(f);
  f = MakeRow(A2_FLAG_CUSTOM, "--item");
  f.arg = "X";
  f.type = "anything";
  f.set = AddItem;
  f.repeat = true;
  f.help = "an item";
  r.push_back(f);
  f = MakeRow(A2_FLAG_LIST, "--tag");
  f.arg = "T";
  f.type = "text";
  f.off = offsetof(Opts, tags);
  f.count_off = offsetof(Opts, ntags);
  f.hi = 2;
  f.repeat = true;
  f.help = "a tag";
  r.push_back(f);
  f = MakeRow(A2_FLAG_STRING, "--output");
  f.letter = "-o";
  f.arg = "FILE";
  f.off = offsetof(Opts, out);
  f.cmds = 2;  // other only
  f.help = "where to";
  r.push_back(f);
  f = MakeRow(A2_FLAG_SECTION, "Old names");
  r.push_back(f);
  f = MakeRow(A2_FLAG_ALIAS, "--title");
  f.arg = "NAME";
  f.alias_of = "--name";
  r.push_back(f);
  f = MakeRow(A2_FLAG_ALIAS, "--switch");
  f.alias_of = "--on";
  r.push_back(f);
  return r;
}

const std::vector<a2_flag> kRows = Rows();
const a2_flag_cmd kCmds[] = {
    {"main", 1, "usage: a2a3sim main [FLAG]... ARG\n", "About main.", "After the flags."},
    {"other", 0, "usage: a2a3sim other [FLAG]...\n", NULL, NULL},
};
const a2_flag_table kTable = {kRows.data(), kRows.size(), kCmds, 2};

struct Parsed {
  int rc;
  Opts o;
  a2_flags_seen seen;
  std::string out, err;
  // the arguments and argv: o's and seen's strings point into them, so
  // they live as long as p
  std::shared_ptr<std::vector<std::string>> args;
  std::shared_ptr<std::vector<char *>> argv;
};

Parsed Parse(std::vector<std::string> given, size_t cmd = 0) {
  Parsed p{};
  p.args = std::make_shared<std::vector<std::string>>(std::move(given));
  std::vector<std::string> &args = *p.args;
  args.insert(args.begin(), kCmds[cmd].name);
  p.argv = std::make_shared<std::vector<char *>>();
  std::vector<char *> &argv = *p.argv;
  for (std::string &a : args) argv.push_back(&a[0]);
  argv.push_back(nullptr);
  p.o.count = 3;
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  p.rc = a2_flags_parse(&kTable, cmd, (int)args.size(), argv.data(), &p.o, &p.seen);
  p.err = testing::internal::GetCapturedStderr();
  p.out = testing::internal::GetCapturedStdout();
  return p;
}

// The parse failed with exit status 2 and exactly this one line on stderr.
void ExpectError(const Parsed &p, const std::string &line) {
  EXPECT_EQ(p.rc, A2_EXIT_USAGE);
  EXPECT_EQ(p.err, "a2a3sim: error: " + line + "\n");
}

TEST(FlagTable, EachKindConvertsAndStoresItsValue) {
  Parsed p = Parse({"--name", "x", "--on", "--count", "7", "--size", "4KiB", "--big", "99999999999",
                    "--time", "10ms", "--color", "green", "--item", "a", "--item", "b", "arg"});
  ASSERT_EQ(p.rc, 0) << p.err;
  EXPECT_STREQ(p.o.name, "x");
  EXPECT_TRUE(p.o.on);
  EXPECT_EQ(p.o.count, 7u);
  EXPECT_EQ(p.o.size, 4096u);
  EXPECT_EQ(p.o.big, 99999999999u);
  EXPECT_EQ(p.o.time, 10000000000u);  // ps
  EXPECT_EQ(p.o.color, 1);
  ASSERT_EQ(p.o.nitems, 2);
  EXPECT_STREQ(p.o.items[1], "b");
  ASSERT_EQ(p.seen.nargs, 1);
  EXPECT_STREQ(p.seen.args[0], "arg");
  EXPECT_EQ(p.err, "");
}

TEST(FlagTable, AListKeepsEachValueInOrderUpToItsMost) {
  Parsed p = Parse({"--tag", "a", "--tag=b"});
  ASSERT_EQ(p.rc, 0) << p.err;
  ASSERT_EQ(p.o.ntags, 2u);
  EXPECT_STREQ(p.o.tags[0], "a");
  EXPECT_STREQ(p.o.tags[1], "b");
  ExpectError(Parse({"--tag", "a", "--tag", "b", "--tag", "c"}), "--tag: more than 2");
}

TEST(FlagTable, ValuesMayBeJoinedWithEqualsOrToTheLetter) {
  Parsed p = Parse({"--name=a=b", "-c5", "--size=1KiB"});
  ASSERT_EQ(p.rc, 0) << p.err;
  EXPECT_STREQ(p.o.name, "a=b");
  EXPECT_EQ(p.o.count, 5u);
  EXPECT_EQ(p.o.size, 1024u);
}

TEST(FlagTable, NamesAreMatchedWholeNotByPrefix) {
  ExpectError(Parse({"--nam", "x"}), "--nam: unknown flag (see a2a3sim main --help)");
  ExpectError(Parse({"--nam=x"}), "--nam: unknown flag (see a2a3sim main --help)");
  ExpectError(Parse({"-x"}), "-x: unknown flag (see a2a3sim main --help)");
}

TEST(FlagTable, AValueStartingWithADashIsTheValue) {
  ExpectError(Parse({"--count", "-4"}), "-c: expected an integer in 1..9, got '-4'");
}

TEST(FlagTable, MissingAndUnwantedValuesAreNamed) {
  ExpectError(Parse({"--name"}), "--name: missing value");
  ExpectError(Parse({"--on=yes"}), "--on: takes no value");
}

TEST(FlagTable, RangesAndUnitsAreChecked) {
  ExpectError(Parse({"-c", "10"}), "-c: expected an integer in 1..9, got '10'");
  ExpectError(Parse({"--big", "0"}), "--big: expected a positive integer, got '0'");
  ExpectError(Parse({"--time", "0"}), "--time: expected at least 1 ps, got '0'");
  Parsed p = Parse({"--size", "12XB"});
  EXPECT_EQ(p.rc, A2_EXIT_USAGE);
  EXPECT_NE(p.err.find("--size: "), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("got '12XB'"), std::string::npos) << p.err;
  ExpectError(Parse({"--color", "blue"}), "--color: expected one of red, green, got 'blue'");
}

TEST(FlagTable, GivenTwiceIsRefusedOnlyWhereTheRowSaysSo) {
  ExpectError(Parse({"-c", "1", "--count", "2"}), "-c: given twice");
  Parsed p = Parse({"--name", "a", "--name", "b"});
  ASSERT_EQ(p.rc, 0) << p.err;
  EXPECT_STREQ(p.o.name, "b") << "the last value holds";
}

TEST(FlagTable, AFlagOfAnotherCommandIsNamed) {
  ExpectError(Parse({"-o", "f"}), "-o: only for a2a3sim other");
  ExpectError(Parse({"--on"}, 1), "--on: not for a2a3sim other");
}

TEST(FlagTable, AnAliasWarnsOnceAndActsAsItsFlag) {
  Parsed p = Parse({"--title", "a", "--title", "b"});
  ASSERT_EQ(p.rc, 0) << p.err;
  EXPECT_STREQ(p.o.name, "b");
  EXPECT_EQ(p.err, "a2a3sim: warning: --title is deprecated, use --name\n");
  EXPECT_TRUE(a2_flags_given(&p.seen, "--name"));
  // refused by a command that does not take its flag: named as typed, no warning
  ExpectError(Parse({"--switch"}, 1), "--switch: not for a2a3sim other");
}

TEST(FlagTable, ArgumentsMixWithFlagsAndDoubleDashEndsTheFlags) {
  Parsed p = Parse({"--", "--on"});
  ASSERT_EQ(p.rc, 0) << p.err;
  EXPECT_FALSE(p.o.on);
  EXPECT_STREQ(p.seen.args[0], "--on");
  ExpectError(Parse({"a", "--on", "b"}), "b: unexpected argument");
  ExpectError(Parse({"-"}, 1), "-: unexpected argument");
}

// A command of any number of arguments: they keep their order, wherever
// the flags are, and are moved to the end of argv as GNU getopt moves them.
TEST(FlagTable, AnyNumberOfArgumentsKeepTheirOrder) {
  a2_flag on = MakeRow(A2_FLAG_BOOL, "--on");
  on.off = offsetof(Opts, on);
  const a2_flag_cmd many[] = {{"many", A2_FLAGS_ANY, "usage: a2a3sim many FILE...\n", NULL, NULL}};
  const a2_flag_table t = {&on, 1, many, 1};
  std::vector<std::string> args = {"many", "a", "--on", "b", "c", "--", "--on", "d"};
  std::vector<char *> argv;
  for (std::string &a : args) argv.push_back(&a[0]);
  Opts o{};
  a2_flags_seen seen;
  ASSERT_EQ(a2_flags_parse(&t, 0, (int)argv.size(), argv.data(), &o, &seen), 0);
  EXPECT_TRUE(o.on);
  ASSERT_EQ(seen.nargs, 5);
  const char *want[] = {"a", "b", "c", "--on", "d"};
  for (int i = 0; i < 5; i++) EXPECT_STREQ(seen.args[i], want[i]) << i;
  EXPECT_EQ(seen.args, argv.data() + 3) << "the arguments are argv's last five";
  EXPECT_STREQ(argv[1], "--on");
}

TEST(FlagTable, FirstAndLastOfAGroupFollowTheCommandLine) {
  Parsed p = Parse({"--size", "1", "-c", "2", "--size", "3"});
  ASSERT_EQ(p.rc, 0) << p.err;
  EXPECT_STREQ(a2_flags_first(&p.seen, 1), "--size");
  EXPECT_STREQ(a2_flags_last(&p.seen, 1), "--size");
  p = Parse({"-c", "2", "--size", "3"});
  EXPECT_STREQ(a2_flags_first(&p.seen, 1), "-c");
  EXPECT_STREQ(a2_flags_last(&p.seen, 1), "--size");
  EXPECT_EQ(a2_flags_first(&p.seen, 2), nullptr);
  EXPECT_TRUE(a2_flags_given(&p.seen, "-c"));
  EXPECT_TRUE(a2_flags_given(&p.seen, "--count"));
  EXPECT_FALSE(a2_flags_given(&p.seen, "--on"));
}

TEST(FlagTable, HelpListsTheCommandsFlagsWrappedWithDefaults) {
  Parsed p = Parse({"--on", "--help", "--frobnicate"});
  EXPECT_EQ(p.rc, -1) << "help stops the parse";
  EXPECT_EQ(p.err, "");
  const std::string &h = p.out;
  EXPECT_EQ(h.rfind("usage: a2a3sim main [FLAG]... ARG\n\nAbout main.\n", 0), 0u) << h;
  EXPECT_NE(h.find("  -c, --count N      how many (default: 3)\n"), std::string::npos) << h;
  EXPECT_NE(h.find("a name to use"), std::string::npos) << "code marks are dropped: " << h;
  EXPECT_NE(h.find("an item (repeatable)"), std::string::npos) << h;
  EXPECT_NE(h.find("\nMore (a note):\n"), std::string::npos) << h;
  EXPECT_NE(h.find("  --title NAME       use --name NAME\n"), std::string::npos) << h;
  EXPECT_EQ(h.find("--output"), std::string::npos) << "not a flag of main: " << h;
  EXPECT_NE(h.find("\nAfter the flags.\n"), std::string::npos) << h;
  size_t start = 0;
  for (size_t end; (end = h.find('\n', start)) != std::string::npos; start = end + 1)
    EXPECT_LE(end - start, 80u) << h.substr(start, end - start);
}

TEST(FlagTable, HelpLeavesOutSectionsWithoutTheCommandsFlags) {
  testing::internal::CaptureStdout();
  a2_flags_help(&kTable, 1, stdout);
  std::string h = testing::internal::GetCapturedStdout();
  EXPECT_NE(h.find("-o, --output FILE"), std::string::npos) << h;
  EXPECT_NE(h.find("--title"), std::string::npos) << h;
  EXPECT_EQ(h.find("--switch"), std::string::npos) << "its flag is main's: " << h;
}

TEST(FlagTable, MarkdownHasARowPerFlagAndTheColumnsOfTheRow) {
  testing::internal::CaptureStdout();
  a2_flags_markdown(&kTable, stdout);
  std::string m = testing::internal::GetCapturedStdout();
  EXPECT_EQ(
      m.rfind("```\nusage: a2a3sim main [FLAG]... ARG\nusage: a2a3sim other [FLAG]...\n```\n", 0),
      0u)
      << m;
  EXPECT_NE(m.find("| flag | value | default | in | meaning |\n"), std::string::npos) << m;
  EXPECT_NE(m.find("| `-c`, `--count N` | integer 1..9 | 3 | main, other | how many |\n"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("with a \\| bar |"), std::string::npos) << "a bar is escaped: " << m;
  EXPECT_NE(m.find("| `--big N` | integer > 0 |"), std::string::npos) << m;
  EXPECT_NE(m.find("| `--item X` | anything, repeatable |"), std::string::npos) << m;
  EXPECT_NE(m.find("| `--color C` | `red`, `green` |"), std::string::npos) << m;
  EXPECT_NE(m.find("| `-o`, `--output FILE` | text | | other |"), std::string::npos) << m;
  EXPECT_NE(m.find("\n**More** (a note)\n"), std::string::npos) << m;
  EXPECT_NE(m.find("| `--title NAME` | deprecated | | main, other | use `--name NAME` |"),
            std::string::npos)
      << m;
  for (const a2_flag &f : kRows) {
    if (f.kind != A2_FLAG_SECTION) {
      EXPECT_NE(m.find(std::string("`") + f.name), std::string::npos) << f.name;
    }
  }
}

}  // namespace
