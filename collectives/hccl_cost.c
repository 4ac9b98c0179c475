/* The alpha-beta-gamma formulas of HCCL's algorithm guide (hicann/hccl
 * docs/en/user_guide/coll_algo_intro: Mesh.md, Ring.md, RHD.md, NHR.md, Star.md; Pairwise priced as
 * its P-1 steps of one block), one per built-in that implements the algorithm. */
#include "collectives/hccl_cost.h"

#include <math.h>
#include <string.h>

void a2_abg_of(const a2_config *cfg, uint32_t P, a2_abg *m) {
  double hop = (double)cfg->link_lat_ps, bw = (double)cfg->link_bw;
  if (cfg->topology == A2_TOPO_SWITCH) hop += (double)cfg->switch_lat_ps;
  m->inter = cfg->topology == A2_TOPO_TWO_LEVEL && cfg->group_size && P > cfg->group_size;
  if (m->inter) {
    hop = 2.0 * (double)cfg->nic_lat_ps + (double)cfg->switch_lat_ps;
    if (cfg->nic_bw && (double)cfg->nic_bw < bw) bw = (double)cfg->nic_bw;
  }
  m->alpha_ps = 3.0 * hop + (double)cfg->hbm_lat_ps + (double)cfg->mte_lat_ps;
  m->beta_ps = 1e12 / bw;
  m->gamma_ps = (double)a2_config_cycle_ps(cfg) / (double)cfg->vec_bytes_per_cycle;
}

/* 2^floor(log2 P) */
static double pow2_below(uint32_t P) {
  double q = 1;
  while (q * 2 <= P) q *= 2;
  return q;
}

static double ring(double P, double N, const a2_abg *m) {
  return 2 * (P - 1) * m->alpha_ps + 2 * (P - 1) / P * N * m->beta_ps +
         (P - 1) / P * N * m->gamma_ps;
}

static double rhd(double P, double N, const a2_abg *m) {
  double q = pow2_below((uint32_t)P), k = log2(q);
  if (q == P)
    return 2 * k * m->alpha_ps + 2 * (P - 1) / P * N * m->beta_ps + (P - 1) / P * N * m->gamma_ps;
  return (2 * k + 2) * m->alpha_ps + (2 * (q - 1) / q + 2) * N * m->beta_ps +
         ((q - 1) / q + 1) * N * m->gamma_ps;
}

/* NHR: ceil(log2 P) steps each way, at any P */
static double nhr(double P, double N, const a2_abg *m) {
  return 2 * ceil(log2(P)) * m->alpha_ps + 2 * (P - 1) / P * N * m->beta_ps +
         (P - 1) / P * N * m->gamma_ps;
}

/* HCCL's mesh: reduce-scatter + all-gather, every peer at once */
static double mesh_rs_ag(double P, double N, const a2_abg *m) {
  return 2 * m->alpha_ps + 2 / P * N * m->beta_ps + (P - 1) / P * N * m->gamma_ps;
}

/* one-shot: every peer's whole slice at once, each reduced here */
static double one_shot(double P, double N, const a2_abg *m) {
  return m->alpha_ps + N * m->beta_ps + (P - 1) * N * m->gamma_ps;
}

/* Star: one step, N to every non-root */
static double star(double P, double N, const a2_abg *m) {
  (void)P;
  return m->alpha_ps + N * m->beta_ps;
}

/* N is the block: one block each way a step */
static double pairwise(double P, double N, const a2_abg *m) {
  return (P - 1) * (m->alpha_ps + N * m->beta_ps);
}

static const struct {
  const char *algo, *formula;
  double (*f)(double P, double N, const a2_abg *m);
} rows[] = {
    {"allreduce_mesh", "a + N b + (P-1) N g (one shot: every peer's slice at once)", one_shot},
    {"allreduce_two_phase", "2a + 2N/P b + (P-1)/P N g (HCCL Mesh: reduce-scatter + all-gather)",
     mesh_rs_ag},
    {"allreduce_sdma_mesh", "2a + 2N/P b + (P-1)/P N g (HCCL Mesh: reduce-scatter + all-gather)",
     mesh_rs_ag},
    {"allreduce_ring", "2(P-1) a + 2(P-1)/P N b + (P-1)/P N g (HCCL Ring)", ring},
    {"allreduce_rhd",
     "2 log2(P) a + 2(P-1)/P N b + (P-1)/P N g; P not 2^k: (2 floor(log2 P) + 2) a + "
     "(2(P'-1)/P' + 2) N b + ((P'-1)/P' + 1) N g (HCCL RHD)",
     rhd},
    {"allreduce_nhr", "2 ceil(log2 P) a + 2(P-1)/P N b + (P-1)/P N g (HCCL NHR)", nhr},
    {"broadcast_star", "a + N b (HCCL Star: one step, N to every non-root)", star},
    {"all_to_all_pairwise",
     "(P-1) (a + N b), N = block: P-1 steps of one block each way (Pairwise)", pairwise},
};

double a2_hccl_cost_ps(const char *algo, uint32_t P, uint64_t N, const a2_abg *m,
                       const char **formula) {
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    if (!strcmp(rows[i].algo, algo)) {
      if (formula) *formula = rows[i].formula;
      return P < 2 ? 0 : rows[i].f(P, (double)N, m);
    }
  if (formula) *formula = NULL;
  return -1;
}
