/* The table of built-in collectives, looked up by name: one row per
 * collective, with its parameter check, generator, analytic card,
 * nccl-tests size and bus factors, and closed form. */
#include <string.h>

#include "collectives/generators.h"

/* ---- nccl-tests factors (its PERFORMANCE.md: S = size_factor * N,
 * busbw = algbw * busbw_factor) ---- */
static double zero(uint32_t P) {
  (void)P;
  return 0.0;
}
static double one(uint32_t P) {
  (void)P;
  return 1.0;
}
static double ranks(uint32_t P) {
  return P;
}
static double allreduce_bus(uint32_t P) {
  return 2.0 * (P - 1) / P;
}
static double gather_bus(uint32_t P) {
  return (double)(P - 1) / P;
}

/* ---- checks: which flags each collective refuses ---- */
/* The multi-core forms: 1..the chip's vector cores, whole elements. */
static a2_code cores_check(const a2_coll_params *p, a2_err *err) {
  a2_code rc = a2_coll_check_cores(p, err);
  return rc ? rc : a2_coll_check_elems(p, err);
}

/* The multi-core two-phase: --cores as cores_check, N in P chunks. */
static a2_code mc_chunks_check(const a2_coll_params *p, a2_err *err) {
  a2_code rc = cores_check(p, err);
  return rc ? rc : a2_check_p_chunks(p, err);
}

static a2_code p_chunks_check(const a2_coll_params *p, a2_err *err) {
  a2_code rc = a2_coll_check_single_core(p, err);
  return rc ? rc : a2_check_p_chunks(p, err);
}

/* The DMA engines' inline reduce adds: only --op sum. */
static a2_code sdma_check(const a2_coll_params *p, a2_err *err) {
  if (p->op != A2_RED_SUM)
    return a2_err_set(err, A2_E_INPUT, "--op", 0, 0,
                      "%s: the DMA engines reduce by atomic add; only sum, not %s",
                      "allreduce_sdma_mesh", a2_reduce_name(p->op));
  return p_chunks_check(p, err);
}

static a2_code ring_check(const a2_coll_params *p, a2_err *err) {
  if (p->nranks < 2)
    return a2_err_set(err, A2_E_INPUT, "--ranks", 0, 0, "the ring needs at least 2 ranks");
  return p_chunks_check(p, err);
}

/* RHD: halving rounds split the slice into P' = 2^floor(log2 P) equal parts. */
static a2_code rhd_check(const a2_coll_params *p, a2_err *err) {
  a2_code rc = a2_coll_check_single_core(p, err);
  if (rc) return rc;
  uint64_t unit = (uint64_t)a2_dtype_size(p->dtype) * a2_rhd_pow2_below(p->nranks);
  if (unit == 0 || p->size_bytes == 0 || p->size_bytes % unit)
    return a2_err_set(err, A2_E_INPUT, "--size", 0, 0,
                      "%llu bytes: recursive halving-doubling at P=%u halves the slice into %u "
                      "parts of whole elements; expected a positive multiple of %llu bytes",
                      (unsigned long long)p->size_bytes, p->nranks, a2_rhd_pow2_below(p->nranks),
                      (unsigned long long)unit);
  return A2_OK;
}

static a2_code elems_check(const a2_coll_params *p, a2_err *err) {
  a2_code rc = a2_coll_check_single_core(p, err);
  return rc ? rc : a2_coll_check_elems(p, err);
}

static a2_code rooted_check(const a2_coll_params *p, a2_err *err) {
  a2_code rc = a2_coll_check_root(p, err);
  return rc ? rc : elems_check(p, err);
}

static uint64_t no_closed_form(const a2_coll_params *p, const a2_config *cfg) {
  (void)p;
  (void)cfg;
  return 0;
}

/* The hierarchical rows (hier.c): M servers of G ranks (G from
 * interconnect.group_size, a2_coll_group), the inter-server step named. */
