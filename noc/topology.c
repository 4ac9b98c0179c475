/* Topology table: each row creates its links and routes over them.
 * Link stage ids are allocated contiguously from `base`, so a route is
 * arithmetic on (src, dst) with no per-pair tables. */
#include "noc/topology.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct topo_row topo_row;

struct a2_topo {
  a2_topology kind;
  const topo_row *row; /* its row of the table (routes are looked up per transfer) */
  uint32_t n;          /* ranks */
  uint32_t base;       /* first link stage id */
  uint32_t g;          /* two_level: group size; torus: width (X) */
  uint32_t gsh;        /* two_level: log2(g) when g is a power of two, else 0 */
  uint32_t nic;        /* two_level: first NIC stage id */
  /* levels: how many, each level's group size in NPUs (the top: n), the
   * first up-port stage of each switch level (its down-ports follow, n
   * later), and whether level 0 is a mesh (its links from `base`, as
   * two_level's groups of g = gsz[0]) */
  uint32_t nl, gsz[A2_MAX_LEVELS], port[A2_MAX_LEVELS];
  int mesh0;
  /* faults (configs/faults.h): the link stages that are down, how many
   * links each link fault matched, a route's scratch space (n entries) */
  const a2_faults *f;
  uint32_t *down, ndown, down_cap;
  uint32_t matched[A2_MAX_FAULTS];
  uint32_t *scratch;
};

struct topo_row {
  a2_topology kind;
  const char *name;
  a2_code (*build)(const a2_config *cfg, a2_topo *t, a2_noc *net, a2_err *err);
  uint16_t (*route_len)(const a2_topo *t, uint32_t src, uint32_t dst);
  void (*route)(const a2_topo *t, uint32_t src, uint32_t dst, uint32_t *out);
  int own_links; /* a one-link route crosses a link no other route crosses */
  int relays;    /* routes pass through other NPUs, over links that other routes cross */
};

/* A link stage from NPU a to NPU b, at its fault's bandwidth factor; a
 * link that is down keeps its stage (routes stay arithmetic) and is listed
 * in t->down. */
static a2_code add_link_bw(a2_topo *t, a2_noc *net, uint64_t bw0, uint64_t lat, int32_t a,
                           int32_t b, uint32_t *first, a2_err *err) {
  uint32_t id;
  double fx = a2_faults_link(t->f, a, b);
  uint64_t bw = fx > 0 ? a2_faults_scale(bw0, fx) : bw0;
  a2_code rc = a2_noc_add_stage(net, A2_STAGE_LINK, bw, lat, a, b, &id, err);
  if (rc == A2_OK && first && *first == UINT32_MAX) *first = id;
  if (rc || !t->f) return rc;
  for (uint32_t i = 0; i < t->f->nlinks; i++) {
    const a2_link_fault *l = &t->f->links[i];
    if (((int32_t)l->a == a && (int32_t)l->b == b) || ((int32_t)l->a == b && (int32_t)l->b == a))
      t->matched[i]++;
  }
  if (fx == 0) {
    if (t->ndown == t->down_cap) {
      uint32_t cap = t->down_cap ? 2 * t->down_cap : 8;
      uint32_t *v = realloc(t->down, cap * sizeof *v);
      if (!v) return a2_err_set(err, A2_E_NOMEM, NULL, 0, 0, "out of memory for link faults");
      t->down = v;
      t->down_cap = cap;
    }
    t->down[t->ndown++] = id;
  }
  return A2_OK;
}

static a2_code add_link(a2_topo *t, a2_noc *net, const a2_config *cfg, uint64_t lat, int32_t a,
                        int32_t b, uint32_t *first, a2_err *err) {
  return add_link_bw(t, net, cfg->link_bw, lat, a, b, first, err);
}

/* Full mesh: one link per ordered pair; link (s,d) is s*(n-1) + index of d
 * among the others. */
