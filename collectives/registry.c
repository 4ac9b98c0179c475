/* The table of built-in collectives (BookSim-style factory by name). */
#include <string.h>

#include "collectives/allreduce.h"

a2_opcode a2_reduce_opcode(a2_reduce_op op) {
  static const a2_opcode map[] = {A2_OP_VADD, A2_OP_VMAX, A2_OP_VMIN, A2_OP_VMUL};
  return map[op];
}

static double one(uint32_t P) {
  (void)P;
  return 1.0;
}
static double allreduce_bus(uint32_t P) { return 2.0 * (P - 1) / P; }

static a2_code elems_only(const a2_coll_params *p, a2_err *err) {
  return a2_coll_check_multiple(p, a2_dtype_size(p->dtype), "whole elements", err);
}

static a2_code ring_check(const a2_coll_params *p, a2_err *err) {
  if (p->nranks < 2)
    return a2_err_set(err, A2_E_INPUT, "--ranks", 0, 0, "the ring needs at least 2 ranks");
  return a2_check_p_chunks(p, err);
}

static uint64_t no_closed_form(const a2_coll_params *p, const a2_config *cfg) {
  (void)p;
  (void)cfg;
  return 0;
}

static const a2_collective table[] = {
    {"allreduce_mesh", "all-reduce, mesh: one barrier, every rank reads every peer (seed 08)",
     "remote read (P-1)*N per rank; 1 barrier round", one, allreduce_bus, elems_only,
     a2_gen_allreduce_mesh, a2_card_allreduce_mesh, a2_time_allreduce_mesh},
    {"allreduce_two_phase",
     "all-reduce, two-phase: reduce-scatter then all-gather, two barriers (seed 09)",
     "remote read 2*(P-1)/P*N per rank; 2 barrier rounds; N % (4*P) == 0", one, allreduce_bus,
     a2_check_p_chunks, a2_gen_allreduce_two_phase, a2_card_allreduce_two_phase,
     a2_time_allreduce_two_phase},
    {"allreduce_ring",
     "all-reduce, ring: P-1 reduce-scatter and P-1 all-gather steps, neighbour-only signals",
     "remote read 2*(P-1)/P*N per rank; 2*(P-1) barrier rounds; N % (4*P) == 0", one,
     allreduce_bus, ring_check, a2_gen_allreduce_ring, a2_card_allreduce_ring,
     no_closed_form},
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
