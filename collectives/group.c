/* The ranks per server a hierarchical collective assumes, from the config:
 * the one place that reads it (collective.h, a2_coll_group, a2_coll_node).
 * A server is a group of the level below the top: its inter-server step
 * crosses the top level (two_level: the switch; levels: e.g. RoCE between
 * super-nodes). A three-level collective's server is a group of the level
 * below that, and the group above it its super-node. */
#include "collectives/collective.h"

uint32_t a2_coll_group(const a2_config *cfg, uint32_t P) {
  uint32_t n = a2_config_nlevels(cfg);
  if (n < 2) return P; /* one level: one server */
  uint32_t g = a2_config_group_ranks(cfg, n - 2);
  return g && g < P ? g : P; /* P within one group: one server */
}

uint32_t a2_coll_node(const a2_config *cfg, uint32_t P) {
  uint32_t n = a2_config_nlevels(cfg);
  if (n < 3) return 0;
  uint32_t g = a2_config_group_ranks(cfg, n - 3);
  return g && g < a2_coll_group(cfg, P) ? g : 0;
}

void a2_coll_set_servers(const a2_config *cfg, a2_coll_params *p) {
  p->group = a2_coll_group(cfg, p->nranks);
  p->node = a2_coll_node(cfg, p->nranks);
}
