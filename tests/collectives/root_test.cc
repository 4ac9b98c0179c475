// End-to-end: the rooted collectives (broadcast, the composition) work from
// every root, only the root reads nothing, and a root outside the ranks is
// refused naming --root.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "builtins.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace {

constexpr uint32_t kP = 5;
constexpr uint64_t kN = 4000;  // 5 blocks of whole elements (the hierarchical broadcasts)

struct RootCase {
  std::string algo;
  uint32_t root;
};

void PrintTo(const RootCase &c, std::ostream *os) {
  *os << c.algo << " root " << c.root;
}

std::vector<RootCase> RootCases() {
  std::vector<RootCase> v;
  for (const Builtin &l : AllCollectives())
    if (l.rooted)
      for (uint32_t root = 0; root < kP; root++) v.push_back({l.algo, root});
  return v;
}

class CollectiveRoot : public ::testing::TestWithParam<RootCase> {};

TEST_P(CollectiveRoot, EveryRankGetsTheRootsDataAndTheRootReadsLeast) {
  const RootCase c = GetParam();
  const Builtin &l = Find(c.algo);
  JsonDoc d;
  ASSERT_TRUE(RunJson(RunArgs(c.algo, kP, kN, {"--root", std::to_string(c.root)}), &d));
  EXPECT_EQ(d["status"].Str(), "OK");
  EXPECT_EQ(d["check"]["mismatches"].Int(), 0);
  for (uint32_t r = 0; r < kP; r++) {
    SCOPED_TRACE("rank " + std::to_string(r));
    EXPECT_EQ(d["per_rank"][r]["remote_read_bytes"].Int(), (long long)l.read(kP, kN, r, c.root));
  }
}

INSTANTIATE_TEST_SUITE_P(AllRoots, CollectiveRoot, ::testing::ValuesIn(RootCases()),
                         [](const ::testing::TestParamInfo<RootCase> &info) {
                           return info.param.algo + "_root" + std::to_string(info.param.root);
                         });

TEST(CollectiveRoot, RootOutsideTheRanksIsRefused) {
  for (const Builtin &l : AllCollectives()) {
    if (!l.rooted) continue;
    SCOPED_TRACE(l.algo);
    EXPECT_TRUE(
        RunFailsWithUsage(RunArgs(l.algo, 4, kN, {"--root", "4"}), {"--root", "4", "0..3"}));
  }
}

}  // namespace
}  // namespace a2test
