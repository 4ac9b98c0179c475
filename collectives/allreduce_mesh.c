/* All-reduce, mesh, as PyPTO's tutorial page "08 mesh all-reduce" writes
 * it. Every rank stages its slice into its window `data`, joins one barrier
 * (signal [P]: rank q adds 1 into cell q of every peer, then waits for every
 * peer's cell), then reads every peer's whole slice and adds it, peers in
 * rank order so that every rank sums in the same order. Slices larger than
 * a tile are processed in chunks of a2_coll_chunk_bytes; peer reads
 * alternate between two receive tiles so that two are in flight.
 *
 * With --cores C > 1, the built-in multi-core mesh of PyPTO
 * (pld.tensor.allreduce(mode=mesh, core_num=C)): the payload is cut into
 * tiles of 256 elements, tile t belonging to core t % C (block-cyclic).
 * Core c of every rank runs the mesh above on its own tiles only, with its
 * own barrier lane of the signal [P, C] (cell q*C + c = "core c of rank q
 * has staged its tiles"), so the cores never wait for each other. A core
 * without a tile (N smaller than C tiles) has an empty program. Tiles are
 * not contiguous in GM, so every tile is its own transfer. To keep the
 * links busy with such small transfers a core works on up to
 * A2_COLL_MAX_ACC tiles at once: one accumulator each, and a rotation of
 * (P-1) receive tiles per accumulator (at most A2_COLL_MAX_RECV), so that
 * the peer reads of the next tiles are in flight while a tile is summed.
 * (With fewer accumulators, loading the accumulator of tile i+nacc waits
 * for the store of tile i, which caps the reads in flight.) */
#include "collectives/generators.h"

#define MESH_TILE_ELEMS 256

enum { X, Y, DATA, SIG };

/* One core: tiles of a chunk, one accumulator and two receive tiles. C > 1:
 * T is the 256-element tile and np the tiles in N. */
static void declare_tiles(a2_tb *tb, const a2_coll_params *p, a2_coll_ctx *c) {
  if (c->C == 1) {
    a2_tiles_declare(&c->tiles, tb, p->dtype, c->T, 1, 2);
    return;
  }
  uint32_t nrecv = c->P > 1 ? A2_COLL_MAX_ACC * (c->P - 1) : 1;
  if (nrecv > A2_COLL_MAX_RECV) nrecv = A2_COLL_MAX_RECV;
  c->T = (uint64_t)MESH_TILE_ELEMS * a2_dtype_size(p->dtype);
  c->np = a2_pieces(c->N, c->T); /* the last tile may be shorter */
  a2_tiles_declare(&c->tiles, tb, p->dtype, a2_min64(c->N, c->T), A2_COLL_MAX_ACC, nrecv);
}

static const a2_coll_shape shape = {
    .algo = "allreduce_mesh",
    .golden = A2_GOLDEN_ALLREDUCE,
    .multi_core = true,
    .more = declare_tiles,
    .bufs = {[X] = {"x", A2_BUF_TENSOR, .fixed = 1},
             [Y] = {"y", A2_BUF_TENSOR, .fixed = 1},
             [DATA] = {"data", A2_BUF_WINDOW, .fixed = 1},
             [SIG] = {"signal", A2_BUF_SIGNAL, .per_rank = 1}},
};

/* C > 1: core `core`'s tiles core, core+C, ... */
static void cores_body(a2_tb *tb, const a2_coll_ctx *c, uint32_t me, uint32_t core) {
  if (core >= c->np) return; /* no tile: an empty program */
  uint32_t P = c->P;
  uint64_t N = c->N, TB = c->T;
  uint64_t mine = (c->np - core + c->C - 1) / c->C; /* tiles core, core+C, ... */
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  A2_STEPS(tb, s, mine) { /* stage-in of this core's tiles, one step each */
    uint64_t off = (core + s * c->C) * TB;
    a2_at staged = a2_at_local(DATA, off);
    a2_coll_copy_piece(&t, s, a2_at_local(X, off), &staged, 1, 0, a2_min64(N - off, TB));
  }
  a2_coll_barrier_at(tb, me, P, SIG, core, c->C); /* lane core: cells q*C + core */
  /* accumulate and stage out, tile by tile: tile i uses accumulator i and
   * the next P-1 receive tiles, so the next tiles' reads are in flight */
  a2_at out = a2_at_local(Y, 0);
  a2_reduction r = {c->vop, a2_at_local(DATA, 0), DATA, 0, me, P, 0, &out, 1};
  uint64_t per = a2_reduce_steps(P);
  A2_STEPS(tb, s, mine * per) {
    uint64_t i = s / per, off = (core + i * c->C) * TB;
    a2_coll_reduce_step(&t, &r, a2_acc_tile(&t, i), i * (P - 1), off, a2_min64(N - off, TB),
                        s % per);
  }
}

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const a2_coll_ctx *c = ctx;
  if (c->C > 1) {
    cores_body(tb, c, me, core);
    return;
  }
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  a2_at out = a2_at_local(Y, 0), staged = a2_at_local(DATA, 0);
  a2_coll_copy(&t, a2_at_local(X, 0), &staged, 1, c->N, c->T); /* stage-in */
  a2_coll_barrier(tb, me, c->P, SIG, 0);
  t.turn = 0; /* accumulate every peer's chunk, then stage out */
  a2_reduction r = {c->vop, staged, DATA, 0, me, c->P, 0, &out, 1};
  a2_coll_reduce(&t, &r, c->N, c->T);
}

A2_DEFINE_GENERATOR(allreduce_mesh, shape, body)

void a2_card_allreduce_mesh(const a2_coll_params *p, a2_card *c) {
  c->remote_read_bytes = (double)(p->nranks - 1) * (double)p->size_bytes;
  c->remote_write_bytes = 0;
  c->barrier_rounds = p->nranks > 1 ? 1 : 0;
}
