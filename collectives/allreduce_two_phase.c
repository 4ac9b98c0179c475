/* All-reduce, two-phase, as PyPTO's tutorial page "09 two-phase
 * all-reduce" writes it: the slice is cut into P chunks of B = N/P (N must
 * be a multiple of P elements). Every rank stages its slice into its window
 * `data` and joins barrier A (signal row 0); reduce-scatter: rank r sums
 * chunk r of every peer into its window `result`; barrier B on its own
 * signal row 1 (on row 0 it would pass at once, the counters being
 * monotonic); all-gather: every rank reads chunk c from rank c, itself
 * included (that read is local). */
#include "collectives/generators.h"

enum { X, Y, DATA, RESULT, SIG };

/* Reduce-scatter and all-gather move chunks of B in pieces of T; the tiles
 * keep the size of a stage-in piece, min(N, chunk tile). */
static void declare_tiles(a2_tb *tb, const a2_coll_params *p, a2_coll_ctx *c) {
  a2_tiles_declare(&c->tiles, tb, p->dtype, c->T, 1, 2);
  a2_coll_set_piece(c, c->B, a2_coll_chunk_bytes(p->ub_bytes));
}

static const a2_coll_shape shape = {
    .algo = "allreduce_two_phase",
    .golden = A2_GOLDEN_ALLREDUCE,
    .more = declare_tiles,
    .bufs = {[X] = {"x", A2_BUF_TENSOR, .fixed = 1},
             [Y] = {"y", A2_BUF_TENSOR, .fixed = 1},
             [DATA] = {"data", A2_BUF_WINDOW, .fixed = 1},
             [RESULT] = {"result", A2_BUF_WINDOW, .fixed = 1},
             [SIG] = {"signal", A2_BUF_SIGNAL, .per_rank = 2}}, /* rows 0 and 1 */
};

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const a2_coll_ctx *c = ctx;
  (void)core;
  uint32_t P = c->P;
  uint64_t B = c->B, T = c->T, np = c->np;
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  a2_at staged = a2_at_local(DATA, 0), mine = a2_at_local(RESULT, me * B);
  a2_coll_copy(&t, a2_at_local(X, 0), &staged, 1, c->N, c->tiles.bytes);
  a2_coll_barrier(tb, me, P, SIG, 0); /* barrier A, signal row 0 */
  /* reduce-scatter: chunk `me` of every peer */
  t.turn = 0;
  a2_reduction r = {c->vop, a2_at_local(DATA, me * B), DATA, me * B, me, P, 0, &mine, 1};
  a2_coll_reduce(&t, &r, B, T);
  a2_coll_barrier(tb, me, P, SIG, 1); /* barrier B, its own row */
  /* all-gather: chunk cc from rank cc (a local read when cc == me), one
   * step per piece */
  A2_STEPS(tb, s, P * np) {
    uint64_t cc = s / np, off = s % np * T;
    a2_at out = a2_at_local(Y, cc * B);
    a2_coll_copy_piece(&t, s, a2_at_peer(RESULT, (uint32_t)cc, cc * B), &out, 1, off,
                       a2_min64(B - off, T));
  }
}

A2_DEFINE_GENERATOR(allreduce_two_phase, shape, body)

void a2_card_allreduce_two_phase(const a2_coll_params *p, a2_card *c) {
  double P = p->nranks;
  c->remote_read_bytes = 2.0 * (P - 1) / P * (double)p->size_bytes;
  c->remote_write_bytes = 0;
  c->barrier_rounds = p->nranks > 1 ? 2 : 0;
}
