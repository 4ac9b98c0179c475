/* The in-memory form of a program: declarations (buffers, tiles),
 * initial data, the golden the result is checked against, and one
 * instruction list per (rank, core). Generators in collectives/ and the
 * trace-file parser both produce this; the model executes it.
 *
 * Units: every offset and length is in bytes; signal cells are int32 and are
 * addressed by byte offset too (cell i is at 4*i). */
#ifndef A2_PROGRAM_H
#define A2_PROGRAM_H

#include <stdint.h>
#include <string.h>

#include "common/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { A2_FP32 = 0, A2_FP16 = 1, A2_INT32 = 2 } a2_dtype;
#define A2_DTYPE_COUNT 3
/* Bytes per element (inline: validation asks for it per instruction). */
static inline uint32_t a2_dtype_size(a2_dtype t) {
  return t == A2_FP16 ? 2u : 4u;
}
/* Its name ("fp32"; "?" when out of range). */
const char *a2_dtype_name(a2_dtype t);

/* Where a buffer lives. TENSOR: private GM of each rank (inputs/outputs);
 * WINDOW: symmetric, zero-initialised, same layout on every rank, rank r's copy
 * in rank r's HBM, reachable by peers; SIGNAL: a window of int32 cells used by
 * notify/wait. */
typedef enum { A2_BUF_TENSOR = 0, A2_BUF_WINDOW = 1, A2_BUF_SIGNAL = 2 } a2_buf_kind;

#define A2_NAME_MAX 48 /* names: at most 47 characters */

typedef struct {
  char name[A2_NAME_MAX];
  a2_buf_kind kind;
  a2_dtype dtype;
  uint64_t bytes;
} a2_buf_decl;

/* Where a tile lives: a vector core's unified buffer, or one of a cube
 * core's buffers (L1; L0A / L0B, the cube's operands; L0C, its fp32
 * accumulator). */
typedef enum { A2_SPACE_UB = 0, A2_SPACE_L1, A2_SPACE_L0A, A2_SPACE_L0B, A2_SPACE_L0C } a2_space;
#define A2_SPACES 5
/* Its name in the program format and messages ("ub", "l1", "l0a", ...). */
const char *a2_space_name(a2_space s);

/* A tile: a region of a core's unified buffer (UB) or, in space L1/L0*, of
 * a cube core's buffers. Every core of every rank has the same tile set
 * (storage for all of them; the capacity check is per space). */
typedef struct {
  char name[A2_NAME_MAX];
  a2_dtype dtype;
  uint64_t bytes;
  uint8_t space; /* a2_space */
} a2_tile_decl;

typedef enum {
  A2_OP_LOAD = 0, /* tile[0:len] <- buf[off:off+len] (local tensor/window) */
  A2_OP_STORE,    /* buf[off:off+len] <- tile[0:len] (local tensor/window) */
  A2_OP_RLOAD,    /* tile[0:len] <- window@peer[off:off+len] */
  A2_OP_RSTORE,   /* window@peer[off:off+len] <- tile (mode PLAIN or ATOMIC_ADD) */
  A2_OP_NOTIFY,   /* signal@peer cell at off: SET or ADD value (drains the core first) */
  A2_OP_WAIT,     /* block until local signal cell at off is EQ / GE value */
  A2_OP_VADD,     /* tile <- tile_a + tile_b over len bytes */
  A2_OP_VMAX,
  A2_OP_VMIN,
  A2_OP_VMUL,
  A2_OP_COMPUTE, /* opaque delay of value cycles on the vector pipe */
  A2_OP_PUT,     /* window@peer[off:off+len] <- (or +=) buf2[off2:off2+len] (DMA engine) */
  A2_OP_GET,     /* buf[off:off+len] <- window@peer[off2:off2+len] (DMA engine) */
  /* cube (AIC) cores only (model/cube.c; docs/program-format.md, "Cube cores"): */
  A2_OP_TLOAD,    /* L1 tile[0:len] <- buf[off:off+len] (local tensor/window; MTE2) */
  A2_OP_TEXTRACT, /* L0A/L0B tile[0:len] <- L1 tile_a[off2:off2+len] (MTE1) */
  A2_OP_TMATMUL,  /* L0C tile (fp32, m x n) = (mode 1: +=) tile_a (L0A, m x k fp16) x
                     tile_b (L0B, k x n fp16), row-major; m = value, k = chunk, n = off */
  A2_OP_TFIXPIPE, /* buf[off:off+len] <- L0C tile, cast fp32 -> the buffer's type (FixPipe);
                     len is bytes at the buffer */
  A2_OP_COUNT_
} a2_opcode;
/* Its name ("remote_load"; "?" when out of range). */
const char *a2_op_name(a2_opcode op);

