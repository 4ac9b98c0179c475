/* Broadcast from any root R. The root stages its N bytes into its window
 * `data` (and its own output), then signals every other rank (one-to-all:
 * set 1 in cell 0 of their `ready` signal); each of them waits for that
 * signal and reads the root's window into its output. One signal round;
 * only the root's window is ever read. */
#include "collectives/generators.h"

void a2_phase_broadcast(a2_tiles *t, uint32_t me, uint32_t root, uint32_t P, uint16_t src,
                        uint16_t win, uint16_t sig, a2_at out, uint64_t N, uint64_t piece) {
  if (me == root) {
    a2_at dst[2] = {a2_at_local(win, 0), out};
    a2_coll_copy(t, a2_at_local(src, 0), dst, 2, N, piece);
  }
  a2_coll_signal_from(t->tb, me, root, P, sig, 0);
  if (me != root) a2_coll_copy(t, a2_at_peer(win, root, 0), &out, 1, N, piece);
}

enum { X, Y, DATA, READY };

static const a2_coll_shape shape = {
    .algo = "broadcast",
    .golden = A2_GOLDEN_BROADCAST,
    .rooted = true,
    .nrecv = 2,
    .bufs = {[X] = {"x", A2_BUF_TENSOR, .fixed = 1},
             [Y] = {"y", A2_BUF_TENSOR, .fixed = 1},
             [DATA] = {"data", A2_BUF_WINDOW, .fixed = 1},
             [READY] = {"ready", A2_BUF_SIGNAL, .fixed = 1}},
};

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const a2_coll_ctx *c = ctx;
  (void)core;
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  a2_phase_broadcast(&t, me, c->root, c->P, X, DATA, READY, a2_at_local(Y, 0), c->N, c->T);
}

A2_DEFINE_GENERATOR(broadcast, shape, body)

void a2_card_broadcast(const a2_coll_params *p, a2_card *c) {
  /* per rank: N read from the root by every other rank; the root reads none */
  c->remote_read_bytes = p->nranks > 1 ? (double)p->size_bytes : 0;
  c->remote_write_bytes = 0;
  c->barrier_rounds = p->nranks > 1 ? 1 : 0;
}
