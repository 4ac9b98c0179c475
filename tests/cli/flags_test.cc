// End-to-end: the command line as docs/cli.md ("How flags are read")
// describes it, read by the flag tables (common/flags.h): the joined forms,
// whole names only, flags refused by the command that does not take them,
// and --help and `help --markdown` printed from the same rows.
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/run_cli.h"

namespace a2test {
namespace {

std::vector<std::string> Lines(const std::string &s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

// The cells of a Markdown table row, trimmed ("\\|" is a bar inside a cell).
std::vector<std::string> Cells(const std::string &row) {
  std::vector<std::string> cells;
  std::string cur;
  for (size_t i = 1; i < row.size(); i++) {
    if (row[i] == '\\' && i + 1 < row.size() && row[i + 1] == '|') {
      cur += '|';
      i++;
    } else if (row[i] == '|') {
      size_t a = cur.find_first_not_of(' '), b = cur.find_last_not_of(' ');
      cells.push_back(a == std::string::npos ? "" : cur.substr(a, b - a + 1));
      cur.clear();
    } else {
      cur += row[i];
    }
  }
  return cells;
}

TEST(CliFlags, JoinedValuesRunAsSeparateOnes) {
  CliResult a =
      RunCli({"run", "--algo", "allreduce_mesh", "-d", "0,1", "--size", "1KiB", "--json"});
  CliResult b = RunCli({"run", "--algo=allreduce_mesh", "-d0,1", "--size=1KiB", "--json"});
  ASSERT_EQ(a.exit_code, 0) << a;
  EXPECT_EQ(b.exit_code, 0) << b;
  EXPECT_EQ(a.out, b.out);
}

TEST(CliFlags, AbbreviationsAreUnknownFlags) {
  EXPECT_TRUE(RunFailsWithUsage({"run", "--algo", "allreduce_mesh", "--ranks", "2", "--siz", "4"},
                                {"error: --siz: unknown flag (see a2a3sim run --help)"}));
  EXPECT_TRUE(RunFailsWithUsage({"run", "--alg", "allreduce_mesh", "--ranks", "2"},
                                {"error: --alg: unknown flag"}));
}

TEST(CliFlags, ASwitchTakesNoValue) {
  EXPECT_TRUE(RunFailsWithUsage({"run", "--algo", "allreduce_mesh", "--ranks", "2", "--json=1"},
                                {"error: --json: takes no value"}));
}

TEST(CliFlags, FlagsOfTheOtherCommandAreNamed) {
  EXPECT_TRUE(RunFailsWithUsage({"run", "--algo", "allreduce_mesh", "--ranks", "2", "-o", "x"},
                                {"error: -o: only for a2a3sim gen"}));
  EXPECT_TRUE(
      RunFailsWithUsage({"gen", "--algo", "allreduce_mesh", "--ranks", "2", "-o", "-", "--json"},
                        {"error: --json: not for a2a3sim gen"}));
  // a deprecated name is refused by the name given, without its warning
  CliResult r = RunCli(
      {"gen", "--algo", "allreduce_mesh", "--ranks", "2", "-o", "-", "--trace-file", "x.a2t"});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_EQ(r.err, "a2a3sim: error: --trace-file: not for a2a3sim gen\n") << r;
}

TEST(CliFlags, DevicesGivenTwiceAreRefused) {
  EXPECT_TRUE(
      RunFailsWithUsage({"run", "--algo", "allreduce_mesh", "-d", "0,1", "--devices", "2,3"},
                        {"error: -d: given twice"}));
}

TEST(CliFlags, HelpCommandIsTheCommandsHelp) {
  for (const char *cmd : {"run", "gen", "sweep", "calibrate", "config", "list"}) {
    CliResult a = RunCli({"help", cmd});
    CliResult b = RunCli({cmd, "--help"});
    EXPECT_EQ(a.exit_code, 0) << a;
    EXPECT_EQ(a.out, b.out) << cmd;
    EXPECT_NE(a.out.find(std::string("usage: a2a3sim ") + cmd), std::string::npos) << a;
  }
  EXPECT_TRUE(RunFailsWithUsage({"help", "frobnicate"}, {"unknown command 'frobnicate'"}));
  EXPECT_TRUE(RunFailsWithUsage({"help", "--markdown", "list"}, {"--markdown:", "'list'"}));
}

// Every line of every command's help fits 80 columns.
TEST(CliFlags, HelpFitsEightyColumns) {
  for (std::vector<std::string> cmd :
       {std::vector<std::string>{"run"}, {"gen"}, {"sweep"}, {"calibrate"}, {"config", "check"}}) {
    cmd.push_back("--help");
    CliResult r = RunCli(cmd);
    ASSERT_EQ(r.exit_code, 0) << r;
    for (const std::string &l : Lines(r.out)) EXPECT_LE(l.size(), 80u) << cmd[0] << ": " << l;
  }
}

// `run --help` and the docs' table come from one table: every flag the
// Markdown says `run` takes is in `run --help`, and none that it does not.
TEST(CliFlags, HelpAndMarkdownListTheSameFlags) {
  CliResult md = RunCli({"help", "--markdown", "run"});
  ASSERT_EQ(md.exit_code, 0) << md;
  for (const char *cmd : {"run", "gen"}) {
    CliResult help = RunCli({cmd, "--help"});
    ASSERT_EQ(help.exit_code, 0) << help;
    int rows = 0;
    for (const std::string &l : Lines(md.out)) {
      if (l.rfind("| `-", 0) != 0) continue;
      rows++;
      // "| `-d`, `--devices LIST` | value | default | run, gen | meaning |"
      std::vector<std::string> cells = Cells(l);
      ASSERT_EQ(cells.size(), 5u) << l;
      std::string spec, in = cells[3];
      for (char c : cells[0])
        if (c != '`') spec += c;
      bool takes = (", " + in + ",").find(std::string(", ") + cmd + ",") != std::string::npos;
      EXPECT_EQ(help.out.find("  " + spec + " ") != std::string::npos ||
                    help.out.find("  " + spec + "\n") != std::string::npos,
                takes)
          << cmd << ": " << spec << " (in: " << in << ")";
    }
    EXPECT_GT(rows, 40) << md.out;
  }
}

}  // namespace
}  // namespace a2test
