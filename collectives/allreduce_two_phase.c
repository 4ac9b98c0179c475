/* Seed step 09: all-reduce, two-phase. Reduce-scatter (rank r sums chunk r
 * of every peer into its `result` window), a second barrier on its own
 * signal row, then all-gather (every rank reads chunk c from rank c,
 * itself included: that read is local). N must be a multiple of 4*P bytes. */
#include "collectives/allreduce.h"

typedef struct {
  uint32_t P;
  uint64_t N, B, T, Ts;
  uint16_t x, y, data, result, sig;
  a2_opcode vop;
  a2_tileset tiles;
} ctx_t;

static a2_code declare(a2_tb *tb, const a2_coll_params *p, a2_kernel *k, void *ctx, a2_err *err) {
  ctx_t *c = ctx;
  uint32_t P = p->nranks;
  uint64_t N = p->size_bytes, B = N / P, C = a2_coll_chunk_bytes(p->ub_bytes);
  /* T: reduce-scatter / all-gather piece; Ts: stage-in piece and tile size (>= T) */
  *c = (ctx_t){.P = P,
               .N = N,
               .B = B,
               .T = a2_min64(B, C),
               .Ts = a2_min64(N, C),
               .vop = a2_reduce_opcode(p->op)};
  if (a2_tb_begin(tb, k, P, 1, err)) return tb->rc;
  a2_coll_describe(k, "allreduce_two_phase", p, 0);
  a2_dtype dt = p->dtype;
  c->x = a2_tb_buf(tb, "x", A2_BUF_TENSOR, dt, N, A2_INIT_PATTERN);
  c->y = a2_tb_buf(tb, "y", A2_BUF_TENSOR, dt, N, A2_INIT_ZERO);
  c->data = a2_tb_buf(tb, "data", A2_BUF_WINDOW, dt, N, A2_INIT_ZERO);
  c->result = a2_tb_buf(tb, "result", A2_BUF_WINDOW, dt, N, A2_INIT_ZERO);
  c->sig = a2_tb_buf(tb, "signal", A2_BUF_SIGNAL, A2_INT32, 8ull * P, A2_INIT_ZERO);
  a2_tiles_declare(&c->tiles, tb, dt, c->Ts, 1, 2);
  k->golden = (a2_golden){A2_GOLDEN_ALLREDUCE, p->op, c->x, c->y, N, 0};
  return tb->rc;
}

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const ctx_t *c = ctx;
  (void)core;
  uint32_t P = c->P;
  uint64_t B = c->B, T = c->T;
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  a2_at staged = a2_at_local(c->data, 0), mine = a2_at_local(c->result, me * B);
  a2_coll_copy(&t, a2_at_local(c->x, 0), &staged, 1, c->N, c->Ts);
  a2_coll_barrier(tb, me, P, c->sig, 0); /* barrier A, signal row 0 */
  /* reduce-scatter: chunk `me` of every peer */
  t.turn = 0;
  a2_reduction r = {c->vop, a2_at_local(c->data, me * B), c->data, me * B, me, P, 0, &mine, 1};
  a2_coll_reduce(&t, &r, B, T);
  a2_coll_barrier(tb, me, P, c->sig, 1); /* barrier B, its own row */
  /* all-gather: chunk cc from rank cc (a local read when cc == me), one
   * step per piece */
  uint64_t np = a2_pieces(B, T);
  A2_STEPS(tb, s, P * np) {
    uint64_t cc = s / np, off = s % np * T;
    a2_at out = a2_at_local(c->y, cc * B);
    a2_coll_copy_piece(&t, s, a2_at_peer(c->result, (uint32_t)cc, cc * B), &out, 1, off,
                       a2_min64(B - off, T));
  }
}

A2_DEFINE_GENERATOR(allreduce_two_phase, ctx_t, declare, body)

void a2_card_allreduce_two_phase(const a2_coll_params *p, a2_card *c) {
  double P = p->nranks;
  c->remote_read_bytes = 2.0 * (P - 1) / P * (double)p->size_bytes;
  c->remote_write_bytes = 0;
  c->barrier_rounds = p->nranks > 1 ? 2 : 0;
}
