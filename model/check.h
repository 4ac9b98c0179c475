/* The functional check: the golden result is computed here, independently
 * of the model, from the program's initial-data recipe, and compared with
 * what the simulation left in the output buffers. */
#ifndef A2_CHECK_H
#define A2_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "model/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

#define A2_CHECK_SHOW 8

typedef struct {
  uint32_t rank;
  uint64_t index; /* element index */
  double got, want;
} a2_mismatch;

typedef struct {
  bool checked; /* false when the program has no golden */
  bool ok;
  uint64_t elements;   /* compared */
  uint64_t mismatches; /* total */
  uint32_t nshow;
  a2_mismatch show[A2_CHECK_SHOW]; /* the first ones, in (index, rank) order */
} a2_check_result;

/* Tolerance (collectives): |got - want| <= max(t max(1, |want|),
 * P u max(1, m)): t = 1e-5 for fp32 and int32, 1e-2 for fp16; u the unit
 * roundoff (2^-24, 2^-11; 0 for int32); m the sum of the terms'
 * magnitudes for a sum, |want| otherwise (docs/cli.md). GEMM goldens:
 * check.c's gemm tolerance. */
void a2_check(const a2_program *k, const a2_sim *s, a2_check_result *res);

#ifdef __cplusplus
}
#endif
#endif