static a2_code mesh_build(const a2_config *cfg, a2_topo *t, a2_noc *net, a2_err *err) {
  t->base = UINT32_MAX;
  for (uint32_t s = 0; s < t->n; s++)
    for (uint32_t d = 0; d < t->n; d++)
      if (s != d) {
        a2_code rc = add_link(t, net, cfg, cfg->link_lat_ps, (int32_t)s, (int32_t)d, &t->base, err);
        if (rc) return rc;
      }
  return A2_OK;
}
static uint16_t mesh_len(const a2_topo *t, uint32_t s, uint32_t d) {
  (void)t;
  return s == d ? 0 : 1;
}
static void mesh_route(const a2_topo *t, uint32_t s, uint32_t d, uint32_t *out) {
  out[0] = t->base + s * (t->n - 1) + (d < s ? d : d - 1);
}

/* Ring: link i (i -> i+1, "clockwise") and link n+i (i -> i-1). The
 * shorter direction is taken; a tie goes clockwise. */
static a2_code ring_build(const a2_config *cfg, a2_topo *t, a2_noc *net, a2_err *err) {
  t->base = UINT32_MAX;
  for (uint32_t i = 0; i < t->n; i++) {
    a2_code rc = add_link(t, net, cfg, cfg->link_lat_ps, (int32_t)i, (int32_t)((i + 1) % t->n),
                          &t->base, err);
    if (rc) return rc;
  }
  for (uint32_t i = 0; i < t->n; i++) {
    a2_code rc = add_link(t, net, cfg, cfg->link_lat_ps, (int32_t)i,
                          (int32_t)((i + t->n - 1) % t->n), &t->base, err);
    if (rc) return rc;
  }
  return A2_OK;
}
static uint16_t ring_len(const a2_topo *t, uint32_t s, uint32_t d) {
  uint32_t cw = (d + t->n - s) % t->n, ccw = t->n - cw;
  return (uint16_t)(cw == 0 ? 0 : (cw <= ccw ? cw : ccw));
}
static void ring_route(const a2_topo *t, uint32_t s, uint32_t d, uint32_t *out) {
  uint32_t cw = (d + t->n - s) % t->n, ccw = t->n - cw;
  if (cw <= ccw)
    for (uint32_t h = 0; h < cw; h++) out[h] = t->base + (s + h) % t->n;
  else
    for (uint32_t h = 0; h < ccw; h++) out[h] = t->base + t->n + (s + t->n - h) % t->n;
}

/* Switch: up-link i (rank i -> switch, carries the switch latency) and
 * down-link n+i (switch -> rank i). Every remote message takes two hops. */
static a2_code switch_build(const a2_config *cfg, a2_topo *t, a2_noc *net, a2_err *err) {
  t->base = UINT32_MAX;
  for (uint32_t i = 0; i < t->n; i++) {
    a2_code rc =
        add_link(t, net, cfg, cfg->link_lat_ps + cfg->switch_lat_ps, (int32_t)i, -1, &t->base, err);
    if (rc) return rc;
  }
  for (uint32_t i = 0; i < t->n; i++) {
    a2_code rc = add_link(t, net, cfg, cfg->link_lat_ps, -1, (int32_t)i, &t->base, err);
    if (rc) return rc;
  }
  return A2_OK;
}
static uint16_t switch_len(const a2_topo *t, uint32_t s, uint32_t d) {
  (void)t;
  return s == d ? 0 : 2;
}
static void switch_route(const a2_topo *t, uint32_t s, uint32_t d, uint32_t *out) {
  out[0] = t->base + s;
  out[1] = t->base + t->n + d;
}

/* Two-level (A2 servers over RoCE, A3 super-node): groups of g ranks
 * (rank / g), a full mesh of links inside each group, and per rank a NIC
 * up-link to a switch (NIC latency + switch latency) and a down-link
 * (NIC latency). Inside a group: the direct link; between groups: up(src),
 * down(dst). */
