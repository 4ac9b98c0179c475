/* All-reduce, recursive halving-doubling (HCCL's RHD), pull-based. With
 * P' = 2^floor(log2 P), r = P - P' and K = log2 P':
 *   fold     (P not a power of two) ranks 0..2r-1 pair up: odd rank 2i+1
 *            hands its slice to 2i, which adds it; 2i+1 sits out;
 *   halving  K reduce-scatter rounds over the P' ranks left, renumbered
 *            v = q/2 (q < 2r) or q - r: round j pairs v with v ^ 2^j; each
 *            keeps the half of its segment picked by bit j of v (vector
 *            halving, distance doubling) and adds the partner's partial of
 *            it, read from the partner's window;
 *   doubling K all-gather rounds in reverse (j = K-1 .. 0): read the
 *            partner's reduced segment into the own window;
 *   unfold   2i+1 reads the whole result from 2i.
 * The slice works in the window `data`; `y` receives the result. Signals:
 * one cell per event, each written by one rank (set 1):
 *   cell 0        (at 2i) 2i+1 has staged its slice
 *   cell 1+t      the partner of step t (t = 0..2K-1: halving rounds, then
 *                 doubling rounds) finished its step t-1 (staging for t = 0)
 *   cell 2K+1     (at 2i+1) 2i holds the result
 * A rank writes only the segment it keeps, and a partner reads only the
 * other one, after the notify that orders it (docs/collectives.md). */
#include "collectives/generators.h"

enum { X, Y, DATA, SIG };

static void declare_tiles(a2_tb *tb, const a2_coll_params *p, a2_coll_ctx *c) {
  a2_coll_set_piece(c, c->N, a2_coll_chunk_bytes(p->ub_bytes));
  a2_tiles_declare(&c->tiles, tb, p->dtype, c->T, 1, 2);
}

static const a2_coll_shape shape = {
    .algo = "allreduce_rhd",
    .golden = A2_GOLDEN_ALLREDUCE,
    .more = declare_tiles,
    .bufs = {[X] = {"x", A2_BUF_TENSOR, .fixed = 1},
             [Y] = {"y", A2_BUF_TENSOR, .fixed = 1},
             [DATA] = {"data", A2_BUF_WINDOW, .fixed = 1},
             [SIG] = {"signal", A2_BUF_SIGNAL, .per_rank = 2, .fixed = 2}}, /* >= 2K+2 cells */
};

uint32_t a2_rhd_pow2_below(uint32_t P) {
  return P ? 1u << (31 - __builtin_clz(P)) : 0;
}

/* data[off, off+len) += data@peer[off, off+len), one step per piece. */
static void add_from(a2_tiles *t, const a2_coll_ctx *c, uint32_t peer, uint64_t off, uint64_t len) {
  uint64_t T = c->T;
  uint16_t acc = c->tiles.acc[0];
  A2_STEPS(t->tb, s, a2_pieces(len, T)) {
    uint64_t o = off + s * T, n = a2_min64(off + len - o, T);
    uint16_t recv = a2_recv_tile(t, s);
    a2_tb_rload(t->tb, recv, DATA, peer, o, n);
    a2_tb_load(t->tb, acc, DATA, o, n);
    a2_tb_vop(t->tb, c->vop, acc, acc, recv, n);
    a2_tb_store(t->tb, acc, DATA, o, n);
  }
}

/* A copy whose pieces take receive tiles 0, 1, 0, ... from its start (every
 * copy here: a hand-written trace need not count the pieces before it). */
static void copy(a2_tiles *t, a2_at src, a2_at dst, uint64_t len, uint64_t T) {
  t->turn = 0;
  a2_coll_copy(t, src, &dst, 1, len, T);
}

static void signal_pair(a2_tb *tb, uint32_t peer, uint64_t cell) {
  A2_STEPS(tb, s, 2) {
    if (s == 0)
      a2_tb_notify(tb, SIG, peer, cell, A2_MODE_SET, 1);
    else
      a2_tb_wait(tb, SIG, cell, A2_MODE_GE, 1);
  }
}

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const a2_coll_ctx *c = ctx;
  (void)core;
  uint32_t P = c->P, P2 = a2_rhd_pow2_below(P), r = P - P2, K = (uint32_t)__builtin_ctz(P2);
  uint64_t N = c->N, T = c->T;
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  a2_at out = a2_at_local(Y, 0);
  copy(&t, a2_at_local(X, 0), a2_at_local(DATA, 0), N, T);
  if (me < 2 * r && (me & 1)) { /* folded out: hand over, then take the result */
    A2_STEPS(tb, s, 2) {
      if (s == 0)
        a2_tb_notify(tb, SIG, me - 1, 0, A2_MODE_SET, 1);
      else
        a2_tb_wait(tb, SIG, 2ull * K + 1, A2_MODE_GE, 1);
    }
    copy(&t, a2_at_peer(DATA, me - 1, 0), out, N, T);
    return;
  }
  if (me < 2 * r) {
    A2_STEPS(tb, s, 1) a2_tb_wait(tb, SIG, 0, A2_MODE_GE, 1);
    add_from(&t, c, me + 1, 0, N);
  }
  uint32_t v = me < 2 * r ? me / 2 : me - r;
  for (uint32_t st = 0; st < 2 * K; st++) {
    uint32_t j = st < K ? st : 2 * K - 1 - st, w = v ^ (1u << j);
    uint32_t partner = w < r ? 2 * w : w + r;
    signal_pair(tb, partner, 1ull + st);
    /* the segment before halving round j: bits 0..j-1 of v pick it */
    uint64_t lo = 0, half = N >> (j + 1);
    for (uint32_t i = 0; i < j; i++) lo += (uint64_t)((v >> i) & 1) * (N >> (i + 1));
    uint64_t bit = (v >> j) & 1;
    if (st < K) { /* halving: keep the half bit j picks, add the partner's */
      add_from(&t, c, partner, lo + bit * half, half);
    } else { /* doubling: the partner's half, reduced, into the own window */
      uint64_t sib = lo + (1 - bit) * half;
      copy(&t, a2_at_peer(DATA, partner, sib), a2_at_local(DATA, sib), half, T);
    }
  }
  if (me < 2 * r) A2_STEPS(tb, s, 1) a2_tb_notify(tb, SIG, me + 1, 2ull * K + 1, A2_MODE_SET, 1);
  copy(&t, a2_at_local(DATA, 0), out, N, T);
}

A2_DEFINE_GENERATOR(allreduce_rhd, shape, body)

void a2_card_allreduce_rhd(const a2_coll_params *p, a2_card *c) {
  uint32_t P = p->nranks, P2 = a2_rhd_pow2_below(P), K = P2 ? (uint32_t)__builtin_ctz(P2) : 0;
  double N = (double)p->size_bytes, fold = P > P2 ? N : 0;
  /* the busiest rank: a folding one reads N, then (P'-1)/P' N each way */
  c->remote_read_bytes = P > 1 ? fold + 2.0 * (P2 - 1) / P2 * N : 0;
  c->remote_write_bytes = 0;
  c->barrier_rounds = P > 1 ? 2ull * K + (P > P2) : 0;
}