/* The names of the opcodes and element types, indexed by a2_opcode and
 * a2_dtype: the one table of each, which the program format, the CLI and
 * reports use. */
extern const char *const a2_op_names[A2_OP_COUNT_];
extern const char *const a2_dtype_names[A2_DTYPE_COUNT];

enum {
  A2_MODE_PLAIN = 0,      /* rstore: plain write */
  A2_MODE_ATOMIC_ADD = 1, /* rstore: element-wise atomic add */
  A2_MODE_SET = 0,        /* notify: cell = value */
  A2_MODE_ADD = 1,        /* notify: cell += value */
  A2_MODE_EQ = 0,         /* wait: cell == value */
  A2_MODE_GE = 1,         /* wait: cell >= value */
  /* put/get: a set of flags */
  A2_MODE_PIPELINE = 1,      /* put/get with chunk > 0: two chunks in flight (double buffering) */
  A2_MODE_DMA_ATOMIC_ADD = 2 /* put: element-wise atomic add at the destination (the DMA
                                engine's inline reduce), not a plain write */
};
/* put/get: the rank's DMA queue is the issuing core's index modulo
 * chip.sdma.queues (a2_instr.queue). */
#define A2_QUEUE_ANY 0xffff

typedef struct {
  uint8_t op;      /* a2_opcode */
  uint8_t mode;    /* see A2_MODE_* */
  uint16_t tile;   /* destination tile (load, rload, v*), source tile (store, rstore) */
  uint16_t tile_a; /* v*: first source */
  uint16_t tile_b; /* v*: second source */
  uint16_t buf;    /* buffer index (load, store, rload, rstore, notify, wait) */
  int32_t peer;    /* rload, rstore, notify: target rank */
  int32_t value;   /* notify value, wait expected value, compute cycles */
  uint32_t line;   /* trace-file line or generator step, for reports */
  uint64_t off;    /* byte offset into buf */
  uint64_t len;    /* bytes moved / operated on */
  uint16_t buf2;   /* put: local source buffer; get: remote source window */
  uint16_t queue;  /* put/get: the rank's DMA queue, < chip.sdma.queues, or A2_QUEUE_ANY */
  uint32_t chunk;  /* put/get: bytes per chunk, each a descriptor (0 = one descriptor) */
  uint64_t off2;   /* byte offset into buf2 */
} a2_instr;

typedef struct {
  a2_instr *v;
  uint32_t n, cap;
  /* 1: v[0..cap) is storage lent by the owner of this struct (the model
   * keeps a streamed program's batch in its core): never freed here, and
   * left for a heap copy when the program must grow past cap */
  uint32_t lent;
} a2_instrs;

/* What the result must be, computed independently by the checker
 * (model/check.c) from the initial data. */
