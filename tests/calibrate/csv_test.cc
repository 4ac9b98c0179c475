// The measurements CSV reader through the binary: every malformed file is
// refused before anything runs - exit 2, nothing on stdout, one stderr line
// naming FILE:LINE:COL (or FILE:LINE) and what was expected.
#include <cstring>
#include <string>
#include <vector>

#include "tests/calibrate/calibrate_util.h"

namespace a2test {
namespace {

struct Bad {
  const char *name;
  std::string body;                  // after the header unless it starts with '!'
  std::vector<std::string> needles;  // each must be in the error line
};

// A valid row to vary.
const char *kRow = "r1,allreduce_mesh,2,4KiB,,time,1us,15%,src";

std::string Row(const std::string &field, int col) {
  std::vector<std::string> f = {"r1", "allreduce_mesh", "2", "4KiB", "", "time", "1us", "15%",
                                "src"};
  f[col] = field;
  std::string s;
  for (size_t i = 0; i < f.size(); i++) s += (i ? "," : "") + f[i];
  return s + "\n";
}

std::vector<Bad> Cases() {
  return {
      {"header",
       "!row,program,rank,size,args,metric,measured,tolerance,source\n",
       {"t.csv:1:13:", "header column 3 is 'rank'; expected 'ranks'"}},
      {"short header", "!row,program\n", {"t.csv:1:", "the header has 2 columns"}},
      {"no header", "!# only a comment\n", {"t.csv:", "no header"}},
      {"no rows", "# nothing\n", {"t.csv:2:", "no rows after the header"}},
      {"too few fields",
       "r1,allreduce_mesh,2,4KiB,,time,1us,15%\n",
       {"t.csv:2:", "8 fields; expected the 9 columns"}},
      {"too many fields",
       std::string(kRow) + ",extra\n",
       {"t.csv:2:" + std::to_string(strlen(kRow) + 2) + ":", "more than 9 fields"}},
      {"bad id", Row("r 1", 0), {"t.csv:2:1:", "row: 'r 1' is not an id"}},
      {"duplicate id",
       std::string(kRow) + "\n" + kRow + "\n",
       {"t.csv:3:1:", "duplicate id 'r1' (first on line 2)"}},
      {"unknown built-in",
       Row("allreduce_mes", 1),
       {"t.csv:2:4:", "unknown built-in 'allreduce_mes'"}},
      {"missing program file",
       Row("nofile.a2t", 1),
       {"t.csv:2:4:", "cannot read the program file"}},
      {"bad ranks", Row("two", 2), {"t.csv:2:", "ranks: 'two'"}},
      {"no ranks and no -d", Row("", 2), {"t.csv:2:19:", "ranks: empty"}},
      {"ranks and -d", Row("\"-d 0,1\"", 4), {"t.csv:2:", "either ranks or -d"}},
      {"bad size", Row("4KB/s", 3), {"t.csv:2:", "size: '4KB/s'"}},
      {"reserved flag", Row("--json", 4), {"t.csv:2:", "args: --json is not a row's flag"}},
      {"config without a file", Row("--config", 4), {"t.csv:2:", "args: --config needs a file"}},
      {"config unreadable",
       Row("--config nofile.yaml", 4),
       {"t.csv:2:", "args: --config: cannot read 'nofile.yaml'"}},
      {"config twice",
       Row("\"--config=t.csv --config t.csv\"", 4),
       {"t.csv:2:", "args: --config given twice"}},
      {"unknown metric",
       Row("latency", 5),
       {"t.csv:2:",
        "unknown metric 'latency'; expected time, algbw, busbw, compute_time or sequential_time"}},
      {"unit of another metric",
       Row("1GB/s", 6),
       {"t.csv:2:", "unknown unit 'GB/s' for metric time"}},
      {"no unit", Row("1", 6), {"t.csv:2:", "'1' has no unit"}},
      {"bad unit", Row("1usec", 6), {"t.csv:2:", "unknown unit 'usec'"}},
      {"zero", Row("0us", 6), {"t.csv:2:", "is zero"}},
      {"tolerance without %", Row("15", 7), {"t.csv:2:", "tolerance: '15' is not a percentage"}},
      {"tolerance zero", Row("0%", 7), {"t.csv:2:", "outside (0%, 100%]"}},
      {"tolerance too large", Row("150%", 7), {"t.csv:2:", "outside (0%, 100%]"}},
      {"no source", Row("", 8), {"t.csv:2:", "source: empty"}},
      {"unterminated quote",
       "r1,\"allreduce_mesh,2,4KiB,,time,1us,15%,src\n",
       {"t.csv:2:4:", "unterminated quoted field"}},
      {"quote inside a field",
       "r1,all\"reduce_mesh,2,4KiB,,time,1us,15%,src\n",
       {"t.csv:2:7:", "a quote inside an unquoted field"}},
      {"text after a quote",
       "r1,\"allreduce_mesh\"x,2,4KiB,,time,1us,15%,src\n",
       {"t.csv:2:20:", "text after the closing quote"}},
      // The role column (a 10-column header).
      {"header with a misnamed 10th column",
       "!row,program,ranks,size,args,metric,measured,tolerance,source,rol\n",
       {"t.csv:1:62:", "header column 10 is 'rol'; expected 'role'"}},
      {"bad role",
       std::string("!") + CsvHeaderWithRole() + kRow + ",predicted\n",
       {"t.csv:2:" + std::to_string(strlen(kRow) + 2) + ":",
        "role: 'predicted' is not a role; expected fit", "or predict"}},
      {"empty role",
       std::string("!") + CsvHeaderWithRole() + kRow + ",\n",
       {"t.csv:2:" + std::to_string(strlen(kRow) + 2) + ":", "role: '' is not a role"}},
      {"no role under a role header",
       std::string("!") + CsvHeaderWithRole() + kRow + "\n",
       {"t.csv:2:", "9 fields; expected the 10 columns row,program,", ",source,role"}},
      {"a field after the role",
       std::string("!") + CsvHeaderWithRole() + kRow + ",fit,x\n",
       {"t.csv:2:" + std::to_string(strlen(kRow) + 6) + ":", "more than 10 fields"}},
      {"a role under a 9-column header",
       std::string(kRow) + ",fit\n",
       {"t.csv:2:" + std::to_string(strlen(kRow) + 2) + ":", "more than 9 fields",
        "expected the 9 columns"}},
  };
}

TEST(CalibrateCsv, EveryMalformedFileIsRefusedWithItsPlace) {
  for (const Bad &b : Cases()) {
    SCOPED_TRACE(b.name);
    TempDir tmp;
    std::string body = b.body[0] == '!' ? b.body.substr(1) : CsvHeader() + b.body;
    std::string csv = tmp.Write("t.csv", body);
    std::vector<std::string> needles = b.needles;
    for (std::string &n : needles)
      if (n.rfind("t.csv", 0) == 0) n = csv + n.substr(5);
    EXPECT_TRUE(RunFailsWithUsage({"calibrate", csv}, needles));
  }
}

TEST(CalibrateCsv, QuotedFieldsCommentsAndBlankLinesAreRead) {
  TempDir tmp;
  // Quoted fields (a source with a comma, -d LIST in args with empty ranks),
  // CRLF line ends, comments and blank lines.
  std::string csv = tmp.Write(
      "t.csv", std::string("# a comment\r\n\r\n") + CsvHeader() +
                   "  # an indented comment\n"
                   "\"r1\",allreduce_mesh,2,4KiB,\"--dtype fp16 --cores 2\",time,1us,15%,\"a, "
                   "b\"\r\n"
                   "r2,allreduce_mesh,,4KiB,\"-d 0,2\",time,1us,15%,src\n");
  CliResult r = RunCli({"calibrate", csv});
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(LineStarting(r.out, "r1 ").find("allreduce_mesh"), std::string::npos) << r;
  EXPECT_NE(LineStarting(r.out, "r2 ").find("allreduce_mesh"), std::string::npos) << r;
}

TEST(CalibrateCsv, TheRoleColumnIsReadAndANineColumnFileIsEveryRowFit) {
  TempDir tmp;
  std::string with =
      tmp.Write("with.csv", std::string(CsvHeaderWithRole()) + kRow +
                                ",fit\n"
                                "r2,allreduce_mesh,4,4KiB,,time,1us,15%,src,predict\n");
  CliResult r = RunCli({"calibrate", with});
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find(with + ": 2 rows: 1 fit, 1 predict; "), std::string::npos) << r;
  // The predict row is in its own table, after the fit rows' summary line.
  size_t fit_summary = r.out.find("\nfit rows: 1,"), predicted = r.out.find("\npredicted rows (");
  ASSERT_NE(fit_summary, std::string::npos) << r;
  ASSERT_NE(predicted, std::string::npos) << r;
  EXPECT_LT(r.out.find("\nr1 "), fit_summary) << r;
  EXPECT_GT(r.out.find("\nr2 "), predicted) << r;
  std::string without = tmp.Write("without.csv", std::string(CsvHeader()) + kRow + "\n");
  CliResult n = RunCli({"calibrate", without});
  EXPECT_EQ(n.exit_code, 0) << n;
  EXPECT_NE(n.out.find(without + ": 1 row: 1 fit, 0 predict; "), std::string::npos) << n;
  EXPECT_EQ(n.out.find("predicted rows"), std::string::npos) << n;
}

TEST(CalibrateCsv, SeveralFilesAreOneTableKeyedByFileAndId) {
  TempDir tmp;
  std::string a = tmp.Write("a.csv", std::string(CsvHeaderWithRole()) + kRow +
                                         ",fit\n"
                                         "only-a,allreduce_mesh,4,4KiB,,time,1us,15%,src,fit\n");
  // The same id in another file (a 9-column one) is another row.
  std::string b = tmp.Write("b.csv", std::string(CsvHeader()) + kRow + "\n");
  CliResult r = RunCli({"calibrate", a, b});
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find(a + ", " + b + ": 3 rows: 3 fit, 0 predict; "), std::string::npos) << r;
  EXPECT_FALSE(LineStarting(r.out, a + ":r1 ").empty()) << r;
  EXPECT_FALSE(LineStarting(r.out, b + ":r1 ").empty()) << r;
  EXPECT_FALSE(LineStarting(r.out, "only-a ").empty()) << r;
  EXPECT_NE(r.out.find("\nfit rows: 3, "), std::string::npos) << r;
  // A problem in the second file names it; a file given twice is refused.
  std::string bad = tmp.Write("bad.csv", std::string(CsvHeader()) + Row("latency", 5));
  EXPECT_TRUE(RunFailsWithUsage({"calibrate", a, bad}, {bad + ":2:", "unknown metric"}));
  EXPECT_TRUE(RunFailsWithUsage({"calibrate", a, b, a}, {a + ": error: given twice"}));
}