/* (a shift for the usual power-of-two group: routes are computed per transfer) */
static uint32_t group_base(const a2_topo *t, uint32_t r) {
  return t->gsh ? r >> t->gsh << t->gsh : r / t->g * t->g;
}
static uint32_t group_len(const a2_topo *t, uint32_t r) {
  uint32_t b = group_base(t, r);
  return b + t->g <= t->n ? t->g : t->n - b; /* the last group may be partial */
}
static a2_code two_level_build(const a2_config *cfg, a2_topo *t, a2_noc *net, a2_err *err) {
  t->g = cfg->group_size;
  t->gsh = 0;
  for (uint32_t sh = 1; sh < 32; sh++)
    if (t->g == 1u << sh) t->gsh = sh;
  t->base = UINT32_MAX;
  /* intra-group links, grouped by source: source s's links start at
   * base + (s - group_base) ... laid out as s * (g - 1) within the group */
  for (uint32_t s = 0; s < t->n; s++) {
    uint32_t b = group_base(t, s), len = group_len(t, s);
    for (uint32_t d = b; d < b + len; d++)
      if (d != s) {
        a2_code rc = add_link(t, net, cfg, cfg->link_lat_ps, (int32_t)s, (int32_t)d, &t->base, err);
        if (rc) return rc;
      }
  }
  t->nic = UINT32_MAX;
  for (uint32_t i = 0; i < t->n; i++) {
    uint32_t id;
    a2_code rc = a2_noc_add_stage(net, A2_STAGE_LINK, cfg->nic_bw,
                                  cfg->nic_lat_ps + cfg->switch_lat_ps, (int32_t)i, -1, &id, err);
    if (rc) return rc;
    if (t->nic == UINT32_MAX) t->nic = id;
  }
  for (uint32_t i = 0; i < t->n; i++) {
    uint32_t id;
    a2_code rc = a2_noc_add_stage(net, A2_STAGE_LINK, cfg->nic_bw, cfg->nic_lat_ps, -1, (int32_t)i,
                                  &id, err);
    if (rc) return rc;
  }
  if (t->base == UINT32_MAX) t->base = t->nic; /* groups of one: no intra links */
  return A2_OK;
}
static uint16_t two_level_len(const a2_topo *t, uint32_t s, uint32_t d) {
  if (s == d) return 0;
  return group_base(t, s) == group_base(t, d) ? 1 : 2;
}
static void two_level_route(const a2_topo *t, uint32_t s, uint32_t d, uint32_t *out) {
  uint32_t b = group_base(t, s);
  if (b == group_base(t, d)) {
    /* every full group before s's contributes g(g-1) links; s's own links
     * follow the earlier members' (len - 1) each */
    uint32_t len = group_len(t, s), i = s - b, j = d - b;
    out[0] = t->base + b * (t->g - 1) + i * (len - 1) + (j < i ? j : j - 1);
  } else {
    out[0] = t->nic + s;
    out[1] = t->nic + t->n + d;
  }
}

/* Levels (docs/timing-model.md, "Levels"): groups of gsz[i] consecutive
 * NPUs at level i. A mesh level 0 is laid out as two_level's groups (g =
 * gsz[0]); a switch level i has per NPU an up-port (port[i] + r: its
 * latency's first half plus the switch latency) and a down-port (port[i] +
 * n + r: the second half). A route crosses only the lowest level whose
 * group holds both ends. */
