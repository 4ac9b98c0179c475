/* The phases the generators share (internal to collectives/): chunked
 * copies and reductions through a rotating set of UB tiles, barriers, and
 * the parameter checks. A generator is a sequence of these calls per rank;
 * the instruction order each one emits is documented here because timing
 * depends on it (docs/collectives.md). */
#ifndef A2_COLL_COMMON_H
#define A2_COLL_COMMON_H

#include <stdbool.h>

#include "collectives/collective.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The vector opcode of a reduction. */
a2_opcode a2_reduce_opcode(a2_reduce_op op);

/* A place in a buffer: `buf` at byte `off`. As a source, peer >= 0 reads
 * that rank's copy of a window (remote_load; local when peer is the rank
 * itself) and A2_LOCAL a local buffer (load). Destinations are always local. */
#define A2_LOCAL (-1)
typedef struct {
  uint16_t buf;
  int32_t peer;
  uint64_t off;
} a2_at;

static inline a2_at a2_at_peer(uint16_t buf, uint32_t peer, uint64_t off) {
  a2_at at = {buf, (int32_t)peer, off};
  return at;
}
static inline a2_at a2_at_local(uint16_t buf, uint64_t off) {
  a2_at at = {buf, A2_LOCAL, off};
  return at;
}

#define A2_COLL_MAX_RECV 32
#define A2_COLL_MAX_ACC 4

/* The UB tiles a generator moves data through, declared once (shared by
 * every body): nacc accumulators used in turn (one per reduced piece) and
 * nrecv receive tiles, all of `bytes`. */
typedef struct {
  uint16_t acc[A2_COLL_MAX_ACC], recv[A2_COLL_MAX_RECV];
  uint32_t nacc, nrecv;
  uint64_t bytes;
} a2_tileset;

/* Declare the tiles, all of `bytes`: "acc" (or "acc0", "acc1", ... when
 * nacc > 1), then "recv0".."recv<nrecv-1>". nacc is 0 (copies only) to
 * A2_COLL_MAX_ACC; nrecv is 1..A2_COLL_MAX_RECV. */
void a2_tiles_declare(a2_tileset *set, a2_tb *tb, a2_dtype dt, uint64_t bytes, uint32_t nacc,
                      uint32_t nrecv);

/* A body's cursor over the tile set. `turn` is the receive tile of the next
 * copied piece (recv[turn % nrecv]); copies advance it, reductions start
 * every piece's reads at it and leave it alone. `acc_turn` picks the
 * accumulator of the next reduced piece. Phases advance both by what the
 * whole phase uses whether its steps run in this walk or not, so a resumed
 * walk sees the same tiles as a walk from the start. */
typedef struct {
  a2_tb *tb;
  const a2_tileset *set;
  uint64_t turn, acc_turn;
} a2_tiles;

static inline a2_tiles a2_tiles_on(a2_tb *tb, const a2_tileset *set) {
  a2_tiles t = {tb, set, 0, 0};
  return t;
}
static inline uint16_t a2_recv_tile(const a2_tiles *t, uint64_t turn) {
  return t->set->recv[turn % t->set->nrecv];
}
static inline uint16_t a2_acc_tile(const a2_tiles *t, uint64_t turn) {
  return t->set->acc[turn % t->set->nacc];
}

/* A phase (builder.h): copy len bytes from src to each of dst[0..ndst) in
 * pieces of `piece` bytes, one step per piece: load (or remote_load) into
 * the next receive tile, then store it to every destination in order. */
void a2_coll_copy(a2_tiles *t, a2_at src, const a2_at *dst, uint32_t ndst, uint64_t len,
                  uint64_t piece);
/* One piece of a copy, for phases of several copies: bytes [off, off+n) of
 * src through receive tile `turn` to the same bytes of every dst. */
void a2_coll_copy_piece(a2_tiles *t, uint64_t turn, a2_at src, const a2_at *dst, uint32_t ndst,
                        uint64_t off, uint64_t n);

/* A reduction over all P ranks. Per piece at offset o: load an accumulator
 * from own.off + o (a local buffer); for every peer != me, in the order
 * first, first+1, ... (mod P), remote_load win@peer[win_off + o] into
 * receive tile turn, turn+1, ... and combine it into the accumulator with
 * vop; then store the accumulator to every dst (at dst.off + o). */
typedef struct {
  a2_opcode vop;
  a2_at own;
  uint16_t win;
  uint64_t win_off;
  uint32_t me, P, first;
  const a2_at *dst;
  uint32_t ndst;
} a2_reduction;

