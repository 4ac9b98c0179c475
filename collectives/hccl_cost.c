/* The alpha-beta-gamma formulas of HCCL's algorithm guide (hicann/hccl
 * docs/en/user_guide/coll_algo_intro: Mesh.md, Ring.md, RHD.md, NHR.md, NB.md, Star.md; Pairwise
 * priced as its P-1 steps of one block; the hierarchical collectives of
 * hierarchical_comm_principle.md as the sum of their steps, the
 * intra-server ones with the link's alpha and beta), one per built-in that
 * implements the algorithm. */
#include "collectives/hccl_cost.h"

#include <math.h>
#include <string.h>

#include "collectives/generators.h"

void a2_abg_of(const a2_config *cfg, uint32_t P, a2_abg *m) {
  double hop = (double)cfg->link_lat_ps, bw = (double)cfg->link_bw;
  if (cfg->topology == A2_TOPO_SWITCH) hop += (double)cfg->switch_lat_ps;
  m->intra_alpha_ps = 3.0 * hop + (double)cfg->hbm_lat_ps + (double)cfg->mte_lat_ps;
  m->intra_beta_ps = 1e12 / bw;
  m->group = a2_coll_group(cfg, P);
  m->inter = cfg->topology == A2_TOPO_TWO_LEVEL && cfg->group_size && P > cfg->group_size;
  if (cfg->topology == A2_TOPO_LEVELS && cfg->nlevels) {
    /* the level that P ranks from 0 span: its latency and port rate */
    uint32_t i = 0;
    while (i + 1 < cfg->nlevels && a2_config_group_ranks(cfg, i) < P) i++;
    hop = (double)cfg->levels[i].lat_ps + (double)cfg->levels[i].switch_lat_ps;
    bw = (double)cfg->levels[i].bw;
    m->inter = i > 0;
  } else if (m->inter) {
    hop = 2.0 * (double)cfg->nic_lat_ps + (double)cfg->switch_lat_ps;
    if (cfg->nic_bw && (double)cfg->nic_bw < bw) bw = (double)cfg->nic_bw;
  }
  m->alpha_ps = 3.0 * hop + (double)cfg->hbm_lat_ps + (double)cfg->mte_lat_ps;
  m->beta_ps = 1e12 / bw;
  m->sn_alpha_ps = m->alpha_ps;
  m->sn_beta_ps = m->beta_ps;
  m->node = a2_coll_node(cfg, P);
  if (m->node) { /* a level below the top: the super-node's */
    const a2_level *l = &cfg->levels[cfg->nlevels - 2];
    m->sn_alpha_ps = 3.0 * (double)(l->lat_ps + l->switch_lat_ps) + (double)cfg->hbm_lat_ps +
                     (double)cfg->mte_lat_ps;
    m->sn_beta_ps = 1e12 / (double)l->bw;
  }
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

/* two rings at once, each of N/2, each reduced on its own core */
static double double_ring(double P, double N, const a2_abg *m) {
  return 2 * (P - 1) * m->alpha_ps + (P - 1) / P * N * m->beta_ps +
         (P - 1) / P * N / 2 * m->gamma_ps;
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

/* One level's reduce-scatter (gamma: reduced) or all-gather of X bytes a
 * member over n members: steps alpha + (n-1)/n X beta (Ring, RHD, NHR,
 * NB.md: only the step count differs). */
static double level(a2_level_algo a, double n, double X, double alpha, double beta, double gamma) {
  if (n < 2) return 0;
  return a2_level_steps(a, (uint32_t)n) * alpha + (n - 1) / n * X * (beta + gamma);
}

/* HCCL's mesh inside a server: one step, X to each peer at once; gamma:
 * the G-1 peers' X reduced */
static double mesh(double G, double X, double alpha, double beta, double gamma) {
  return G < 2 ? 0 : alpha + X * beta + (G - 1) * X * gamma;
}

static double hier_cost(const a2_hier_row *h, double P, double N, const a2_abg *m) {
  double G = h->flat ? 1 : (m->group && m->group < P ? m->group : P), M = P / G;
  double ai = m->intra_alpha_ps, bi = m->intra_beta_ps, a = m->alpha_ps, b = m->beta_ps,
         g = m->gamma_ps;
  if (h->flat) ai = a, bi = b;
  if (h->slices > 1) { /* Pipeline.md: both levels' links at once, part by part */
    double step = fmax(N / P * b + a, N / P * bi + ai);
    return 2 * (step * (M - 1) + N / P * bi + ai);
  }
  if (h->three && m->node) { /* mesh RS, level-1 RS, level-2 all-reduce, level-1 AG, mesh AG */
    double G0 = m->node, M1 = G / G0, X = N / G0, a1 = m->sn_alpha_ps, b1 = m->sn_beta_ps;
    a2_level_algo l2 = a2_hier_level2((uint32_t)M);
    return mesh(G0, X, ai, bi, g) + level(h->algo, M1, X, a1, b1, g) +
           level(l2, M, X / M1, a, b, g) + level(l2, M, X / M1, a, b, 0) +
           level(h->algo, M1, X, a1, b1, 0) + mesh(G0, X, ai, bi, 0);
  }
  switch (h->op) {
  case A2_HIER_ALLREDUCE: /* mesh RS, level all-reduce of N/G, mesh AG */
    return mesh(G, N / G, ai, bi, g) + level(h->algo, M, N / G, a, b, g) +
           level(h->algo, M, N / G, a, b, 0) + mesh(G, N / G, ai, bi, 0);
  case A2_HIER_REDUCE_SCATTER: /* level RS of P*N, mesh RS of the G*N chunk */
    return level(h->algo, M, P * N, a, b, g) + mesh(G, N, ai, bi, g);
  case A2_HIER_ALLGATHER: /* mesh AG, level AG of G*N blocks */
    return mesh(G, N, ai, bi, 0) + level(h->algo, M, P * N, a, b, 0);
  case A2_HIER_BROADCAST: /* scatter in the root's server, to the servers, AG, mesh AG */
    return mesh(G, N / G, ai, bi, 0) + (M > 1 ? a + N / P * b : 0) +
           level(h->algo, M, N / G, a, b, 0) + mesh(G, N / G, ai, bi, 0);
  }
  return 0;
}

/* Pipeline.md's all-gather and reduce-scatter (N = a rank's block): M - 1
 * ring steps, each moving one block between servers while the block of
 * the step before goes to the G - 1 server-mates, then the last block
 * inside the server */
static double pipeline_block(double P, double N, const a2_abg *m) {
  double G = m->group && m->group < P ? m->group : P, M = P / G;
  double step = fmax(N * m->beta_ps + m->alpha_ps, N * m->intra_beta_ps + m->intra_alpha_ps);
  return step * (M - 1) + (G > 1 ? N * m->intra_beta_ps + m->intra_alpha_ps : 0);
}

static const struct {
  a2_hier_op op;
  const char *hier, *flat;
} hier_formulas[] = {
    {A2_HIER_ALLREDUCE,
     "intra a + N/G b + (G-1)/G N g (mesh RS) + inter all-reduce of N/G over M = P/G servers "
     "(steps a + 2(M-1)/M N/G b + (M-1)/M N/G g) + intra a + N/G b (mesh AG)",
     "2 ceil(log2 P) a + 2(P-1)/P N b + (P-1)/P N g (HCCL NB)"},
    {A2_HIER_REDUCE_SCATTER,
     "inter steps a + (M-1) G N b + (M-1) G N g (RS of server chunks) + intra a + N b + "
     "(G-1) N g (mesh RS)",
     "ceil(log2 P) a + (P-1) N b + (P-1) N g, N = output block (HCCL NB)"},
    {A2_HIER_ALLGATHER, "intra a + N b (mesh AG) + inter steps a + (M-1) G N b",
     "ceil(log2 P) a + (P-1) N b (HCCL NB)"},
    {A2_HIER_BROADCAST,
     "intra a + N/G b (scatter) + inter a + N/P b (scatter) + steps a + (M-1)/M N/G b (AG) + "
     "intra a + N/G b (mesh AG)",
     NULL},
};

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
    {"allreduce_double_ring",
     "2(P-1) a + (P-1)/P N b + (P-1)/P N/2 g (two HCCL Rings of N/2 at once, opposite ways)",
     double_ring},
    {"allgather_pipeline",
     "max(N b + a, N bi + ai) (M-1) + N bi + ai (HCCL Pipeline, M = P/G servers, N = block)",
     pipeline_block},
    {"reduce_scatter_pipeline",
     "max(N b + a, N bi + ai) (M-1) + N bi + ai (HCCL Pipeline, M = P/G servers, N = output "
     "block)",
     pipeline_block},
    {"broadcast_star", "a + N b (HCCL Star: one step, N to every non-root)", star},
    {"all_to_all_pairwise",
     "(P-1) (a + N b), N = block: P-1 steps of one block each way (Pairwise)", pairwise},
};

double a2_hccl_cost_ps(const char *algo, uint32_t P, uint64_t N, const a2_abg *m,
                       const char **formula) {
  const a2_hier_row *h = a2_hier_find(algo);
  if (h) {
    if (formula) *formula = h->flat ? hier_formulas[h->op].flat : hier_formulas[h->op].hier;
    if (formula && h->three && m->node)
      *formula =
          "intra a + N/G b + (G-1)/G N g (mesh RS, servers of G) + level-1 RS of N/G over "
          "the M1 servers of a super-node (steps a1 + (M1-1)/M1 N/G (b1 + g)) + level-2 "
          "all-reduce of N/(G M1) over M2 super-nodes (2 steps a + 2(M2-1)/M2 N/(G M1) b + "
          "(M2-1)/M2 N/(G M1) g) + level-1 AG + intra a + N/G b (mesh AG)";
    if (formula && h->slices > 1)
      *formula =
          "2 (max(N/P b + a, N/P bi + ai) (M-1) + N/P bi + ai) (HCCL Pipeline, M = P/G "
          "servers)";
    return P < 2 ? 0 : hier_cost(h, P, (double)N, m);
  }
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    if (!strcmp(rows[i].algo, algo)) {
      if (formula) *formula = rows[i].formula;
      return P < 2 ? 0 : rows[i].f(P, (double)N, m);
    }
  if (formula) *formula = NULL;
  return -1;
}
