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

a2_code a2_gen_allreduce_mesh_cores(const a2_coll_params *p, a2_kernel *k, a2_err *err) {
  uint32_t P = p->nranks, C = p->cores;
  uint64_t N = p->size_bytes, TB = (uint64_t)MESH_TILE_ELEMS * a2_dtype_size(p->dtype);
  uint64_t ntiles = (N + TB - 1) / TB;
  uint32_t nrecv = P > 1 ? A2_COLL_MAX_ACC * (P - 1) : 1;
  if (nrecv > A2_COLL_MAX_RECV) nrecv = A2_COLL_MAX_RECV;
  a2_tb tb;
  if (a2_tb_begin(&tb, k, P, C, err)) return tb.rc;
  a2_coll_describe(k, "allreduce_mesh", p, 0);
  a2_dtype dt = p->dtype;
  uint16_t x = a2_tb_buf(&tb, "x", A2_BUF_TENSOR, dt, N, A2_INIT_PATTERN);
  uint16_t y = a2_tb_buf(&tb, "y", A2_BUF_TENSOR, dt, N, A2_INIT_ZERO);
  uint16_t data = a2_tb_buf(&tb, "data", A2_BUF_WINDOW, dt, N, A2_INIT_ZERO);
  uint16_t sig = a2_tb_buf(&tb, "signal", A2_BUF_SIGNAL, A2_INT32, 4ull * P * C, A2_INIT_ZERO);
  a2_tiles t;
  a2_tiles_declare(&t, &tb, dt, a2_min64(N, TB), A2_COLL_MAX_ACC, nrecv);
  k->golden = (a2_golden){A2_GOLDEN_ALLREDUCE, p->op, x, y, N, 0};
  a2_opcode vop = a2_reduce_opcode(p->op);
  for (uint32_t me = 0; me < P; me++)
    for (uint32_t c = 0; c < C && c < ntiles; c++) {
      a2_tb_at(&tb, me, c);
      t.turn = t.acc_turn = 0;
      for (uint64_t i = c; i < ntiles; i += C) { /* stage-in of this core's tiles */
        a2_at staged = a2_at_local(data, i * TB);
        a2_coll_copy(&t, a2_at_local(x, i * TB), &staged, 1, a2_min64(N - i * TB, TB), TB);
      }
      a2_coll_barrier_at(&tb, me, P, sig, c, C); /* lane c: cells q*C + c */
      t.turn = 0;
      for (uint64_t i = c; i < ntiles; i += C) { /* accumulate and stage out, tile by tile */
        a2_at out = a2_at_local(y, i * TB);
        a2_coll_reduce(&t, vop, a2_at_local(data, i * TB), data, i * TB, me, P, 0, &out, 1,
                       a2_min64(N - i * TB, TB), TB);
        t.turn += P - 1; /* the next tile's reads go to the next receive tiles */
      }
    }
  return tb.rc;
}
