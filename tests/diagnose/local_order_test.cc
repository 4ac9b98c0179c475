// A core's own local accesses happen in program order (docs/timing-model.md,
// "Races": "A core's own accesses to its local buffers are ordered as
// written") whatever the timing mode. (The tutorial pitfalls' races and
// deadlock under both timings: pitfalls_test.cc.)
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/run_cli.h"

namespace a2test {
namespace {

// One core, one rank: load a tile from x, then store another tile over x.
// Program order says the load sees x as it was (and the race checker, which
// orders a core's accesses by program order, reports nothing), so y == x.
// The store does not depend on the load (different tiles; only a read
// after a local write is tracked), so the result relies on the load's
// bytes being taken before the store's land. Under packet timing the load
// reads at its HBM service, long before; under reservation timing the
// whole payload is applied when the transfer completes, after the MTE-in,
// and a store through a faster MTE-out can land first.
struct WarCase {
  const char *name;
  const char *timing;
  std::vector<std::string> flags;
};

void PrintTo(const WarCase &c, std::ostream *os) {
  *os << c.timing << " " << c.name;
}

class LocalWriteAfterRead : public ::testing::TestWithParam<WarCase> {};

TEST_P(LocalWriteAfterRead, LoadSeesTheValueBeforeALaterStoreOfTheSameCore) {
  const WarCase &c = GetParam();
  TempDir dir;
  const std::string file = dir.Write("war.a2t",
                                     "tensor x fp32[16384] = pattern\n"
                                     "tensor z fp32[16384]\n"
                                     "tensor y fp32[16384]\n"
                                     "tile a fp32[16384]\n"
                                     "tile b fp32[16384]\n"
                                     "golden allreduce sum x -> y 16384\n"
                                     "program\n"
                                     "  load b, z[0:16384]\n"
                                     "  load a, x[0:16384]\n"
                                     "  store b, x[0:16384]\n"
                                     "  store a, y[0:16384]\n"
                                     "end\n");
  std::vector<std::string> args = {"run",
                                   "--program",
                                   file,
                                   "--ranks",
                                   "1",
                                   "--set",
                                   std::string("interconnect.timing=") + c.timing};
  args = Args(args, c.flags);
  CliResult r = RunCli(Args(args, {"--json"}));
  JsonDoc d = JsonDoc::Parse(r.out);
  ASSERT_TRUE(d.ok()) << d.error() << r;
  EXPECT_EQ(d["race_check"]["races"].Int(), 0) << "program order: no race";
  EXPECT_EQ(d["status"].Str(), "OK");
  EXPECT_EQ(d["check"]["mismatches"].Int(), 0)
      << "y must equal x as it was: the load comes before the store in program order";
  EXPECT_EQ(r.exit_code, 0);
}

std::vector<WarCase> WarCases() {
  const std::vector<std::pair<const char *, std::vector<std::string>>> cfgs = {
      {"Default", {}},
      {"SlowMteIn", {"--set", "chip.mte.gm_to_ub=20GB/s", "--set", "chip.mte.ub_to_gm=100GB/s"}},
      {"FastMteOut", {"--set", "chip.mte.ub_to_gm=1000GB/s"}},
  };
  std::vector<WarCase> v;
  for (const char *t : {"packet", "reservation"})
    for (const auto &cfg : cfgs) v.push_back({cfg.first, t, cfg.second});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Timing, LocalWriteAfterRead, ::testing::ValuesIn(WarCases()),
                         [](const ::testing::TestParamInfo<WarCase> &i) {
                           return std::string(i.param.timing) + "_" + i.param.name;
                         });

}  // namespace
}  // namespace a2test
