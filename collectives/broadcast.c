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

typedef struct {
  uint32_t P, root;
  uint64_t N, T;
  uint16_t x, y, data, sig;
  a2_tileset tiles;
} ctx_t;

static a2_code declare(a2_tb *tb, const a2_coll_params *p, a2_kernel *k, void *ctx, a2_err *err) {
  ctx_t *c = ctx;
  uint64_t N = p->size_bytes;
  *c = (ctx_t){
      .P = p->nranks, .root = p->root, .N = N, .T = a2_min64(N, a2_coll_chunk_bytes(p->ub_bytes))};
  if (a2_tb_begin(tb, k, p->nranks, 1, err)) return tb->rc;
  a2_coll_describe(k, "broadcast", p, p->root);
  a2_dtype dt = p->dtype;
  c->x = a2_tb_buf(tb, "x", A2_BUF_TENSOR, dt, N, A2_INIT_PATTERN);
  c->y = a2_tb_buf(tb, "y", A2_BUF_TENSOR, dt, N, A2_INIT_ZERO);
  c->data = a2_tb_buf(tb, "data", A2_BUF_WINDOW, dt, N, A2_INIT_ZERO);
  c->sig = a2_tb_buf(tb, "ready", A2_BUF_SIGNAL, A2_INT32, 4, A2_INIT_ZERO);
  a2_tiles_declare(&c->tiles, tb, dt, c->T, 0, 2);
  k->golden = (a2_golden){A2_GOLDEN_BROADCAST, p->op, c->x, c->y, N, p->root};
  return tb->rc;
}

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const ctx_t *c = ctx;
  (void)core;
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  a2_phase_broadcast(&t, me, c->root, c->P, c->x, c->data, c->sig, a2_at_local(c->y, 0), c->N,
                     c->T);
}

A2_DEFINE_GENERATOR(broadcast, ctx_t, declare, body)

void a2_card_broadcast(const a2_coll_params *p, a2_card *c) {
  /* per rank: N read from the root by every other rank; the root reads none */
  c->remote_read_bytes = p->nranks > 1 ? (double)p->size_bytes : 0;
  c->remote_write_bytes = 0;
  c->barrier_rounds = p->nranks > 1 ? 1 : 0;
}
