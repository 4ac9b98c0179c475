// End-to-end: every built-in collective, at P in {2,3,4,5,8} and three
// sizes, either runs OK with a measured cost card equal to its analytic card
// (remote bytes read and written by every rank, barrier rounds), or - where
// its divisibility rule does not allow the size - is refused with a usage
// error naming --size.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "builtins.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace {

const uint32_t kRanks[] = {2, 3, 4, 5, 8};
// 256 B: allreduce_mesh's 64 fp32 (indivisible by 4*P at P=3, 5); 60 KiB: one
// chunk; 240 KiB: several 64 KiB chunks with a partial last one. The larger
// two are multiples of 4 * 120, so every rule accepts them.
const uint64_t kSizes[] = {256, 61440, 245760};

std::vector<Case> Cases(bool divisible) {
  std::vector<Case> v;
  for (const Builtin &l : AllCollectives())
    for (uint32_t P : kRanks)
      for (uint64_t N : kSizes)
        if (Divisible(l, P, N) == divisible) v.push_back({l.algo, P, N});
  return v;
}

std::string CaseName(const ::testing::TestParamInfo<Case> &info) {
  return info.param.algo + "_P" + std::to_string(info.param.P) + "_N" +
         std::to_string(info.param.N);
}

// Every rank's measured remote bytes are the table's (builtins.h), and the card (per
// rank: the largest rank's figure) and its barrier rounds equal the
// analytic ones.
void ExpectTheBuiltinsCard(const JsonDoc &d, const Builtin &l, uint32_t P, uint64_t N,
                           uint32_t root) {
  uint64_t want_read = 0, want_write = 0;
  JsonView per_rank = d["per_rank"];
  ASSERT_EQ(per_rank.Size(), (size_t)P);
  for (uint32_t r = 0; r < P; r++) {
    SCOPED_TRACE("rank " + std::to_string(r));
    uint64_t rd = l.read(P, N, r, root), wr = l.write(P, N, r, root);
    EXPECT_EQ(per_rank[r]["remote_read_bytes"].Int(), (long long)rd);
    EXPECT_EQ(per_rank[r]["remote_write_bytes"].Int(), (long long)wr);
    want_read = std::max(want_read, rd);
    want_write = std::max(want_write, wr);
  }
  EXPECT_EQ(d["measured"]["remote_read_bytes_per_rank"].Int(), (long long)want_read);
  EXPECT_EQ(d["analytic"]["remote_read_bytes_per_rank"].Num(), (double)want_read);
  EXPECT_EQ(d["measured"]["remote_write_bytes_per_rank"].Int(), (long long)want_write);
  EXPECT_EQ(d["analytic"]["remote_write_bytes_per_rank"].Num(), (double)want_write);
  EXPECT_EQ(d["measured"]["barrier_rounds"].Int(), (long long)l.rounds(P));
  EXPECT_EQ(d["analytic"]["barrier_rounds"].Int(), (long long)l.rounds(P));
}

class CollectiveCard : public ::testing::TestWithParam<Case> {};

TEST_P(CollectiveCard, RunsOkAndMeasuresItsAnalyticCard) {
  const Case c = GetParam();
  const Builtin &l = Find(c.algo);
  const uint32_t root = l.rooted ? c.P - 1 : 0;  // a root other than rank 0
  JsonDoc d;
  ASSERT_TRUE(RunJson(RunArgs(c.algo, c.P, c.N, {"--root", std::to_string(root)}), &d));
  EXPECT_TRUE(d["ok"].Bool());
  EXPECT_EQ(d["status"].Str(), "OK");
  EXPECT_EQ(d["algo"].Str(), c.algo);
  EXPECT_EQ(d["check"]["mismatches"].Int(), 0);
  EXPECT_EQ(d["check"]["checked"].Bool(), c.algo != "barrier");

  ExpectTheBuiltinsCard(d, l, c.P, c.N, root);
}

