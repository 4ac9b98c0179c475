// Malformed and hostile measurement CSVs for `a2a3sim calibrate`
// (docs/calibrate.md, docs/robustness.md): each is refused with exit status
// 2, nothing on stdout, one line on stderr naming FILE:LINE (and the column
// where it is known) - or the flag, for a bad --fit - within a second.
// tests/calibrate/csv_test.cc checks each message of the reader in detail;
// this table adds the shapes an attacker or a careless export makes: an
// empty, binary, huge or NUL-carrying file, a very long line, numbers that
// are not numbers, and --fit keys that do not exist or that no row uses.
#include <chrono>
#include <cstdio>
#include <ostream>
#include <regex>
#include <string>
#include <vector>

#include "tests/support/run_cli.h"

namespace a2test {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr double kLimitS = 20;  // ASan + UBSan at -O0
#else
constexpr double kLimitS = 1;
#endif

const char kHeader[] = "row,program,ranks,size,args,metric,measured,tolerance,source\n";

std::string Row(const std::string &field, int col) {
  std::vector<std::string> f = {"r1", "allreduce_mesh", "2", "4KiB", "", "time", "1us", "15%",
                                "src"};
  f[col] = field;
  std::string s;
  for (size_t i = 0; i < f.size(); i++) s += (i ? "," : "") + f[i];
  return s + "\n";
}

struct BadCsv {
  const char *name;
  std::string (*make)();
  std::vector<std::string> flags;  // after `calibrate FILE`
  // the start of the message after "a2a3sim: ": "F:2:32:" (F = the file),
  // "F:" for the file as a whole, or "error: --fit:" for the flag
  std::string where;
  std::string needle;
};

void PrintTo(const BadCsv &b, std::ostream *os) {
  *os << b.name;
}

std::vector<BadCsv> Cases() {
  return {
      {"EmptyFile", [] { return std::string(); }, {}, "F: error: ", "no header"},
      {"BadHeader",
       [] { return std::string("row,program,rank,size,args,metric,measured,tolerance,source\n"); },
       {},
       "F:1:13: error: ",
       "expected 'ranks'"},
      {"HeaderOnlyComments",
       [] { return std::string("# a\n# b\n"); },
       {},
       "F: error: ",
       "no header"},
      {"TooFewColumns",
       [] { return kHeader + std::string("r1,allreduce_mesh,2,4KiB,,time,1us,15%\n"); },
       {},
       "F:2:39: error: ",
       "8 fields; expected the 9 columns"},
      {"TooManyColumns",
       [] { return kHeader + Row("src,x,y", 8); },
       {},
       "F:2:",
       "more than 9 fields"},
      {"NonNumericTime",
       [] { return kHeader + Row("abcus", 6); },
       {},
       "F:2:32: error: ",
       "'abcus' is not a time"},
      {"NanTime",
       [] { return kHeader + Row("nanus", 6); },
       {},
       "F:2:32: error: ",
       "'nanus' is not a time"},
      {"NegativeTime",
       [] { return kHeader + Row("-1us", 6); },
       {},
       "F:2:32: error: ",
       "'-1us' is not a time"},
      {"TwoDecimalPoints",
       [] { return kHeader + Row("1.2.3us", 6); },
       {},
       "F:2:32: error: ",
       "unknown unit"},
      {"HugeTime",
       [] { return kHeader + Row(std::string(40, '9') + "us", 6); },
       {},
       "F:2:32: error: ",
       "value too large"},
      {"UnknownBuiltin",
       [] { return kHeader + Row("allreduce_mes", 1); },
       {},
       "F:2:4: error: ",
       "unknown built-in 'allreduce_mes'"},
      {"MissingTraceFile",
       [] { return kHeader + Row("../no/such.a2t", 1); },
       {},
       "F:2:4: error: ",
       "cannot read the program file"},
      {"BinaryGarbage",
       [] {
         std::string s = "\xff\xfe";
         uint32_t x = 7;
         while (s.size() < 4096) {
           x = x * 1103515245u + 12345u;
           s.push_back(static_cast<char>(x >> 16));
         }
         return s;
       },
       {},
       "F:",
       "error: "},
      {"NulByte",
       [] { return kHeader + std::string("r1,allreduce_mesh,2,4KiB,,time,1\0us,15%,src\n", 44); },
       {},
       "F:2: error: ",
       "a NUL byte"},
      {"HugeFile",
       [] {
         std::string s = kHeader;
         while (s.size() <= (4u << 20)) s += "# " + std::string(1000, 'c') + "\n";
         return s;
       },
       {},
       "F: error: ",
       "larger than 4 MiB"},
      // Pins a past failure: a 1 MB `args` field passed the reader and each
      // row's run failed with "cannot execute the child process" (the
      // argument list too long for execv); a field has at most 4096 characters.
      {"VeryLongLine",
       [] { return kHeader + Row(std::string(1000000, 'x'), 4); },
       {},
       "F:2:26: error: ",
       "a field of 1000000 characters, over the 4096"},
      {"ManyCommas",
       [] { return kHeader + std::string(1000000, ',') + "\n"; },
       {},
       "F:2:",
       "more than 9 fields"},
      {"UnknownFitKey",
       [] { return kHeader + Row("src", 8); },
       {"--fit", "interconnect.link.latenc"},
       "error: --fit: ",
       "unknown key 'interconnect.link.latenc'"},
      {"FitKeyNoRowDependsOn",
       [] { return kHeader + Row("src", 8); },
       {"--fit", "interconnect.link.latency,interconnect.nic.bandwidth"},
       "error: --fit: ",
       "interconnect.nic.bandwidth: no row depends on it"},
  };
}

class MalformedCsv : public ::testing::TestWithParam<BadCsv> {};

TEST_P(MalformedCsv, IsRefusedWithExit2AndALocatedMessageWithinASecond) {
  const BadCsv &b = GetParam();
  TempDir dir;
  const std::string content = b.make();
  const std::string file = dir.Write("m.csv", content);
  auto start = std::chrono::steady_clock::now();
  CliResult r = RunCli(Args({"calibrate", file}, b.flags), 30);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[ robust   ] %s: %zu bytes answered in %.0f ms\n", b.name, content.size(), s * 1000);
  ASSERT_FALSE(r.timed_out) << r;
  ASSERT_EQ(r.term_signal, 0) << "killed by a signal" << r;
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_TRUE(r.out.empty()) << r;
  ASSERT_FALSE(r.err.empty()) << r;
  const size_t last = r.err.rfind('\n', r.err.size() - 2);
  const std::string line = last == std::string::npos ? r.err : r.err.substr(last + 1);
  std::string where = b.where;
  if (where.rfind("F", 0) == 0) where = file + where.substr(1);
  EXPECT_EQ(line.rfind("a2a3sim: " + where, 0), 0u) << "expected 'a2a3sim: " << where << "'" << r;
  EXPECT_NE(line.find(b.needle), std::string::npos) << "expected '" << b.needle << "'" << r;
  if (b.flags.empty()) {
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line on stderr" << r;
  }
  EXPECT_LT(s, kLimitS) << "answered in " << s << " s";
}

INSTANTIATE_TEST_SUITE_P(Robust, MalformedCsv, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<BadCsv> &i) {
                           return std::string(i.param.name);
                         });

}  // namespace
}  // namespace a2test
