/* Seed step 08: all-reduce, mesh. Every rank stages its slice into its
 * window, joins one barrier, then reads every peer's whole slice and adds it.
 * Slices larger than a tile are processed in chunks of a2_coll_chunk_bytes;
 * peer reads alternate between two receive tiles so that two are in flight.
 * With p->cores > 1 the payload is split over vector cores instead
 * (allreduce_mesh_cores.c). */
#include "collectives/allreduce.h"

a2_code a2_gen_allreduce_mesh(const a2_coll_params *p, a2_kernel *k, a2_err *err) {
  if (p->cores > 1) return a2_gen_allreduce_mesh_cores(p, k, err);
  uint32_t P = p->nranks;
  uint64_t N = p->size_bytes, T = a2_min64(N, a2_coll_chunk_bytes(p->ub_bytes));
  a2_tb tb;
  if (a2_tb_begin(&tb, k, P, 1, err)) return tb.rc;
  a2_coll_describe(k, "allreduce_mesh", p, 0);
  a2_dtype dt = p->dtype;
  uint16_t x = a2_tb_buf(&tb, "x", A2_BUF_TENSOR, dt, N, A2_INIT_PATTERN);
  uint16_t y = a2_tb_buf(&tb, "y", A2_BUF_TENSOR, dt, N, A2_INIT_ZERO);
  uint16_t data = a2_tb_buf(&tb, "data", A2_BUF_WINDOW, dt, N, A2_INIT_ZERO);
  uint16_t sig = a2_tb_buf(&tb, "signal", A2_BUF_SIGNAL, A2_INT32, 4ull * P, A2_INIT_ZERO);
  a2_tiles t;
  a2_tiles_declare(&t, &tb, dt, T, 1, 2);
  k->golden = (a2_golden){A2_GOLDEN_ALLREDUCE, p->op, x, y, N, 0};
  a2_at out = a2_at_local(y, 0), staged = a2_at_local(data, 0);
  for (uint32_t me = 0; me < P; me++) {
    a2_tb_at(&tb, me, 0);
    t.turn = 0;
    a2_coll_copy(&t, a2_at_local(x, 0), &staged, 1, N, T); /* phase 1: stage-in */
    a2_coll_barrier(&tb, me, P, sig, 0);                    /* phase 2: barrier */
    t.turn = 0; /* phases 3-4: accumulate every peer's chunk, then stage out */
    a2_coll_reduce(&t, a2_reduce_opcode(p->op), staged, data, 0, me, P, 0, &out, 1, N, T);
  }
  return tb.rc;
}

void a2_card_allreduce_mesh(const a2_coll_params *p, a2_card *c) {
  c->remote_read_bytes = (double)(p->nranks - 1) * (double)p->size_bytes;
  c->remote_write_bytes = 0;
  c->barrier_rounds = p->nranks > 1 ? 1 : 0;
}