static void set_group(a2_topo *t, uint32_t g) {
  t->g = g;
  t->gsh = 0;
  for (uint32_t sh = 1; sh < 32; sh++)
    if (t->g == 1u << sh) t->gsh = sh;
}
static a2_code levels_build(const a2_config *cfg, a2_topo *t, a2_noc *net, a2_err *err) {
  t->nl = cfg->nlevels;
  uint64_t g = 1;
  for (uint32_t i = 0; i < t->nl; i++) {
    g *= cfg->levels[i].fanout ? cfg->levels[i].fanout : 1;
    t->gsz[i] = i + 1 == t->nl || g >= t->n ? t->n : (uint32_t)g;
    if (g > t->n) g = t->n;
  }
  set_group(t, t->gsz[0]);
  t->mesh0 = cfg->levels[0].kind == A2_LEVEL_MESH;
  t->base = UINT32_MAX;
  if (t->mesh0)
    for (uint32_t s = 0; s < t->n; s++) {
      uint32_t b = group_base(t, s), len = group_len(t, s);
      for (uint32_t d = b; d < b + len; d++)
        if (d != s) {
          a2_code rc = add_link_bw(t, net, cfg->levels[0].bw, cfg->levels[0].lat_ps, (int32_t)s,
                                   (int32_t)d, &t->base, err);
          if (rc) return rc;
        }
    }
  for (uint32_t i = t->mesh0 ? 1 : 0; i < t->nl; i++) {
    const a2_level *l = &cfg->levels[i];
    uint64_t up = l->lat_ps - l->lat_ps / 2 + l->switch_lat_ps, down = l->lat_ps / 2;
    t->port[i] = UINT32_MAX;
    for (uint32_t dir = 0; dir < 2; dir++)
      for (uint32_t r = 0; r < t->n; r++) {
        uint32_t id;
        a2_code rc = a2_noc_add_stage(net, A2_STAGE_LINK, l->bw, dir ? down : up,
                                      dir ? -1 : (int32_t)r, dir ? (int32_t)r : -1, &id, err);
        if (rc) return rc;
        if (t->port[i] == UINT32_MAX) t->port[i] = id;
      }
  }
  if (t->base == UINT32_MAX) t->base = t->port[t->mesh0 ? 1 : 0];
  return A2_OK;
}
/* The lowest level whose group holds s and d. */
static uint32_t level_of(const a2_topo *t, uint32_t s, uint32_t d) {
  if (group_base(t, s) == group_base(t, d)) return 0;
  uint32_t i = 1;
  while (i + 1 < t->nl && s / t->gsz[i] != d / t->gsz[i]) i++;
  return i;
}
static uint16_t levels_len(const a2_topo *t, uint32_t s, uint32_t d) {
  if (s == d) return 0;
  return t->mesh0 && level_of(t, s, d) == 0 ? 1 : 2;
}
static void levels_route(const a2_topo *t, uint32_t s, uint32_t d, uint32_t *out) {
  uint32_t L = level_of(t, s, d);
  if (t->mesh0 && L == 0) {
    two_level_route(t, s, d, out); /* same layout, and s and d share a group */
    return;
  }
  out[0] = t->port[L] + s;
  out[1] = t->port[L] + t->n + d;
}

/* 2-D torus of X = width columns and Y = n / X rows; rank r at (r % X, r / X).
 * Four out-links per rank: +x, -x, +y, -y (id base + 4r + dir). Routing is
 * dimension order: x first, then y, each the shorter way round (a tie goes
 * +). */
static a2_code torus_build(const a2_config *cfg, a2_topo *t, a2_noc *net, a2_err *err) {
  t->g = cfg->torus_width;
  t->base = UINT32_MAX;
  uint32_t X = t->g, Y = t->n / X;
  for (uint32_t r = 0; r < t->n; r++) {
    uint32_t x = r % X, y = r / X;
    uint32_t nb[4] = {y * X + (x + 1) % X, y * X + (x + X - 1) % X, (y + 1) % Y * X + x,
                      (y + Y - 1) % Y * X + x};
    for (int d = 0; d < 4; d++) {
      a2_code rc =
          add_link(t, net, cfg, cfg->link_lat_ps, (int32_t)r, (int32_t)nb[d], &t->base, err);
      if (rc) return rc;
    }
  }
  return A2_OK;
}
/* Steps and direction along one ring of size m from a to b. */
static uint32_t ring_steps(uint32_t a, uint32_t b, uint32_t m, int *plus) {
  uint32_t fwd = (b + m - a) % m, back = (m - fwd) % m;
  *plus = fwd <= back;
  return fwd <= back ? fwd : back;
}
static uint16_t torus_len(const a2_topo *t, uint32_t s, uint32_t d) {
  uint32_t X = t->g, Y = t->n / X;
  int plus;
  return (uint16_t)(ring_steps(s % X, d % X, X, &plus) + ring_steps(s / X, d / X, Y, &plus));
}
static void torus_route(const a2_topo *t, uint32_t s, uint32_t d, uint32_t *out) {
  uint32_t X = t->g, Y = t->n / X, x = s % X, y = s / X, h = 0;
  int plus;
  for (uint32_t k = ring_steps(x, d % X, X, &plus); k > 0; k--) {
    out[h++] = t->base + 4 * (y * X + x) + (plus ? 0 : 1);
    x = plus ? (x + 1) % X : (x + X - 1) % X;
  }
  for (uint32_t k = ring_steps(y, d / X, Y, &plus); k > 0; k--) {
    out[h++] = t->base + 4 * (y * X + x) + (plus ? 2 : 3);
    y = plus ? (y + 1) % Y : (y + Y - 1) % Y;
  }
}

