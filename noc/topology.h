/* Topologies: which link stages exist and which a message from src to dst
 * crosses. Every topology implements the same two functions (a row in the
 * table of noc/topology.c); routing rules are in docs/timing-model.md. */
#ifndef A2_TOPOLOGY_H
#define A2_TOPOLOGY_H

#include <stdint.h>

#include "configs/config.h"
#include "noc/noc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct a2_topo a2_topo;

/* Create the link stages of cfg->topology for nranks ranks in net. */
a2_code a2_topo_build(const a2_config *cfg, uint32_t nranks, a2_noc *net, a2_topo **out,
                      a2_err *err);
void a2_topo_free(a2_topo *t);

/* Number of link stages on the route src -> dst (0 when src == dst). */
uint16_t a2_topo_route_len(const a2_topo *t, uint32_t src, uint32_t dst);

/* Write the stage ids of the route src -> dst into out (route_len entries). */
void a2_topo_route(const a2_topo *t, uint32_t src, uint32_t dst, uint32_t *out);

/* 1 when the route src -> dst crosses NIC ports: two_level between groups,
 * levels above the lowest level (a put/get there is RDMA on the NIC,
 * interconnect.nic.rdma_*); 0 otherwise (also src == dst). */
int a2_topo_via_nic(const a2_topo *t, uint32_t src, uint32_t dst);
/* 1 when some route crosses NIC ports (two_level with more than one group,
 * levels with more than one group of the lowest level). */
int a2_topo_has_nic(const a2_topo *t);
/* The level the route src -> dst crosses: levels, the lowest level whose
 * group holds both (0 .. nlevels - 1); two_level, 0 inside a group and 1
 * between groups; 0 for the other topologies and src == dst. The group
 * sizes per level are a2_config_group_ranks (configs/config.h). */
uint32_t a2_topo_level(const a2_topo *t, uint32_t src, uint32_t dst);

/* 1 when the route src -> dst is one link that no other route crosses, a
 * link of the pair's own: full_mesh, a two_level group, a mesh level 0 of
 * levels, with no link down; 0 otherwise (ring and torus links also carry
 * routes through their ends, a switch's ports are shared, and with a link
 * down routes go through a third NPU). */
int a2_topo_own_link(const a2_topo *t, uint32_t src, uint32_t dst);
/* Whether routes pass through other NPUs over links that other routes
 * also cross (a ring, a torus, of more than three NPUs): then the order in
 * which transfers reach each link decides their times. */
int a2_topo_relays(const a2_topo *t);

const char *a2_topo_name(a2_topology kind);

/* Link faults (cfg->faults; docs/timing-model.md, "Faults"). A degraded
 * link's stage has its bandwidth times the factor; a link that is down is
 * avoided by the routes above where the topology has another way (full
 * mesh, a two_level group and a mesh level 0 of levels: through a third NPU
 * of the group; levels, without one: the ports of level 1; ring: the other
 * direction). Faults name the links between NPUs (not the ports of a
 * switch, of two_level's NICs or of a switch level). a2_topo_build fails (A2_E_INPUT, err->file the
 * fault's flag) for a fault that names no link. */
int a2_topo_has_down_links(const a2_topo *t);
/* 1 when every route s -> d crosses a link that is down (the routes above
 * then give the usual route, over it): *a, *b are the NPUs of the first
 * such link on it. 0 otherwise (always without links down). */
int a2_topo_unroutable(const a2_topo *t, uint32_t s, uint32_t d, int32_t *a, int32_t *b,
                       const a2_noc *net);

#ifdef __cplusplus
}
#endif
#endif