#define HIER_AR(L1)                                                                         \
  "all-reduce, HCCL's hierarchical: mesh reduce-scatter in the server, " L1                 \
  " all-reduce "                                                                            \
  "among the same-index ranks of the servers, mesh all-gather in the server (--cores C: C " \
  "parts at once, one a core)"
#define HIER_AR_CARD(STEPS)                                       \
  "remote read 2*(G-1)/G*N + 2*(M-1)/P*N per rank; 2 + 2*(" STEPS \
  ") barrier rounds (no "                                         \
  "server barriers at G = 1); N a multiple of P elements"
#define HIER3_AR(L1)                                                                          \
  "all-reduce, HCCL's three levels: mesh reduce-scatter in the server (G ranks, a node), " L1 \
  " reduce-scatter among the M servers of the super-node, all-reduce among the M2 "           \
  "super-nodes (RHD on a power of two of them, else Ring), " L1                               \
  " all-gather, mesh all-gather in the server; without a node level below the super-node, "   \
  "the two-level row (--cores C: C parts at once)"
#define HIER3_AR_CARD(STEPS)                                                        \
  "remote read 2*(G-1)/G*N + 2*(M-1)*M2/P*N + 2*(M2-1)/P*N per rank; 2 + 2*(" STEPS \
  ") + 2*(level-2 steps) barrier rounds; N a multiple of P elements"
#define HIER_RS(L1)                                                                          \
  "reduce-scatter, HCCL's hierarchical: " L1                                                 \
  " reduce-scatter of server-sized chunks among "                                            \
  "the same-index ranks, then mesh reduce-scatter in the server (N = output block; --cores " \
  "C: C parts of every block at once, one a core)"
#define HIER_RS_CARD(STEPS)                                             \
  "remote read (M-1)*G*N + (G-1)*N per rank (N = output block); " STEPS \
  " + 1 barrier "                                                       \
  "rounds (+0 at G = 1)"
#define HIER_AG(L1)                                                                       \
  "all-gather, HCCL's hierarchical: mesh all-gather in the server, then " L1              \
  " all-gather of "                                                                       \
  "server-sized chunks among the same-index ranks (--cores C: C parts of every block at " \
  "once, one a core)"
#define HIER_AG_CARD(STEPS) \
  "remote read (G-1)*N + (M-1)*G*N per rank; 1 + " STEPS " barrier rounds (+0 at G = 1)"
#define HIER_BC(L1)                                                                        \
  "broadcast from --root, hierarchical scatter + all-gather: the root's server reads its " \
  "chunks, the other servers their blocks of them, " L1                                    \
  " all-gather among the same-index "                                                      \
  "ranks, mesh all-gather in the server"
#define HIER_BC_CARD(STEPS)                                                       \
  "remote read N + (M-1)/P*N at the root's server-mates (N at G = 1); 2 + " STEPS \
  " barrier "                                                                     \
  "rounds (1 + at G = 1); N a multiple of P elements"

/* The rows, in `list` order: ROW(NAME, size factor, bus factor, check,
 * closed form, summary, card formula). NAME's generator is
 * collectives/NAME.c (A2_DEFINE_GENERATOR there defines a2_def_NAME,
 * a2_gen_NAME and a2_card_NAME); the list declares them and fills the
 * table. */
