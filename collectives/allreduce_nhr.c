/* All-reduce, HCCL's NHR (nonuniform hierarchical ring), pull-based: a
 * reduce-scatter and an all-gather of K = ceil(log2 P) steps each, at any
 * P (no fold). The slice is cut into P slices of B = N/P; rank r ends the
 * reduce-scatter owning slice r. Indices are modulo P.
 *   reduce-scatter step s (d = 2^s): r reads from r + d the slices
 *            r - 2dk, k = 0..n_s-1, n_s = floor((P-1+d) / 2d), and adds
 *            them into its own (`data`);
 *   all-gather step s (d = 2^(K-1-s)): r reads from r - d the slices
 *            r - d - 2dk, k = 0..n-1, n = floor((P-1+d) / 2d), into its
 *            own `result`.
 * Over the K steps of a phase the n add up to P-1: every rank moves
 * (P-1)/P N each way, the most traffic between the nearest ranks. The
 * reduce-scatter works in `data`, the all-gather in `result` (own slice
 * staged there first); `y` receives `result`. Signals: cell t (t = 0..2K-1:
 * reduce-scatter steps, then all-gather steps) is written by the rank this
 * one reads from in step t, once it finished step t-1 (staging for t = 0).
 * Within a phase no rank writes a slice that a reader may still read from
 * it in that step or a later one (the slice sets are disjoint), so one
 * notify per step orders every read. */
#include "collectives/generators.h"

enum { X, Y, DATA, RESULT, SIG };

/* One accumulator and NRECV receive tiles, of the largest power-of-two
 * piece (<= 64 KiB) that fits them all in UB: a step's slices come from one
 * peer, NRECV of them in flight. */
#define NRECV 8
static void declare_tiles(a2_tb *tb, const a2_coll_params *p, a2_coll_ctx *c) {
  uint64_t piece = 64 * 1024;
  while (piece > 32 && (1 + NRECV) * piece > p->ub_bytes) piece /= 2;
  a2_coll_set_piece(c, c->B, piece);
  a2_tiles_declare(&c->tiles, tb, p->dtype, c->T, 1, NRECV);
}

static const a2_coll_shape shape = {
    .algo = "allreduce_nhr",
    .golden = A2_GOLDEN_ALLREDUCE,
    .more = declare_tiles,
    .bufs = {[X] = {"x", A2_BUF_TENSOR, .fixed = 1},
             [Y] = {"y", A2_BUF_TENSOR, .fixed = 1},
             [DATA] = {"data", A2_BUF_WINDOW, .fixed = 1},
             [RESULT] = {"result", A2_BUF_WINDOW, .fixed = 1},
             [SIG] = {"signal", A2_BUF_SIGNAL, .per_rank = 2}}, /* >= 2K cells */
};

uint32_t a2_nhr_steps(uint32_t P) {
  uint32_t k = 0;
  while ((1ull << k) < P) k++;
  return k;
}

/* a mod P for a in (-2P, 2P) */
static uint32_t mod(int64_t a, uint32_t P) {
  while (a < 0) a += P;
  while (a >= (int64_t)P) a -= P;
  return (uint32_t)a;
}

/* One step's n slices from `peer`, software-pipelined: piece i (slice
 * i / np, its piece i % np) is read into receive tile i % NRECV, NRECV - 1
 * pieces ahead of its use, so NRECV reads are in flight while the vector
 * core adds (reduce: data += the piece) or the MTE stores (gather: result =
 * the piece). Slice k sits at slice index slot0 - 2dk (mod P). */
static void step_slices(a2_tiles *t, const a2_coll_ctx *c, uint16_t win, uint32_t peer,
                        uint32_t slot0, uint32_t d, uint32_t n, int reduce) {
  uint64_t T = c->T, B = c->B, np = a2_pieces(B, T), M = (uint64_t)n * np;
  uint32_t P = c->P;
  uint16_t acc = c->tiles.acc[0];
  A2_STEPS(t->tb, s, M + NRECV - 1) {
    for (int phase = 0; phase < 2; phase++) {
      uint64_t i = phase == 0 ? s : s - (NRECV - 1);
      if (phase == 0 ? s >= M : s < NRECV - 1) continue;
      uint64_t k = i / np, j = i % np;
      uint64_t off = mod((int64_t)slot0 - 2ll * d * (int64_t)k, P) * B + j * T;
      uint64_t len = a2_min64(B - j * T, T);
      uint16_t recv = a2_recv_tile(t, i);
      if (phase == 0) {
        a2_tb_rload(t->tb, recv, win, peer, off, len);
      } else if (reduce) {
        a2_tb_load(t->tb, acc, win, off, len);
        a2_tb_vop(t->tb, c->vop, acc, acc, recv, len);
        a2_tb_store(t->tb, acc, win, off, len);
      } else {
        a2_tb_store(t->tb, recv, win, off, len);
      }
    }
  }
}

/* A copy whose pieces take receive tiles turn, turn + 1, ... */
static void copy(a2_tiles *t, a2_at src, a2_at dst, uint64_t len, uint64_t T, uint64_t turn) {
  t->turn = turn;
  a2_coll_copy(t, src, &dst, 1, len, T);
}

static void signal_step(a2_tb *tb, uint32_t reader, uint64_t cell) {
  A2_STEPS(tb, s, 2) {
    if (s == 0)
      a2_tb_notify(tb, SIG, reader, cell, A2_MODE_SET, 1);
    else
      a2_tb_wait(tb, SIG, cell, A2_MODE_GE, 1);
  }
}

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const a2_coll_ctx *c = ctx;
  (void)core;
  uint32_t P = c->P, K = a2_nhr_steps(P);
  uint64_t N = c->N, B = c->B, T = c->T;
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  copy(&t, a2_at_local(X, 0), a2_at_local(DATA, 0), N, T, 0);
  for (uint32_t s = 0; s < K; s++) { /* reduce-scatter */
    uint32_t d = 1u << s, n = (P - 1 + d) / (2 * d);
    signal_step(tb, mod((int64_t)me - d, P), s);
    step_slices(&t, c, DATA, mod((int64_t)me + d, P), me, d, n, 1);
  }
  copy(&t, a2_at_local(DATA, me * B), a2_at_local(RESULT, me * B), B, T, 0);
  for (uint32_t s = 0; s < K; s++) { /* all-gather */
    uint32_t d = 1u << (K - 1 - s), n = (P - 1 + d) / (2 * d), from = mod((int64_t)me - d, P);
    signal_step(tb, mod((int64_t)me + d, P), (uint64_t)K + s);
    step_slices(&t, c, RESULT, from, from, d, n, 0);
  }
  copy(&t, a2_at_local(RESULT, 0), a2_at_local(Y, 0), N, T, 0);
}

A2_DEFINE_GENERATOR(allreduce_nhr, shape, body)

void a2_card_allreduce_nhr(const a2_coll_params *p, a2_card *c) {
  double P = p->nranks;
  c->remote_read_bytes = 2.0 * (P - 1) / P * (double)p->size_bytes;
  c->remote_write_bytes = 0;
  c->barrier_rounds = 2ull * a2_nhr_steps(p->nranks);
}
