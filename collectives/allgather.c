/* All-gather. N = bytes of each rank's input; the output y holds P*N
 * (block q = rank q's input). Each rank stages its slice into its window
 * `data` (and its own block of y), joins one barrier (signal [P], as the
 * mesh all-reduce's), then reads every peer's slice into y[q*N], starting
 * with its right neighbour so that the P-1 reads of the ranks spread over
 * all sources.
 *
 * With --cores C > 1 (HCCL's AIV all-gather runs on several vector cores a
 * rank): every block is cut into C slices of whole elements
 * (a2_core_slice), core c moving slice c of every block. Core c of every
 * rank runs the all-gather above on its slices only, with its own barrier
 * lane of the signal [P, C] (cell q*C + c), so the cores never wait for
 * each other; a core without a slice has an empty program. The rank's
 * cores together read (P-1)*N, as one core does. */
#include "collectives/generators.h"

void a2_phase_gather(a2_tiles *t, uint32_t me, uint32_t P, uint16_t win, uint16_t out, uint64_t N,
                     a2_slice part, uint64_t piece) {
  uint64_t np = a2_pieces(part.len, piece), turn = t->turn;
  t->turn += (uint64_t)(P - 1) * np;
  A2_STEPS(t->tb, s, (uint64_t)(P - 1) * np) { /* one step per piece of each peer's block */
    uint32_t q = (uint32_t)((me + 1 + s / np) % P);
    uint64_t off = part.off + s % np * piece, end = part.off + part.len;
    a2_at dst = a2_at_local(out, (uint64_t)q * N);
    a2_coll_copy_piece(t, turn + s, a2_at_peer(win, q, 0), &dst, 1, off,
                       a2_min64(end - off, piece));
  }
}

enum { X, Y, DATA, SIG };

static const a2_coll_shape shape = {
    .algo = "allgather",
    .golden = A2_GOLDEN_ALLGATHER,
    .multi_core = true,
    .nrecv = 2,
    .bufs = {[X] = {"x", A2_BUF_TENSOR, .fixed = 1},
             [Y] = {"y", A2_BUF_TENSOR, .per_rank = 1},
             [DATA] = {"data", A2_BUF_WINDOW, .fixed = 1},
             [SIG] = {"signal", A2_BUF_SIGNAL, .per_rank = 1}},
};

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const a2_coll_ctx *c = ctx;
  a2_slice part = a2_core_slice(c, c->N, core);
  if (part.len == 0) return; /* no slice: an empty program */
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  a2_at staged[2] = {a2_at_local(DATA, part.off), a2_at_local(Y, (uint64_t)me * c->N + part.off)};
  a2_coll_copy(&t, a2_at_local(X, part.off), staged, 2, part.len, c->T);
  a2_coll_barrier_at(tb, me, c->P, SIG, core, c->C); /* lane core: cells q*C + core */
  a2_phase_gather(&t, me, c->P, DATA, Y, c->N, part, c->T);
}

A2_DEFINE_GENERATOR(allgather, shape, body)

void a2_card_allgather(const a2_coll_params *p, a2_card *c) {
  c->remote_read_bytes = (double)(p->nranks - 1) * (double)p->size_bytes;
  c->remote_write_bytes = 0;
  c->barrier_rounds = p->nranks > 1 ? 1 : 0;
}
