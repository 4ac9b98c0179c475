/* Zeroed memory for large, long-lived model state (all cores, all stages,
 * a buffer of every rank), asked to be backed by transparent huge pages.
 * A run at scale touches every rank's state in turn: with 4 KiB pages each
 * of those touches also misses the TLB, with 2 MiB pages a few hundred
 * entries cover it all. Linux may decline (THP off): then this is
 * plain zeroed memory. Requests under 2 MiB come from the C heap. */
#ifndef A2_HUGE_H
#define A2_HUGE_H

#include <stddef.h>

#define A2_HUGE_PAGE ((size_t)2 << 20)

/* n rounded up to whole 64-byte lines (a stride that keeps each part of a
 * block on lines of its own). */
static inline size_t a2_lines(size_t n) {
  return (n + 63) / 64 * 64;
}

/* A stride for the parts of a block that are used alike (every rank's copy
 * of a buffer): n in whole lines, an odd number of them. The same offset in
 * consecutive parts then falls in different cache sets; with a power of two
 * stride (a signal window of 8 KiB) every rank's cell of a round mapped to
 * the same few sets, and at a thousand ranks they evicted one another. */
static inline size_t a2_stride_lines(size_t n) {
  size_t l = a2_lines(n);
  return (l / 64) % 2 ? l : l + 64;
}

/* bytes of zeroed memory aligned to at least 64 bytes, or NULL. */
void *a2_huge_alloc(size_t bytes);
/* Free p from a2_huge_alloc(bytes) (same bytes); NULL is ignored. */
void a2_huge_free(void *p, size_t bytes);

#endif
