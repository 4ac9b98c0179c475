/* Built-in collectives: one table row each (collectives/registry.c) with
 * its generator, its analytic cost card and its closed-form time. Adding a
 * collective = one file + one row. */
#ifndef A2_COLLECTIVE_H
#define A2_COLLECTIVE_H

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
} a2_coll_params;

/* The analytic cost card, per rank (what the algorithm's author claims). */
typedef struct {
  double remote_read_bytes;
  double remote_write_bytes;
  uint64_t barrier_rounds;
} a2_card;

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
  a2_code (*gen)(const a2_coll_params *p, a2_kernel *k, a2_err *err);
  void (*card)(const a2_coll_params *p, a2_card *c);
  /* Closed-form time (docs/timing-model.md) on an uncontended full mesh, in
   * ps; 0 when the topology is not a full mesh. */
  uint64_t (*closed_form_ps)(const a2_coll_params *p, const a2_config *cfg);
} a2_collective;

const a2_collective *a2_collective_find(const char *name);
/* The whole table; *n receives its length. */
const a2_collective *a2_collective_table(uint32_t *n);

/* Shared helpers (collectives/common.c). */
/* Largest power of two <= ub/3, capped at 64 KiB: the chunk tile size of the
 * double-buffered generators (one accumulator + two receive tiles). */
uint64_t a2_coll_chunk_bytes(uint64_t ub_bytes);
/* All-to-all barrier on signal row `row` (cells row*P + src): notify every
 * peer (atomic add 1 into cell row*P + me), then wait for every peer >= 1
 * (seed step 08, phase 2). */
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
