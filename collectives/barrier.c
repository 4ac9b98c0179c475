/* The built-in barrier (REFERENCE.md): a self-clearing credit counter, no
 * data. Every rank adds 1 to the counter of every other rank, waits for its
 * own counter to reach P-1, then takes those P-1 credits back (REFERENCE's
 * "epilogue -P" counts a credit to itself too; this one sends none) and
 * waits for the counter to read 0, so that it leaves the signal as it found
 * it. Barriers run back to back alternate between two counters
 * (a2_coll_credit_barrier), which is what makes the clearing race-free. */
#include "collectives/generators.h"

typedef struct {
  uint32_t P;
  uint16_t sig;
} ctx_t;

static a2_code declare(a2_tb *tb, const a2_coll_params *p, a2_kernel *k, void *ctx, a2_err *err) {
  ctx_t *c = ctx;
  c->P = p->nranks;
  if (a2_tb_begin(tb, k, p->nranks, 1, err)) return tb->rc;
  a2_coll_describe(k, "barrier", p, 0);
  c->sig = a2_tb_buf(tb, "counter", A2_BUF_SIGNAL, A2_INT32, 8, A2_INIT_ZERO);
  k->golden = (a2_golden){A2_GOLDEN_NONE, p->op, 0, 0, 0, 0};
  return tb->rc;
}

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const ctx_t *c = ctx;
  (void)core;
  a2_coll_credit_barrier(tb, me, c->P, c->sig, 0);
}

A2_DEFINE_GENERATOR(barrier, ctx_t, declare, body)

void a2_card_barrier(const a2_coll_params *p, a2_card *c) {
  c->remote_read_bytes = 0;
  c->remote_write_bytes = 0;
  c->barrier_rounds = p->nranks > 1 ? 1 : 0;
}