static const topo_row topo_table[] = {
    {A2_TOPO_FULL_MESH, "full_mesh", mesh_build, mesh_len, mesh_route, 1, 0},
    {A2_TOPO_RING, "ring", ring_build, ring_len, ring_route, 0, 1},
    {A2_TOPO_SWITCH, "switch", switch_build, switch_len, switch_route, 0, 0},
    {A2_TOPO_TWO_LEVEL, "two_level", two_level_build, two_level_len, two_level_route, 1, 0},
    {A2_TOPO_TORUS, "torus", torus_build, torus_len, torus_route, 0, 1},
    {A2_TOPO_LEVELS, "levels", levels_build, levels_len, levels_route, 1, 0},
};

static const topo_row *row_of(a2_topology k) {
  for (size_t i = 0; i < sizeof topo_table / sizeof topo_table[0]; i++)
    if (topo_table[i].kind == k) return &topo_table[i];
  return NULL;
}

const char *a2_topo_name(a2_topology kind) {
  const topo_row *r = row_of(kind);
  return r ? r->name : "?";
}

a2_code a2_topo_build(const a2_config *cfg, uint32_t nranks, a2_noc *net, a2_topo **out,
                      a2_err *err) {
  const topo_row *r = row_of(cfg->topology);
  if (!r) return a2_err_set(err, A2_E_INTERNAL, NULL, 0, 0, "unknown topology %d", cfg->topology);
  a2_topo *t = calloc(1, sizeof *t);
  if (!t) return a2_err_set(err, A2_E_NOMEM, NULL, 0, 0, "out of memory for the topology");
  t->kind = cfg->topology;
  t->row = r;
  t->n = nranks;
  t->base = 0;
  t->f = cfg->faults;
  a2_code rc = nranks > 1 ? r->build(cfg, t, net, err) : A2_OK;
  for (uint32_t i = 0; rc == A2_OK && t->f && i < t->f->nlinks; i++)
    if (!t->matched[i])
      rc = a2_err_set(err, A2_E_INPUT, t->f->links[i].flag, 0, 0,
                      "'%s': no link joins NPU %u and NPU %u in this %s topology of %u NPUs "
                      "(docs/timing-model.md, \"Topologies\")",
                      t->f->links[i].spec, t->f->links[i].a, t->f->links[i].b, r->name, nranks);
  if (rc == A2_OK && t->ndown) {
    t->scratch = malloc((size_t)(nranks + 2) * sizeof *t->scratch);
    if (!t->scratch) rc = a2_err_set(err, A2_E_NOMEM, NULL, 0, 0, "out of memory for routes");
  }
  if (rc) {
    a2_topo_free(t);
    return rc;
  }
  *out = t;
  return A2_OK;
}

void a2_topo_free(a2_topo *t) {
  if (!t) return;
  free(t->down);
  free(t->scratch);
  free(t);
}

/* ---- routing around links that are down (docs/timing-model.md, "Faults") ---- */

static int is_down(const a2_topo *t, uint32_t id) {
  for (uint32_t i = 0; i < t->ndown; i++)
    if (t->down[i] == id) return 1;
  return 0;
}

static int path_up(const a2_topo *t, const uint32_t *p, uint32_t len) {
  for (uint32_t h = 0; h < len; h++)
    if (is_down(t, p[h])) return 0;
  return 1;
}

/* The route s -> d avoiding links that are down, into out (room for n + 2
 * ids); returns its length. *ok = 0 when there is none: out is then the
 * usual route. Full mesh (and a two_level group's mesh): the direct link,
 * else through the lowest-numbered third NPU of the group whose two links
 * are up; ring: the shorter direction, else the other one. */
