/* Three collectives composed, each with its own windows and its own
 * signal, so that no phase's notifies can satisfy another's waits:
 *   1. broadcast of root's N bytes (signal `bc_ready`): the result lands
 *      directly in the all-reduce's window `ar` (its stage-in);
 *   2. mesh all-reduce of `ar` (signal `ar_signal`): the sum goes to the
 *      all-gather's window `ag` (its stage-in) and to y[me*N];
 *   3. all-gather of `ag` into y (signal `ag_signal`).
 * y[q*N + i] = op over the P ranks of x@root[i]. The card is the sum of
 * the three cards: remote read N + (P-1)*N + (P-1)*N, 3 barrier rounds. */
#include "collectives/generators.h"

enum { X, Y, BC, AR, AG, BC_READY, AR_SIGNAL, AG_SIGNAL };

static const a2_coll_shape shape = {
    .algo = "compose_bcast_allreduce_allgather",
    .golden = A2_GOLDEN_BCAST_ALLREDUCE_ALLGATHER,
    .rooted = true,
    .nacc = 1,
    .nrecv = 2,
    .bufs = {[X] = {"x", A2_BUF_TENSOR, .fixed = 1},
             [Y] = {"y", A2_BUF_TENSOR, .per_rank = 1},
             [BC] = {"bc", A2_BUF_WINDOW, .fixed = 1},
             [AR] = {"ar", A2_BUF_WINDOW, .fixed = 1},
             [AG] = {"ag", A2_BUF_WINDOW, .fixed = 1},
             [BC_READY] = {"bc_ready", A2_BUF_SIGNAL, .fixed = 1},
             [AR_SIGNAL] = {"ar_signal", A2_BUF_SIGNAL, .per_rank = 1},
             [AG_SIGNAL] = {"ag_signal", A2_BUF_SIGNAL, .per_rank = 1}},
};

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const a2_coll_ctx *c = ctx;
  (void)core;
  uint32_t P = c->P;
  uint64_t N = c->N, T = c->T;
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  a2_phase_broadcast(&t, me, c->root, P, X, BC, BC_READY, a2_at_local(AR, 0), N, T);
  a2_coll_barrier(tb, me, P, AR_SIGNAL, 0);
  a2_at reduced[2] = {a2_at_local(AG, 0), a2_at_local(Y, (uint64_t)me * N)};
  t.turn = 0;
  a2_reduction r = {c->vop, a2_at_local(AR, 0), AR, 0, me, P, 0, reduced, 2};
  a2_coll_reduce(&t, &r, N, T);
  a2_coll_barrier(tb, me, P, AG_SIGNAL, 0);
  a2_phase_gather(&t, me, P, AG, Y, N, (a2_slice){0, N}, T);
}

A2_DEFINE_GENERATOR(compose_bcast_allreduce_allgather, shape, body)

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
