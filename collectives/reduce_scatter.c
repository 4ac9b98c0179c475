/* Reduce-scatter. N = bytes of each rank's OUTPUT block (the --size flag);
 * the input x holds P*N, block q destined for rank q. Each rank stages the
 * P-1 blocks other ranks need into its window `data` (its own block stays
 * in x), joins one barrier (signal [P]), then reduces block r: its own
 * block from x, plus block r of every peer's window, read starting with its
 * right neighbour so that no rank is everyone's first source. The result
 * goes to y.
 *
 * With --cores C > 1 (HCCL's AIV reduce-scatter runs on several vector
 * cores a rank): every block is cut into C slices of whole elements
 * (a2_core_slice), core c staging and reducing slice c of every block, with
 * its own barrier lane of the signal [P, C] (cell q*C + c); a core without
 * a slice has an empty program. The rank's cores together read (P-1)*N. */
#include "collectives/generators.h"

enum { X, Y, DATA, SIG };

static const a2_coll_shape shape = {
    .algo = "reduce_scatter",
    .golden = A2_GOLDEN_REDUCE_SCATTER,
    .multi_core = true,
    .nacc = 1,
    .nrecv = 2,
    .bufs = {[X] = {"x", A2_BUF_TENSOR, .per_rank = 1},
             [Y] = {"y", A2_BUF_TENSOR, .fixed = 1},
             [DATA] = {"data", A2_BUF_WINDOW, .per_rank = 1},
             [SIG] = {"signal", A2_BUF_SIGNAL, .per_rank = 1}},
};

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const a2_coll_ctx *c = ctx;
  a2_slice part = a2_core_slice(c, c->N, core);
  if (part.len == 0) return; /* no slice: an empty program */
  uint32_t P = c->P;
  uint64_t N = c->N, T = c->T, mine = (uint64_t)me * N + part.off, np = a2_pieces(part.len, T);
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  /* stage-in of the slices peers read (q = 0, 1, ... but me), one step per piece */
  A2_STEPS(tb, s, (uint64_t)(P - 1) * np) {
    uint64_t q = a2_nth_peer(me, P, 0, s / np) * N + part.off, off = s % np * T;
    a2_at dst = a2_at_local(DATA, q);
    a2_coll_copy_piece(&t, s, a2_at_local(X, q), &dst, 1, off, a2_min64(part.len - off, T));
  }
  a2_coll_barrier_at(tb, me, P, SIG, core, c->C); /* lane core: cells q*C + core */
  a2_at out = a2_at_local(Y, part.off);
  a2_reduction r = {c->vop, a2_at_local(X, mine), DATA, mine, me, P, (me + 1) % P, &out, 1};
  a2_coll_reduce(&t, &r, part.len, T);
}

A2_DEFINE_GENERATOR(reduce_scatter, shape, body)

void a2_card_reduce_scatter(const a2_coll_params *p, a2_card *c) {
  c->remote_read_bytes = (double)(p->nranks - 1) * (double)p->size_bytes;
  c->remote_write_bytes = 0;
  c->barrier_rounds = p->nranks > 1 ? 1 : 0;
}
