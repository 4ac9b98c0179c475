/* All-reduce, ring, pull-based (the ring all-reduce of PyPTO's distributed
 * tutorial, with one signal cell per round). The slice is cut into P
 * chunks of B = N/P. Signals are neighbour-only, one row per round
 * (one cell per row: only the left neighbour writes them), 2(P-1) rows:
 *   row 0            left has staged its input (partial := x)
 *   row 1+s          left finished reduce-scatter step s (s = 0..P-2)
 *   row P+s          left finished all-gather step s (s = 0..P-3)
 * Reduce-scatter step s: rank r reads the partial sum of chunk (r-s-1) mod P
 * from its left neighbour, adds its own, stores it to `partial`. After P-1
 * steps it holds the reduced chunk (r+1) mod P, copied to `result`.
 * All-gather step s: read `result` chunk (r-s) mod P from the left, store it
 * to `result` and `y`. Only the right neighbour ever reads a rank's windows,
 * and only after the matching notify, so there is no race. */
#include "collectives/generators.h"

/* a mod P for a in [-P, 2P): every index here is a rank plus or minus a
 * step (no division: this runs for every step of every rank) */
static uint64_t mod(int64_t a, uint32_t P) {
  return (uint64_t)(a < 0 ? a + P : a >= (int64_t)P ? a - P : a);
}

enum { X, Y, PARTIAL, RESULT, SIG };

/* Every step moves chunks of B, in pieces of T: tiles of T. */
static void declare_tiles(a2_tb *tb, const a2_coll_params *p, a2_coll_ctx *c) {
  a2_coll_set_piece(c, c->B, a2_coll_chunk_bytes(p->ub_bytes));
  a2_tiles_declare(&c->tiles, tb, p->dtype, c->T, 1, 2);
}

/* One cell per round, not a [2(P-1), P] matrix: only the left neighbour
 * ever writes a rank's cells, so a column per source would cost O(P^2)
 * cells per rank (8 MiB per rank at P=1024) for nothing. */
static const a2_coll_shape shape = {
    .algo = "allreduce_ring",
    .golden = A2_GOLDEN_ALLREDUCE,
    .more = declare_tiles,
    .bufs = {[X] = {"x", A2_BUF_TENSOR, .fixed = 1},
             [Y] = {"y", A2_BUF_TENSOR, .fixed = 1},
             [PARTIAL] = {"partial", A2_BUF_WINDOW, .fixed = 1},
             [RESULT] = {"result", A2_BUF_WINDOW, .fixed = 1},
             [SIG] = {"signal", A2_BUF_SIGNAL, .per_rank = 2, .fixed = -2}}, /* 2(P-1) rows */
};

/* One receive-tile rotation through all phases (t.turn). Each ring step of
 * the reduce-scatter and the all-gather is np + 2 steps of a phase: the
 * wait, one per chunk, the notify. */
static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const a2_coll_ctx *c = ctx;
  (void)core;
  /* a body runs once per batch (a batch ends at each wait): no divisions */
  uint32_t P = c->P, left = (uint32_t)mod((int64_t)me - 1, P), right = (uint32_t)mod(me + 1, P);
  uint64_t B = c->B, T = c->T, np = c->np, per = np + 2;
  uint16_t acc = c->tiles.acc[0];
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  a2_at staged = a2_at_local(PARTIAL, 0);
  a2_coll_copy(&t, a2_at_local(X, 0), &staged, 1, c->N, T); /* stage-in: partial := x */
  A2_STEPS(tb, s, 1) a2_tb_notify(tb, SIG, right, 0, A2_MODE_SET, 1);
  uint64_t turn = t.turn; /* reduce-scatter: step rs reads chunk (me-rs-1) mod P */
  t.turn += (uint64_t)(P - 1) * np;
  A2_STEPS(tb, s, (uint64_t)(P - 1) * per) {
    uint64_t rs = s / per, j = s % per;
    if (j == 0) {
      a2_tb_wait(tb, SIG, rs, A2_MODE_GE, 1);
    } else if (j <= np) {
      uint64_t off = mod((int64_t)me - (int64_t)rs - 1, P) * B + (j - 1) * T;
      uint64_t len = a2_min64(B - (j - 1) * T, T);
      uint16_t recv = a2_recv_tile(&t, turn + rs * np + j - 1);
      a2_tb_rload(tb, recv, PARTIAL, left, off, len);
      a2_tb_load(tb, acc, PARTIAL, off, len);
      a2_tb_vop(tb, c->vop, acc, acc, recv, len);
      a2_tb_store(tb, acc, rs + 2 == P ? RESULT : PARTIAL, off, len);
    } else {
      a2_tb_notify(tb, SIG, right, 1 + rs, A2_MODE_SET, 1);
    }
  }
  turn = t.turn; /* all-gather: step ag copies chunk (me-ag) mod P from the left */
  t.turn += (uint64_t)(P - 1) * np;
  A2_STEPS(tb, s, (uint64_t)(P - 1) * per) {
    uint64_t ag = s / per, j = s % per, cb = mod((int64_t)me - (int64_t)ag, P) * B;
    if (j == 0) {
      a2_tb_wait(tb, SIG, P - 1 + ag, A2_MODE_GE, 1);
    } else if (j <= np) {
      a2_at out[2] = {a2_at_local(RESULT, cb), a2_at_local(Y, cb)};
      uint64_t off = (j - 1) * T;
      a2_coll_copy_piece(&t, turn + ag * np + j - 1, a2_at_peer(RESULT, left, cb), out, 2, off,
                         a2_min64(B - off, T));
    } else if (ag + 2 < P) {
      a2_tb_notify(tb, SIG, right, P + ag, A2_MODE_SET, 1);
    }
  }
  /* the reduced chunk this rank owns goes to y too */
  uint64_t own = mod((int64_t)me + 1, P);
  a2_at out = a2_at_local(Y, own * B);
  a2_coll_copy(&t, a2_at_local(RESULT, own * B), &out, 1, B, T);
}

A2_DEFINE_GENERATOR(allreduce_ring, shape, body)

void a2_card_allreduce_ring(const a2_coll_params *p, a2_card *c) {
  double P = p->nranks;
  c->remote_read_bytes = 2.0 * (P - 1) / P * (double)p->size_bytes;
  c->remote_write_bytes = 0;
  c->barrier_rounds = p->nranks > 1 ? 2ull * (p->nranks - 1) : 0;
}
