/* Ladder step 12: broadcast from any root R. The root stages its N bytes
 * into its window `data` (and its own output), then signals every other
 * rank (one-to-all: set 1 in cell 0 of their `ready` signal); each of them
 * waits for that signal and reads the root's window into its output. One
 * signal round; only the root's window is ever read. */
#include "collectives/generators.h"

void a2_phase_broadcast(a2_tiles *t, uint32_t me, uint32_t root, uint32_t P, uint16_t src,
                        uint16_t win, uint16_t sig, a2_at out, uint64_t N, uint64_t piece) {
  if (me == root) {
    a2_at dst[2] = {a2_at_local(win, 0), out};
    a2_coll_copy(t, a2_at_local(src, 0), dst, 2, N, piece);
  }
  a2_coll_signal_from(t->tb, me, root, P, sig, 0);
  if (me != root) a2_coll_copy(t, a2_at_peer(win, root, 0), &out, 1, N, piece);
}

a2_code a2_gen_broadcast(const a2_coll_params *p, a2_kernel *k, a2_err *err) {
  uint32_t P = p->nranks;
  uint64_t N = p->size_bytes, T = a2_min64(N, a2_coll_chunk_bytes(p->ub_bytes));
  a2_tb tb;
  if (a2_tb_begin(&tb, k, P, 1, err)) return tb.rc;
  a2_coll_describe(k, "broadcast", p, p->root);
  a2_dtype dt = p->dtype;
  uint16_t x = a2_tb_buf(&tb, "x", A2_BUF_TENSOR, dt, N, A2_INIT_PATTERN);
  uint16_t y = a2_tb_buf(&tb, "y", A2_BUF_TENSOR, dt, N, A2_INIT_ZERO);
  uint16_t data = a2_tb_buf(&tb, "data", A2_BUF_WINDOW, dt, N, A2_INIT_ZERO);
  uint16_t sig = a2_tb_buf(&tb, "ready", A2_BUF_SIGNAL, A2_INT32, 4, A2_INIT_ZERO);
  a2_tiles t;
  a2_tiles_declare(&t, &tb, dt, T, 0, 2);
  k->golden = (a2_golden){A2_GOLDEN_BROADCAST, p->op, x, y, N, p->root};
  for (uint32_t me = 0; me < P; me++) {
    a2_tb_at(&tb, me, 0);
    t.turn = 0;
    a2_phase_broadcast(&t, me, p->root, P, x, data, sig, a2_at_local(y, 0), N, T);
  }
  return tb.rc;
}

void a2_card_broadcast(const a2_coll_params *p, a2_card *c) {
  /* per rank: N read from the root by every other rank; the root reads none */
  c->remote_read_bytes = p->nranks > 1 ? (double)p->size_bytes : 0;
  c->remote_write_bytes = 0;
  c->barrier_rounds = p->nranks > 1 ? 1 : 0;
}
