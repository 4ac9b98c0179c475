/* Built-in collectives: one table row each (collectives/registry.c) with
 * its generator, its analytic cost card and its closed-form time. Adding a
 * collective = one file + one row. */
#ifndef A2_COLLECTIVE_H
#define A2_COLLECTIVE_H

#include <stddef.h>
#include <stdint.h>

#include "collectives/builder.h"
#include "configs/config.h"
#include "traces/program.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  uint32_t nranks;
  uint64_t size_bytes; /* N: bytes of each rank's input slice */
  uint32_t cores;      /* vector cores per rank */
  a2_reduce_op op;
  a2_dtype dtype;
  uint64_t ub_bytes;   /* unified buffer per core (tile sizing) */
  uint32_t seed;       /* initial-data seed */
  uint32_t root;       /* root rank (broadcast-style collectives) */
  uint32_t max_cores;  /* the chip's vector cores (config chip.vector_cores), the bound
                          on `cores`; 0 = not checked here (the model validates it too) */
  uint32_t dma_queues; /* the rank's DMA queues (config chip.sdma.queues) a generator
                          spreads its put/get over; 0 = every put/get on A2_QUEUE_ANY */
  uint32_t max_cube;   /* the chip's cube cores (config chip.cube_cores), the bound on the cube
                          cores a fused built-in uses; 0 = not checked here */
  uint32_t part;       /* fused compute + communication built-ins (gemm_allreduce): which side
                          runs, a2_coll_part; the others ignore it */
  uint32_t group;      /* ranks per server (a2_coll_group) for the hierarchical collectives;
                          0 = all ranks in one server */
  uint32_t node;       /* ranks per server of the three-level rows (a2_coll_node), whose
                          `group` is then a super-node; 0 = no such level */
  /* The GEMM built-ins (gemm, gemm_allreduce, allgather_gemm; the others
   * refuse them): the shape in elements, 0 = the default (M: size_bytes, K
   * 256, N 512), and the cube / vector cores the program uses, 0 = `cores`. */
  uint32_t m, k, n;
  uint32_t compute_cores, comm_cores;
} a2_coll_params;

/* What a built-in is: a collective, a computation (gemm) or a fused
 * computation + communication (an overlap card: cli/overlap.c). */
typedef enum { A2_KIND_COMM = 0, A2_KIND_COMPUTE = 1, A2_KIND_FUSED = 2 } a2_coll_kind;

/* Ranks per server for P ranks on cfg, the group of the hierarchical
 * collectives: a group of the level below the top (two_level:
 * interconnect.group_size; levels: the fan-out product below the top
 * level) when below P, else P (one server). */
uint32_t a2_coll_group(const a2_config *cfg, uint32_t P);
/* Ranks per server of the three-level hierarchical collectives (HCCL's
 * level 0 under a super-node level): a group of the level two below the
 * top (levels: e.g. the 16 dies of an A3 node under its super-node), when
 * the topology has one and it is smaller than a2_coll_group; else 0.
 * a2_coll_set_servers fills both. */
uint32_t a2_coll_node(const a2_config *cfg, uint32_t P);
/* p->group and p->node for p->nranks ranks on cfg: whoever builds an
 * a2_coll_params from a config calls it. */
void a2_coll_set_servers(const a2_config *cfg, a2_coll_params *p);

/* The sides of a fused built-in: both (the program itself), the compute alone
 * (no communication; its golden is the local GEMM), the communication alone
 * (no compute, no waits for it; not checked: the data is zeros). */
typedef enum { A2_PART_WHOLE = 0, A2_PART_COMPUTE = 1, A2_PART_COMM = 2 } a2_coll_part;

/* The analytic cost card, per rank (what the algorithm's author claims). */
typedef struct {
  double remote_read_bytes;
  double remote_write_bytes;
  uint64_t barrier_rounds;
} a2_card;

/* How a collective's program is generated (collectives/stream.c): `declare`
 * is done once - a2_tb_begin, buffers, tiles, golden, metadata - and leaves
 * in ctx (ctx_bytes, zeroed) what the bodies need; `body` emits the
 * (rank, core) program as a sequence of phases (builder.h) from ctx alone.
 * The same two serve materialised programs (every body run to its end) and
 * programs produced on demand (k->source: bodies walked in bounded batches). */
typedef struct {
  size_t ctx_bytes;
  a2_code (*declare)(a2_tb *tb, const a2_coll_params *p, a2_program *k, void *ctx, a2_err *err);
  void (*body)(a2_tb *tb, const void *ctx, uint32_t rank, uint32_t core);
} a2_gen_def;

