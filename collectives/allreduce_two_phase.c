/* Seed step 09: all-reduce, two-phase. Reduce-scatter (rank r sums chunk r
 * of every peer into its `result` window), a second barrier on its own
 * signal row, then all-gather (every rank reads chunk c from rank c,
 * itself included: that read is local). N must be a multiple of 4*P bytes. */
#include "collectives/allreduce.h"

a2_code a2_gen_allreduce_two_phase(const a2_coll_params *p, a2_kernel *k, a2_err *err) {
  uint32_t P = p->nranks;
  uint64_t N = p->size_bytes, B = N / P, C = a2_coll_chunk_bytes(p->ub_bytes);
  uint64_t T = B < C ? B : C;  /* reduce-scatter / all-gather piece */
  uint64_t Ts = N < C ? N : C; /* stage-in piece and tile size (>= T) */
  a2_tb tb;
  if (a2_tb_begin(&tb, k, P, 1, err)) return tb.rc;
  k->seed = p->seed;
  a2_dtype dt = p->dtype;
  uint16_t x = a2_tb_buf(&tb, "x", A2_BUF_TENSOR, dt, N, A2_INIT_PATTERN);
  uint16_t y = a2_tb_buf(&tb, "y", A2_BUF_TENSOR, dt, N, A2_INIT_ZERO);
  uint16_t data = a2_tb_buf(&tb, "data", A2_BUF_WINDOW, dt, N, A2_INIT_ZERO);
  uint16_t result = a2_tb_buf(&tb, "result", A2_BUF_WINDOW, dt, N, A2_INIT_ZERO);
  uint16_t sig = a2_tb_buf(&tb, "signal", A2_BUF_SIGNAL, A2_INT32, 8ull * P, A2_INIT_ZERO);
  uint16_t acc = a2_tb_tile(&tb, "acc", dt, Ts);
  uint16_t recv[2] = {a2_tb_tile(&tb, "recv0", dt, Ts), a2_tb_tile(&tb, "recv1", dt, Ts)};
  k->golden = (a2_golden){A2_GOLDEN_ALLREDUCE, p->op, x, y, N};
  for (uint32_t me = 0; me < P; me++) {
    a2_tb_at(&tb, me, 0);
    uint64_t c = 0;
    for (uint64_t off = 0; off < N; off += Ts, c++) {
      uint64_t len = N - off < Ts ? N - off : Ts;
      a2_tb_load(&tb, recv[c % 2], x, off, len);
      a2_tb_store(&tb, recv[c % 2], data, off, len);
    }
    a2_coll_barrier(&tb, me, P, sig, 0); /* barrier A, signal row 0 */
    /* reduce-scatter: chunk `me` of every peer */
    for (uint64_t off = me * B; off < (me + 1) * B; off += T) {
      uint64_t len = (me + 1) * B - off < T ? (me + 1) * B - off : T;
      a2_tb_load(&tb, acc, data, off, len);
      uint32_t j = 0;
      for (uint32_t peer = 0; peer < P; peer++) {
        if (peer == me) continue;
        a2_tb_rload(&tb, recv[j % 2], data, peer, off, len);
        a2_tb_vop(&tb, a2_reduce_opcode(p->op), acc, acc, recv[j % 2], len);
        j++;
      }
      a2_tb_store(&tb, acc, result, off, len);
    }
    a2_coll_barrier(&tb, me, P, sig, 1); /* barrier B, its own row */
    /* all-gather: chunk cc from rank cc (a local read when cc == me) */
    uint32_t j = 0;
    for (uint32_t cc = 0; cc < P; cc++)
      for (uint64_t off = cc * B; off < (cc + 1) * B; off += T, j++) {
        uint64_t len = (cc + 1) * B - off < T ? (cc + 1) * B - off : T;
        a2_tb_rload(&tb, recv[j % 2], result, cc, off, len);
        a2_tb_store(&tb, recv[j % 2], y, off, len);
      }
  }
  return tb.rc;
}

void a2_card_allreduce_two_phase(const a2_coll_params *p, a2_card *c) {
  double P = p->nranks;
  c->remote_read_bytes = 2.0 * (P - 1) / P * (double)p->size_bytes;
  c->remote_write_bytes = 0;
  c->barrier_rounds = p->nranks > 1 ? 2 : 0;
}