/* Steps of one reduced piece: load, P-1 peers, store. */
static inline uint64_t a2_reduce_steps(uint32_t P) {
  return (uint64_t)P + 1;
}
/* Step k (< a2_reduce_steps) of the piece [off, off+n) with accumulator acc
 * and the peers' reads starting at receive tile `turn`. */
void a2_coll_reduce_step(a2_tiles *t, const a2_reduction *r, uint16_t acc, uint64_t turn,
                         uint64_t off, uint64_t n, uint64_t k);
/* A phase: reduce len bytes in pieces of `piece` bytes, a2_reduce_steps(P)
 * steps per piece, accumulators in turn from acc_turn, reads from turn. */
void a2_coll_reduce(a2_tiles *t, const a2_reduction *r, uint64_t len, uint64_t piece);

/* Synchronisation phases (one step per notify or wait). */

/* All-to-all barrier on the cells base + q*stride of signal `sig`: notify
 * every peer (atomic add 1 into its cell base + me*stride), then wait until
 * every peer's cell here is >= 1. a2_coll_barrier (collective.h) is the row
 * layout: base row*P, stride 1. */
void a2_coll_barrier_at(a2_tb *tb, uint32_t me, uint32_t P, uint16_t sig, uint64_t base,
                        uint64_t stride);

/* One-to-all signal: `root` notifies (set 1) cell `cell` of every other
 * rank; every other rank waits for it. Root waits for nobody. */
void a2_coll_signal_from(a2_tb *tb, uint32_t me, uint32_t root, uint32_t P, uint16_t sig,
                         uint64_t cell);

/* PyPTO's built-in barrier: a self-clearing credit counter in cell gen % 2
 * of `sig` (a signal of at least 2 cells). Notify every peer
 * (add 1 to its counter), wait for counter >= P-1, then take the P-1 credits
 * back (notify self, add -(P-1)) and wait until the counter is 0 again. The
 * counter is back at 0 when a rank leaves, so the barrier can be run again
 * on the same signal; consecutive barriers must alternate gen (0, 1, 0, ...)
 * so that a fast rank's next credit never lands on the counter being
 * cleared (the wait for 0 would then never be satisfied). */
void a2_coll_credit_barrier(a2_tb *tb, uint32_t me, uint32_t P, uint16_t sig, uint32_t gen);

/* Parameter rules shared by the checks; each names the flag it refuses. */
a2_code a2_coll_check_single_core(const a2_coll_params *p, a2_err *err); /* --cores 1 */
a2_code a2_coll_check_cores(const a2_coll_params *p, a2_err *err);       /* 1..chip.vector_cores */
a2_code a2_coll_check_root(const a2_coll_params *p, a2_err *err);        /* root < P */
a2_code a2_coll_check_elems(const a2_coll_params *p, a2_err *err);       /* whole elements */

/* The m-th (0-based) of the P-1 peers of `me` in the order first, first+1,
 * ... (mod P), me skipped. */
static inline uint32_t a2_nth_peer(uint32_t me, uint32_t P, uint32_t first, uint64_t m) {
  uint64_t d = (me + (uint64_t)P - first) % P; /* me's place in that order */
  return (uint32_t)((first + m + (m >= d)) % P);
}

static inline uint64_t a2_min64(uint64_t a, uint64_t b) {
  return a < b ? a : b;
}

/* ---- A collective's program: its shape, its context, its definition ---- */

/* One buffer of a shape. Its size is per_rank * P + fixed units: blocks of
 * N bytes for tensors and windows, int32 cells for signals (a program of C
 * vector cores per rank has that many cells per core). */
typedef struct {
  const char *name;
  a2_buf_kind kind; /* A2_BUF_TENSOR, A2_BUF_WINDOW or A2_BUF_SIGNAL */
  int32_t per_rank, fixed;
} a2_coll_buf;

#define A2_COLL_MAX_SHAPE_BUFS 8

/* The context every generator's body reads (a2_gen_def's ctx), filled by
 * a2_coll_declare. Buffer ids are not in it: buffer i of the shape has id i
 * (the generator names them with an enum in the shape's order). */
typedef struct {
  uint32_t P, C; /* ranks; vector cores per rank */
  uint32_t root; /* the root rank; 0 for collectives without one */
  uint64_t N;    /* --size, bytes (what it counts: docs/collectives.md) */
  uint64_t B;    /* N / P: the chunk of the two-phase and ring all-reduces */
  uint64_t T;    /* the piece data moves in, bytes */
  uint64_t np;   /* pieces of T in N (a2_coll_set_piece: in the length given) */
  uint32_t E;    /* bytes of an element (--dtype) */
  a2_opcode vop; /* the vector op of a reduction (--op) */
  uint32_t Q;    /* the rank's DMA queues (a2_coll_params.dma_queues; 0: unknown) */
  a2_tileset tiles;
} a2_coll_ctx;

