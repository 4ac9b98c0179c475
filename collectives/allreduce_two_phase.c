/* All-reduce, two-phase, as PyPTO's tutorial page "09 two-phase
 * all-reduce" writes it: the slice is cut into P chunks of B = N/P (N must
 * be a multiple of P elements). Every rank stages its slice into its window
 * `data` and joins barrier A (signal row 0); reduce-scatter: rank r sums
 * chunk r of every peer into its window `result`; barrier B on its own
 * signal row 1 (on row 0 it would pass at once, the counters being
 * monotonic); all-gather: every rank reads chunk c from rank c, itself
 * included (that read is local).
 *
 * With --cores C > 1 (the form of HCCL's AIV all-reduce for large counts,
 * a reduce-scatter then an all-gather on several vector cores a rank):
 * every chunk is cut into C slices of whole elements (a2_core_slice of B),
 * core c staging, reducing and gathering slice c of every chunk, with its
 * own lanes of the signal rows (row 0 cell q*C + c, row 1 cell P*C + q*C +
 * c); a core without a slice has an empty program. The rank's cores
 * together read 2*(P-1)*B, as one core does. */
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
    .multi_core = true,
    .more = declare_tiles,
    .bufs = {[X] = {"x", A2_BUF_TENSOR, .fixed = 1},
             [Y] = {"y", A2_BUF_TENSOR, .fixed = 1},
             [DATA] = {"data", A2_BUF_WINDOW, .fixed = 1},
             [RESULT] = {"result", A2_BUF_WINDOW, .fixed = 1},
             [SIG] = {"signal", A2_BUF_SIGNAL, .per_rank = 2}}, /* rows 0 and 1 */
};

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const a2_coll_ctx *c = ctx;
  uint32_t P = c->P, C = c->C;
  a2_slice part = a2_core_slice(c, c->B, core); /* the slices are of a chunk */
  if (part.len == 0) return;                    /* no slice: an empty program */
  uint64_t B = c->B, T = c->T, L = part.len, np = a2_pieces(L, T), o = part.off;
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  a2_at mine = a2_at_local(RESULT, me * B + o);
  if (C == 1) { /* the whole slice at once */
    a2_at staged = a2_at_local(DATA, 0);
    a2_coll_copy(&t, a2_at_local(X, 0), &staged, 1, c->N, c->tiles.bytes);
  } else {
    A2_STEPS(tb, s, P * np) { /* slice `core` of every chunk, a step per piece */
      uint64_t at = s / np * B + o, off = s % np * T;
      a2_at staged = a2_at_local(DATA, at);
      a2_coll_copy_piece(&t, s, a2_at_local(X, at), &staged, 1, off, a2_min64(L - off, T));
    }
  }
  a2_coll_barrier_at(tb, me, P, SIG, core, C); /* barrier A, signal row 0, lane core */
  /* reduce-scatter: slice `core` of chunk `me` of every peer */
  t.turn = 0;
  a2_reduction r = {c->vop, a2_at_local(DATA, me * B + o), DATA, me * B + o, me, P, 0, &mine, 1};
  a2_coll_reduce(&t, &r, L, T);
  /* barrier B, its own row */
  a2_coll_barrier_at(tb, me, P, SIG, (uint64_t)P * C + core, C);
  /* all-gather: chunk cc from rank cc (a local read when cc == me), one
   * step per piece */
  A2_STEPS(tb, s, P * np) {
    uint64_t cc = s / np, off = s % np * T;
    a2_at out = a2_at_local(Y, cc * B + o);
    a2_coll_copy_piece(&t, s, a2_at_peer(RESULT, (uint32_t)cc, cc * B + o), &out, 1, off,
                       a2_min64(L - off, T));
  }
}

A2_DEFINE_GENERATOR(allreduce_two_phase, shape, body)

void a2_card_allreduce_two_phase(const a2_coll_params *p, a2_card *c) {
  double P = p->nranks;
  c->remote_read_bytes = 2.0 * (P - 1) / P * (double)p->size_bytes;
  c->remote_write_bytes = 0;
  c->barrier_rounds = p->nranks > 1 ? 2 : 0;
}
