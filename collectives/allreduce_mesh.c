/* Seed step 08: all-reduce, mesh. Every rank stages its slice into its
 * window, joins one barrier, then reads every peer's whole slice and adds it.
 * Slices larger than a tile are processed in chunks of a2_coll_chunk_bytes;
 * peer reads alternate between two receive tiles so that two are in flight.
 * With p->cores > 1 the payload is split over vector cores instead
 * (allreduce_mesh_cores.c). */
#include "collectives/allreduce.h"

static a2_code declare(a2_tb *tb, const a2_coll_params *p, a2_kernel *k, void *ctx, a2_err *err) {
  a2_mesh_ctx *c = ctx;
  if (p->cores > 1) return a2_mesh_cores_declare(tb, p, k, c, err);
  uint32_t P = p->nranks;
  uint64_t N = p->size_bytes;
  *c = (a2_mesh_ctx){.P = P,
                     .C = 1,
                     .N = N,
                     .T = a2_min64(N, a2_coll_chunk_bytes(p->ub_bytes)),
                     .vop = a2_reduce_opcode(p->op)};
  if (a2_tb_begin(tb, k, P, 1, err)) return tb->rc;
  a2_coll_describe(k, "allreduce_mesh", p, 0);
  a2_dtype dt = p->dtype;
  c->x = a2_tb_buf(tb, "x", A2_BUF_TENSOR, dt, N, A2_INIT_PATTERN);
  c->y = a2_tb_buf(tb, "y", A2_BUF_TENSOR, dt, N, A2_INIT_ZERO);
  c->data = a2_tb_buf(tb, "data", A2_BUF_WINDOW, dt, N, A2_INIT_ZERO);
  c->sig = a2_tb_buf(tb, "signal", A2_BUF_SIGNAL, A2_INT32, 4ull * P, A2_INIT_ZERO);
  a2_tiles_declare(&c->tiles, tb, dt, c->T, 1, 2);
  k->golden = (a2_golden){A2_GOLDEN_ALLREDUCE, p->op, c->x, c->y, N, 0};
  return tb->rc;
}

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const a2_mesh_ctx *c = ctx;
  if (c->C > 1) {
    a2_mesh_cores_body(tb, c, me, core);
    return;
  }
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  a2_at out = a2_at_local(c->y, 0), staged = a2_at_local(c->data, 0);
  a2_coll_copy(&t, a2_at_local(c->x, 0), &staged, 1, c->N, c->T); /* phase 1: stage-in */
  a2_coll_barrier(tb, me, c->P, c->sig, 0);                       /* phase 2: barrier */
  t.turn = 0; /* phases 3-4: accumulate every peer's chunk, then stage out */
  a2_reduction r = {c->vop, staged, c->data, 0, me, c->P, 0, &out, 1};
  a2_coll_reduce(&t, &r, c->N, c->T);
}

A2_DEFINE_GENERATOR(allreduce_mesh, a2_mesh_ctx, declare, body)

void a2_card_allreduce_mesh(const a2_coll_params *p, a2_card *c) {
  c->remote_read_bytes = (double)(p->nranks - 1) * (double)p->size_bytes;
  c->remote_write_bytes = 0;
  c->barrier_rounds = p->nranks > 1 ? 1 : 0;
}