typedef struct {
  const char *name;
  const char *summary;      /* one line */
  const char *card_formula; /* e.g. "remote read (P-1)*N; 1 barrier round" */
  /* nccl-tests conventions: algbw = S/t with S = size_factor(P) * N;
   * busbw = algbw * busbw_factor(P). */
  double (*size_factor)(uint32_t P);
  double (*busbw_factor)(uint32_t P);
  /* Refuse parameters the algorithm cannot run (divisibility, P). */
  a2_code (*check)(const a2_coll_params *p, a2_err *err);
  /* The program with whole instruction lists (a2_coll_generate(c, p, k, 0, err)). */
  a2_code (*gen)(const a2_coll_params *p, a2_program *k, a2_err *err);
  const a2_gen_def *def;
  void (*card)(const a2_coll_params *p, a2_card *c);
  /* Closed-form time (docs/timing-model.md) on an uncontended full mesh, in
   * ps; 0 when the topology is not a full mesh. */
  uint64_t (*closed_form_ps)(const a2_coll_params *p, const a2_config *cfg);
  a2_coll_kind kind;
  /* The GEMM built-ins: floating-point operations of the program over all
   * ranks (2 M K N per rank's GEMM); NULL for collectives. */
  double (*flops)(const a2_coll_params *p);
  /* The GEMM built-ins: bytes of C per rank (the reports' S); NULL: S is
   * size_factor(P) * size_bytes. */
  uint64_t (*out_bytes)(const a2_coll_params *p);
} a2_collective;

const a2_collective *a2_collective_find(const char *name);

/* Generate c's program for p into k (which the caller frees with
 * a2_program_free, also after an error). lazy = 0: every program whole in
 * k->progs, at most A2_TB_MAX_INSTRS instructions in all. lazy = 1: the
 * declarations only, empty programs and k->source, which produces each
 * (rank, core) program in batches of whole steps of about
 * A2_COLL_BATCH instructions (a step is a few instructions), the same
 * instructions as lazy = 0 would hold; memory does not grow with the
 * instruction count (a small resume state per program). c->check is not
 * called here. */
a2_code a2_coll_generate(const a2_collective *c, const a2_coll_params *p, a2_program *k, int lazy,
                         a2_err *err);
/* Small: a batch is written at one fill and read back over the next few
 * steps, while thousands of other cores run in between; 8 instructions (a
 * cache line each) stay in cache where 512 did not (docs/benchmarks.md, "What makes
 * it fast"). */
#define A2_COLL_BATCH 8
/* As lazy a2_coll_generate with batches of `batch` (>= 1) instructions
 * (tests; tuning). */
a2_code a2_coll_generate_batched(const a2_collective *c, const a2_coll_params *p, a2_program *k,
                                 uint32_t batch, a2_err *err);
/* The same from a generator definition (lazy: batch > 0). */
a2_code a2_gen_run(const a2_gen_def *def, const a2_coll_params *p, a2_program *k, uint32_t batch,
                   a2_err *err);
/* Make a lazy program (k->source) whole: drain every instruction list into
 * k->progs, then free the source. At most A2_TB_MAX_INSTRS instructions in
 * all (a2_tb_too_many), as for lazy = 0. Nothing to do without a source. */
a2_code a2_coll_materialise(a2_program *k, a2_err *err);
/* The program source of a lazy program, for tests and reports: bytes it
 * holds (context and resume states). */
size_t a2_coll_source_bytes(const a2_source *src);
/* The whole table; *n receives its length. */
const a2_collective *a2_collective_table(uint32_t *n);

/* Shared helpers (collectives/common.c). */
/* Largest power of two <= ub/3, capped at 64 KiB: the chunk tile size of the
 * double-buffered generators (one accumulator + two receive tiles). */
uint64_t a2_coll_chunk_bytes(uint64_t ub_bytes);
/* All-to-all barrier on signal row `row` (cells row*P + src): notify every
 * peer (atomic add 1 into cell row*P + me), then wait for every peer >= 1
 * (the barrier of PyPTO's tutorial page "08 mesh all-reduce"). */
void a2_coll_barrier(a2_tb *tb, uint32_t me, uint32_t P, uint16_t sig, uint32_t row);
/* Refuse N that is not a positive multiple of `multiple` bytes; `why` says
 * where the rule comes from. */
a2_code a2_coll_check_multiple(const a2_coll_params *p, uint64_t multiple, const char *why,
                               a2_err *err);

/* Refuse N that is not P chunks of whole elements (two-phase, ring). */
a2_code a2_check_p_chunks(const a2_coll_params *p, a2_err *err);

#ifdef __cplusplus
}
#endif
#endif