// `kernel` is the deprecated name of the `program` column (docs/calibrate.md):
// the same file with either header gives the same output.
TEST(CalibrateCsv, KernelIsTheDeprecatedNameOfTheProgramColumn) {
  TempDir tmp;
  std::string rows = std::string(kRow) + "\n";
  std::string old = CsvHeader();
  old.replace(old.find("program"), 7, "kernel");
  CliResult a = RunCli({"calibrate", tmp.Write("t.csv", CsvHeader() + rows)});
  CliResult b = RunCli({"calibrate", tmp.Write("t.csv", old + rows)});
  EXPECT_EQ(a.exit_code, 0) << a;
  EXPECT_EQ(b.exit_code, 0) << b;
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(LineStarting(a.out, "row ").rfind("row  program ", 0), 0u) << a;  // its own word
}

TEST(CalibrateCsv, AProgramPathIsRelativeToTheCsvsFolder) {
  TempDir tmp;
  std::string dir = tmp.path() + "/a/b";
  ASSERT_EQ(system(("mkdir -p " + dir).c_str()), 0);
  tmp.Write("k.a2t", ReadFileOrFail(TgetProgram()));
  std::string csv = tmp.Write(
      "a/b/t.csv", std::string(CsvHeader()) + "r1,../../k.a2t,2,4KiB,,time,1us,15%,src\n");
  CliResult r = RunCli({"calibrate", csv});
  EXPECT_EQ(r.exit_code, 0) << r;
  // The table names the file as the run opens it: the folder joined and tidied.
  EXPECT_NE(LineStarting(r.out, "r1 ").find(tmp.path() + "/k.a2t"), std::string::npos) << r;
}

