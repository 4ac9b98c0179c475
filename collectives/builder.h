/* The trace-building API every collective generator uses: declare buffers
 * and tiles, pick a (rank, core) program, append instructions. The first
 * error is latched in tb->rc and later calls do nothing, so generators check
 * once at the end. Each instruction's `line` is its 1-based index within its
 * own (rank, core) program.
 *
 * Phases (streaming generators, docs/architecture.md). A generator's
 * per-(rank, core) body is a sequence of phases, each a loop over steps:
 *
 *   A2_STEPS(tb, s, count) { ...the instructions of step s... }
 *
 * which is `for (uint64_t s = a2_tb_phase(tb, count); a2_tb_more(tb, s);
 * s++)`. A body is walked by a2_tb_walk/a2_tb_walked: the walk skips the
 * phases an earlier walk finished, starts the current one at its resume
 * step, and, once `limit` instructions have been appended, stops before the
 * next step and records (phase, step) as the resume point. So a body can be
 * run to its end in one walk (materialised programs) or in bounded batches
 * (a program source, collectives/stream.c), and both give the same
 * instructions. The rules a body follows:
 *   - every instruction is emitted inside a step (the builder refuses any
 *     other: A2_E_INTERNAL);
 *   - phases are not nested, and which phases a body has, their counts and
 *     what step s emits depend only on the generator's shared context, the
 *     (rank, core) and s - never on what an earlier walk did; anything
 *     carried across steps (the tile rotation) is recomputed from them;
 *   - a loop over peers is one phase of a step per (peer, piece), not a
 *     phase per peer: every walk passes every phase of the body, so
 *     per-peer phases cost a batch time in the number of peers. */
#ifndef A2_BUILDER_H
#define A2_BUILDER_H

#include "traces/program.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Instructions one materialised program may have, all its instruction lists
 * together (a policy: they are held in memory, 56 bytes an instruction).
 * Programs produced on demand (a program source) have no such limit. */
#define A2_TB_MAX_INSTRS (1u << 25)
/* The refusal of a program over A2_TB_MAX_INSTRS (names --size). */
a2_code a2_tb_too_many(a2_err *err);

/* Where the walk of one (rank, core) body resumes: phase and step, and how
 * many instructions the program has so far (the next one's line - 1). */
typedef struct {
  uint64_t step;
  uint32_t phase; /* A2_TB_DONE: the body ran to its end */
  uint32_t line;
} a2_tb_resume;
#define A2_TB_DONE UINT32_MAX

typedef struct {
  a2_program *k;
  a2_instrs *cur;
  a2_err *err;
  a2_code rc;
  uint32_t line;  /* instructions in the current program so far */
  uint64_t total; /* instructions appended in all (materialised) */
  int lazy;       /* filling a batch of a program source: no A2_TB_MAX_INSTRS */
  /* the walk of a body (a2_tb_walk) */
  int walking, in_step, stopped;
  uint32_t phase;  /* index of the current phase in the walk */
  uint64_t count;  /* its step count */
  uint32_t batch;  /* instructions appended by this walk */
  uint32_t limit;  /* stop once batch >= limit (0: never) */
  int waited;      /* this walk appended a wait: with a limit, it stops after that step */
  a2_tb_resume at; /* where this walk started / the next one resumes */
} a2_tb;

a2_code a2_tb_begin(a2_tb *tb, a2_program *k, uint32_t nranks, uint32_t ncores, a2_err *err);
uint16_t a2_tb_buf(a2_tb *tb, const char *name, a2_buf_kind kind, a2_dtype t, uint64_t bytes,
                   a2_init_kind init);
uint16_t a2_tb_tile(a2_tb *tb, const char *name, a2_dtype t, uint64_t bytes);
/* A tile in `space` (a2_space: a cube core's L1, L0A, L0B, L0C, or UB). */
uint16_t a2_tb_tile_in(a2_tb *tb, const char *name, a2_dtype t, uint64_t bytes, a2_space space);
/* Append to k's (rank, core) program from now on (numbering continues after
 * its last instruction). */
void a2_tb_at(a2_tb *tb, uint32_t rank, uint32_t core);

/* Walk a body: append to `out`, resume at *at, stop after a whole step once
 * `limit` instructions were appended, or after a step with a wait (limit 0:
 * run to the end). A program source's batch thus ends where its core
 * blocks: what follows a wait is generated when the wait is satisfied and
 * dispatched at once, instead of waiting in the batch, at scale evicted by
 * the time it is read. Then call the body,
 * then a2_tb_walked, which stores the next resume point in *at (phase
 * A2_TB_DONE when the body ended) and returns tb->rc. */
void a2_tb_walk(a2_tb *tb, a2_instrs *out, const a2_tb_resume *at, uint32_t limit);
a2_code a2_tb_walked(a2_tb *tb, a2_tb_resume *at);

