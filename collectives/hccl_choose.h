/* Choosing an all-reduce as HCCL does (docs/collectives.md, "Choosing as
 * HCCL does"): the rules of HCCL's operator sources (all_reduce_operator.cc
 * SelectAlgfor910B / SelectAlgfor91093, coll_alg_operator.cc
 * SelectAlgoTypeForAllReduce) for single-operator mode, AIV mode off,
 * non-deterministic reduction, mapped onto the built-ins. */
#ifndef A2_HCCL_CHOOSE_H
#define A2_HCCL_CHOOSE_H

#include <stdint.h>

#include "collectives/collective.h"
#include "configs/config.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { A2_HCCL_A2 = 0, A2_HCCL_A3 = 1 } a2_hccl_device; /* 910B, 910_93 */

/* A3: devices (dies) per server, serverNum of HCCL's A3 rules. */
#define A2_HCCL_A3_SERVER_DEVICES 16

typedef struct {
  const char *algo; /* the built-in that runs it */
  char hccl[96];    /* HCCL's executor (and inter-server algorithm) */
  char why[640];    /* the rule that fired, with its numbers */
  const char *source;
  int forced; /* --hccl-algo chose it */
} a2_hccl_choice;

/* Whether `name` is an operation the chooser takes ("allreduce"). */
int a2_hccl_is_op(const char *name);

/* Choose for an all-reduce of N bytes a rank over P ranks on cfg. force:
 * NULL, or a built-in name (as HCCL_ALGO forces HCCL's), which is checked
 * to be an all-reduce. A2_E_INPUT naming --hccl-algo for an unknown one. */
a2_code a2_hccl_choose(const char *op, const a2_config *cfg, a2_hccl_device dev,
                       const a2_coll_params *p, const char *force, a2_hccl_choice *c, a2_err *err);

/* The built-ins an --explain runs for `op`, NULL-terminated. */
const char *const *a2_hccl_candidates(const char *op);

#ifdef __cplusplus
}
#endif
#endif