#define COLLECTIVES(ROW)                                                                         \
  ROW(allreduce_mesh, one, allreduce_bus, cores_check, a2_time_allreduce_mesh,                   \
      "all-reduce, mesh: one barrier, every rank reads every peer (--cores C: "                  \
      "256-element tiles block-cyclic over C cores)",                                            \
      "remote read (P-1)*N per rank; 1 barrier round")                                           \
  ROW(allreduce_two_phase, one, allreduce_bus, mc_chunks_check, a2_time_allreduce_two_phase,     \
      "all-reduce, two-phase: reduce-scatter then all-gather, two barriers (--cores "            \
      "C: each chunk in C slices, one a core)",                                                  \
      "remote read 2*(P-1)/P*N per rank; 2 barrier rounds; N a multiple of P elements")          \
  ROW(allreduce_sdma_mesh, one, allreduce_bus, sdma_check, no_closed_form,                       \
      "all-reduce on the DMA engines, HCCL's 910B one-server mesh: reduce-scatter by put "       \
      "atomic_add into each slice's owner, all-gather by put, a DMA queue per peer",             \
      "remote write 2*(P-1)/P*N per rank (half atomic adds), no remote read; 3 barrier rounds; " \
      "N a multiple of P elements")                                                              \
  ROW(allreduce_ring, one, allreduce_bus, ring_check, no_closed_form,                            \
      "all-reduce, ring: P-1 reduce-scatter and P-1 all-gather steps, neighbour-only signals",   \
      "remote read 2*(P-1)/P*N per rank; 2*(P-1) barrier rounds; N a multiple of P elements")    \
  ROW(allreduce_rhd, one, allreduce_bus, rhd_check, no_closed_form,                              \
      "all-reduce, HCCL's recursive halving-doubling: fold to P' = 2^floor(log2 P) ranks, "      \
      "log2 P' halving and doubling rounds with partner rank ^ 2^j, unfold",                     \
      "remote read 2*(P'-1)/P'*N per rank, + N when P is not a power of two; 2*log2(P') "        \
      "barrier rounds (+1 when not); N a multiple of P' elements")                               \
  ROW(allreduce_nhr, one, allreduce_bus, p_chunks_check, no_closed_form,                         \
      "all-reduce, HCCL's NHR: ceil(log2 P) reduce-scatter and all-gather steps, step s with "   \
      "ranks 2^s apart, slices r - 2^(s+1) k, at any P",                                         \
      "remote read 2*(P-1)/P*N per rank; 2*ceil(log2 P) barrier rounds; N a multiple of P "      \
      "elements")                                                                                \
  ROW(allreduce_double_ring, one, allreduce_bus, a2_check_allreduce_double_ring, no_closed_form, \
      "all-reduce, double ring (HCCL's A3 double-ring executors): two rings in opposite "        \
      "directions at once on two vector cores, each reducing and gathering half the slice",      \
      "remote read 2*(P-1)/P*N per rank (half on each ring); 2*(P-1) barrier rounds on each "    \
      "core; N a multiple of 2P elements")                                                       \
  ROW(allreduce_hier_ring, one, allreduce_bus, a2_check_allreduce_hier_ring, no_closed_form,     \
      HIER_AR("Ring"), HIER_AR_CARD("M-1"))                                                      \
  ROW(allreduce_hier_rhd, one, allreduce_bus, a2_check_allreduce_hier_rhd, no_closed_form,       \
      HIER_AR("RHD (M a power of two)"), HIER_AR_CARD("log2 M"))                                 \
  ROW(allreduce_hier_nhr, one, allreduce_bus, a2_check_allreduce_hier_nhr, no_closed_form,       \
      HIER_AR("NHR"), HIER_AR_CARD("ceil(log2 M)"))                                              \
  ROW(allreduce_hier3_ring, one, allreduce_bus, a2_check_allreduce_hier3_ring, no_closed_form,   \
      HIER3_AR("Ring"), HIER3_AR_CARD("M-1"))                                                    \
  ROW(allreduce_hier3_rhd, one, allreduce_bus, a2_check_allreduce_hier3_rhd, no_closed_form,     \
      HIER3_AR("RHD (M a power of two)"), HIER3_AR_CARD("log2 M"))                               \
  ROW(allreduce_hier3_nhr, one, allreduce_bus, a2_check_allreduce_hier3_nhr, no_closed_form,     \
      HIER3_AR("NHR"), HIER3_AR_CARD("ceil(log2 M)"))                                            \
  ROW(reduce_scatter_hier_ring, ranks, gather_bus, a2_check_reduce_scatter_hier_ring,            \
      no_closed_form, HIER_RS("Ring"), HIER_RS_CARD("M-1"))                                      \
  ROW(reduce_scatter_hier_rhd, ranks, gather_bus, a2_check_reduce_scatter_hier_rhd,              \
      no_closed_form, HIER_RS("RHD (M a power of two)"), HIER_RS_CARD("log2 M"))                 \
  ROW(reduce_scatter_hier_nhr, ranks, gather_bus, a2_check_reduce_scatter_hier_nhr,              \
      no_closed_form, HIER_RS("NHR"), HIER_RS_CARD("ceil(log2 M)"))                              \
  ROW(allgather_hier_ring, ranks, gather_bus, a2_check_allgather_hier_ring, no_closed_form,      \
      HIER_AG("Ring"), HIER_AG_CARD("M-1"))                                                      \
  ROW(allgather_hier_rhd, ranks, gather_bus, a2_check_allgather_hier_rhd, no_closed_form,        \
      HIER_AG("RHD (M a power of two)"), HIER_AG_CARD("log2 M"))                                 \
  ROW(allgather_hier_nhr, ranks, gather_bus, a2_check_allgather_hier_nhr, no_closed_form,        \
      HIER_AG("NHR"), HIER_AG_CARD("ceil(log2 M)"))                                              \
  ROW(broadcast_hier_ring, one, one, a2_check_broadcast_hier_ring, no_closed_form,               \
      HIER_BC("Ring"), HIER_BC_CARD("M-1"))                                                      \
  ROW(broadcast_hier_rhd, one, one, a2_check_broadcast_hier_rhd, no_closed_form,                 \
      HIER_BC("RHD (M a power of two)"), HIER_BC_CARD("log2 M"))                                 \
  ROW(broadcast_hier_nhr, one, one, a2_check_broadcast_hier_nhr, no_closed_form, HIER_BC("NHR"), \
      HIER_BC_CARD("ceil(log2 M)"))                                                              \
  ROW(allreduce_nb, one, allreduce_bus, a2_check_allreduce_nb, no_closed_form,                   \
      "all-reduce, HCCL's NB (nonuniform Bruck): reduce-scatter of ceil(log2 P) steps, step s "  \
      "from rank - 2^s, then Bruck's all-gather (1, 2, 4, ... blocks), at any P",                \
      "remote read 2*(P-1)/P*N per rank; 2*ceil(log2 P) barrier rounds; N a multiple of P "      \
      "elements")                                                                                \
  ROW(reduce_scatter_nb, ranks, gather_bus, a2_check_reduce_scatter_nb, no_closed_form,          \
      "reduce-scatter, HCCL's NB: ceil(log2 P) steps, step s adds blocks r + 2^(s+1) k from "    \
      "rank r - 2^s, at any P (N = output block)",                                               \
      "remote read (P-1)*N per rank (N = output block); ceil(log2 P) barrier rounds")            \
  ROW(allgather_nb, ranks, gather_bus, a2_check_allgather_nb, no_closed_form,                    \
      "all-gather, HCCL's NB (Bruck): ceil(log2 P) steps, step s reads min(2^s, P-2^s) blocks "  \
      "from rank + 2^s, at any P",                                                               \
      "remote read (P-1)*N per rank; ceil(log2 P) barrier rounds")                               \
  ROW(allreduce_pipeline, one, allreduce_bus, a2_check_allreduce_pipeline, no_closed_form,       \
      "all-reduce, HCCL's Pipeline: the hierarchical all-reduce (Ring between servers) in 4 "    \
      "parts on 4 vector cores, each part's server step starting when the previous part's "      \
      "ended, so server and inter-server links work at once",                                    \
      "remote read 2*(G-1)/G*N + 2*(M-1)/P*N per rank; 2 + 2*(M-1) barrier rounds on each core " \
      "(no server barriers at G = 1); N a multiple of 4P elements")                              \
  ROW(allgather_pipeline, ranks, gather_bus, a2_check_allgather_pipeline, no_closed_form,        \
      "all-gather, HCCL's Pipeline: Ring between the servers' same-index ranks on one vector "   \
      "core, and on another each ring step's block read by the server-mates as it lands, so "    \
      "only a rank's own column of blocks crosses between servers",                              \
      "remote read (M-1)*N + (G-1)*M*N = (P-1)*N per rank; M barrier rounds (M-1 at G = 1)")     \
  ROW(reduce_scatter_pipeline, ranks, gather_bus, a2_check_reduce_scatter_pipeline,              \
      no_closed_form,                                                                            \
      "reduce-scatter, HCCL's Pipeline: on one vector core each block's server contributions "   \
      "reduced in the order the Ring between servers needs them, on another that Ring adding "   \
      "them (N = output block)",                                                                 \
      "remote read (G-1)*M*N + (M-1)*N = (P-1)*N per rank (N = output block); max(M-1, 1) "      \
      "barrier rounds (M-1 at G = 1)")                                                           \
  ROW(broadcast, one, one, rooted_check, no_closed_form,                                         \
      "broadcast from --root: non-roots read the root's staged window",                          \
      "remote read N per non-root rank (0 at the root); 1 signal round")                         \
  ROW(broadcast_star, one, one, rooted_check, no_closed_form,                                    \
      "broadcast from --root, HCCL's Star: the root puts its slice into every other rank's "     \
      "window at once (DMA), one set-notify each",                                               \
      "remote write (P-1)*N at the root, no remote read; 1 signal round")                        \
  ROW(allgather, ranks, gather_bus, cores_check, no_closed_form,                                 \
      "all-gather: N per rank in, P*N out; one barrier, every rank reads every peer ("           \
      "--cores C: each block in C slices, one a core)",                                          \
      "remote read (P-1)*N per rank; 1 barrier round")                                           \
  ROW(reduce_scatter, ranks, gather_bus, cores_check, no_closed_form,                            \
      "reduce-scatter: P*N per rank in, N out; one barrier, rank r reduces block r ("            \
      "--cores C: each block in C slices, one a core)",                                          \
      "remote read (P-1)*N per rank (N = output block); 1 barrier round")                        \
  ROW(all_to_all, ranks, gather_bus, cores_check, no_closed_form,                                \
      "all-to-all: put each block into its rank's window, set-notify (--cores C: each "          \
      "block in C slices, one a core)",                                                          \
      "remote write (P-1)*N per rank, no remote read (N = block); 1 signal round")               \
  ROW(all_to_all_pairwise, ranks, gather_bus, elems_check, no_closed_form,                       \
      "all-to-all, HCCL's Pairwise: P-1 steps, in step k send to rank+k and receive from "       \
      "rank-k, one peer each way a step",                                                        \
      "remote write (P-1)*N per rank, no remote read (N = block); P-1 barrier rounds")           \
  ROW(barrier, zero, one, a2_coll_check_single_core, no_closed_form,                             \
      "the built-in barrier: self-clearing credit counter, no data",                             \
      "no remote data; 1 barrier round; S = 0")                                                  \
  ROW(compose_bcast_allreduce_allgather, one, one, rooted_check, no_closed_form,                 \
      "broadcast from --root, then mesh all-reduce, then all-gather, one signal each",           \
      "sum of the three cards: remote read (2P-1)*N per rank; 3 barrier rounds")

