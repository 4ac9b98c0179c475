/* A core's window of outstanding remote bytes: window.h. */
#include "model/window.h"

/* Take back every known return due by t. */
static void take_back(a2_window *w, uint64_t t) {
  a2_tq_item it;
  while (a2_tq_pop_due(&w->ret, t, &it)) w->held_bytes -= it.u.bytes;
}

uint64_t a2_window_take(a2_window *w, uint64_t len, uint64_t t) {
  if (t < w->last_ps) t = w->last_ps;
  take_back(w, t);
  while (w->held_bytes && w->held_bytes + len > w->cap_bytes) {
    uint64_t next = a2_tq_next(&w->ret);
    if (next == UINT64_MAX) return UINT64_MAX; /* a return not known yet */
    t = next;
    take_back(w, t);
  }
  w->held_bytes += len;
  w->last_ps = t;
  return t;
}

void a2_window_give(a2_window *w, uint64_t len, uint64_t t) {
  a2_tq_push(&w->ret, t, &(a2_tq_item){.kind = A2_TQ_RETURN, .u.bytes = len});
}

void a2_window_free(a2_window *w) {
  a2_tq_free(&w->ret);
}

bool a2_window_fits(a2_window *w, uint64_t len, uint64_t t) {
  if (t < w->last_ps) t = w->last_ps;
  take_back(w, t);
  return !w->held_bytes || w->held_bytes + len <= w->cap_bytes;
}
