// common/tq.h: items come out by time, equal times in order of insertion,
// across the move from the in-place items to the heap and back in place,
// and across the renumbering before the insertion counter would wrap, in the
// sorted layout too; each keeps its kind and its member.
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

// Push a window return of `bytes` (the payload the tests follow) at t.
void Push(a2_tq *q, uint64_t t, uint64_t bytes) {
  a2_tq_item e = {};
  e.kind = A2_TQ_RETURN;
  e.u.bytes = bytes;
  a2_tq_push(q, t, &e);
}

TEST(TimeQueue, EmptyHasNothingDue) {
  a2_tq q = {};
  a2_tq_item it;
  EXPECT_EQ(a2_tq_next(&q), UINT64_MAX);
  EXPECT_EQ(a2_tq_pop_due(&q, UINT64_MAX, &it), 0);
  a2_tq_free(&q);
}

TEST(TimeQueue, PopsOnlyWhatIsDue) {
  a2_tq q = {};
  Push(&q, 20, 2);
  Push(&q, 10, 1);
  a2_tq_item it;
  EXPECT_EQ(a2_tq_next(&q), 10u);
  EXPECT_EQ(a2_tq_pop_due(&q, 9, &it), 0);
  ASSERT_EQ(a2_tq_pop_due(&q, 15, &it), 1);
  EXPECT_EQ(it.u.bytes, 1u);
  EXPECT_EQ(it.kind, (uint32_t)A2_TQ_RETURN);
  EXPECT_EQ(a2_tq_pop_due(&q, 15, &it), 0);
  ASSERT_EQ(a2_tq_pop_due(&q, 20, &it), 1);
  EXPECT_EQ(it.u.bytes, 2u);
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
      Push(&q, t, (uint64_t)i);
      want.emplace_back(t, (uint64_t)i);
    }
    std::stable_sort(want.begin(), want.end(),
                     [](const auto &x, const auto &y) { return x.first < y.first; });
    a2_tq_item it;
    for (const auto &w : want) {
      ASSERT_EQ(a2_tq_pop_due(&q, UINT64_MAX, &it), 1);
      EXPECT_EQ(it.t_ps, w.first);
      EXPECT_EQ(it.u.bytes, w.second);
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
      Push(&q, t, next);
      ref.emplace_back(t, next++);
    } else if (!ref.empty()) {
      auto it = std::min_element(ref.begin(), ref.end());  // earliest, then first in
      a2_tq_item got;
      ASSERT_EQ(a2_tq_pop_due(&q, UINT64_MAX, &got), 1);
      EXPECT_EQ(got.t_ps, it->first);
      EXPECT_EQ(got.u.bytes, it->second);
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

// A queue that never empties while its insertion counter reaches its end:
// the queued items are renumbered, and ties still come out first in.
TEST(TimeQueue, InsertionOrderSurvivesTheCounterWrapping) {
  a2_tq q = {};
  for (uint64_t i = 0; i < 40; i++) Push(&q, 100 + i % 3, i);
  q.seq = UINT32_MAX - 5;  // as after four billion pushes with items queued
  for (uint64_t i = 40; i < 80; i++) Push(&q, 100 + i % 3, i);
  std::vector<std::pair<uint64_t, uint64_t>> want;
  for (uint64_t i = 0; i < 80; i++) want.emplace_back(100 + i % 3, i);
  std::stable_sort(want.begin(), want.end(),
                   [](const auto &x, const auto &y) { return x.first < y.first; });
  a2_tq_item it;
  for (const auto &w : want) {
    ASSERT_EQ(a2_tq_pop_due(&q, UINT64_MAX, &it), 1);
    EXPECT_EQ(it.t_ps, w.first);
    EXPECT_EQ(it.u.bytes, w.second);
  }
  a2_tq_free(&q);
}

// The sorted layout (a2_tq_set_sorted) gives the heap's items in the
// heap's order: pushes mostly near the latest time, some far back, ties,
// pops up to a moving time, through growth, the move of the popped room back
// to the front, and emptying.
TEST(TimeQueue, SortedLayoutGivesTheHeapsOrder) {
  a2_tq heap = {}, sorted = {};
  a2_tq_set_sorted(&sorted);
  std::mt19937 rng(5);
  uint64_t now = 0, next = 0;
  for (int i = 0; i < 50000; i++) {
    int pushes = static_cast<int>(rng() % 4);
    for (int k = 0; k < pushes; k++) {
      uint64_t t = now + (rng() % 8 == 0 ? rng() % 2000 : 1900 + rng() % 100);
      Push(&heap, t, next);
      Push(&sorted, t, next++);
    }
    now += rng() % 40;
    a2_tq_item a, b;
    for (;;) {
      int ga = a2_tq_pop_due(&heap, now, &a), gb = a2_tq_pop_due(&sorted, now, &b);
      ASSERT_EQ(ga, gb);
      if (!ga) break;
      EXPECT_EQ(a.t_ps, b.t_ps);
      EXPECT_EQ(a.u.bytes, b.u.bytes);
    }
    ASSERT_EQ(heap.n, sorted.n);
    EXPECT_EQ(a2_tq_next(&heap), a2_tq_next(&sorted));
  }
  a2_tq_free(&heap);
  a2_tq_free(&sorted);
}

// Each kind keeps its own member through the queue.
TEST(TimeQueue, KindsKeepTheirMembers) {
  a2_tq q = {};
  uint8_t cell[4] = {};
  a2_tq_item n = {};
  n.kind = A2_TQ_NOTIFY;
  n.u.notify.cell = cell;
  n.u.notify.value = -7;
  n.u.notify.add = 1;
  a2_tq_item s = {};
  s.kind = A2_TQ_SERVICE;
  s.u.service.end_ps = 99;
  s.u.service.stage = 3;
  s.u.service.bytes = 512;
  a2_tq_push(&q, 5, &s);
  a2_tq_push(&q, 4, &n);
  a2_tq_item it;
  ASSERT_EQ(a2_tq_pop_due(&q, UINT64_MAX, &it), 1);
  EXPECT_EQ(it.kind, (uint32_t)A2_TQ_NOTIFY);
  EXPECT_EQ(it.u.notify.cell, cell);
  EXPECT_EQ(it.u.notify.value, -7);
  EXPECT_EQ(it.u.notify.add, 1);
  ASSERT_EQ(a2_tq_pop_due(&q, UINT64_MAX, &it), 1);
  EXPECT_EQ(it.kind, (uint32_t)A2_TQ_SERVICE);
  EXPECT_EQ(it.u.service.end_ps, 99u);
  EXPECT_EQ(it.u.service.stage, 3u);
  EXPECT_EQ(it.u.service.bytes, 512u);
  a2_tq_free(&q);
}

}  // namespace
