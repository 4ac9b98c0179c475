/* The table of built-in collectives (BookSim-style factory by name): one
 * row per collective, with its parameter check, generator, analytic card,
 * nccl-tests size and bus factors, and closed form. */
#include <string.h>

#include "collectives/allreduce.h"
#include "collectives/generators.h"

/* ---- nccl-tests factors (REFERENCE.md: S = size_factor * N, busbw =
 * algbw * busbw_factor) ---- */
static double zero(uint32_t P) {
  (void)P;
  return 0.0;
}
static double one(uint32_t P) {
  (void)P;
  return 1.0;
}
static double ranks(uint32_t P) { return P; }
static double allreduce_bus(uint32_t P) { return 2.0 * (P - 1) / P; }
static double gather_bus(uint32_t P) { return (double)(P - 1) / P; }

/* ---- checks: which flags each collective refuses ---- */
static a2_code mesh_check(const a2_coll_params *p, a2_err *err) {
  if (p->cores == 0)
    return a2_err_set(err, A2_E_INPUT, "--cores", 0, 0, "expected at least 1 vector core");
  if (p->max_cores && p->cores > p->max_cores)
    return a2_err_set(err, A2_E_INPUT, "--cores", 0, 0,
                      "%u vector cores per rank requested; the chip has %u (chip.vector_cores)",
                      p->cores, p->max_cores);
  return a2_coll_check_elems(p, err);
}

static a2_code p_chunks_check(const a2_coll_params *p, a2_err *err) {
  a2_code rc = a2_coll_check_single_core(p, err);
  return rc ? rc : a2_check_p_chunks(p, err);
}

static a2_code ring_check(const a2_coll_params *p, a2_err *err) {
  if (p->nranks < 2)
    return a2_err_set(err, A2_E_INPUT, "--ranks", 0, 0, "the ring needs at least 2 ranks");
  return p_chunks_check(p, err);
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

#define GEN_CARD(name) a2_gen_##name, &a2_def_##name, a2_card_##name

static const a2_collective table[] = {
    {"allreduce_mesh",
     "all-reduce, mesh: one barrier, every rank reads every peer (seed 08; --cores C: "
     "256-element tiles block-cyclic over C cores, step 11)",
     "remote read (P-1)*N per rank; 1 barrier round", one, allreduce_bus, mesh_check,
     GEN_CARD(allreduce_mesh), a2_time_allreduce_mesh},
    {"allreduce_two_phase",
     "all-reduce, two-phase: reduce-scatter then all-gather, two barriers (seed 09)",
     "remote read 2*(P-1)/P*N per rank; 2 barrier rounds; N a multiple of P elements", one,
     allreduce_bus, p_chunks_check, GEN_CARD(allreduce_two_phase), a2_time_allreduce_two_phase},
    {"allreduce_ring",
     "all-reduce, ring: P-1 reduce-scatter and P-1 all-gather steps, neighbour-only signals",
     "remote read 2*(P-1)/P*N per rank; 2*(P-1) barrier rounds; N a multiple of P elements", one,
     allreduce_bus, ring_check, GEN_CARD(allreduce_ring), no_closed_form},
    {"broadcast", "broadcast from --root: non-roots read the root's staged window (step 12)",
     "remote read N per non-root rank (0 at the root); 1 signal round", one, one, rooted_check,
     GEN_CARD(broadcast), no_closed_form},
    {"allgather",
     "all-gather: N per rank in, P*N out; one barrier, every rank reads every peer (step 13)",
     "remote read (P-1)*N per rank; 1 barrier round", ranks, gather_bus, elems_check,
     GEN_CARD(allgather), no_closed_form},
    {"reduce_scatter",
     "reduce-scatter: P*N per rank in, N out; one barrier, rank r reduces block r (step 14)",
     "remote read (P-1)*N per rank (N = output block); 1 barrier round", ranks, gather_bus,
     elems_check, GEN_CARD(reduce_scatter), no_closed_form},
    {"all_to_all", "all-to-all: put each block into its rank's window, set-notify (step 15)",
     "remote write (P-1)*N per rank, no remote read (N = block); 1 signal round", ranks,
     gather_bus, elems_check, GEN_CARD(all_to_all), no_closed_form},
    {"barrier", "the built-in barrier: self-clearing credit counter, no data",
     "no remote data; 1 barrier round; S = 0", zero, one, a2_coll_check_single_core,
     GEN_CARD(barrier), no_closed_form},
    {"compose_bcast_allreduce_allgather",
     "broadcast from --root, then mesh all-reduce, then all-gather, one signal each (step 16)",
     "sum of the three cards: remote read (2P-1)*N per rank; 3 barrier rounds", one, one,
     rooted_check, GEN_CARD(compose_bcast_allreduce_allgather), no_closed_form},
};

const a2_collective *a2_collective_table(uint32_t *n) {
  *n = sizeof table / sizeof table[0];
  return table;
}

const a2_collective *a2_collective_find(const char *name) {
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (!strcmp(table[i].name, name)) return &table[i];
  return NULL;
}
