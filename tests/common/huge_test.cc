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

}  // namespace
