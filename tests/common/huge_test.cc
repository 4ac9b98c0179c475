// Memory for large model state: zeroed, line-aligned, writable end to end,
// whether it comes from the heap (small) or from huge-page mappings (large).
#include <gtest/gtest.h>

#include <cstdint>

extern "C" {
#include "common/huge.h"
}

namespace {

void ExpectZeroedAlignedWritable(size_t bytes) {
  auto *p = static_cast<uint8_t *>(a2_huge_alloc(bytes));
  ASSERT_NE(p, nullptr) << bytes;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << bytes;
  size_t nonzero = 0;
  for (size_t i = 0; i < bytes; i += 4093) nonzero += p[i] != 0;
  nonzero += bytes && p[bytes - 1] != 0;
  EXPECT_EQ(nonzero, 0u) << bytes;
  if (bytes) {
    p[0] = 1;
    p[bytes - 1] = 2;  // the whole range is ours
    EXPECT_EQ(p[bytes - 1], 2);
    if (bytes > 1) {
      EXPECT_EQ(p[0], 1);
    }
  }
  a2_huge_free(p, bytes);
}

TEST(HugeTest, SmallAndLargeRequestsAreZeroedAlignedAndWritable) {
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{100}, size_t{4096}, A2_HUGE_PAGE - 1,
                       A2_HUGE_PAGE, A2_HUGE_PAGE + 1, 3 * A2_HUGE_PAGE + 12345})
    ExpectZeroedAlignedWritable(bytes);
}

TEST(HugeTest, LargeBlocksStartOnAHugePage) {
  void *p = a2_huge_alloc(A2_HUGE_PAGE + 64);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % A2_HUGE_PAGE, 0u);
  a2_huge_free(p, A2_HUGE_PAGE + 64);
  a2_huge_free(nullptr, 0);  // ignored
}

TEST(HugeTest, ImpossibleSizesFailCleanly) {
  EXPECT_EQ(a2_huge_alloc(SIZE_MAX), nullptr);
  EXPECT_EQ(a2_huge_alloc(SIZE_MAX - A2_HUGE_PAGE), nullptr);
}

TEST(HugeTest, StridesAreWholeOddLineCounts) {
  // n -> expected stride: at least n, whole lines, an odd number of them
  const size_t cases[][2] = {{1, 64},
                             {64, 64},
                             {65, 192},
                             {128, 192},
                             {129, 192},
                             {8184, 8256},
                             {8192, 8256},
                             {8193, 8256},
                             {8256, 8256},
                             {8257, 8384},
                             {1 << 24, (1 << 24) + 64}};
  for (const auto &c : cases) {
    size_t s = a2_stride_lines(c[0]);
    EXPECT_EQ(s, c[1]) << c[0];
    EXPECT_GE(s, c[0]);
    EXPECT_EQ(s % 64, 0u);
    EXPECT_EQ(s / 64 % 2, 1u) << c[0];
  }
}

}  // namespace
