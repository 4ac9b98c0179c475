/* Generators and cards of the all-reduce family (internal to collectives/). */
#ifndef A2_ALLREDUCE_H
#define A2_ALLREDUCE_H

#include "collectives/common.h"

a2_code a2_gen_allreduce_mesh(const a2_coll_params *p, a2_kernel *k, a2_err *err);
void a2_card_allreduce_mesh(const a2_coll_params *p, a2_card *c);
uint64_t a2_time_allreduce_mesh(const a2_coll_params *p, const a2_config *cfg);
/* The mesh split over p->cores > 1 vector cores (allreduce_mesh_cores.c). */
a2_code a2_gen_allreduce_mesh_cores(const a2_coll_params *p, a2_kernel *k, a2_err *err);

a2_code a2_gen_allreduce_two_phase(const a2_coll_params *p, a2_kernel *k, a2_err *err);
void a2_card_allreduce_two_phase(const a2_coll_params *p, a2_card *c);
uint64_t a2_time_allreduce_two_phase(const a2_coll_params *p, const a2_config *cfg);

a2_code a2_gen_allreduce_ring(const a2_coll_params *p, a2_kernel *k, a2_err *err);
void a2_card_allreduce_ring(const a2_coll_params *p, a2_card *c);

#endif
