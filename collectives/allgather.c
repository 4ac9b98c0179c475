/* Ladder step 13: all-gather. N = bytes of each rank's input; the output
 * y holds P*N (block q = rank q's input). Each rank stages its slice into
 * its window `data` (and its own block of y), joins one barrier (seed 08
 * style, signal [P]), then reads every peer's slice into y[q*N], starting
 * with its right neighbour so that the P-1 reads of the ranks spread over
 * all sources. */
#include "collectives/generators.h"

void a2_phase_gather(a2_tiles *t, uint32_t me, uint32_t P, uint16_t win, uint16_t out, uint64_t N,
                     uint64_t piece) {
  uint64_t np = a2_pieces(N, piece), turn = t->turn;
  t->turn += (uint64_t)(P - 1) * np;
  A2_STEPS(t->tb, s, (uint64_t)(P - 1) * np) { /* one step per piece of each peer's block */
    uint32_t q = (uint32_t)((me + 1 + s / np) % P);
    uint64_t off = s % np * piece;
    a2_at dst = a2_at_local(out, (uint64_t)q * N);
    a2_coll_copy_piece(t, turn + s, a2_at_peer(win, q, 0), &dst, 1, off, a2_min64(N - off, piece));
  }
}

typedef struct {
  uint32_t P;
  uint64_t N, T;
  uint16_t x, y, data, sig;
  a2_tileset tiles;
} ctx_t;

static a2_code declare(a2_tb *tb, const a2_coll_params *p, a2_kernel *k, void *ctx, a2_err *err) {
  ctx_t *c = ctx;
  uint32_t P = p->nranks;
  uint64_t N = p->size_bytes;
  *c = (ctx_t){.P = P, .N = N, .T = a2_min64(N, a2_coll_chunk_bytes(p->ub_bytes))};
  if (a2_tb_begin(tb, k, P, 1, err)) return tb->rc;
  a2_coll_describe(k, "allgather", p, 0);
  a2_dtype dt = p->dtype;
  c->x = a2_tb_buf(tb, "x", A2_BUF_TENSOR, dt, N, A2_INIT_PATTERN);
  c->y = a2_tb_buf(tb, "y", A2_BUF_TENSOR, dt, (uint64_t)P * N, A2_INIT_ZERO);
  c->data = a2_tb_buf(tb, "data", A2_BUF_WINDOW, dt, N, A2_INIT_ZERO);
  c->sig = a2_tb_buf(tb, "signal", A2_BUF_SIGNAL, A2_INT32, 4ull * P, A2_INIT_ZERO);
  a2_tiles_declare(&c->tiles, tb, dt, c->T, 0, 2);
  k->golden = (a2_golden){A2_GOLDEN_ALLGATHER, p->op, c->x, c->y, N, 0};
  return tb->rc;
}

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const ctx_t *c = ctx;
  (void)core;
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  a2_at staged[2] = {a2_at_local(c->data, 0), a2_at_local(c->y, (uint64_t)me * c->N)};
  a2_coll_copy(&t, a2_at_local(c->x, 0), staged, 2, c->N, c->T);
  a2_coll_barrier(tb, me, c->P, c->sig, 0);
  a2_phase_gather(&t, me, c->P, c->data, c->y, c->N, c->T);
}

A2_DEFINE_GENERATOR(allgather, ctx_t, declare, body)

void a2_card_allgather(const a2_coll_params *p, a2_card *c) {
  c->remote_read_bytes = (double)(p->nranks - 1) * (double)p->size_bytes;
  c->remote_write_bytes = 0;
  c->barrier_rounds = p->nranks > 1 ? 1 : 0;
}
