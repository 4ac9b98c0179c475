/* The ranks per server a hierarchical collective assumes, from the config:
 * the one place that reads it (collective.h, a2_coll_group). */
#include "collectives/collective.h"

uint32_t a2_coll_group(const a2_config *cfg, uint32_t P) {
  if (cfg->topology == A2_TOPO_TWO_LEVEL && cfg->group_size && cfg->group_size < P)
    return cfg->group_size;
  return P; /* one server: every other topology, or P within one group */
}