/* n = elements of `bytes`; indices below are element indices. */
typedef enum {
  A2_GOLDEN_NONE = 0,           /* no functional check */
  A2_GOLDEN_ALLREDUCE = 1,      /* out[r][i] = op over q of in[q][i]                      (i < n) */
  A2_GOLDEN_BROADCAST = 2,      /* out[r][i] = in[root][i]                                (i < n) */
  A2_GOLDEN_ALLGATHER = 3,      /* out[r][q*n + i] = in[q][i]                             (i < n) */
  A2_GOLDEN_REDUCE_SCATTER = 4, /* out[r][i] = op over q of in[q][r*n + i]                (i < n) */
  A2_GOLDEN_ALLTOALL = 5,       /* out[r][q*n + i] = in[q][r*n + i]                       (i < n) */
  A2_GOLDEN_BCAST_ALLREDUCE_ALLGATHER = 6, /* out[r][q*n + i] = op over s of in[root][i]
                                             (broadcast, then all-reduce, then all-gather) */
  A2_GOLDEN_GEMM = 7,           /* out[r] = in[r] x B (a2_program.gemm: M x K by K x N, fp16,
                                   tile-blocked: model/check.c), within fp16 tolerance */
  A2_GOLDEN_GEMM_ALLREDUCE = 8, /* out[r] = sum over q of in[q] x B, the same layout */
  A2_GOLDEN_ALLGATHER_GEMM = 9, /* out[r] rows q*M .. q*M+M-1 = in[q] x B[r] (all-gather of the
                                   M-row slices of A, then the GEMM), the same layout */
  /* rooted collectives: only the ranks named below are checked */
  A2_GOLDEN_REDUCE = 10, /* out[root][i] = op over q of in[q][i]                        (i < n) */
  A2_GOLDEN_GATHER = 11, /* out[root][q*n + i] = in[q][i]                               (i < n) */
  A2_GOLDEN_SCATTER = 12 /* out[r][i] = in[root][r*n + i]                               (i < n) */
} a2_golden_kind;
/* The gemm kinds: their operands and shape are in a2_program.gemm. */
static inline int a2_golden_is_gemm(int kind) {
  return kind >= A2_GOLDEN_GEMM && kind <= A2_GOLDEN_ALLGATHER_GEMM;
}

/* The kinds with a root rank (a2_golden.root; 0 for the others). */
static inline int a2_golden_has_root(int kind) {
  return kind == A2_GOLDEN_BROADCAST || kind == A2_GOLDEN_BCAST_ALLREDUCE_ALLGATHER ||
         (kind >= A2_GOLDEN_REDUCE && kind <= A2_GOLDEN_SCATTER);
}
/* The kinds with a reduction (a2_golden.op; sum for the others). */
static inline int a2_golden_has_op(int kind) {
  return kind == A2_GOLDEN_ALLREDUCE || kind == A2_GOLDEN_REDUCE_SCATTER ||
         kind == A2_GOLDEN_BCAST_ALLREDUCE_ALLGATHER || kind == A2_GOLDEN_REDUCE;
}

typedef enum { A2_RED_SUM = 0, A2_RED_MAX, A2_RED_MIN, A2_RED_PROD } a2_reduce_op;
#define A2_GOLDEN_KINDS 13
#define A2_REDUCE_OPS 4
/* Names used by the program format, the CLI and reports ("allreduce", "sum"). */
const char *a2_golden_name(a2_golden_kind k);
const char *a2_reduce_name(a2_reduce_op op);

typedef struct {
  a2_golden_kind kind;
  a2_reduce_op op;
  uint16_t in_buf;  /* tensor holding each rank's input */
  uint16_t out_buf; /* tensor that must hold the result */
  uint64_t bytes;   /* n * element size: the per-rank block the formulas above index */
  uint32_t root;    /* broadcast, reduce, gather, scatter: the root rank */
} a2_golden;

/* Initial contents of a tensor: PATTERN fills element i of rank r with
 * a2_pattern_value(seed, r, i); ZERO leaves it zero. */
typedef enum { A2_INIT_ZERO = 0, A2_INIT_PATTERN = 1 } a2_init_kind;

#define A2_MAX_BUFS 32
#define A2_MAX_TILES 64

/* A program source: produces programs on demand instead of holding them
 * (streaming generators, so that memory does not grow with the total
 * instruction count). When a program has one, its progs[] start empty and the
 * simulator refills each (rank, core) program as its core consumes it:
 *   fill(src, rank, core, out) appends the next instructions of that program
 *   to `out` (a bounded batch of whole generator steps), appending nothing
 *   only when the program is finished. Calls for one (rank, core) come in
 *   order; different (rank, core) interleave freely. Instructions are
 *   numbered (instr.line) by their 1-based index within their program, as
 *   materialised programs are.
 *   free(src) releases it (called by a2_program_free). */
