// Faults while writing outputs (common/outfile.h): every file the program
// writes - the timeline, gen's trace, a sweep's CSV, calibrate's fitted
// config - that cannot be written (a full disk, simulated with RLIMIT_FSIZE;
// /dev/full; a directory that is a file) is reported once, naming the path,
// with exit status 2; no file is left at the path and no temporary beside
// it; a device given as the path is written in place, never replaced or
// removed. Pins a past failure: outputs were written in place, so a full
// disk left a truncated file that looked complete, and `gen -o /dev/full`
// run as root removed the device node when the write failed.
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/files.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace {

// A "disk" that holds 4 KiB per file: larger writes fail with EFBIG.
CliLimits SmallDisk() {
  CliLimits l;
  l.file_bytes = 4096;
  return l;
}

// Names in dir (the temporaries included).
std::vector<std::string> Entries(const std::string &dir) {
  std::vector<std::string> v;
  for (const auto &e : std::filesystem::directory_iterator(dir))
    v.push_back(e.path().filename().string());
  return v;
}

// Exit 2 and exactly one line on stderr naming path and saying it cannot be
// written.
void ExpectOneWriteError(const CliResult &r, const std::string &path) {
  ASSERT_EQ(r.term_signal, 0) << r;
  EXPECT_EQ(r.exit_code, 2) << r;
  ASSERT_FALSE(r.err.empty()) << r;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line on stderr" << r;
  EXPECT_EQ(r.err.rfind("a2a3sim: " + path + ": error: cannot write ", 0), 0u) << r;
}

const std::vector<std::string> kTwoPhase = {
    "run", "--algo", "allreduce_two_phase", "--ranks", "4", "--size", "64KiB"};

TEST(OutputFaults, TimelineOnAFullDiskLeavesNoFile) {
  TempDir dir;
  const std::string path = dir.path() + "/t.json";
  CliResult r = RunCliLimited(Args(kTwoPhase, {"--timeline", path}), SmallDisk());
  ExpectOneWriteError(r, path);
  EXPECT_NE(r.err.find("timeline"), std::string::npos) << r;
  EXPECT_TRUE(Entries(dir.path()).empty()) << "no timeline, no temporary";
  // the same run with room writes it whole
  CliResult ok = RunCli(Args(kTwoPhase, {"--timeline", path}));
  EXPECT_EQ(ok.exit_code, 0) << ok;
  EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{"t.json"});
}

TEST(OutputFaults, TimelineOnDevFullIsReportedAndTheDeviceStays) {
  CliResult r = RunCli(Args(kTwoPhase, {"--timeline", "/dev/full"}));
  ExpectOneWriteError(r, "/dev/full");
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r;
  struct stat st;
  ASSERT_EQ(stat("/dev/full", &st), 0) << "/dev/full was removed";
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/full was replaced";
}

TEST(OutputFaults, TimelineUnderAFileInsteadOfADirectory) {
  TempDir dir;
  const std::string file = dir.Write("plain", "x");
  CliResult r = RunCli(Args(kTwoPhase, {"--timeline", file + "/t.json"}));
  ExpectOneWriteError(r, file + "/t.json");
  EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{"plain"});
}

TEST(OutputFaults, GenOnAFullDiskLeavesNoFileAndKeepsAnOldOne) {
  TempDir dir;
  const std::string path = dir.Write("g.a2t", "old contents\n");
  CliResult r = RunCliLimited(
      {"gen", "--algo", "allreduce_ring", "--ranks", "8", "--size", "1MiB", "-o", path},
      SmallDisk());
  ExpectOneWriteError(r, path);
  EXPECT_EQ(ReadFile(path), "old contents\n") << "the old file is untouched";
  EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{"g.a2t"}) << "no temporary left";
}

TEST(OutputFaults, GenOnDevFullKeepsTheDevice) {
  CliResult r = RunCli({"gen", "--algo", "allreduce_mesh", "--ranks", "2", "-o", "/dev/full"});
  ExpectOneWriteError(r, "/dev/full");
  struct stat st;
  ASSERT_EQ(stat("/dev/full", &st), 0) << "/dev/full was removed";
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(OutputFaults, SweepCsvOnAFullDiskLeavesNoCsv) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  CliLimits tiny;
  tiny.file_bytes = 200;  // the header fits, the rows do not
  CliResult r = RunCliLimited({"sweep", "--algo", "allreduce_mesh,allreduce_ring", "--ranks", "2,4",
                               "--sizes", "256,1KiB", "--jobs", "2", "-o", out},
                              tiny, 120);
  ASSERT_EQ(r.term_signal, 0) << r;
  EXPECT_EQ(r.exit_code, 2) << r;
  int lines = 0;
  for (size_t at = 0;
       (at = r.err.find(out + "/sweep.csv: error: cannot write", at)) != std::string::npos; at++)
    lines++;
  EXPECT_EQ(lines, 1) << "the CSV's error once" << r;
  EXPECT_FALSE(Exists(out + "/sweep.csv")) << r;
  for (const std::string &e : Entries(out))
    EXPECT_EQ(e.find(".tmp"), std::string::npos) << "temporary left: " << e;
}

TEST(OutputFaults, CalibrateFittedConfigOnAFullDiskLeavesNoFile) {
  TempDir dir;
  const std::string path = dir.path() + "/fit.yaml";
  CliLimits tiny;
  tiny.file_bytes = 256;  // a fitted config is about 1.4 KB
  CliResult r = RunCliLimited(
      {"calibrate", std::string(A2_SOURCE_DIR) + "/configs/measured/tget.csv", "--set",
       "interconnect.link.latency=310ns", "--fit", "interconnect.link.latency", "-o", path},
      tiny, 120);
  ASSERT_EQ(r.term_signal, 0) << r;
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_NE(r.err.find("a2a3sim: " + path + ": error: cannot write the fitted config"),
            std::string::npos)
      << r;
  EXPECT_TRUE(Entries(dir.path()).empty()) << "no fitted config, no temporary";
}

}  // namespace
}  // namespace a2test
