// End-to-end: the sweep as a process among processes - Ctrl-C (SIGINT to
// the whole process group) or SIGTERM to the sweep alone stops it, with
// every child reaped; the progress bar appears only on a terminal; without
// gnuplot the CSV and plot.gp are still written and the sweep succeeds.
#include <dirent.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "tests/support/run_cli.h"
#include "tests/sweep/sweep_util.h"

namespace a2test {
namespace {

void SleepMs(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, nullptr);
}

// Processes (zombies included) whose process group is `pgid`.
std::vector<pid_t> GroupMembers(pid_t pgid) {
  std::vector<pid_t> v;
  DIR *d = opendir("/proc");
  if (!d) return v;
  while (struct dirent *e = readdir(d)) {
    char *end;
    long pid = strtol(e->d_name, &end, 10);
    if (*end || pid <= 0) continue;
    std::string stat = ReadFile(std::string("/proc/") + e->d_name + "/stat");
    size_t close_paren = stat.rfind(')');
    if (close_paren == std::string::npos) continue;
    // after "pid (comm) ": state ppid pgrp ...
    char state;
    long ppid, pgrp;
    if (sscanf(stat.c_str() + close_paren + 1, " %c %ld %ld", &state, &ppid, &pgrp) == 3 &&
        pgrp == pgid)
      v.push_back((pid_t)pid);
  }
  closedir(d);
  return v;
}

// Starts the sweep in its own process group, output discarded.
pid_t StartSweep(const std::vector<std::string> &args) {
  std::vector<std::string> s = {A2_BINARY};
  s.insert(s.end(), args.begin(), args.end());
  std::vector<char *> argv;
  for (std::string &a : s) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    int devnull = open("/dev/null", O_RDWR);
    dup2(devnull, 0);
    dup2(devnull, 1);
    dup2(devnull, 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  if (pid > 0) setpgid(pid, pid);
  return pid;
}

// Waits at most `ms` for pid; its wait status, or -1 when still running.
int WaitFor(pid_t pid, int ms) {
  int status;
  for (int t = 0; t < ms; t += 20) {
    pid_t got = waitpid(pid, &status, WNOHANG);
    if (got == pid) return status;
    if (got < 0 && errno != EINTR) return -1;
    SleepMs(20);
  }
  return -1;
}

// Long points (several seconds each), two at a time.
std::vector<std::string> LongSweep(const std::string &dir) {
  return {"sweep",   "--algo",          "allreduce_ring", "--ranks", "8",
          "--sizes", "16MiB..64MiB:x2", "--jobs",         "2",       "-o",
          dir};
}

void ExpectStoppedBy(int sig, bool whole_group) {
  TempDir tmp;
  pid_t pid = StartSweep(LongSweep(tmp.path()));
  ASSERT_GT(pid, 0);
  // Wait until the sweep has started its points.
  for (int t = 0; t < 20000 && GroupMembers(pid).size() < 3; t += 20) SleepMs(20);
  ASSERT_GE(GroupMembers(pid).size(), 3u) << "the sweep did not start two points";
  ASSERT_EQ(kill(whole_group ? -pid : pid, sig), 0);
  int status = WaitFor(pid, 30000);
  if (status == -1) {
    kill(-pid, SIGKILL);
    waitpid(pid, &status, 0);
    FAIL() << "the sweep did not stop within 30 s of signal " << sig;
  }
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig)
      << "expected death by signal " << sig << ", wait status " << status;
  // Every child was reaped before the sweep died: nothing is left in the group.
  std::vector<pid_t> left = GroupMembers(pid);
  EXPECT_TRUE(left.empty()) << left.size() << " process(es) left, e.g. pid " << left[0];
  for (pid_t p : left) kill(p, SIGKILL);
  EXPECT_FALSE(Exists(tmp.path() + "/sweep.csv"));
}

TEST(SweepProcess, CtrlCStopsTheSweepAndReapsEveryChild) {
  ExpectStoppedBy(SIGINT, true);
}

TEST(SweepProcess, SigtermToTheSweepAloneStopsItsChildren) {
  ExpectStoppedBy(SIGTERM, false);
}

TEST(SweepProcess, ProgressBarOnlyOnATerminal) {
  TempDir tmp;
  std::vector<std::string> args = {"sweep",    "--algo", "allreduce_mesh",
                                   "--ranks",  "2",      "--sizes",
                                   "256,1KiB", "-o",     tmp.path() + "/a"};
  // Not a terminal (a pipe): stderr stays empty.
  CliResult piped = RunCli(args);
  ASSERT_EQ(piped.exit_code, 0) << piped;
  EXPECT_EQ(piped.err, "");

  // A terminal: stderr on a pseudo-terminal.
  args.back() = tmp.path() + "/b";
  int master, slave;
  ASSERT_EQ(openpty(&master, &slave, nullptr, nullptr, nullptr), 0);
  std::vector<std::string> s = {A2_BINARY};
  s.insert(s.end(), args.begin(), args.end());
  std::vector<char *> argv;
  for (std::string &a : s) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int devnull = open("/dev/null", O_RDWR);
    dup2(devnull, 0);
    dup2(devnull, 1);
    dup2(slave, 2);
    close(master);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(slave);
  std::string tty;
  char buf[4096];
  for (;;) {  // until the last writer closes the slave (EIO on Linux)
    ssize_t n = read(master, buf, sizeof buf);
    if (n > 0)
      tty.append(buf, (size_t)n);
    else if (n < 0 && errno == EINTR)
      continue;
    else
      break;
  }
  close(master);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << tty;
  EXPECT_NE(tty.find("[..............................] 0/2 points"), std::string::npos) << tty;
  EXPECT_NE(tty.find("[##############################] 2/2 points"), std::string::npos) << tty;
  EXPECT_EQ(ReadFile(tmp.path() + "/a/sweep.csv"), ReadFile(tmp.path() + "/b/sweep.csv"));
}

TEST(SweepProcess, WithoutGnuplotCsvAndScriptAreWrittenAndPlotsSkipped) {
  TempDir tmp;
  std::string dir = tmp.path() + "/out";
  const char *old = getenv("PATH");
  std::string saved = old ? old : "";
  setenv("PATH", "/nonexistent", 1);  // the sweep finds no gnuplot
  CliResult r = RunCli({"sweep", "--algo", "allreduce_mesh,allreduce_two_phase", "--ranks", "2",
                        "--sizes", "256,1KiB", "-o", dir});
  if (old)
    setenv("PATH", saved.c_str(), 1);
  else
    unsetenv("PATH");
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.err.find("warning: gnuplot not found"), std::string::npos) << r;
  EXPECT_NE(r.err.find("plots skipped"), std::string::npos) << r;
  EXPECT_NE(r.out.find("0 PNGs (plots skipped: no gnuplot)"), std::string::npos) << r;
  EXPECT_EQ(Lines(ReadFile(dir + "/sweep.csv")).size(), 5u);
  EXPECT_NE(ReadFile(dir + "/plot.gp").find("set output \"time_vs_size.png\""), std::string::npos);
  EXPECT_FALSE(Exists(dir + "/time_vs_size.png"));
  EXPECT_TRUE(Exists(dir + "/crossovers.txt"));
}

}  // namespace
}  // namespace a2test
