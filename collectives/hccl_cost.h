/* HCCL's alpha-beta-gamma cost of an algorithm (the cost tables of HCCL's
 * algorithm guide, docs/collectives.md): t = steps * alpha + bytes * beta +
 * reduced bytes * gamma, with alpha, beta and gamma taken from a config.
 * The chooser (collectives/hccl_choose.h) compares algorithms by it, as
 * HCCL does across servers. */
#ifndef A2_HCCL_COST_H
#define A2_HCCL_COST_H

#include <stdint.h>

#include "configs/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The model's parameters, in ps: alpha per step, beta per byte moved,
 * gamma per byte reduced. `inter` is set when the ranks span servers of a
 * two-level topology (alpha and beta are then the NIC path's). */
typedef struct {
  double alpha_ps, beta_ps, gamma_ps;
  int inter;
  /* The hierarchical algorithms' intra-server step: its alpha and beta
   * (the link's), and the ranks per server (a2_coll_group). */
  double intra_alpha_ps, intra_beta_ps;
  uint32_t group;
  /* The three-level rows' level 1, among a super-node's servers: its alpha
   * and beta (the level below the top's; alpha_ps and beta_ps without
   * one), and the ranks per server (a2_coll_node, 0: none). */
  double sn_alpha_ps, sn_beta_ps;
  uint32_t node;
} a2_abg;

/* From cfg for P ranks. One step's fixed cost alpha is three one-way hops
 * (the notify that releases the step, a read's request, its first byte
 * back), the peer's HBM latency and one MTE stage; a hop is
 * interconnect.link.latency (+ switch_latency through a switch), or across
 * servers two NIC latencies and the switch; with topology levels, the
 * latency + switch latency of the level P ranks from 0 span (`inter`: a
 * level above the lowest). beta = 1 / bandwidth of the link (across
 * servers: the NIC's, when lower; levels: that level's port); gamma = one
 * vector cycle / chip.vector.bytes_per_cycle. intra_alpha_ps and
 * intra_beta_ps are the same for one hop inside a server. */
void a2_abg_of(const a2_config *cfg, uint32_t P, a2_abg *m);

/* HCCL's cost of the built-in `algo` (the hierarchical ones: their
 * intra-server steps with the intra alpha and beta, the inter-server step
 * with alpha and beta, over m->group ranks a server) for P ranks and N bytes a rank, in ps,
 * and its formula (static text) in *formula when not NULL; < 0 when the
 * algorithm has none. */
double a2_hccl_cost_ps(const char *algo, uint32_t P, uint64_t N, const a2_abg *m,
                       const char **formula);

#ifdef __cplusplus
}
#endif
#endif