typedef struct a2_source a2_source;
struct a2_source {
  a2_code (*fill)(a2_source *src, uint32_t rank, uint32_t core, a2_instrs *out, a2_err *err);
  void (*free)(a2_source *src);
};

typedef struct a2_program {
  uint32_t nranks;
  uint32_t ncores; /* cores used per rank: vector cores, then ncube cube cores */
  uint32_t ncube;  /* of them, the last ncube are cube (AIC) cores */
  uint32_t nbufs, ntiles;
  a2_buf_decl bufs[A2_MAX_BUFS];
  a2_init_kind init[A2_MAX_BUFS];
  uint32_t seed;
  a2_tile_decl tiles[A2_MAX_TILES];
  a2_golden golden;
  a2_instrs *progs;  /* nranks * ncores, index rank * ncores + core */
  a2_source *source; /* NULL: progs hold whole programs; else see a2_source */
  /* Where the program came from, for reports: the built-in collective that
   * generated it (or "" for a hand-written trace) and its parameters, so that
   * a generated program file run again reports exactly like the built-in. */
  char algo[A2_NAME_MAX]; /* "" for a hand-written trace */
  uint64_t size_bytes;    /* N of the collective (bytes per rank) */
  uint32_t root;
  uint32_t op; /* a2_reduce_op */
  a2_dtype dtype;
  /* 1 when instr.line is a line of a program file (reports say "line"), 0 when
   * it is a generator step ("step"). */
  int lines_are_file_lines;
  /* The author's analytic card of a hand-written trace (`card` line). */
  /* 1: a program may hold put/get, so the model builds every rank's DMA
   * engines (docs/timing-model.md, "DMA engines"). A program produced on
   * demand (source) must say so; the model scans whole programs itself. */
  int uses_dma;
  /* 1: a program may hold remote stores, so the model builds every link's
   * store port (docs/timing-model.md, "Store ports"). A program produced on
   * demand must say so; the model scans whole programs itself. */
  int uses_rstore;
  /* gemm goldens: B's buffer (the same on every rank), the shape and the
   * blocking of the tile-blocked layout (model/check.c) */
  struct {
    uint16_t b_buf;
    uint32_t m, k, n, bm, bk, bn;
  } gemm;
  int has_card;
  uint64_t card_read_bytes, card_write_bytes, card_rounds;
} a2_program;

/* A deterministic input value: multiples of 1/64 in [-8, 8), so that sums of
 * up to thousands of fp32 values are exact and any reduction order agrees. */
float a2_pattern_value(uint32_t seed, uint32_t rank, uint64_t index);

/* Allocate programs for nranks x ncores; zero everything else. */
a2_code a2_program_init(a2_program *k, uint32_t nranks, uint32_t ncores, a2_err *err);
void a2_program_free(a2_program *k);

/* Append one instruction to program p (grows it). */
a2_code a2_instrs_push(a2_instrs *p, const a2_instr *in, a2_err *err);
/* Make room for at least one more instruction in p. */
a2_code a2_instrs_grow(a2_instrs *p, a2_err *err);
/* Append one zeroed instruction to p (grows it) and return it, or NULL when
 * out of memory (err set): for writers that fill it in place (inline: the
 * generators call it per instruction). */
static inline a2_instr *a2_instrs_add(a2_instrs *p, a2_err *err) {
  if (p->n == p->cap && a2_instrs_grow(p, err)) return NULL;
  a2_instr *in = &p->v[p->n++];
  memset(in, 0, sizeof *in); /* padding too: programs compare with memcmp */
  return in;
}

/* "line" or "step": what instr.line counts in k (for reports). */
static inline const char *a2_line_word(const a2_program *k) {
  return k->lines_are_file_lines ? "line" : "step";
}

static inline a2_instrs *a2_program_instrs(a2_program *k, uint32_t rank, uint32_t core) {
  return &k->progs[rank * k->ncores + core];
}

#ifdef __cplusplus
}
#endif
#endif
