/* Ladder step 14: reduce-scatter. N = bytes of each rank's OUTPUT block
 * (the --size flag); the input x holds P*N, block q destined for rank q.
 * Each rank stages the P-1 blocks other ranks need into its window `data`
 * (its own block stays in x), joins one barrier (signal [P]), then reduces
 * block r: its own block from x, plus block r of every peer's window, read
 * starting with its right neighbour so that no rank is everyone's first
 * source. The result goes to y. */
#include "collectives/generators.h"

typedef struct {
  uint32_t P;
  uint64_t N, T;
  uint16_t x, y, data, sig;
  a2_opcode vop;
  a2_tileset tiles;
} ctx_t;

static a2_code declare(a2_tb *tb, const a2_coll_params *p, a2_kernel *k, void *ctx, a2_err *err) {
  ctx_t *c = ctx;
  uint32_t P = p->nranks;
  uint64_t N = p->size_bytes;
  *c = (ctx_t){.P = P,
               .N = N,
               .T = a2_min64(N, a2_coll_chunk_bytes(p->ub_bytes)),
               .vop = a2_reduce_opcode(p->op)};
  if (a2_tb_begin(tb, k, P, 1, err)) return tb->rc;
  a2_coll_describe(k, "reduce_scatter", p, 0);
  a2_dtype dt = p->dtype;
  c->x = a2_tb_buf(tb, "x", A2_BUF_TENSOR, dt, (uint64_t)P * N, A2_INIT_PATTERN);
  c->y = a2_tb_buf(tb, "y", A2_BUF_TENSOR, dt, N, A2_INIT_ZERO);
  c->data = a2_tb_buf(tb, "data", A2_BUF_WINDOW, dt, (uint64_t)P * N, A2_INIT_ZERO);
  c->sig = a2_tb_buf(tb, "signal", A2_BUF_SIGNAL, A2_INT32, 4ull * P, A2_INIT_ZERO);
  a2_tiles_declare(&c->tiles, tb, dt, c->T, 1, 2);
  k->golden = (a2_golden){A2_GOLDEN_REDUCE_SCATTER, p->op, c->x, c->y, N, 0};
  return tb->rc;
}

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const ctx_t *c = ctx;
  (void)core;
  uint32_t P = c->P;
  uint64_t N = c->N, T = c->T, mine = (uint64_t)me * N, np = a2_pieces(N, T);
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  /* stage-in of the blocks peers read (q = 0, 1, ... but me), one step per piece */
  A2_STEPS(tb, s, (uint64_t)(P - 1) * np) {
    uint64_t q = a2_nth_peer(me, P, 0, s / np) * N, off = s % np * T;
    a2_at dst = a2_at_local(c->data, q);
    a2_coll_copy_piece(&t, s, a2_at_local(c->x, q), &dst, 1, off, a2_min64(N - off, T));
  }
  a2_coll_barrier(tb, me, P, c->sig, 0);
  a2_at out = a2_at_local(c->y, 0);
  a2_reduction r = {c->vop, a2_at_local(c->x, mine), c->data, mine, me, P, (me + 1) % P, &out, 1};
  a2_coll_reduce(&t, &r, N, T);
}

A2_DEFINE_GENERATOR(reduce_scatter, ctx_t, declare, body)

void a2_card_reduce_scatter(const a2_coll_params *p, a2_card *c) {
  c->remote_read_bytes = (double)(p->nranks - 1) * (double)p->size_bytes;
  c->remote_write_bytes = 0;
  c->barrier_rounds = p->nranks > 1 ? 1 : 0;
}
