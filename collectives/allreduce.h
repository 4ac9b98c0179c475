/* Generators and cards of the all-reduce family (internal to collectives/). */
#ifndef A2_ALLREDUCE_H
#define A2_ALLREDUCE_H

#include "collectives/common.h"

A2_DECLARE_COLLECTIVE(allreduce_mesh);
uint64_t a2_time_allreduce_mesh(const a2_coll_params *p, const a2_config *cfg);
A2_DECLARE_COLLECTIVE(allreduce_two_phase);
uint64_t a2_time_allreduce_two_phase(const a2_coll_params *p, const a2_config *cfg);
A2_DECLARE_COLLECTIVE(allreduce_ring);

/* The mesh's context, one core (allreduce_mesh.c) or split over C > 1
 * vector cores (allreduce_mesh_cores.c). */
typedef struct {
  uint32_t P, C;
  uint64_t N;
  uint64_t T;      /* one core: the chunk; C > 1: the 256-element tile */
  uint64_t ntiles; /* C > 1: tiles of T in N */
  uint16_t x, y, data, sig;
  a2_opcode vop;
  a2_tileset tiles;
} a2_mesh_ctx;

a2_code a2_mesh_cores_declare(a2_tb *tb, const a2_coll_params *p, a2_kernel *k, a2_mesh_ctx *c,
                              a2_err *err);
void a2_mesh_cores_body(a2_tb *tb, const a2_mesh_ctx *c, uint32_t me, uint32_t core);

#endif
