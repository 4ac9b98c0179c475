/* The GEMM tiling the GEMM built-ins share (gemm, gemm_allreduce,
 * allgather_gemm; internal to collectives/), pto-isa's gemm_ar design:
 * tiles of baseM x baseN = 128 x 256 of C, K in slices of baseK = 64,
 * stepK = 4 slices per L1 panel, L1 panels and L0 slices ping/pong, one fp32
 * accumulator in L0C; a cube core computes a contiguous range of the tiles
 * in zigzag order (rows of tiles, odd rows reversed). Matrices are
 * tile-blocked (docs/program-format.md, "Cube cores"): A in blocks of
 * 128 x 64, B in blocks of 64 x 256 (a block column contiguous), C in blocks
 * of 128 x 256, so that every panel is one contiguous load. */
#ifndef A2_GEMM_TILING_H
#define A2_GEMM_TILING_H

#include "collectives/common.h"

#define A2_GEMM_BM 128u
#define A2_GEMM_BK 64u
#define A2_GEMM_BN 256u
#define A2_GEMM_STEPK 4u
/* The shape when --k / --n are not given (and --m: --size rows). */
#define A2_GEMM_DEFAULT_K 256u
#define A2_GEMM_DEFAULT_N 512u
/* Bounds of --m, --k, --n (elements): a policy that keeps the operands'
 * offsets and the golden check's scratch within reach. */
#define A2_GEMM_MAX_DIM 65536u

/* M x K x N in elements and the tile counts: mt x nt tiles of C, kt K
 * slices, kp L1 panels. */
typedef struct {
  uint32_t m, k, n;
  uint32_t mt, nt, kt, kp;
} a2_gemm_shape;

/* The shape p asks for: M = p->m, or p->size_bytes when p->m is 0 (--size
 * is M), K = p->k or 256, N = p->n or 512. */
a2_gemm_shape a2_gemm_shape_of(const a2_coll_params *p);
/* The cube cores (p->compute_cores, else p->cores) and vector cores
 * (p->comm_cores, else p->cores) p asks for. */
uint32_t a2_gemm_compute_cores(const a2_coll_params *p);
uint32_t a2_gemm_comm_cores(const a2_coll_params *p);

/* The checks of the GEMM built-ins, naming the flag: the shape (M a
 * multiple of 128, K of 256, N of 256, each at most A2_GEMM_MAX_DIM; not
 * padded: the message gives the padded value), the cube cores (1 ..
 * chip.cube_cores), the vector cores when comm (1 .. chip.vector_cores;
 * when !comm, --comm-cores is refused), --op sum and fp16. */
a2_code a2_gemm_check(const a2_coll_params *p, const char *algo, int comm, a2_err *err);

/* The L1, L0 and L0C tiles of one cube core. */
typedef struct {
  uint16_t a1[2], b1[2], a0[2], b0[2], acc;
} a2_gemm_tiles;
void a2_gemm_declare_tiles(a2_tb *tb, a2_gemm_tiles *t);
/* The shape of the gemm goldens (k->gemm) with B in buffer b_buf. */
void a2_gemm_golden_shape(a2_program *k, const a2_gemm_shape *s, uint16_t b_buf, uint32_t m_rows);

/* The contiguous range of tiles of cube core b of C (0 .. ntiles - 1 in
 * linear order): ntiles / C each, one more for the first ntiles % C. */
void a2_gemm_range(uint64_t ntiles, uint32_t C, uint32_t b, uint64_t *first, uint64_t *count);
/* Linear index -> the tile (row, col) of a grid of nt columns, zigzag: odd
 * rows reversed. */
void a2_gemm_zigzag(uint64_t li, uint32_t nt, uint64_t *row, uint64_t *col);

/* Steps of one tile: per panel one load step then stepK matmul steps, then
 * the store step. */
static inline uint64_t a2_gemm_tile_steps(const a2_gemm_shape *s) {
  return (uint64_t)s->kp * (A2_GEMM_STEPK + 1) + 1;
}
/* Where a tile reads and writes: A's row block at abuf[a_off] (bytes; its
 * panels follow one another), B's column block col of buffer bbuf, C's tile
 * at cbuf[c_off]. j: the tile's position on its core (ping/pong parity). */
typedef struct {
  uint16_t abuf, bbuf, cbuf;
  uint64_t a_off, col, c_off, j;
} a2_gemm_tile_at;
/* Emit step u (< a2_gemm_tile_steps) of a tile: u % 5 == 0 below the last:
 * tload the A and B panels u / 5 into L1 ping or pong; else textract the
 * slice into L0 ping or pong and tmatmul (accumulating after the tile's
 * first); the last step tstore_fixpipe the accumulator. Returns 1 for the
 * store step. */
int a2_gemm_tile_step(a2_tb *tb, const a2_gemm_shape *s, const a2_gemm_tiles *t,
                      const a2_gemm_tile_at *at, uint64_t u);

/* Bytes of C per rank (fp16): rows x N x 2. */
static inline uint64_t a2_gemm_c_bytes(const a2_gemm_shape *s, uint64_t rows) {
  return rows * s->n * 2;
}

#endif
