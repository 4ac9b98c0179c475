#define _DEFAULT_SOURCE /* madvise, MAP_ANONYMOUS */
#include "common/huge.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static size_t round_up(size_t n, size_t to) {
  return (n + to - 1) / to * to;
}

void *a2_huge_alloc(size_t bytes) {
  if (bytes < A2_HUGE_PAGE) {
    size_t n = a2_lines(bytes ? bytes : 1);
    void *p = aligned_alloc(64, n);
    if (p) memset(p, 0, n);
    return p;
  }
  /* map one huge page more than needed, keep the aligned part */
  size_t n = round_up(bytes, A2_HUGE_PAGE), over = n + A2_HUGE_PAGE;
  if (n < bytes || over < n) return NULL;
  uint8_t *m = mmap(NULL, over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return NULL;
  uint8_t *p = (uint8_t *)round_up((size_t)(uintptr_t)m, A2_HUGE_PAGE);
  if (p > m) munmap(m, (size_t)(p - m));
  if (p + n < m + over) munmap(p + n, (size_t)(m + over - (p + n)));
  (void)madvise(p, n, MADV_HUGEPAGE); /* a hint: refused (THP off) is fine */
  return p;                           /* anonymous pages are zero */
}

void a2_huge_free(void *p, size_t bytes) {
  if (!p) return;
  if (bytes < A2_HUGE_PAGE)
    free(p);
  else
    munmap(p, round_up(bytes, A2_HUGE_PAGE));
}
