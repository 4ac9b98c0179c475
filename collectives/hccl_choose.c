/* HCCL's all-reduce selection, reproduced from the rules of its operator
 * sources (docs/sources.md "Algorithms"), single-operator mode, AIV off,
 * non-deterministic. What each HCCL executor maps to:
 *   AllReduceMeshSmallCountExecutor    allreduce_mesh (one shot)
 *   AllReduceMeshOpbaseLoopExecutor    allreduce_sdma_mesh (SDMA inline reduce)
 *   AllReduceMeshExecutor, no inline   allreduce_two_phase (local reduce)
 *   AllReduceRingExecutor, ring topo   allreduce_ring
 *   across servers, level-1 Ring       allreduce_ring over all ranks
 *   across servers, level-1 NHR        allreduce_nhr over all ranks
 *   across servers, level-1 HD         allreduce_rhd over all ranks
 * Across servers HCCL runs a hierarchical all-reduce (server-local mesh
 * reduce-scatter, the level-1 algorithm between servers, all-gather); the
 * built-ins have no hierarchical form yet, so the flat form of the level-1
 * algorithm stands in, and the choice says so. */
#include "collectives/hccl_choose.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define KB 1024ull
#define MB (1024ull * 1024ull)
/* HCCL's thresholds (all_reduce_operator.cc) and its static step delay
 * (coll_alg_operator.cc: LATENCY, 60 us) */
#define SMALL_COUNT_256_KB (256 * KB)
#define SMALL_COUNT_512_KB (512 * KB)
#define SMALL_COUNT_1_MB MB
#define LEVEL1_DELAY_US 60.0

static const char *const allreduce_cands[] = {"allreduce_mesh",
                                              "allreduce_two_phase",
                                              "allreduce_sdma_mesh",
                                              "allreduce_ring",
                                              "allreduce_rhd",
                                              "allreduce_nhr",
                                              NULL};

int a2_hccl_is_op(const char *name) {
  return name && !strcmp(name, "allreduce");
}

const char *const *a2_hccl_candidates(const char *op) {
  return a2_hccl_is_op(op) ? allreduce_cands : NULL;
}

static int runs(const char *algo, const a2_coll_params *p) {
  const a2_collective *c = a2_collective_find(algo);
  a2_err e = {0};
  return c && (!c->check || !c->check(p, &e));
}

/* SDMA inline reduce (IsSupportSDMAReduce): the DMA engines add, nothing else */
static int inline_reduce(const a2_coll_params *p) {
  return p->op == A2_RED_SUM;
}

static void one_server_a2(const a2_config *cfg, const a2_coll_params *p, a2_hccl_choice *c) {
  uint64_t N = p->size_bytes;
  if (cfg->topology == A2_TOPO_RING) {
    c->algo = "allreduce_ring";
    snprintf(c->hccl, sizeof c->hccl, "AllReduceRingExecutor");
    snprintf(c->why, sizeof c->why, "one server, ring topology (isRingTopo)");
    return;
  }
  if (!inline_reduce(p)) {
    c->algo = "allreduce_two_phase";
    snprintf(c->hccl, sizeof c->hccl, "AllReduceMeshExecutor");
    snprintf(c->why, sizeof c->why,
             "one server, mesh; --op %s has no SDMA inline reduce, so the mesh executor with a "
             "local reduce",
             a2_reduce_name(p->op));
    return;
  }
  if (N <= SMALL_COUNT_256_KB) {
    c->algo = "allreduce_mesh";
    snprintf(c->hccl, sizeof c->hccl, "AllReduceMeshSmallCountExecutor");
    snprintf(c->why, sizeof c->why,
             "one server, mesh, SDMA inline reduce, %llu B <= 256 KiB (MeshTopoSelector: "
             "small count)",
             (unsigned long long)N);
    return;
  }
  c->algo = "allreduce_sdma_mesh";
  snprintf(c->hccl, sizeof c->hccl, "AllReduceMeshOpbaseLoopExecutor");
  snprintf(c->why, sizeof c->why,
           "one server, mesh, SDMA inline reduce, %llu B > 256 KiB (MeshTopoSelector: loop)",
           (unsigned long long)N);
}

/* coll_alg_operator.cc SelectAlgoTypeForAllReduce: m servers of d devices,
 * a fixed 60 us a step and the NIC's bandwidth; ties go Ring > NHR > HD. */
