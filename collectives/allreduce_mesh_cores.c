/* Ladder step 11: the built-in multi-core mesh all-reduce
 * (pld.tensor.allreduce(mode=mesh, core_num=C), REFERENCE.md). The payload
 * is cut into tiles of 256 elements, tile t belonging to core t % C
 * (block-cyclic). Core c of every rank runs the seed's mesh on its own tiles
 * only, with its own barrier lane of the signal [P, C] (cell q*C + c = "core
 * c of rank q has staged its tiles"), so the cores never wait for each
 * other. A core without a tile (N smaller than C tiles) has an empty
 * program.
 *
 * Tiles are not contiguous in GM, so every tile is its own transfer. To
 * keep the links busy with such small transfers a core works on up to
 * A2_COLL_MAX_ACC tiles at once: one accumulator each, and a rotation of
 * (P-1) receive tiles per accumulator (at most A2_COLL_MAX_RECV), so that
 * the peer reads of the next tiles are in flight while a tile is summed.
 * (With fewer accumulators, loading the accumulator of tile i+nacc waits
 * for the store of tile i, which caps the reads in flight.) */
#include "collectives/allreduce.h"

#define MESH_TILE_ELEMS 256

a2_code a2_mesh_cores_declare(a2_tb *tb, const a2_coll_params *p, a2_kernel *k, a2_mesh_ctx *c,
                              a2_err *err) {
  uint32_t P = p->nranks, C = p->cores;
  uint64_t N = p->size_bytes, TB = (uint64_t)MESH_TILE_ELEMS * a2_dtype_size(p->dtype);
  uint32_t nrecv = P > 1 ? A2_COLL_MAX_ACC * (P - 1) : 1;
  if (nrecv > A2_COLL_MAX_RECV) nrecv = A2_COLL_MAX_RECV;
  *c = (a2_mesh_ctx){
      .P = P, .C = C, .N = N, .T = TB, .ntiles = (N + TB - 1) / TB, .vop = a2_reduce_opcode(p->op)};
  if (a2_tb_begin(tb, k, P, C, err)) return tb->rc;
  a2_coll_describe(k, "allreduce_mesh", p, 0);
  a2_dtype dt = p->dtype;
  c->x = a2_tb_buf(tb, "x", A2_BUF_TENSOR, dt, N, A2_INIT_PATTERN);
  c->y = a2_tb_buf(tb, "y", A2_BUF_TENSOR, dt, N, A2_INIT_ZERO);
  c->data = a2_tb_buf(tb, "data", A2_BUF_WINDOW, dt, N, A2_INIT_ZERO);
  c->sig = a2_tb_buf(tb, "signal", A2_BUF_SIGNAL, A2_INT32, 4ull * P * C, A2_INIT_ZERO);
  a2_tiles_declare(&c->tiles, tb, dt, a2_min64(N, TB), A2_COLL_MAX_ACC, nrecv);
  k->golden = (a2_golden){A2_GOLDEN_ALLREDUCE, p->op, c->x, c->y, N, 0};
  return tb->rc;
}

void a2_mesh_cores_body(a2_tb *tb, const a2_mesh_ctx *c, uint32_t me, uint32_t core) {
  if (core >= c->ntiles) return; /* no tile: an empty program */
  uint32_t P = c->P;
  uint64_t N = c->N, TB = c->T;
  uint64_t mine = (c->ntiles - core + c->C - 1) / c->C; /* tiles core, core+C, ... */
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  A2_STEPS(tb, s, mine) { /* stage-in of this core's tiles, one step each */
    uint64_t off = (core + s * c->C) * TB;
    a2_at staged = a2_at_local(c->data, off);
    a2_coll_copy_piece(&t, s, a2_at_local(c->x, off), &staged, 1, 0, a2_min64(N - off, TB));
  }
  a2_coll_barrier_at(tb, me, P, c->sig, core, c->C); /* lane core: cells q*C + core */
  /* accumulate and stage out, tile by tile: tile i uses accumulator i and
   * the next P-1 receive tiles, so the next tiles' reads are in flight */
  a2_at out = a2_at_local(c->y, 0);
  a2_reduction r = {c->vop, a2_at_local(c->data, 0), c->data, 0, me, P, 0, &out, 1};
  uint64_t per = a2_reduce_steps(P);
  A2_STEPS(tb, s, mine * per) {
    uint64_t i = s / per, off = (core + i * c->C) * TB;
    a2_coll_reduce_step(&t, &r, a2_acc_tile(&t, i), i * (P - 1), off, a2_min64(N - off, TB),
                        s % per);
  }
}
