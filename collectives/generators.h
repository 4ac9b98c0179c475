/* What the collectives' files share beyond common.h (internal to
 * collectives/): the phases and cards the composition reuses, and the
 * closed forms of the registry (closed_form.c). */
#ifndef A2_GENERATORS_H
#define A2_GENERATORS_H

#include "collectives/common.h"

/* Broadcast of N bytes from `root` (broadcast.c): root copies src[0, N) to
 * its window `win` and to `out`, then signals cell 0 of `sig`; every other
 * rank waits for that signal and copies win@root to `out`. */
void a2_phase_broadcast(a2_tiles *t, uint32_t me, uint32_t root, uint32_t P, uint16_t src,
                        uint16_t win, uint16_t sig, a2_at out, uint64_t N, uint64_t piece);

/* Gather (allgather.c), one phase: once every rank's N-byte block is in its
 * window `win` at offset 0 (after a barrier), copy bytes `part` of each
 * peer's block, in the order me+1, me+2, ... (mod P) so that no rank is
 * everyone's first source, to the same bytes of out[q*N]. The rank's own
 * block is not copied. part {0, N}: the whole blocks. */
void a2_phase_gather(a2_tiles *t, uint32_t me, uint32_t P, uint16_t win, uint16_t out, uint64_t N,
                     a2_slice part, uint64_t piece);

/* The cards the composition sums. */
void a2_card_broadcast(const a2_coll_params *p, a2_card *c);
void a2_card_allreduce_mesh(const a2_coll_params *p, a2_card *c);
void a2_card_allgather(const a2_coll_params *p, a2_card *c);

/* 2^floor(log2 P), 0 for P = 0 (allreduce_rhd.c). */
uint32_t a2_rhd_pow2_below(uint32_t P);
/* ceil(log2 P): the steps of each NHR phase (allreduce_nhr.c); 0 at P = 1 */
uint32_t a2_nhr_steps(uint32_t P);

/* Closed-form times, ps (closed_form.c; 0 where they do not apply). */
uint64_t a2_time_allreduce_mesh(const a2_coll_params *p, const a2_config *cfg);
uint64_t a2_time_allreduce_two_phase(const a2_coll_params *p, const a2_config *cfg);

/* ---- One level of a hierarchy (level_steps.c) ----
 * A group of n member ranks, member k = base + k * stride; `i` is this
 * rank's index in it. The reduce-scatter and all-gather of each algorithm
 * below work on n blocks of window `win` (a2_blocks), block k destined for
 * member k: the reduce-scatter leaves block i reduced over the members at
 * member i (in place); the all-gather starts with block i at member i and
 * leaves every block at every member. Both pull (remote_load).
 * Step t waits for cell cell0 + t of `sig`, set by the member read from in
 * that step once it finished step t - 1 (for t = 0: once it entered the
 * phase, so whatever it did before is visible); one round per step. */
typedef struct {
  uint32_t base, stride, n, i;
} a2_group;

typedef enum {
  A2_LVL_RING = 0, /* n - 1 steps, neighbour to neighbour */
  A2_LVL_RHD = 1,  /* log2 n pairwise steps (n a power of two) */
  A2_LVL_NHR = 2,  /* ceil(log2 n) steps, slices i - 2dk from i + d */
  A2_LVL_NB = 3    /* ceil(log2 n) steps: Bruck's, nonuniform at any n */
} a2_level_algo;

static inline uint32_t a2_member(const a2_group *g, int64_t k) {
  int64_t n = g->n, m = k % n;
  return g->base + (uint32_t)(m < 0 ? m + n : m) * g->stride;
}
/* Steps (rounds) of one reduce-scatter or all-gather of `a` over n members. */
uint32_t a2_level_steps(a2_level_algo a, uint32_t n);
/* The n blocks of a level: block k is `runs` runs of `len` bytes, run m at
 * byte R + k * b + m * run_stride. Several runs: a core's share of each
 * rank's block when a level block holds the blocks of a server's ranks
 * (hier.c's parts). a2_blocks_runs makes runs that touch (run_stride = len)
 * one run, so that a share of whole blocks moves as contiguous blocks do. */
typedef struct {
  uint64_t R, b;
  uint32_t runs;
  uint64_t run_stride, len;
} a2_blocks;
static inline a2_blocks a2_blocks_runs(uint64_t R, uint64_t b, uint32_t runs, uint64_t run_stride,
                                       uint64_t len) {
  a2_blocks k = {R, b, runs, run_stride, len};
  if (run_stride == len) k = (a2_blocks){R, b, 1, (uint64_t)runs * len, (uint64_t)runs * len};
  return k;
}
/* Contiguous blocks: one run of b bytes each. */
static inline a2_blocks a2_blocks_whole(uint64_t R, uint64_t b) {
  return a2_blocks_runs(R, b, 1, b, b);
}
/* Bytes of the blocks one member reads in either phase: (n - 1) * runs * len. */
void a2_level_reduce_scatter(a2_tiles *t, const a2_coll_ctx *c, a2_level_algo a, const a2_group *g,
                             uint16_t win, uint16_t sig, uint64_t cell0, const a2_blocks *k);
void a2_level_all_gather(a2_tiles *t, const a2_coll_ctx *c, a2_level_algo a, const a2_group *g,
                         uint16_t win, uint16_t sig, uint64_t cell0, const a2_blocks *k);