/* The GEMM built-ins, after the collectives in `list` order: GEMM_ROW(NAME,
 * kind, bus factor, summary, card formula). NAME's file is
 * collectives/NAME.c, which also defines a2_check_NAME, a2_flops_NAME and
 * a2_out_bytes_NAME; S is the bytes of C per rank (out_bytes). */
#define GEMM_BUILTINS(ROW)                                                                        \
  ROW(gemm, A2_KIND_COMPUTE, zero,                                                                \
      "GEMM on the cube cores of every rank (pto-isa gemm_ar tiling: 128 x 256 tiles, baseK 64, " \
      "stepK 4, ping/pong L1 and L0, zigzag): C = A x B, --m x --k x --n fp16, fp32 accumulate",  \
      "no communication")                                                                         \
  ROW(gemm_allreduce, A2_KIND_FUSED, allreduce_bus,                                               \
      "GEMM + all-reduce fused (pto-isa gemm_ar): --compute-cores cube cores compute C = A x B "  \
      "tile by tile, --comm-cores vector cores reduce-scatter each finished tile by "             \
      "remote_store atomic_add into its owner and all-gather it by put",                          \
      "remote write (T - ceil(T/P) + ceil(T/P)*(P-1)) tiles of 64 KiB at rank 0, T = M/128 * "    \
      "N/256 tiles; no remote read; rounds: the waits of the busiest vector core")                \
  ROW(allgather_gemm, A2_KIND_FUSED, gather_bus,                                                  \
      "all-gather + GEMM fused (pto-isa allgather_gemm): vector cores put each rank's M-row "     \
      "slice of A to every peer in 128-row chunks while the cube cores compute the local rows, "  \
      "then each chunk as it arrives: C = [A_0; ..; A_P-1] x B",                                  \
      "remote write (P-1)*M*K*2 bytes per rank; no remote read; rounds: the remote tiles of "     \
      "cube core 0 (one wait each)")

