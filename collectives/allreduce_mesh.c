/* Seed step 08: all-reduce, mesh. Every rank stages its slice into its
 * window, joins one barrier, then reads every peer's whole slice and adds it.
 * Slices larger than a tile are processed in chunks of a2_coll_chunk_bytes;
 * peer reads alternate between two receive tiles so that two are in flight. */
#include "collectives/allreduce.h"

a2_code a2_gen_allreduce_mesh(const a2_coll_params *p, a2_kernel *k, a2_err *err) {
  uint32_t P = p->nranks;
  uint64_t N = p->size_bytes, C = a2_coll_chunk_bytes(p->ub_bytes);
  uint64_t T = N < C ? N : C;
  a2_tb tb;
  if (a2_tb_begin(&tb, k, P, 1, err)) return tb.rc;
  k->seed = p->seed;
  a2_dtype dt = p->dtype;
  uint16_t x = a2_tb_buf(&tb, "x", A2_BUF_TENSOR, dt, N, A2_INIT_PATTERN);
  uint16_t y = a2_tb_buf(&tb, "y", A2_BUF_TENSOR, dt, N, A2_INIT_ZERO);
  uint16_t data = a2_tb_buf(&tb, "data", A2_BUF_WINDOW, dt, N, A2_INIT_ZERO);
  uint16_t sig = a2_tb_buf(&tb, "signal", A2_BUF_SIGNAL, A2_INT32, 4ull * P, A2_INIT_ZERO);
  uint16_t acc = a2_tb_tile(&tb, "acc", dt, T);
  uint16_t recv[2] = {a2_tb_tile(&tb, "recv0", dt, T), a2_tb_tile(&tb, "recv1", dt, T)};
  k->golden = (a2_golden){A2_GOLDEN_ALLREDUCE, p->op, x, y, N};
  for (uint32_t me = 0; me < P; me++) {
    a2_tb_at(&tb, me, 0);
    /* phase 1: stage-in x -> data */
    uint64_t c = 0;
    for (uint64_t off = 0; off < N; off += T, c++) {
      uint64_t len = N - off < T ? N - off : T;
      a2_tb_load(&tb, recv[c % 2], x, off, len);
      a2_tb_store(&tb, recv[c % 2], data, off, len);
    }
    /* phase 2: barrier */
    a2_coll_barrier(&tb, me, P, sig, 0);
    /* phases 3-4: accumulate every peer's chunk, then stage out */
    for (uint64_t off = 0; off < N; off += T) {
      uint64_t len = N - off < T ? N - off : T;
      a2_tb_load(&tb, acc, data, off, len);
      uint32_t j = 0;
      for (uint32_t peer = 0; peer < P; peer++) {
        if (peer == me) continue;
        a2_tb_rload(&tb, recv[j % 2], data, peer, off, len);
        a2_tb_vop(&tb, a2_reduce_opcode(p->op), acc, acc, recv[j % 2], len);
        j++;
      }
      a2_tb_store(&tb, acc, y, off, len);
    }
  }
  return tb.rc;
}

void a2_card_allreduce_mesh(const a2_coll_params *p, a2_card *c) {
  c->remote_read_bytes = (double)(p->nranks - 1) * (double)p->size_bytes;
  c->remote_write_bytes = 0;
  c->barrier_rounds = p->nranks > 1 ? 1 : 0;
}
