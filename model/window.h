/* A core's window of outstanding remote bytes in one direction
 * (docs/timing-model.md, "Windows"): remote loads hold their bytes from the
 * request until the data has arrived, remote stores from the MTE-out until
 * the acknowledgement is back. A piece of len bytes may start once the bytes
 * held plus len fit the capacity, or when nothing is held (a piece larger
 * than the window goes alone); pieces start in the order they ask, never
 * before the one before them. The same rule serves both network timings:
 * under reservation timing every return time is known when its piece is
 * reserved, under packet timing when its last packet starts service at the
 * last stage of its path, which is before the return itself. */
#ifndef A2_MODEL_WINDOW_H
#define A2_MODEL_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "common/tq.h"

typedef struct {
  uint64_t cap_bytes;  /* capacity (config chip.mte.remote_*_window) */
  uint64_t held_bytes; /* bytes of pieces started and not yet returned */
  uint64_t last_ps;    /* start of the last piece */
  a2_tq ret;           /* returns known and not yet taken back (A2_TQ_RETURN) */
} a2_window;

/* The start of a piece of len bytes that is ready at t_ps: the earliest time
 * >= t_ps and >= the previous piece's start at which it fits, counting as
 * returned every known return up to then. The piece holds its bytes from
 * then on. UINT64_MAX (nothing taken) when it fits only after a return that
 * is not known yet: ask again once a2_window_give has been called. */
uint64_t a2_window_take(a2_window *w, uint64_t len, uint64_t t_ps);

/* A piece of len bytes started by a2_window_take returns its bytes at t_ps. */
void a2_window_give(a2_window *w, uint64_t len, uint64_t t_ps);

/* The piece of an access of n bytes that starts at byte off (< n): all that
 * is left when the whole access fits the window, else at most
 * min(packet, capacity) bytes, so that a window always holds a whole piece
 * (both are multiples of 32 B, so no element is split). */
static inline uint64_t a2_window_piece(const a2_window *w, uint64_t n, uint64_t off,
                                       uint64_t packet) {
  uint64_t left = n - off, most = packet < w->cap_bytes ? packet : w->cap_bytes;
  if (n <= w->cap_bytes || left <= most) return left;
  return most;
}

/* Whether a piece of len bytes ready at t_ps fits without waiting for a
 * return (takes back the known returns due by then). */
bool a2_window_fits(a2_window *w, uint64_t len, uint64_t t_ps);

void a2_window_free(a2_window *w);

#endif
