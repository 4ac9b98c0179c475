/* Choosing an all-reduce, all-gather, reduce-scatter, all-to-all or
 * broadcast as HCCL does (docs/collectives.md, "Choosing as HCCL does"):
 * the rules of HCCL's operator sources (all_reduce_operator.cc,
 * all_gather_operator.cc, reduce_scatter_operator.cc, alltoall_operator.cc,
 * broadcast_operator.cc: SelectAlgfor910B / SelectAlgfor91093;
 * coll_alg_operator.cc SelectAlgoTypeFor*) for single-operator mode, AIV
 * mode off or on (910B and 910_93), non-deterministic or deterministic
 * reduction (910B), mapped onto the built-ins. */
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
  const char *algo; /* the built-in that runs it (static: a registry name) */
  char name[48];    /* the built-in the rule names (it may not exist; then algo falls back) */
  char hccl[96];    /* HCCL's executor (and inter-server algorithm) */
  char why[640];    /* the rule that fired, with its numbers */
  const char *source;
  int forced;     /* --hccl-algo chose it */
  uint32_t cores; /* the vector cores it runs on (an AIV executor's); 0: --cores as given */
} a2_hccl_choice;

/* Whether `name` is an operation the chooser takes (a2_hccl_ops()). */
int a2_hccl_is_op(const char *name);

/* Whether `name` is an operation that is not also a built-in's name
 * ("allreduce"): `run --algo NAME` chooses without --hccl. */
int a2_hccl_implicit(const char *name);

/* The operations, comma-separated (static text for messages). */
const char *a2_hccl_ops(void);

/* The modes a choice is made in, OR-ed into a2_hccl_choose's mode (0: AIV
 * mode off, non-deterministic reduction). */
enum {
  A2_HCCL_AIV = 1,          /* HCCL_OP_EXPANSION_MODE=AIV (--hccl-aiv) */
  A2_HCCL_DETERMINISTIC = 2 /* HCCL_DETERMINISTIC=true (--hccl-deterministic) */
};

/* Choose for operation `op` (N = p->size_bytes a rank as that built-in
 * takes it, P ranks) on cfg. mode: A2_HCCL_AIV for HCCL's AIV mode (the
 * rules of dev), whose executors run on several vector cores (c->cores, at
 * most p->max_cores when that is not 0); A2_HCCL_DETERMINISTIC for
 * deterministic reduction (the 910B's rules; the 910_93's of these sources
 * do not read it). force: NULL, or a built-in name (as
 * HCCL_ALGO forces HCCL's), which is checked to be one of op's candidates. A2_E_INPUT naming --algo
 * for an unknown op, --hccl-algo for an unknown or foreign built-in. */
a2_code a2_hccl_choose(const char *op, const a2_config *cfg, a2_hccl_device dev, unsigned mode,
                       const a2_coll_params *p, const char *force, a2_hccl_choice *c, a2_err *err);

/* The vector cores HCCL's A3 AIV executors across servers launch
 * (AllGatherMeshAivFor91093Executor, ReduceScatterMeshAivFor91093Executor:
 * CalBlockDim) for P ranks and D bytes: P, 2P, 3P, 4P, 6P or 8P by tiers of
 * P (24, 16, 12, 8, 6) and D (28, 112, 448 KiB); above 24 ranks P rounded
 * up to even, at most 48. Not bounded by a chip's cores. */
uint32_t a2_hccl_a3_xnode_cores(uint32_t P, uint64_t D);

/* The built-ins an --explain runs for `op`: every collective (not a GEMM
 * built-in such as allgather_gemm) of the registry named op or op_*, in
 * registry order, at most max into out (static names); the count. */
uint32_t a2_hccl_candidates(const char *op, const char **out, uint32_t max);

#ifdef __cplusplus
}
#endif
#endif
