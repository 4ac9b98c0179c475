/* Prefetch hints: the one primitive behind every layer's hints (the
 * model's in model/prefetch.c, the network's in noc/noc.c, the event
 * kernel's for SystemC's objects). A hint starts loading cache lines and
 * nothing else: no result depends on it. Where hints are given and why:
 * docs/architecture.md, "Layout and prefetch rules". */
#ifndef A2_PREFETCH_H
#define A2_PREFETCH_H

#include <stddef.h>

#define A2_LINE_BYTES 64 /* a cache line */

/* The line holding p, to be read. */
static inline void a2_prefetch(const void *p) {
  __builtin_prefetch(p);
}

/* The line holding p, to be written. */
static inline void a2_prefetch_w(const void *p) {
  __builtin_prefetch(p, 1);
}

/* The lines at p, p + 64, ... below p + bytes, to be written. */
static inline void a2_prefetch_lines_w(const void *p, size_t bytes) {
  for (size_t o = 0; o < bytes; o += A2_LINE_BYTES) __builtin_prefetch((const char *)p + o, 1);
}

#endif
