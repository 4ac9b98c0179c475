#include "collectives/allreduce.h"

uint64_t a2_time_allreduce_mesh(const a2_coll_params *p, const a2_config *cfg) {
  (void)p;
  (void)cfg;
  return 0;
}

uint64_t a2_time_allreduce_two_phase(const a2_coll_params *p, const a2_config *cfg) {
  (void)p;
  (void)cfg;
  return 0;
}
