// Out of memory (docs/robustness.md, "One failure contract"): a run whose
// buffers do not fit in the address space it is given ends with exit status
// 3 and one line naming what could not be allocated - never a signal, never
// the usage status 2 of a refused input or limit. The child runs under
// RLIMIT_AS, which AddressSanitizer's shadow memory cannot live with:
// scripts/test.sh leaves this suite out of the sanitizer run
// (tests/README.md) and it runs in the Release suite. Pins a past failure:
// out of memory ended in SIGABRT (abort() on the allocation paths inside a
// running simulation), and a limit and an out-of-memory shared one code
// (exit 2).
#include <regex>
#include <string>

#include "tests/support/run_cli.h"

namespace a2test {
namespace {

CliLimits AddressSpace() {
  CliLimits l;
  l.address_space_bytes = 1000ull << 20;  // the binary needs about 150 MB of it
  return l;
}

// 8 ranks x 64 MiB in, out and window: 1.5 GiB of simulated buffers, under the
// --mem-limit policy (8 GiB), so nothing refuses the run before it allocates.
const std::vector<std::string> kBigRun = {"run",     "--algo", "allreduce_mesh",
                                          "--ranks", "8",      "--size",
                                          "64MiB",   "--set",  "chip.window_size=1GiB"};

TEST(OutOfMemory, BuffersThatDoNotFitExit3NamingTheBuffer) {
  CliResult r = RunCliLimited(kBigRun, AddressSpace(), 60);
  ASSERT_FALSE(r.timed_out) << r;
  ASSERT_EQ(r.term_signal, 0) << "killed by a signal (an abort?)" << r;
  EXPECT_EQ(r.exit_code, 3) << r;
  EXPECT_TRUE(r.out.empty()) << "no report of a run that did not happen" << r;
  EXPECT_TRUE(std::regex_match(
      r.err, std::regex("a2a3sim: allreduce_mesh: error: out of memory for buffer '[a-z_]+' "
                        "\\([0-9]+ MiB for its 8 ranks\\)\n")))
      << "one line naming the buffer" << r;
}

// The same run refused by the memory policy is an input error, exit 2: a
// limit is not an allocation failure.
TEST(OutOfMemory, TheMemoryLimitPolicyIsExit2NotOutOfMemory) {
  CliResult r = RunCliLimited(Args(kBigRun, {"--mem-limit", "1GiB"}), AddressSpace(), 60);
  ASSERT_EQ(r.term_signal, 0) << r;
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_NE(r.err.find("--mem-limit"), std::string::npos) << r;
}

// With room to build the simulation, the same limit still lets small runs
// through: the limit is not what fails the first test.
TEST(OutOfMemory, ASmallRunFitsInTheSameAddressSpace) {
  CliResult r = RunCliLimited({"run", "--algo", "allreduce_mesh", "--ranks", "8"}, AddressSpace());
  EXPECT_EQ(r.exit_code, 0) << r;
}

}  // namespace
}  // namespace a2test