INSTANTIATE_TEST_SUITE_P(Builtin, CollectiveCard, ::testing::ValuesIn(Cases(true)), CaseName);

// The multi-core forms (--cores C): the same card as one core, at odd and
// even P, with C dividing the elements or not and with idle cores (256 B =
// 64 fp32 over 48 cores: 2 elements a core, cores 32.. idle), at the sizes
// the collective takes.
struct CoresCase {
  std::string algo;
  uint32_t P, C;
  uint64_t N;
};

void PrintTo(const CoresCase &c, std::ostream *os) {
  *os << c.algo << " P=" << c.P << " C=" << c.C << " N=" << c.N;
}

std::vector<CoresCase> CoresCases() {
  std::vector<CoresCase> v;
  for (const std::string &algo : MultiCoreCollectives())
    for (uint32_t P : kRanks)
      for (uint32_t C : {3u, 48u})
        for (uint64_t N : {256ull, 245760ull})
          if (Divisible(Find(algo), P, N)) v.push_back({algo, P, C, N});
  return v;
}

class CollectiveCoresCard : public ::testing::TestWithParam<CoresCase> {};

TEST_P(CollectiveCoresCard, RunsOkAndMeasuresTheOneCoreCard) {
  const CoresCase c = GetParam();
  const Builtin &l = Find(c.algo);
  JsonDoc d;
  ASSERT_TRUE(RunJson(RunArgs(c.algo, c.P, c.N, {"--cores", std::to_string(c.C)}), &d));
  EXPECT_EQ(d["status"].Str(), "OK");
  EXPECT_EQ(d["check"]["mismatches"].Int(), 0);
  EXPECT_TRUE(d["check"]["checked"].Bool());
  ExpectTheBuiltinsCard(d, l, c.P, c.N, 0);
}

INSTANTIATE_TEST_SUITE_P(Builtin, CollectiveCoresCard, ::testing::ValuesIn(CoresCases()),
                         [](const ::testing::TestParamInfo<CoresCase> &info) {
                           return info.param.algo + "_P" + std::to_string(info.param.P) + "_C" +
                                  std::to_string(info.param.C) + "_N" +
                                  std::to_string(info.param.N);
                         });

class CollectiveRefusal : public ::testing::TestWithParam<Case> {};

TEST_P(CollectiveRefusal, RefusesTheSizeWithAClearMessage) {
  const Case c = GetParam();
  const Builtin &l = Find(c.algo);
  EXPECT_TRUE(RunFailsWithUsage(RunArgs(c.algo, c.P, c.N),
                                {"--size", std::to_string(c.N) + " bytes", "multiple",
                                 std::to_string(l.multiple_per_rank * c.P) + " bytes"}));
}

INSTANTIATE_TEST_SUITE_P(Builtin, CollectiveRefusal, ::testing::ValuesIn(Cases(false)), CaseName);

// Only two-phase, ring, NHR, the SDMA mesh, NB's all-reduce, the double ring,
// the pipeline and the hierarchical all-reduces (two and three levels) and broadcasts (16 rows)
// have a per-P rule; it must bite (P = 3, 5 at 256 B), or the refusal suite above would silently
// be empty.
TEST(CollectiveMatrix, CoversRefusedAndAcceptedShapes) {
  EXPECT_EQ(Cases(false).size(), 32u);
  EXPECT_EQ(Cases(true).size(), AllCollectives().size() * 5 * 3 - 32);
}

TEST(CollectiveSize, EveryCollectiveRefusesPartialElements) {
  for (const Builtin &l : AllCollectives()) {
    if (std::string(l.algo) == "barrier") continue;  // moves no data: any --size
    SCOPED_TRACE(l.algo);
    EXPECT_TRUE(RunFailsWithUsage(RunArgs(l.algo, 2, 258), {"--size", "258 bytes"}));
  }
}

}  // namespace
}  // namespace a2test
