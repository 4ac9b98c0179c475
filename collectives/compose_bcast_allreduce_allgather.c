/* Ladder step 16: three collectives composed, each with its own windows and
 * its own signal, so that no phase's notifies can satisfy another's waits:
 *   1. broadcast of root's N bytes (signal `bc_ready`): the result lands
 *      directly in the all-reduce's window `ar` (its stage-in);
 *   2. mesh all-reduce of `ar` (seed 08, signal `ar_signal`): the sum goes
 *      to the all-gather's window `ag` (its stage-in) and to y[me*N];
 *   3. all-gather of `ag` into y (signal `ag_signal`).
 * y[q*N + i] = op over the P ranks of x@root[i]. The card is the sum of
 * the three cards: remote read N + (P-1)*N + (P-1)*N, 3 barrier rounds. */
#include "collectives/allreduce.h"
#include "collectives/generators.h"

typedef struct {
  uint32_t P, root;
  uint64_t N, T;
  uint16_t x, y, bc, ar, ag, bc_sig, ar_sig, ag_sig;
  a2_opcode vop;
  a2_tileset tiles;
} ctx_t;

static a2_code declare(a2_tb *tb, const a2_coll_params *p, a2_kernel *k, void *ctx, a2_err *err) {
  ctx_t *c = ctx;
  uint32_t P = p->nranks;
  uint64_t N = p->size_bytes;
  *c = (ctx_t){.P = P,
               .root = p->root,
               .N = N,
               .T = a2_min64(N, a2_coll_chunk_bytes(p->ub_bytes)),
               .vop = a2_reduce_opcode(p->op)};
  if (a2_tb_begin(tb, k, P, 1, err)) return tb->rc;
  a2_coll_describe(k, "compose_bcast_allreduce_allgather", p, p->root);
  a2_dtype dt = p->dtype;
  c->x = a2_tb_buf(tb, "x", A2_BUF_TENSOR, dt, N, A2_INIT_PATTERN);
  c->y = a2_tb_buf(tb, "y", A2_BUF_TENSOR, dt, (uint64_t)P * N, A2_INIT_ZERO);
  c->bc = a2_tb_buf(tb, "bc", A2_BUF_WINDOW, dt, N, A2_INIT_ZERO);
  c->ar = a2_tb_buf(tb, "ar", A2_BUF_WINDOW, dt, N, A2_INIT_ZERO);
  c->ag = a2_tb_buf(tb, "ag", A2_BUF_WINDOW, dt, N, A2_INIT_ZERO);
  c->bc_sig = a2_tb_buf(tb, "bc_ready", A2_BUF_SIGNAL, A2_INT32, 4, A2_INIT_ZERO);
  c->ar_sig = a2_tb_buf(tb, "ar_signal", A2_BUF_SIGNAL, A2_INT32, 4ull * P, A2_INIT_ZERO);
  c->ag_sig = a2_tb_buf(tb, "ag_signal", A2_BUF_SIGNAL, A2_INT32, 4ull * P, A2_INIT_ZERO);
  a2_tiles_declare(&c->tiles, tb, dt, c->T, 1, 2);
  k->golden = (a2_golden){A2_GOLDEN_BCAST_ALLREDUCE_ALLGATHER, p->op, c->x, c->y, N, p->root};
  return tb->rc;
}

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const ctx_t *c = ctx;
  (void)core;
  uint32_t P = c->P;
  uint64_t N = c->N, T = c->T;
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  a2_phase_broadcast(&t, me, c->root, P, c->x, c->bc, c->bc_sig, a2_at_local(c->ar, 0), N, T);
  a2_coll_barrier(tb, me, P, c->ar_sig, 0);
  a2_at reduced[2] = {a2_at_local(c->ag, 0), a2_at_local(c->y, (uint64_t)me * N)};
  t.turn = 0;
  a2_reduction r = {c->vop, a2_at_local(c->ar, 0), c->ar, 0, me, P, 0, reduced, 2};
  a2_coll_reduce(&t, &r, N, T);
  a2_coll_barrier(tb, me, P, c->ag_sig, 0);
  a2_phase_gather(&t, me, P, c->ag, c->y, N, T);
}

A2_DEFINE_GENERATOR(compose_bcast_allreduce_allgather, ctx_t, declare, body)

void a2_card_compose_bcast_allreduce_allgather(const a2_coll_params *p, a2_card *c) {
  a2_card parts[3];
  a2_card_broadcast(p, &parts[0]);
  a2_card_allreduce_mesh(p, &parts[1]);
  a2_card_allgather(p, &parts[2]);
  *c = (a2_card){0, 0, 0};
  for (int i = 0; i < 3; i++) {
    c->remote_read_bytes += parts[i].remote_read_bytes;
    c->remote_write_bytes += parts[i].remote_write_bytes;
    c->barrier_rounds += parts[i].barrier_rounds;
  }
}
