/* All-reduce, double ring (HCCL's A3 double-ring executors): two rings in
 * opposite directions at once, each carrying half the slice, on two vector
 * cores of every rank. Core 0 runs the ring reduce-scatter and all-gather
 * (level_steps.c, Ring) over ranks 0, 1, ..., P-1 on bytes [0, N/2); core 1
 * over ranks P-1, ..., 1, 0 on [N/2, N), so every link between neighbours
 * carries data both ways in every step. Blocks are N/(2P). The
 * reduce-scatter works in `data`, the all-gather in `res`; signal cells
 * [0, P) and [P, 2P) are core 0's steps, [2P, 3P) and [3P, 4P) core 1's.
 * The cores touch disjoint halves. */
#include "collectives/generators.h"

enum { X, Y, DATA, RES, SIG };

static void declare_tiles(a2_tb *tb, const a2_coll_params *p, a2_coll_ctx *c) {
  a2_coll_set_piece(c, c->N / 2 / (c->P ? c->P : 1), a2_coll_chunk_bytes(p->ub_bytes));
  a2_tiles_declare(&c->tiles, tb, p->dtype, c->T ? c->T : 4, 1, 2);
}

static const a2_coll_shape shape = {
    .algo = "allreduce_double_ring",
    .golden = A2_GOLDEN_ALLREDUCE,
    .multi_core = true,
    .more = declare_tiles,
    .bufs = {[X] = {"x", A2_BUF_TENSOR, .fixed = 1},
             [Y] = {"y", A2_BUF_TENSOR, .fixed = 1},
             [DATA] = {"data", A2_BUF_WINDOW, .fixed = 1},
             [RES] = {"res", A2_BUF_WINDOW, .fixed = 1},
             [SIG] = {"signal", A2_BUF_SIGNAL, .per_rank = 2}}, /* x 2 cores: 4P cells */
};

/* Two cores whatever --cores says (the check takes 1). */
static a2_code declare(a2_tb *tb, const a2_coll_params *p, a2_program *k, void *ctx, a2_err *err) {
  a2_coll_params two = *p;
  two.cores = 2;
  return a2_coll_declare(tb, &two, k, &shape, ctx, err);
}

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const a2_coll_ctx *c = ctx;
  uint32_t P = c->P;
  uint64_t half = c->N / 2, b = half / P, R = core * half;
  /* core 1: the ring reversed (member k = P-1-k; uint32 wrap-around) */
  a2_group ring =
      core == 0 ? (a2_group){0, 1, P, me} : (a2_group){P - 1, UINT32_MAX, P, P - 1 - me};
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  a2_at data = a2_at_local(DATA, R), out = a2_at_local(Y, R);
  a2_coll_copy(&t, a2_at_local(X, R), &data, 1, half, c->T);
  a2_blocks blocks = a2_blocks_whole(R, b);
  a2_level_reduce_scatter(&t, c, A2_LVL_RING, &ring, DATA, SIG, 2ull * P * core, &blocks);
  a2_at mine = a2_at_local(RES, R + ring.i * b);
  a2_coll_copy(&t, a2_at_local(DATA, R + ring.i * b), &mine, 1, b, c->T);
  a2_level_all_gather(&t, c, A2_LVL_RING, &ring, RES, SIG, 2ull * P * core + P, &blocks);
  a2_coll_copy(&t, a2_at_local(RES, R), &out, 1, half, c->T);
}

const a2_gen_def a2_def_allreduce_double_ring = {sizeof(a2_coll_ctx), declare, body};
a2_code a2_gen_allreduce_double_ring(const a2_coll_params *p, a2_program *k, a2_err *err) {
  return a2_gen_run(&a2_def_allreduce_double_ring, p, k, 0, err);
}

void a2_card_allreduce_double_ring(const a2_coll_params *p, a2_card *c) {
  double P = p->nranks;
  /* two rings of N/2: 2 (P-1)/P N/2 each, on the two cores */
  c->remote_read_bytes = 2.0 * (P - 1) / P * (double)p->size_bytes;
  c->remote_write_bytes = 0;
  c->barrier_rounds = p->nranks > 1 ? 2ull * (p->nranks - 1) : 0;
}

/* N in 2P blocks of whole elements; the program's two cores are its own. */
a2_code a2_check_allreduce_double_ring(const a2_coll_params *p, a2_err *err) {
  a2_code rc = a2_coll_check_single_core(p, err);
  if (rc) return rc;
  if (p->max_cores && p->max_cores < 2)
    return a2_err_set(err, A2_E_INPUT, "--algo", 0, 0,
                      "allreduce_double_ring runs its two rings on two vector cores; the chip "
                      "has %u (chip.vector_cores)",
                      p->max_cores);
  return a2_coll_check_multiple(p, 2ull * a2_dtype_size(p->dtype) * p->nranks,
                                "two rings, each cutting half the slice into P blocks", err);
}