/* The next phase of the walk, of `count` steps: the first step to run (count
 * when the phase finished in an earlier walk). */
uint64_t a2_tb_phase(a2_tb *tb, uint64_t count);
/* Run step s? No when the phase is over, after an error, or when the batch
 * is full or holds a wait (then (phase, s) becomes the resume point and
 * every later phase of this walk runs no step). */
void a2_tb_stop(a2_tb *tb, uint64_t s);               /* the batch is full before step s */
static inline int a2_tb_more(a2_tb *tb, uint64_t s) { /* inline: runs per step */
  tb->in_step = 0;
  if (tb->rc || tb->stopped || s >= tb->count) return 0;
  if (tb->limit && (tb->batch >= tb->limit || tb->waited)) {
    a2_tb_stop(tb, s);
    return 0;
  }
  tb->in_step = 1;
  return 1;
}
#define A2_STEPS(tb, s, count) \
  for (uint64_t s = a2_tb_phase((tb), (count)); a2_tb_more((tb), s); s++)

/* Pieces of `piece` bytes in len bytes (the last one may be shorter). */
static inline uint64_t a2_pieces(uint64_t len, uint64_t piece) {
  return (len + piece - 1) / piece;
}

void a2_tb_load(a2_tb *tb, uint16_t tile, uint16_t buf, uint64_t off, uint64_t len);
void a2_tb_store(a2_tb *tb, uint16_t tile, uint16_t buf, uint64_t off, uint64_t len);
void a2_tb_rload(a2_tb *tb, uint16_t tile, uint16_t buf, uint32_t peer, uint64_t off, uint64_t len);
void a2_tb_rstore(a2_tb *tb, uint16_t tile, uint16_t buf, uint32_t peer, uint64_t off, uint64_t len,
                  int atomic_add);
/* Signal cells are addressed by index (cell i = bytes [4i, 4i+4)). */
void a2_tb_notify(a2_tb *tb, uint16_t sig, uint32_t peer, uint64_t cell, int mode, int32_t value);
void a2_tb_wait(a2_tb *tb, uint16_t sig, uint64_t cell, int mode, int32_t value);
/* DMA copies on the rank's DMA engines (no UB tile), byte units. put:
 * dst_win@peer[off, off+len) <- (or +=) src_buf[src_off, src_off+len); get:
 * dst_buf[off, off+len) <- src_win@peer[src_off, src_off+len). How they move
 * (`how`; NULL: one descriptor, a plain write, queue A2_QUEUE_ANY): chunk > 0
 * makes each chunk bytes a descriptor, one at a time, or two in flight when
 * `pipeline` is set (A2_MODE_PIPELINE); chunk 0 is one descriptor.
 * atomic_add (put only) adds element-wise at the destination
 * (A2_MODE_DMA_ATOMIC_ADD). queue is the rank's DMA queue, below
 * chip.sdma.queues, or A2_QUEUE_ANY (the core's index modulo the count). */
typedef struct {
  uint32_t chunk;
  int pipeline, atomic_add;
  uint16_t queue;
} a2_tb_dma;
void a2_tb_put(a2_tb *tb, uint16_t dst_win, uint32_t peer, uint64_t off, uint64_t len,
               uint16_t src_buf, uint64_t src_off, const a2_tb_dma *how);
void a2_tb_get(a2_tb *tb, uint16_t dst_buf, uint64_t off, uint64_t len, uint16_t src_win,
               uint32_t peer, uint64_t src_off, const a2_tb_dma *how);
void a2_tb_vop(a2_tb *tb, a2_opcode op, uint16_t dst, uint16_t a, uint16_t b, uint64_t len);
void a2_tb_compute(a2_tb *tb, int32_t cycles);
/* Cube-core instructions (docs/program-format.md, "Cube cores"), byte units
 * except the matmul's shape. tload: L1 tile[0:len] <- buf[off:off+len];
 * textract: L0A/L0B tile[0:len] <- L1 tile l1[off:off+len]; tmatmul: L0C c
 * (fp32, m x n) = (acc: +=) L0A a (m x k) x L0B b (k x n), elements;
 * tfixpipe: buf[off:off+len] <- L0C tile c cast to the buffer's type. */
void a2_tb_tload(a2_tb *tb, uint16_t l1, uint16_t buf, uint64_t off, uint64_t len);
void a2_tb_textract(a2_tb *tb, uint16_t l0, uint16_t l1, uint64_t off, uint64_t len);
void a2_tb_tmatmul(a2_tb *tb, uint16_t c, uint16_t a, uint16_t b, uint32_t m, uint32_t k,
                   uint32_t n, int acc);
void a2_tb_tfixpipe(a2_tb *tb, uint16_t c, uint16_t buf, uint64_t off, uint64_t len);

#ifdef __cplusplus
}
#endif
#endif
