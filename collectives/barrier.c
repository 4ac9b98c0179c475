/* PyPTO's built-in barrier: a self-clearing credit counter, no data. Every
 * rank adds 1 to the counter of every other rank, waits for its own counter
 * to reach P-1, then takes those P-1 credits back (PyPTO's epilogue of -P
 * counts a credit to itself too; this one sends none) and waits for the
 * counter to read 0, so that it leaves the signal as it found it. Barriers
 * run back to back alternate between two counters
 * (a2_coll_credit_barrier), which is what makes the clearing race-free. */
#include "collectives/generators.h"

enum { COUNTER };

static const a2_coll_shape shape = {
    .algo = "barrier",
    .golden = A2_GOLDEN_NONE,
    .bufs = {[COUNTER] = {"counter", A2_BUF_SIGNAL, .fixed = 2}},
};

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const a2_coll_ctx *c = ctx;
  (void)core;
  a2_coll_credit_barrier(tb, me, c->P, COUNTER, 0);
}

A2_DEFINE_GENERATOR(barrier, shape, body)

void a2_card_barrier(const a2_coll_params *p, a2_card *c) {
  c->remote_read_bytes = 0;
  c->remote_write_bytes = 0;
  c->barrier_rounds = p->nranks > 1 ? 1 : 0;
}
