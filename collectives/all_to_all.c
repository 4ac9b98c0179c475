/* Ladder step 15: all-to-all with put + set-notify. N = bytes of each
 * block; x and y hold P blocks. Rank r puts block q of x into rank q's
 * window `data` at offset r*N (a DMA copy, chunked and double-buffered),
 * then notifies q (set 1 in cell r of q's signal [P]); the notify drains the
 * core first, so the data has landed when q sees it. Then r copies its own
 * block x[r*N] to y locally, waits for all P-1 cells, and copies the window's
 * blocks to y. Traffic is remote writes only: no rank reads a peer. */
#include "collectives/generators.h"

typedef struct {
  uint32_t P;
  uint64_t N, T;
  uint16_t x, y, data, sig;
  a2_tileset tiles;
} ctx_t;

static a2_code declare(a2_tb *tb, const a2_coll_params *p, a2_kernel *k, void *ctx, a2_err *err) {
  ctx_t *c = ctx;
  uint32_t P = p->nranks;
  uint64_t N = p->size_bytes, PN = (uint64_t)P * N;
  *c = (ctx_t){.P = P, .N = N, .T = a2_min64(N, a2_coll_chunk_bytes(p->ub_bytes))};
  if (a2_tb_begin(tb, k, P, 1, err)) return tb->rc;
  a2_coll_describe(k, "all_to_all", p, 0);
  a2_dtype dt = p->dtype;
  c->x = a2_tb_buf(tb, "x", A2_BUF_TENSOR, dt, PN, A2_INIT_PATTERN);
  c->y = a2_tb_buf(tb, "y", A2_BUF_TENSOR, dt, PN, A2_INIT_ZERO);
  c->data = a2_tb_buf(tb, "data", A2_BUF_WINDOW, dt, PN, A2_INIT_ZERO);
  c->sig = a2_tb_buf(tb, "signal", A2_BUF_SIGNAL, A2_INT32, 4ull * P, A2_INIT_ZERO);
  a2_tiles_declare(&c->tiles, tb, dt, c->T, 0, 2);
  k->golden = (a2_golden){A2_GOLDEN_ALLTOALL, p->op, c->x, c->y, N, 0};
  return tb->rc;
}

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const ctx_t *c = ctx;
  (void)core;
  uint32_t P = c->P;
  uint64_t N = c->N, T = c->T, mine = (uint64_t)me * N, np = a2_pieces(N, T);
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  A2_STEPS(tb, s, 2ull * (P - 1)) { /* right neighbour first: no hot spot */
    uint32_t q = (uint32_t)((me + 1 + s / 2) % P);
    if (s % 2 == 0)
      a2_tb_put(tb, c->data, q, mine, N, c->x, (uint64_t)q * N, (uint32_t)T, 1);
    else
      a2_tb_notify(tb, c->sig, q, me, A2_MODE_SET, 1);
  }
  a2_at own = a2_at_local(c->y, mine);
  a2_coll_copy(&t, a2_at_local(c->x, mine), &own, 1, N, T);
  A2_STEPS(tb, s, P - 1) a2_tb_wait(tb, c->sig, (me + P - 1 - s) % P, A2_MODE_GE, 1);
  uint64_t turn = t.turn; /* the received blocks, left neighbour first, a step per piece */
  A2_STEPS(tb, s, (uint64_t)(P - 1) * np) {
    uint64_t q = (me + P - 1 - s / np) % P * N, off = s % np * T;
    a2_at dst = a2_at_local(c->y, q);
    a2_coll_copy_piece(&t, turn + s, a2_at_local(c->data, q), &dst, 1, off, a2_min64(N - off, T));
  }
}

A2_DEFINE_GENERATOR(all_to_all, ctx_t, declare, body)

void a2_card_all_to_all(const a2_coll_params *p, a2_card *c) {
  c->remote_read_bytes = 0;
  c->remote_write_bytes = (double)(p->nranks - 1) * (double)p->size_bytes;
  c->barrier_rounds = p->nranks > 1 ? 1 : 0;
}