static void level1_a2(const a2_config *cfg, const a2_coll_params *p, uint32_t d,
                      a2_hccl_choice *c) {
  double m = ceil((double)p->nranks / d), N = (double)p->size_bytes;
  double bw = (double)(cfg->nic_bw ? cfg->nic_bw : cfg->link_bw), t = N / d / bw * 1e6; /* us */
  double ring = 2 * (m - 1) * LEVEL1_DELAY_US + 2 * (m - 1) / m * t;
  double lg = ceil(log2(m));
  double nhr = 2 * lg * LEVEL1_DELAY_US + 2 * (m - 1) / m * t;
  int pow2 = ((uint32_t)m & ((uint32_t)m - 1)) == 0;
  double hd = pow2 ? 2 * log2(m) * LEVEL1_DELAY_US + 2 * (m - 1) / m * t
                   : 2 * lg * LEVEL1_DELAY_US + 2 * (2 * m - 1) / m * t;
  const char *l1 = nhr < ring ? "NHR" : "Ring";
  double best = nhr < ring ? nhr : ring;
  if (hd < best) l1 = "HD";
  c->algo = !strcmp(l1, "Ring")  ? "allreduce_ring"
            : !strcmp(l1, "NHR") ? "allreduce_nhr"
                                 : "allreduce_rhd";
  snprintf(c->hccl, sizeof c->hccl, "AllReduceMeshExecutor, level-1 %s", l1);
  snprintf(c->why, sizeof c->why,
           "%.0f servers of %u: level-1 costs (60 us a step, NIC %.0f GB/s): Ring %.1f us, "
           "NHR %.1f us, HD %.1f us -> %s (ties: Ring > NHR > HD); the built-ins have no "
           "hierarchical all-reduce, so %s over all %u ranks stands in",
           m, d, bw / 1e9, ring, nhr, hd, l1, c->algo, p->nranks);
}

static void choose_a3(const a2_coll_params *p, a2_hccl_choice *c) {
  uint32_t d = p->nranks < A2_HCCL_A3_SERVER_DEVICES ? p->nranks : A2_HCCL_A3_SERVER_DEVICES;
  uint32_t servers = (p->nranks + A2_HCCL_A3_SERVER_DEVICES - 1) / A2_HCCL_A3_SERVER_DEVICES;
  uint64_t N = p->size_bytes;
  c->source = "all_reduce_operator.cc SelectAlgfor91093";
  if (servers > 1 && d > 2 && N <= SMALL_COUNT_1_MB * d) {
    c->algo = "allreduce_nhr";
    snprintf(c->hccl, sizeof c->hccl, "AllReduceComm, level-1 NHR");
    snprintf(c->why, sizeof c->why,
             "A3, %u servers of %u dies in one super-node, %llu B <= 1 MiB x %u "
             "(smallCountOptimMultiServer): NHR over all ranks (allreduce_nhr)",
             servers, d, (unsigned long long)N, d);
  } else if (servers == 1 && inline_reduce(p) && p->nranks > 2 &&
             N <= SMALL_COUNT_512_KB * p->nranks) {
    c->algo = "allreduce_mesh";
    snprintf(c->hccl, sizeof c->hccl, "AllReduceMeshSmallCountExecutor");
    snprintf(c->why, sizeof c->why,
             "A3, one server, SDMA inline reduce, %llu B <= 512 KiB x P "
             "(smallCountOptimSingleServer)",
             (unsigned long long)N);
  } else {
    c->algo = "allreduce_ring";
    snprintf(c->hccl, sizeof c->hccl, "AllReduce double-ring executor");
    snprintf(c->why, sizeof c->why,
             "A3, %llu B: the double-ring executors; Double-Ring is not a built-in, the single "
             "ring stands in",
             (unsigned long long)N);
  }
}

a2_code a2_hccl_choose(const char *op, const a2_config *cfg, a2_hccl_device dev,
                       const a2_coll_params *p, const char *force, a2_hccl_choice *c, a2_err *err) {
  memset(c, 0, sizeof *c);
  if (!a2_hccl_is_op(op))
    return a2_err_set(err, A2_E_INPUT, "--algo", 0, 0, "'%s': the chooser takes 'allreduce'", op);
  if (force) {
    int ok = 0;
    for (const char *const *n = allreduce_cands; *n; n++) ok |= !strcmp(*n, force);
    if (!ok)
      return a2_err_set(err, A2_E_INPUT, "--hccl-algo", 0, 0,
                        "'%s' is not an all-reduce built-in (allreduce_mesh, "
                        "allreduce_two_phase, allreduce_sdma_mesh, allreduce_ring, "
                        "allreduce_rhd, allreduce_nhr)",
                        force);
    c->algo = force;
    c->forced = 1;
    snprintf(c->hccl, sizeof c->hccl, "forced");
    snprintf(c->why, sizeof c->why, "forced by --hccl-algo (as HCCL_ALGO forces HCCL's)");
    c->source = "--hccl-algo";
    return A2_OK;
  }
  if (dev == A2_HCCL_A3) {
    choose_a3(p, c);
  } else {
    uint32_t d =
        cfg->topology == A2_TOPO_TWO_LEVEL && cfg->group_size ? cfg->group_size : p->nranks;
    c->source = "all_reduce_operator.cc SelectAlgfor910B, coll_alg_operator.cc";
    if (p->nranks <= d)
      one_server_a2(cfg, p, c);
    else
      level1_a2(cfg, p, d, c);
  }
  if (!runs(c->algo, p)) { /* e.g. the SDMA mesh and NHR need N in P chunks */
    const char *fallback = !strcmp(c->algo, "allreduce_sdma_mesh") ? "allreduce_mesh"
                           : !strcmp(c->algo, "allreduce_nhr")     ? "allreduce_rhd"
                                                                   : "allreduce_ring";
    if (!runs(fallback, p)) fallback = "allreduce_mesh"; /* runs any whole elements */
    size_t n = strlen(c->why);
    snprintf(c->why + n, sizeof c->why - n, "; %s cannot run this size or P, so %s", c->algo,
             fallback);
    c->algo = fallback;
  }
  return A2_OK;
}
