// Tests for configs/faults.h: the lookups of slow NPUs and link faults, the
// jitter function (a pure function of seed and index, within its bound) and
// scaling.
#include "configs/faults.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>

namespace {

TEST(Faults, NoFaultsMeanFullSpeedAndFullLinks) {
  EXPECT_EQ(a2_faults_speed(nullptr, 3), 1.0);
  EXPECT_EQ(a2_faults_link(nullptr, 0, 1), 1.0);
  EXPECT_EQ(a2_faults_jitter(nullptr, 7), 0u);
}

TEST(Faults, LookupsMatchEitherDirectionAndDownWins) {
  static a2_faults f;
  memset(&f, 0, sizeof f);
  f.slow[f.nslow++] = a2_slow_npu{3, 0.5};
  f.links[f.nlinks++] = a2_link_fault{1, 2, 0.5, "--slow-link", "1-2=0.5"};
  f.links[f.nlinks++] = a2_link_fault{4, 5, 0, "--link-down", "4-5"};
  f.links[f.nlinks++] = a2_link_fault{5, 4, 0.5, "--slow-link", "5-4=0.5"};
  EXPECT_EQ(a2_faults_speed(&f, 3), 0.5);
  EXPECT_EQ(a2_faults_speed(&f, 2), 1.0);
  EXPECT_EQ(a2_faults_link(&f, 1, 2), 0.5);
  EXPECT_EQ(a2_faults_link(&f, 2, 1), 0.5);
  EXPECT_EQ(a2_faults_link(&f, 4, 5), 0.0);
  EXPECT_EQ(a2_faults_link(&f, 5, 4), 0.0);
  EXPECT_EQ(a2_faults_link(&f, 0, -1), 1.0) << "a switch port is no NPU pair";
}

TEST(Faults, JitterIsBoundedAndAPureFunctionOfSeedAndIndex) {
  static a2_faults f, g;
  memset(&f, 0, sizeof f);
  f.jitter_ps = 1000;
  f.seed = 1;
  g = f;
  g.seed = 2;
  std::set<uint64_t> seen;
  int differ = 0;
  for (uint64_t i = 0; i < 1000; i++) {
    uint64_t j = a2_faults_jitter(&f, i);
    EXPECT_LE(j, 1000u);
    EXPECT_EQ(j, a2_faults_jitter(&f, i));
    differ += j != a2_faults_jitter(&g, i);
    seen.insert(j);
  }
  EXPECT_GT(seen.size(), 400u) << "spread over [0, 1000]";
  EXPECT_GT(differ, 900);
}

TEST(Faults, ScaleRoundsAndStaysPositive) {
  EXPECT_EQ(a2_faults_scale(1000, 0.5), 500u);
  EXPECT_EQ(a2_faults_scale(3, 0.5), 2u);
  EXPECT_EQ(a2_faults_scale(1, 0.001), 1u);
  EXPECT_EQ(a2_faults_scale(0, 0.5), 0u);
  EXPECT_EQ(a2_faults_scale(28000000000ull, 1.0), 28000000000ull);
}

}  // namespace