/* The DMA queue of a rank's m-th concurrent stream of put/get (one per peer
 * when there are enough queues): m modulo Q, or A2_QUEUE_ANY when Q is 0. */
static inline uint16_t a2_coll_queue(const a2_coll_ctx *c, uint64_t m) {
  return c->Q ? (uint16_t)(m % c->Q) : (uint16_t)A2_QUEUE_ANY;
}

/* The slice of a `bytes`-long block that vector core `core` of the C moves
 * in the multi-core forms (allgather, reduce_scatter, all_to_all with
 * --cores C: of a block of N; allreduce_two_phase: of a chunk of B):
 * ceil(elements / C) whole elements, core c's from element
 * c * ceil(elements / C), the last core's shorter; len 0 for a core past the
 * end (it has no work). C = 1: [0, bytes). */
typedef struct {
  uint64_t off, len;
} a2_slice;
static inline a2_slice a2_core_slice(const a2_coll_ctx *c, uint64_t bytes, uint32_t core) {
  uint64_t E = c->E ? c->E : 1, per = (bytes / E + c->C - 1) / c->C * E, off = core * per;
  a2_slice s = {off, off < bytes ? a2_min64(per, bytes - off) : 0};
  return s;
}

/* What a collective's program declares (a2_coll_declare), in this order: a
 * program of P ranks of C vector cores (C = --cores when multi_core and
 * --cores > 1, else 1); its report metadata (algo, N, root, op, dtype,
 * seed); the buffers of `bufs` up to the first without a name; the tile
 * set; the golden. Buffer 0, when a tensor, is the input and holds the
 * initial pattern; every other buffer starts zeroed. The golden compares
 * buffer 1 (the output) with what buffer 0 of the ranks implies. */
typedef struct {
  const char *algo;      /* the built-in's name: the registry row's */
  a2_golden_kind golden; /* A2_GOLDEN_NONE: no data to check */
  bool rooted;           /* --root is the root (report, golden, ctx); else 0 */
  bool multi_core;
  bool dma;             /* the bodies emit put/get: the model builds the DMA engines (uses_dma) */
  uint32_t nacc, nrecv; /* the tile set, of T bytes; nrecv 0: the generator declares its own */
  /* The generator's own declarations after the shape's (a tile set of its
   * own size, another piece); NULL when there are none. */
  void (*more)(a2_tb *tb, const a2_coll_params *p, a2_coll_ctx *c);
  a2_coll_buf bufs[A2_COLL_MAX_SHAPE_BUFS];
} a2_coll_shape;

/* Declare the program of `shape` for p into k and fill c: P, C, root, N, B,
 * vop; T = min(N, a2_coll_chunk_bytes(UB)) and np its pieces in N; the tile
 * set when shape->nrecv > 0. Returns tb->rc (the builder latches the first
 * error). */
a2_code a2_coll_declare(a2_tb *tb, const a2_coll_params *p, a2_program *k,
                        const a2_coll_shape *shape, a2_coll_ctx *c, a2_err *err);

/* Set the piece: T = min(len, piece) and np = pieces of T in len (0 when
 * T is 0). */
void a2_coll_set_piece(a2_coll_ctx *c, uint64_t len, uint64_t piece);

/* A collective's generator (a2_gen_def a2_def_NAME), materialising
 * generator (a2_gen_NAME) and card, by registry name. */
#define A2_DECLARE_COLLECTIVE(name)                                           \
  extern const a2_gen_def a2_def_##name;                                      \
  a2_code a2_gen_##name(const a2_coll_params *p, a2_program *k, a2_err *err); \
  void a2_card_##name(const a2_coll_params *p, a2_card *c)

/* In the collective's file: its definition from its shape (declared with
 * a2_coll_declare) and its body, and the materialising a2_gen_NAME. */
#define A2_DEFINE_GENERATOR(name, shape, body)                                                   \
  static a2_code a2_declare_##name(a2_tb *tb, const a2_coll_params *p, a2_program *k, void *ctx, \
                                   a2_err *err) {                                                \
    return a2_coll_declare(tb, p, k, &(shape), ctx, err);                                        \
  }                                                                                              \
  const a2_gen_def a2_def_##name = {sizeof(a2_coll_ctx), a2_declare_##name, body};               \
  a2_code a2_gen_##name(const a2_coll_params *p, a2_program *k, a2_err *err) {                   \
    return a2_gen_run(&a2_def_##name, p, k, 0, err);                                             \
  }

#ifdef __cplusplus
}
#endif
#endif