static uint16_t fault_route(const a2_topo *t, uint32_t s, uint32_t d, uint32_t *out, int *ok) {
  uint16_t len = t->row->route_len(t, s, d);
  t->row->route(t, s, d, out);
  *ok = 1;
  if (path_up(t, out, len)) return len;
  int group_mesh = t->kind == A2_TOPO_FULL_MESH ||
                   ((t->kind == A2_TOPO_TWO_LEVEL || t->kind == A2_TOPO_LEVELS) && len == 1);
  if (group_mesh) {
    uint32_t b = t->kind == A2_TOPO_FULL_MESH ? 0 : group_base(t, s);
    uint32_t glen = t->kind == A2_TOPO_FULL_MESH ? t->n : group_len(t, s);
    for (uint32_t m = b; m < b + glen; m++) {
      if (m == s || m == d) continue;
      uint32_t v[2];
      t->row->route(t, s, m, &v[0]);
      t->row->route(t, m, d, &v[1]);
      if (!is_down(t, v[0]) && !is_down(t, v[1])) {
        out[0] = v[0];
        out[1] = v[1];
        return 2;
      }
    }
    if (t->kind == A2_TOPO_LEVELS && t->nl > 1) { /* no third NPU: the level above's ports */
      out[0] = t->port[1] + s;
      out[1] = t->port[1] + t->n + d;
      return 2;
    }
  } else if (t->kind == A2_TOPO_RING) {
    uint32_t cw = (d + t->n - s) % t->n, ccw = t->n - cw, k = 0;
    if (cw <= ccw) /* the usual route went clockwise: go the other way */
      for (uint32_t h = 0; h < ccw; h++) out[k++] = t->base + t->n + (s + t->n - h) % t->n;
    else
      for (uint32_t h = 0; h < cw; h++) out[k++] = t->base + (s + h) % t->n;
    if (path_up(t, out, k)) return (uint16_t)k;
  }
  *ok = 0;
  len = t->row->route_len(t, s, d);
  t->row->route(t, s, d, out);
  return len;
}

uint16_t a2_topo_route_len(const a2_topo *t, uint32_t s, uint32_t d) {
  if (!t->ndown) return t->row->route_len(t, s, d);
  int ok;
  return fault_route(t, s, d, t->scratch, &ok);
}

void a2_topo_route(const a2_topo *t, uint32_t s, uint32_t d, uint32_t *out) {
  if (!t->ndown) {
    t->row->route(t, s, d, out);
    return;
  }
  int ok;
  uint16_t len = fault_route(t, s, d, t->scratch, &ok);
  for (uint16_t h = 0; h < len; h++) out[h] = t->scratch[h];
}

int a2_topo_own_link(const a2_topo *t, uint32_t s, uint32_t d) {
  return t->row->own_links && !t->ndown && s != d && t->row->route_len(t, s, d) == 1;
}

int a2_topo_relays(const a2_topo *t) {
  return t->row->relays && t->n > 3;
}

int a2_topo_has_down_links(const a2_topo *t) {
  return t->ndown != 0;
}

int a2_topo_unroutable(const a2_topo *t, uint32_t s, uint32_t d, int32_t *a, int32_t *b,
                       const a2_noc *net) {
  if (!t->ndown || s == d) return 0;
  int ok;
  uint16_t len = fault_route(t, s, d, t->scratch, &ok);
  if (ok) return 0;
  for (uint16_t h = 0; h < len; h++)
    if (is_down(t, t->scratch[h])) {
      a2_noc_stage_kind(net, t->scratch[h], a, b);
      break;
    }
  return 1;
}

int a2_topo_via_nic(const a2_topo *t, uint32_t s, uint32_t d) {
  return (t->kind == A2_TOPO_TWO_LEVEL || t->kind == A2_TOPO_LEVELS) && t->n > 1 && s != d &&
         group_base(t, s) != group_base(t, d);
}

int a2_topo_has_nic(const a2_topo *t) {
  return (t->kind == A2_TOPO_TWO_LEVEL || t->kind == A2_TOPO_LEVELS) && t->n > 1 && t->n > t->g;
}

uint32_t a2_topo_level(const a2_topo *t, uint32_t s, uint32_t d) {
  if (s == d || t->n <= 1) return 0;
  if (t->kind == A2_TOPO_LEVELS) return level_of(t, s, d);
  if (t->kind == A2_TOPO_TWO_LEVEL) return group_base(t, s) != group_base(t, d);
  return 0;
}