/* allreduce_double_ring's parameter rules (allreduce_double_ring.c). */
a2_code a2_check_allreduce_double_ring(const a2_coll_params *p, a2_err *err);
/* allgather_pipeline's and reduce_scatter_pipeline's rules (hier_pipeline.c). */
a2_code a2_check_allgather_pipeline(const a2_coll_params *p, a2_err *err);
a2_code a2_check_reduce_scatter_pipeline(const a2_coll_params *p, a2_err *err);

/* ---- Hierarchical and NB collectives (hier.c): one generator, one row each ----
 * ROW(NAME, op, inter-server algorithm, flat, slices, three): flat rows run the
 * level algorithm over all ranks as one group (NB); slices > 1 (Pipeline) cuts
 * the slice into that many parts, one a vector core, each part's server
 * reduce-scatter starting when the previous part's ended; three-level rows
 * (HCCL's level 0, 1 and 2) take their servers one level further down
 * (a2_coll_params.node) and run the row's algorithm among the servers of a
 * super-node and a second one among the super-nodes. */
#define A2_HIER_ROWS(ROW)                                                     \
  ROW(allreduce_hier_ring, A2_HIER_ALLREDUCE, A2_LVL_RING, 0, 1, 0)           \
  ROW(allreduce_hier_rhd, A2_HIER_ALLREDUCE, A2_LVL_RHD, 0, 1, 0)             \
  ROW(allreduce_hier_nhr, A2_HIER_ALLREDUCE, A2_LVL_NHR, 0, 1, 0)             \
  ROW(allreduce_hier3_ring, A2_HIER_ALLREDUCE, A2_LVL_RING, 0, 1, 1)          \
  ROW(allreduce_hier3_rhd, A2_HIER_ALLREDUCE, A2_LVL_RHD, 0, 1, 1)            \
  ROW(allreduce_hier3_nhr, A2_HIER_ALLREDUCE, A2_LVL_NHR, 0, 1, 1)            \
  ROW(reduce_scatter_hier_ring, A2_HIER_REDUCE_SCATTER, A2_LVL_RING, 0, 1, 0) \
  ROW(reduce_scatter_hier_rhd, A2_HIER_REDUCE_SCATTER, A2_LVL_RHD, 0, 1, 0)   \
  ROW(reduce_scatter_hier_nhr, A2_HIER_REDUCE_SCATTER, A2_LVL_NHR, 0, 1, 0)   \
  ROW(allgather_hier_ring, A2_HIER_ALLGATHER, A2_LVL_RING, 0, 1, 0)           \
  ROW(allgather_hier_rhd, A2_HIER_ALLGATHER, A2_LVL_RHD, 0, 1, 0)             \
  ROW(allgather_hier_nhr, A2_HIER_ALLGATHER, A2_LVL_NHR, 0, 1, 0)             \
  ROW(broadcast_hier_ring, A2_HIER_BROADCAST, A2_LVL_RING, 0, 1, 0)           \
  ROW(broadcast_hier_rhd, A2_HIER_BROADCAST, A2_LVL_RHD, 0, 1, 0)             \
  ROW(broadcast_hier_nhr, A2_HIER_BROADCAST, A2_LVL_NHR, 0, 1, 0)             \
  ROW(allreduce_nb, A2_HIER_ALLREDUCE, A2_LVL_NB, 1, 1, 0)                    \
  ROW(reduce_scatter_nb, A2_HIER_REDUCE_SCATTER, A2_LVL_NB, 1, 1, 0)          \
  ROW(allgather_nb, A2_HIER_ALLGATHER, A2_LVL_NB, 1, 1, 0)                    \
  ROW(allreduce_pipeline, A2_HIER_ALLREDUCE, A2_LVL_RING, 0, A2_PIPELINE_SLICES, 0)

typedef enum {
  A2_HIER_ALLREDUCE = 0,
  A2_HIER_REDUCE_SCATTER = 1,
  A2_HIER_ALLGATHER = 2,
  A2_HIER_BROADCAST = 3
} a2_hier_op;

/* allreduce_pipeline's parts (vector cores) */
#define A2_PIPELINE_SLICES 4

typedef struct {
  const char *name;
  a2_hier_op op;
  a2_level_algo algo;
  int flat;
  uint32_t slices; /* parts on as many cores, pipelined (1: one core) */
  int three;       /* levels 0, 1 and 2: server, super-node, cluster */
} a2_hier_row;

/* A three-level row's level-2 algorithm among n super-nodes (hier.c). */
a2_level_algo a2_hier_level2(uint32_t n);
/* The row of a hierarchical or NB built-in, NULL for any other name. */
const a2_hier_row *a2_hier_find(const char *name);
/* Its servers' size for p: 1 for flat rows, else a2_server_size(p). */
uint32_t a2_hier_group(const a2_hier_row *h, const a2_coll_params *p);
/* The ranks a server of p has: p->group, all P when it is 0 or P or more. */
uint32_t a2_server_size(const a2_coll_params *p);
/* P in whole servers of G ranks, else the refusal naming --ranks (name: the built-in). */
a2_code a2_check_whole_servers(const char *name, const a2_coll_params *p, uint32_t G, a2_err *err);
#define A2_HIER_DECLARE_CHECK(NAME, ...) \
  a2_code a2_check_##NAME(const a2_coll_params *p, a2_err *err);
A2_HIER_ROWS(A2_HIER_DECLARE_CHECK)

#endif
