/* Ladder step 10: all-reduce, ring, pull-based. The slice is cut into P
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
#include "collectives/allreduce.h"

/* a mod P for a in [-P, 2P): every index here is a rank plus or minus a
 * step (no division: this runs for every step of every rank) */
static uint64_t mod(int64_t a, uint32_t P) {
  return (uint64_t)(a < 0 ? a + P : a >= (int64_t)P ? a - P : a);
}

typedef struct {
  uint32_t P;
  uint64_t N, B, T, np; /* np: pieces of T in a chunk of B */
  uint16_t x, y, partial, result, sig;
  a2_opcode vop;
  a2_tileset tiles;
} ctx_t;

static a2_code declare(a2_tb *tb, const a2_coll_params *p, a2_kernel *k, void *ctx, a2_err *err) {
  ctx_t *c = ctx;
  uint32_t P = p->nranks;
  uint64_t N = p->size_bytes, B = N / P;
  *c = (ctx_t){.P = P,
               .N = N,
               .B = B,
               .T = a2_min64(B, a2_coll_chunk_bytes(p->ub_bytes)),
               .vop = a2_reduce_opcode(p->op)};
  c->np = c->T ? a2_pieces(B, c->T) : 0;
  if (a2_tb_begin(tb, k, P, 1, err)) return tb->rc;
  a2_coll_describe(k, "allreduce_ring", p, 0);
  a2_dtype dt = p->dtype;
  c->x = a2_tb_buf(tb, "x", A2_BUF_TENSOR, dt, N, A2_INIT_PATTERN);
  c->y = a2_tb_buf(tb, "y", A2_BUF_TENSOR, dt, N, A2_INIT_ZERO);
  c->partial = a2_tb_buf(tb, "partial", A2_BUF_WINDOW, dt, N, A2_INIT_ZERO);
  c->result = a2_tb_buf(tb, "result", A2_BUF_WINDOW, dt, N, A2_INIT_ZERO);
  /* One cell per round, not the seed's [2(P-1), P]: only the left neighbour
   * ever writes a rank's cells, so a column per source would cost O(P^2)
   * cells per rank (8 MiB per rank at P=1024) for nothing. */
  c->sig = a2_tb_buf(tb, "signal", A2_BUF_SIGNAL, A2_INT32, 4ull * 2 * (P - 1), A2_INIT_ZERO);
  a2_tiles_declare(&c->tiles, tb, dt, c->T, 1, 2);
  k->golden = (a2_golden){A2_GOLDEN_ALLREDUCE, p->op, c->x, c->y, N, 0};
  return tb->rc;
}

/* One receive-tile rotation through all phases (t.turn). Each ring step of
 * the reduce-scatter and the all-gather is np + 2 steps of a phase: the
 * wait, one per chunk, the notify. */
static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const ctx_t *c = ctx;
  (void)core;
  /* a body runs once per batch (a batch ends at each wait): no divisions */
  uint32_t P = c->P, left = (uint32_t)mod((int64_t)me - 1, P), right = (uint32_t)mod(me + 1, P);
  uint64_t B = c->B, T = c->T, np = c->np, per = np + 2;
  uint16_t acc = c->tiles.acc[0];
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  a2_at staged = a2_at_local(c->partial, 0);
  a2_coll_copy(&t, a2_at_local(c->x, 0), &staged, 1, c->N, T); /* stage-in: partial := x */
  A2_STEPS(tb, s, 1) a2_tb_notify(tb, c->sig, right, 0, A2_MODE_SET, 1);
  uint64_t turn = t.turn; /* reduce-scatter: step rs reads chunk (me-rs-1) mod P */
  t.turn += (uint64_t)(P - 1) * np;
  A2_STEPS(tb, s, (uint64_t)(P - 1) * per) {
    uint64_t rs = s / per, j = s % per;
    if (j == 0) {
      a2_tb_wait(tb, c->sig, rs, A2_MODE_GE, 1);
    } else if (j <= np) {
      uint64_t off = mod((int64_t)me - (int64_t)rs - 1, P) * B + (j - 1) * T;
      uint64_t len = a2_min64(B - (j - 1) * T, T);
      uint16_t recv = a2_recv_tile(&t, turn + rs * np + j - 1);
      a2_tb_rload(tb, recv, c->partial, left, off, len);
      a2_tb_load(tb, acc, c->partial, off, len);
      a2_tb_vop(tb, c->vop, acc, acc, recv, len);
      a2_tb_store(tb, acc, rs + 2 == P ? c->result : c->partial, off, len);
    } else {
      a2_tb_notify(tb, c->sig, right, 1 + rs, A2_MODE_SET, 1);
    }
  }
  turn = t.turn; /* all-gather: step ag copies chunk (me-ag) mod P from the left */
  t.turn += (uint64_t)(P - 1) * np;
  A2_STEPS(tb, s, (uint64_t)(P - 1) * per) {
    uint64_t ag = s / per, j = s % per, cb = mod((int64_t)me - (int64_t)ag, P) * B;
    if (j == 0) {
      a2_tb_wait(tb, c->sig, P - 1 + ag, A2_MODE_GE, 1);
    } else if (j <= np) {
      a2_at out[2] = {a2_at_local(c->result, cb), a2_at_local(c->y, cb)};
      uint64_t off = (j - 1) * T;
      a2_coll_copy_piece(&t, turn + ag * np + j - 1, a2_at_peer(c->result, left, cb), out, 2, off,
                         a2_min64(B - off, T));
    } else if (ag + 2 < P) {
      a2_tb_notify(tb, c->sig, right, P + ag, A2_MODE_SET, 1);
    }
  }
  /* the reduced chunk this rank owns goes to y too */
  uint64_t own = mod((int64_t)me + 1, P);
  a2_at out = a2_at_local(c->y, own * B);
  a2_coll_copy(&t, a2_at_local(c->result, own * B), &out, 1, B, T);
}

A2_DEFINE_GENERATOR(allreduce_ring, ctx_t, declare, body)

void a2_card_allreduce_ring(const a2_coll_params *p, a2_card *c) {
  double P = p->nranks;
  c->remote_read_bytes = 2.0 * (P - 1) / P * (double)p->size_bytes;
  c->remote_write_bytes = 0;
  c->barrier_rounds = p->nranks > 1 ? 2ull * (p->nranks - 1) : 0;
}
