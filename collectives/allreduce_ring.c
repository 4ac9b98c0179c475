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

static uint64_t mod(int64_t a, uint32_t P) { return (uint64_t)((a % P + P) % P); }

a2_code a2_gen_allreduce_ring(const a2_coll_params *p, a2_kernel *k, a2_err *err) {
  uint32_t P = p->nranks;
  uint64_t N = p->size_bytes, B = N / P, T = a2_min64(B, a2_coll_chunk_bytes(p->ub_bytes));
  a2_tb tb;
  if (a2_tb_begin(&tb, k, P, 1, err)) return tb.rc;
  a2_coll_describe(k, "allreduce_ring", p, 0);
  a2_dtype dt = p->dtype;
  uint16_t x = a2_tb_buf(&tb, "x", A2_BUF_TENSOR, dt, N, A2_INIT_PATTERN);
  uint16_t y = a2_tb_buf(&tb, "y", A2_BUF_TENSOR, dt, N, A2_INIT_ZERO);
  uint16_t partial = a2_tb_buf(&tb, "partial", A2_BUF_WINDOW, dt, N, A2_INIT_ZERO);
  uint16_t result = a2_tb_buf(&tb, "result", A2_BUF_WINDOW, dt, N, A2_INIT_ZERO);
  /* One cell per round, not the seed's [2(P-1), P]: only the left neighbour
   * ever writes a rank's cells, so a column per source would cost O(P^2)
   * cells per rank (8 MiB per rank at P=1024) for nothing. */
  uint16_t sig = a2_tb_buf(&tb, "signal", A2_BUF_SIGNAL, A2_INT32, 4ull * 2 * (P - 1),
                           A2_INIT_ZERO);
  a2_tiles t;
  a2_tiles_declare(&t, &tb, dt, T, 1, 2);
  uint16_t acc = t.acc[0];
  k->golden = (a2_golden){A2_GOLDEN_ALLREDUCE, p->op, x, y, N, 0};
  a2_opcode vop = a2_reduce_opcode(p->op);
  for (uint32_t me = 0; me < P; me++) {
    uint32_t left = (me + P - 1) % P, right = (me + 1) % P;
    a2_tb_at(&tb, me, 0);
    t.turn = 0; /* one receive-tile rotation through all phases */
    a2_at staged = a2_at_local(partial, 0);
    a2_coll_copy(&t, a2_at_local(x, 0), &staged, 1, N, T); /* stage-in: partial := x */
    a2_tb_notify(&tb, sig, right, 0, A2_MODE_SET, 1);
    for (uint32_t s = 0; s + 1 < P; s++) { /* reduce-scatter */
      a2_tb_wait(&tb, sig, s, A2_MODE_GE, 1);
      uint64_t c = mod((int64_t)me - s - 1, P);
      for (uint64_t off = c * B; off < (c + 1) * B; off += T) {
        uint64_t len = a2_min64((c + 1) * B - off, T);
        uint16_t recv = t.recv[t.turn++ % t.nrecv];
        a2_tb_rload(&tb, recv, partial, left, off, len);
        a2_tb_load(&tb, acc, partial, off, len);
        a2_tb_vop(&tb, vop, acc, acc, recv, len);
        a2_tb_store(&tb, acc, s + 2 == P ? result : partial, off, len);
      }
      a2_tb_notify(&tb, sig, right, 1 + s, A2_MODE_SET, 1);
    }
    for (uint32_t s = 0; s + 1 < P; s++) { /* all-gather */
      a2_tb_wait(&tb, sig, P - 1 + s, A2_MODE_GE, 1);
      uint64_t c = mod((int64_t)me - s, P);
      a2_at out[2] = {a2_at_local(result, c * B), a2_at_local(y, c * B)};
      a2_coll_copy(&t, a2_at_peer(result, left, c * B), out, 2, B, T);
      if (s + 2 < P) a2_tb_notify(&tb, sig, right, P + s, A2_MODE_SET, 1);
    }
    /* the reduced chunk this rank owns goes to y too */
    uint64_t own = mod((int64_t)me + 1, P);
    a2_at out = a2_at_local(y, own * B);
    a2_coll_copy(&t, a2_at_local(result, own * B), &out, 1, B, T);
  }
  return tb.rc;
}

void a2_card_allreduce_ring(const a2_coll_params *p, a2_card *c) {
  double P = p->nranks;
  c->remote_read_bytes = 2.0 * (P - 1) / P * (double)p->size_bytes;
  c->remote_write_bytes = 0;
  c->barrier_rounds = p->nranks > 1 ? 2ull * (p->nranks - 1) : 0;
}
