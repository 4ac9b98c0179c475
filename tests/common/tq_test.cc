// common/tq.h: items come out by time, equal times in order of insertion,
// across the move from the in-place items to the heap and back in place.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

extern "C" {
#include "common/tq.h"
}

namespace {

TEST(TimeQueue, EmptyHasNothingDue) {
  a2_tq q = {};
  a2_tq_item it;
  EXPECT_EQ(a2_tq_next(&q), UINT64_MAX);
  EXPECT_EQ(a2_tq_pop_due(&q, UINT64_MAX, &it), 0);
  a2_tq_free(&q);
}

TEST(TimeQueue, PopsOnlyWhatIsDue) {
  a2_tq q = {};
  a2_tq_push(&q, 20, 2, 0);
  a2_tq_push(&q, 10, 1, 0);
  a2_tq_item it;
  EXPECT_EQ(a2_tq_next(&q), 10u);
  EXPECT_EQ(a2_tq_pop_due(&q, 9, &it), 0);
  ASSERT_EQ(a2_tq_pop_due(&q, 15, &it), 1);
  EXPECT_EQ(it.a, 1u);
  EXPECT_EQ(a2_tq_pop_due(&q, 15, &it), 0);
  ASSERT_EQ(a2_tq_pop_due(&q, 20, &it), 1);
  EXPECT_EQ(it.a, 2u);
  a2_tq_free(&q);
}

// Many items (far past the in-place ones), many equal times: the order is
// (time, insertion), whatever the order of pushes, also after refills.
TEST(TimeQueue, OrderIsTimeThenInsertionThroughGrowth) {
  a2_tq q = {};
  std::mt19937 rng(7);
  for (int round = 0; round < 3; round++) {
    std::vector<std::pair<uint64_t, uint64_t>> want;  // (time, insertion index)
    const int n = round == 1 ? 2 : 500;               // round 1 stays within the in-place items
    for (int i = 0; i < n; i++) {
      uint64_t t = rng() % 17;
      a2_tq_push(&q, t, (uint64_t)i, t);
      want.emplace_back(t, (uint64_t)i);
    }
    std::stable_sort(want.begin(), want.end(),
                     [](const auto &x, const auto &y) { return x.first < y.first; });
    a2_tq_item it;
    for (const auto &w : want) {
      ASSERT_EQ(a2_tq_pop_due(&q, UINT64_MAX, &it), 1);
      EXPECT_EQ(it.t_ps, w.first);
      EXPECT_EQ(it.a, w.second);
      EXPECT_EQ(it.b, w.first);
    }
    EXPECT_EQ(a2_tq_next(&q), UINT64_MAX);
  }
  a2_tq_free(&q);
}

// Pushes and pops interleaved so that the queue crosses the in-place size
// again and again: the order stays (time, insertion), checked against a
// sorted reference, and a queue of at most A2_TQ_INLINE items is in place.
TEST(TimeQueue, OrderHoldsAcrossTheInPlaceSizeBothWays) {
  a2_tq q = {};
  std::mt19937 rng(11);
  std::vector<std::pair<uint64_t, uint64_t>> ref;  // (time, insertion index), queued
  uint64_t next = 0, now = 0;
  for (int i = 0; i < 20000; i++) {
    if (ref.size() < 6 && rng() % 3 != 0) {
      uint64_t t = now + rng() % 5;
      a2_tq_push(&q, t, next, 0);
      ref.emplace_back(t, next++);
    } else if (!ref.empty()) {
      auto it = std::min_element(ref.begin(), ref.end());  // earliest, then first in
      a2_tq_item got;
      ASSERT_EQ(a2_tq_pop_due(&q, UINT64_MAX, &got), 1);
      EXPECT_EQ(got.t_ps, it->first);
      EXPECT_EQ(got.a, it->second);
      now = it->first;
      ref.erase(it);
    }
    ASSERT_EQ(q.n, ref.size());
    if (q.cap && q.n <= A2_TQ_INLINE) {  // used (a zero queue has no items yet)
      EXPECT_EQ(q.v, q.inl) << "a short queue is back in place";
    }
  }
  a2_tq_free(&q);
}

}  // namespace
