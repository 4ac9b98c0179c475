// traces/examples/allreduce_two_phase_db.a2t: its tile array overlaps each
// peer read with the previous add, so it runs faster than the same file
// with one receive tile, and both are correct and race-free.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/run_cli.h"

namespace a2test {
namespace {

std::string ReplaceAll(std::string s, const std::string &from, const std::string &to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

TEST(DoubleBufferTest, TwoReceiveTilesBeatOneAtEveryP) {
  const std::string file =
      std::string(A2_SOURCE_DIR) + "/traces/examples/allreduce_two_phase_db.a2t";
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  std::string one =
      ReplaceAll(ReplaceAll(text.str(), "recv[$i % 2]", "recv[0]"), "recv[$c % 2]", "recv[0]");
  ASSERT_NE(one, text.str());
  TempDir dir;
  std::string single = dir.Write("single.a2t", one);
  for (uint32_t P : {2u, 4u, 8u}) {
    SCOPED_TRACE("P=" + std::to_string(P));
    JsonDoc two, uno;
    ASSERT_TRUE(RunJson({"run", "--program", file, "--ranks", std::to_string(P)}, &two));
    ASSERT_TRUE(RunJson({"run", "--program", single, "--ranks", std::to_string(P)}, &uno));
    for (const JsonDoc *d : {&two, &uno}) {
      EXPECT_EQ((*d)["status"].Str(), "OK");
      EXPECT_EQ((*d)["race_check"]["races"].Int(), 0);
    }
    EXPECT_LT(two["time_ns"].Num(), uno["time_ns"].Num());
    EXPECT_EQ(two["measured"]["remote_read_bytes_per_rank"].Num(),
              uno["measured"]["remote_read_bytes_per_rank"].Num());
  }
}

}  // namespace
}  // namespace a2test
