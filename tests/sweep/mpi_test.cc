// End-to-end, when the binary is built with -DA2_MPI=ON and mpirun exists
// (skipped otherwise): `mpirun -n K a2a3sim sweep` splits the points over K
// ranks and rank 0 writes the CSV a single process writes, byte for byte.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tests/support/run_cli.h"
#include "tests/sweep/sweep_util.h"

namespace a2test {
namespace {

// Runs `tool` (searched on PATH) with args, stdout and stderr to files in
// dir; returns the exit status (-1 when it did not exit) and *log the output.
int RunTool(const std::string &tool, const std::vector<std::string> &args, const std::string &dir,
            std::string *log) {
  std::vector<std::string> s = {tool};
  s.insert(s.end(), args.begin(), args.end());
  std::vector<char *> argv;
  for (std::string &a : s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string out = dir + "/tool.out", err = dir + "/tool.err";
  pid_t pid = fork();
  if (pid == 0) {
    int in = open("/dev/null", O_RDONLY);
    int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(in, 0);
    dup2(o, 1);
    dup2(e, 2);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  *log = "stdout:\n" + ReadFile(out) + "\nstderr:\n" + ReadFile(err);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(SweepMpi, RanksSplitThePointsAndRankZeroWritesTheSameCsv) {
  CliResult help = RunCli({"sweep", "--help"});
  if (help.out.find("Built with MPI") == std::string::npos)
    GTEST_SKIP() << "a2a3sim built without -DA2_MPI=ON";
  if (!OnPath("mpirun")) GTEST_SKIP() << "no mpirun on PATH";
  TempDir tmp;
  const std::vector<std::string> sweep = {"--algo",  "allreduce_mesh,allreduce_two_phase",
                                          "--ranks", "2,3",
                                          "--sizes", "768,3KiB",
                                          "--set",   "interconnect.link.bandwidth=28GB/s,56GB/s",
                                          "--jobs",  "1"};
  CliResult one = RunCli(Args(Args({"sweep"}, sweep), {"-o", tmp.path() + "/one"}), 300);
  ASSERT_EQ(one.exit_code, 0) << one;
  std::string csv = ReadFile(tmp.path() + "/one/sweep.csv");
  EXPECT_EQ(Lines(csv).size(), 1u + 16u);
  for (const char *k : {"2", "3"}) {  // 2 local ranks, and an uneven split
    SCOPED_TRACE(std::string("mpirun -n ") + k);
    std::string dir = tmp.path() + "/mpi" + k;
    std::vector<std::string> mpi = {"-n", k, "--oversubscribe"};
    if (geteuid() == 0) mpi.push_back("--allow-run-as-root");
    mpi.push_back(A2_BINARY);
    mpi.push_back("sweep");
    mpi.insert(mpi.end(), sweep.begin(), sweep.end());
    mpi.push_back("-o");
    mpi.push_back(dir);
    std::string log;
    ASSERT_EQ(RunTool("mpirun", mpi, tmp.path(), &log), 0) << log;
    EXPECT_EQ(csv, ReadFile(dir + "/sweep.csv"));
    EXPECT_EQ(ReadFile(tmp.path() + "/one/crossovers.txt"), ReadFile(dir + "/crossovers.txt"));
  }
}

}  // namespace
}  // namespace a2test