#define DECLARE(NAME, ...) A2_DECLARE_COLLECTIVE(NAME);
COLLECTIVES(DECLARE)
#define DECLARE_GEMM(NAME, ...)                                  \
  A2_DECLARE_COLLECTIVE(NAME);                                   \
  a2_code a2_check_##NAME(const a2_coll_params *p, a2_err *err); \
  double a2_flops_##NAME(const a2_coll_params *p);               \
  uint64_t a2_out_bytes_##NAME(const a2_coll_params *p);
GEMM_BUILTINS(DECLARE_GEMM)

#define ENTRY(NAME, SIZE, BUS, CHECK, CLOSED_FORM, SUMMARY, CARD_FORMULA) \
  {.name = #NAME,                                                         \
   .summary = SUMMARY,                                                    \
   .card_formula = CARD_FORMULA,                                          \
   .size_factor = SIZE,                                                   \
   .busbw_factor = BUS,                                                   \
   .check = CHECK,                                                        \
   .gen = a2_gen_##NAME,                                                  \
   .def = &a2_def_##NAME,                                                 \
   .card = a2_card_##NAME,                                                \
   .closed_form_ps = CLOSED_FORM},
#define GEMM_ENTRY(NAME, KIND, BUS, SUMMARY, CARD_FORMULA) \
  {.name = #NAME,                                          \
   .summary = SUMMARY,                                     \
   .card_formula = CARD_FORMULA,                           \
   .size_factor = one,                                     \
   .busbw_factor = BUS,                                    \
   .check = a2_check_##NAME,                               \
   .gen = a2_gen_##NAME,                                   \
   .def = &a2_def_##NAME,                                  \
   .card = a2_card_##NAME,                                 \
   .closed_form_ps = no_closed_form,                       \
   .kind = KIND,                                           \
   .flops = a2_flops_##NAME,                               \
   .out_bytes = a2_out_bytes_##NAME},
static const a2_collective table[] = {COLLECTIVES(ENTRY) GEMM_BUILTINS(GEMM_ENTRY)};

const a2_collective *a2_collective_table(uint32_t *n) {
  *n = sizeof table / sizeof table[0];
  return table;
}

const a2_collective *a2_collective_find(const char *name) {
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (!strcmp(table[i].name, name)) return &table[i];
  return NULL;
}