// The `a2a3sim run` arguments of a markdown row's command cell.
std::vector<std::string> CommandArgs(const std::string &row) {
  size_t at = row.find("`a2a3sim run "), end = row.find('`', at + 1);
  std::vector<std::string> args;
  if (at == std::string::npos || end == std::string::npos) return args;
  std::string cmd = row.substr(at + 13, end - at - 13);
  for (size_t i = 0; i < cmd.size();) {
    size_t j = cmd.find(' ', i);
    if (j == std::string::npos) j = cmd.size();
    if (j > i) args.push_back(cmd.substr(i, j - i));
    i = j + 1;
  }
  return args;
}

// A row's --config FILE is relative to the CSV's folder, runs that row with
// FILE instead of calibrate's config (even when calibrate has --config),
// and the table's command names it.
TEST(CalibrateCsv, ARowsConfigIsRelativeToTheCsvsFolderAndIsTheRowsOwn) {
  TempDir tmp;
  std::string dir = tmp.path() + "/a/b";
  ASSERT_EQ(system(("mkdir -p " + dir).c_str()), 0);
  std::string slow = tmp.Write("slow.yaml", "interconnect:\n  link:\n    latency: 2us\n");
  std::string csv = tmp.Write("a/b/t.csv", std::string(CsvHeader()) + kRow + "\n" +
                                               "r2,allreduce_mesh,2,4KiB,--config ../../slow.yaml,"
                                               "time,1us,15%,src\n");
  long long def = SimulatedPs({"--algo", "allreduce_mesh", "--ranks", "2", "--size", "4KiB"});
  long long own =
      SimulatedPs({"--algo", "allreduce_mesh", "--ranks", "2", "--size", "4KiB", "--config", slow});
  ASSERT_GT(own, def);
  const std::string dflt = std::string(A2_SOURCE_DIR) + "/configs/a2-8p-hccs.yaml";
  for (bool with_config : {false, true}) {
    SCOPED_TRACE(with_config ? "calibrate --config" : "no calibrate --config");
    std::vector<std::string> args = {"calibrate", "--markdown", csv};
    if (with_config) args = {"calibrate", "--markdown", "--config", dflt, csv};
    CliResult r = RunCli(args);
    ASSERT_EQ(r.exit_code, 0) << r;
    std::string r1 = LineStarting(r.out, "| r1 |"), r2 = LineStarting(r.out, "| r2 |");
    EXPECT_NE(r2.find("--config " + slow), std::string::npos) << r2;
    EXPECT_EQ(r2.find("--config " + dflt), std::string::npos) << r2;
    EXPECT_EQ(SimulatedPs(CommandArgs(r2)), own) << r2;
    EXPECT_EQ(SimulatedPs(CommandArgs(r1)), def) << r1;
  }
}

TEST(CalibrateCsv, ARowWhoseRunIsRefusedNamesItsLineAndCommand) {
  TempDir tmp;
  std::string csv =
      tmp.Write("t.csv", std::string(CsvHeader()) + kRow + "\n" +
                             "r2,allreduce_mesh,2,4KiB,--cores 99,time,1us,15%,src\n");
  CliResult r = RunCli({"calibrate", csv});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(csv + ":3: error: row r2: error: --cores:"), std::string::npos) << r;
  EXPECT_NE(r.err.find("a2a3sim run --algo allreduce_mesh --ranks 2 --size 4KiB --cores 99"),
            std::string::npos)
      << r;
}

}  // namespace
}  // namespace a2test
