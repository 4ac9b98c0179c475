/* The config key table and the per-key helpers built on it (config_keys.h).
 * Defaults are written as text in the same spelling as the shipped
 * configs/a2-8p-hccs.yaml, where each one cites its source; a test loads
 * that file and compares it field by field with a2_config_default. */
#include "configs/config_keys.h"

#include <stdio.h>
#include <string.h>

#define FIELD(f) offsetof(a2_config, f), (unsigned)sizeof(((a2_config *)0)->f)
/* A quantity: kind is an a2_unit_kind, bounds in its base unit. */
#define KEY(path, kind, min, max, f, def) \
  { path, kind, min, max, FIELD(f), def, NULL }
/* An enumerated key: names is a NULL-terminated array indexed by the value. */
#define NAMES_LAST(names) (sizeof names / sizeof names[0] - 2)
#define ENUM_KEY(path, f, def, names) \
  { path, A2_KEY_ENUM, 0, NAMES_LAST(names), FIELD(f), def, names }
#define U32 4294967295ull
#define ANY UINT64_MAX
#define KIB 1024ull
#define MIB (1024ull * 1024ull)
/* Times stop at 1 s so that sums of many latencies in the model stay far
 * from uint64 overflow; the clock stops at 1 THz so a cycle is >= 1 ps. */
#define ONE_S 1000000000000ull
#define ONE_THZ 1000000000000ull

/* The names of each enumerated key, indexed by its enum. */
static const char *const topology_names[] = {"full_mesh", "ring",   "switch", "two_level",
                                             "torus",     "levels", NULL};
_Static_assert(NAMES_LAST(topology_names) == A2_TOPO_LEVELS, "a name per a2_topology");
_Static_assert(sizeof(a2_topology) == 4, "topology is stored as a 4-byte field");
static const char *const timing_names[] = {"packet", "reservation", "ordered", NULL};
_Static_assert(NAMES_LAST(timing_names) == A2_TIMING_ORDERED, "a name per a2_timing");
_Static_assert(sizeof(a2_timing) == 4, "timing is stored as a 4-byte field");
static const char *const device_names[] = {"a2", "a3", NULL};
_Static_assert(NAMES_LAST(device_names) == A2_DEVICE_A3, "a name per a2_device");
_Static_assert(sizeof(a2_device) == 4, "device is stored as a 4-byte field");
static const char *const overlap_names[] = {"none", "puts", NULL};
_Static_assert(NAMES_LAST(overlap_names) == A2_OVERLAP_PUTS, "a name per a2_launch_overlap");
_Static_assert(sizeof(a2_launch_overlap) == 4, "launch_overlap is stored as a 4-byte field");
const char *const a2_engine_names[] = {"rdma", "sdma", NULL};
_Static_assert(NAMES_LAST(a2_engine_names) == A2_ENGINE_SDMA, "a name per a2_engine");
_Static_assert(sizeof(a2_engine) == 4, "engine is stored as a 4-byte field");

const a2_config_key a2_config_keys[] = {
    /* which chip the config describes: `config check` lists what an a3
     * config leaves at the A2 defaults (configs/provenance.c) */
    ENUM_KEY("chip.device", device, "a2", device_names),
    KEY("chip.clock", A2_UNIT_FREQUENCY, 1, ONE_THZ, clock_hz, "1.8GHz"),
    KEY("chip.vector_cores", A2_UNIT_COUNT, 1, 1024, vector_cores, "48"),
    KEY("chip.ub_size", A2_UNIT_BYTES, KIB, ANY, ub_bytes, "192KiB"),
    KEY("chip.vector.bytes_per_cycle", A2_UNIT_COUNT, 1, U32, vec_bytes_per_cycle, "121"),
    KEY("chip.vector.startup_cycles", A2_UNIT_COUNT, 0, U32, vec_startup_cycles, "24"),
    KEY("chip.mte.gm_to_ub", A2_UNIT_BANDWIDTH, 1, ANY, mte_in_bw, "230.4GB/s"),
    KEY("chip.mte.ub_to_gm", A2_UNIT_BANDWIDTH, 1, ANY, mte_out_bw, "188.5GiB/s"),
    KEY("chip.mte.latency", A2_UNIT_TIME, 0, ONE_S, mte_lat_ps, "0ns"),
    /* Multiples of 32 B: the cross-field check in a2_config_validate. */
    KEY("chip.mte.remote_read_window", A2_UNIT_BYTES, 32, ANY, rd_window_bytes, "192KiB"),
    KEY("chip.mte.remote_write_window", A2_UNIT_BYTES, 32, ANY, wr_window_bytes, "8KiB"),
    KEY("chip.mte.remote_atomic_window", A2_UNIT_BYTES, 32, ANY, atomic_window_bytes, "1888B"),
    KEY("chip.mte.remote_store_bandwidth", A2_UNIT_BANDWIDTH, 1, ANY, store_port_bw, "19.5GB/s"),
    /* cube (AIC) cores: buffers, the cube's rate, its pipes' rates
     * (docs/timing-model.md, "Cube cores") */
    KEY("chip.cube_cores", A2_UNIT_COUNT, 0, 1024, cube_cores, "24"),
    KEY("chip.cube.l1_size", A2_UNIT_BYTES, KIB, ANY, l1_bytes, "512KiB"),
    KEY("chip.cube.l0a_size", A2_UNIT_BYTES, KIB, ANY, l0a_bytes, "64KiB"),
    KEY("chip.cube.l0b_size", A2_UNIT_BYTES, KIB, ANY, l0b_bytes, "64KiB"),
    KEY("chip.cube.l0c_size", A2_UNIT_BYTES, KIB, ANY, l0c_bytes, "128KiB"),
    KEY("chip.cube.fp16_macs_per_cycle", A2_UNIT_COUNT, 1, U32, cube_fp16_macs, "4096"),
    KEY("chip.cube.startup_cycles", A2_UNIT_COUNT, 0, U32, cube_startup_cycles, "0"),
    KEY("chip.cube.gm_to_l1", A2_UNIT_BANDWIDTH, 1, ANY, gm_to_l1_bw, "135GiB/s"),
    KEY("chip.cube.l1_to_l0a", A2_UNIT_BANDWIDTH, 1, ANY, l1_to_l0a_bw, "441GiB/s"),
    KEY("chip.cube.l1_to_l0b", A2_UNIT_BANDWIDTH, 1, ANY, l1_to_l0b_bw, "220.5GiB/s"),
    KEY("chip.cube.l0c_to_gm", A2_UNIT_BANDWIDTH, 1, ANY, l0c_to_gm_bw, "70GiB/s"),
    KEY("chip.l2.bandwidth", A2_UNIT_BANDWIDTH, 1, ANY, l2_bw, "4TB/s"),
    KEY("chip.l2.latency", A2_UNIT_TIME, 0, ONE_S, l2_lat_ps, "0ns"),
    KEY("chip.hbm.bandwidth", A2_UNIT_BANDWIDTH, 1, ANY, hbm_bw, "1.6TB/s"),
    KEY("chip.hbm.latency", A2_UNIT_TIME, 0, ONE_S, hbm_lat_ps, "115ns"),
    KEY("chip.window_size", A2_UNIT_BYTES, 4 * KIB, ANY, window_bytes, "256MiB"),
    /* put/get: each rank's DMA queues, a per-descriptor launch and the
     * engine's rates (docs/timing-model.md, "DMA engines") */
    KEY("chip.sdma.queues", A2_UNIT_COUNT, 1, 1024, sdma_queues, "8"),
    KEY("chip.sdma.launch", A2_UNIT_TIME, 0, ONE_S, sdma_launch_ps, "1us"),
    KEY("chip.sdma.write_bandwidth", A2_UNIT_BANDWIDTH, 1, ANY, sdma_write_bw, "19.5GB/s"),
    KEY("chip.sdma.read_bandwidth", A2_UNIT_BANDWIDTH, 1, ANY, sdma_read_bw, "27.1GB/s"),
    KEY("chip.sdma.local_bandwidth", A2_UNIT_BANDWIDTH, 1, ANY, sdma_local_bw, "77GB/s"),
    ENUM_KEY("chip.sdma.launch_overlap", sdma_overlap, "none", overlap_names),
    ENUM_KEY("interconnect.topology", topology, "full_mesh", topology_names),
    KEY("interconnect.ranks", A2_UNIT_COUNT, 1, 1048576, ranks, "8"),
    KEY("interconnect.link.bandwidth", A2_UNIT_BANDWIDTH, 1, ANY, link_bw, "28GB/s"),
    KEY("interconnect.link.latency", A2_UNIT_TIME, 0, ONE_S, link_lat_ps, "155ns"),
    KEY("interconnect.packet_size", A2_UNIT_BYTES, 32, 16 * MIB, packet_bytes, "4KiB"),
    KEY("interconnect.switch_latency", A2_UNIT_TIME, 0, ONE_S, switch_lat_ps, "100ns"),
    /* Upper bound packet_size is the cross-field check in a2_config_validate. */
    KEY("interconnect.control_message_size", A2_UNIT_BYTES, 4, 16 * MIB, ctrl_bytes, "64B"),
    /* two_level: servers of group_size NPUs, full mesh inside, one NIC per NPU
     * to a switch (docs/sources.md: between servers RoCE 200 Gb/s per NPU, ~1.5 us) */
    KEY("interconnect.group_size", A2_UNIT_COUNT, 1, 1048576, group_size, "8"),
    KEY("interconnect.nic.bandwidth", A2_UNIT_BANDWIDTH, 1, ANY, nic_bw, "25GB/s"),
    KEY("interconnect.nic.latency", A2_UNIT_TIME, 0, ONE_S, nic_lat_ps, "1.5us"),
    /* two_level, between groups: a put/get is an RDMA message on the NIC */
    KEY("interconnect.nic.rdma_launch", A2_UNIT_TIME, 0, ONE_S, rdma_launch_ps, "0.11us"),
    KEY("interconnect.nic.rdma_bandwidth", A2_UNIT_BANDWIDTH, 1, ANY, rdma_bw, "23.8GB/s"),
    /* two_level, between groups: RDMA on the NIC, or the SDMA engines (A3 UB) */
    ENUM_KEY("interconnect.nic.engine", nic_engine, "rdma", a2_engine_names),
    /* torus: torus_width x (ranks / torus_width) */
    KEY("interconnect.torus_width", A2_UNIT_COUNT, 1, 1048576, torus_width, "4"),
    /* How the network times packets: exact per-packet FIFO, or per-transfer
     * reservations (docs/config.md, docs/timing-model.md). */
    ENUM_KEY("interconnect.timing", timing, "packet", timing_names),
};
const unsigned a2_config_nkeys = sizeof a2_config_keys / sizeof a2_config_keys[0];
_Static_assert(sizeof a2_config_keys / sizeof a2_config_keys[0] <= A2_CONFIG_MAX_KEYS,
               "raise A2_CONFIG_MAX_KEYS");

typedef struct {
  char *out;
  size_t size, used;
  int count;
} list;

static void list_add(list *l, const char *s, size_t n, const char *sep) {
  if (l->used >= l->size) return;
  int w = snprintf(l->out + l->used, l->size - l->used, "%s%.*s", l->count ? sep : "", (int)n, s);
  if (w > 0) l->used += (size_t)w;
  l->count++;
}

static const char *last_segment(const char *path) {
  const char *dot = strrchr(path, '.');
  return dot ? dot + 1 : path;
}

const a2_config_key *a2_config_key_find(const char *path) {
  for (unsigned i = 0; i < a2_config_nkeys; i++)
    if (strcmp(a2_config_keys[i].path, path) == 0) return &a2_config_keys[i];
  return NULL;
}

/* If path is below prefix ("" = top), the length of prefix plus its dot. */
static size_t under(const char *path, const char *prefix) {
  size_t n = strlen(prefix);
  if (n == 0) return 0;
  if (strncmp(path, prefix, n) != 0 || path[n] != '.') return (size_t)-1;
  return n + 1;
}

int a2_config_key_is_section(const char *path) {
  if (!path[0]) return 1;
  for (unsigned i = 0; i < a2_config_nkeys; i++)
    if (under(a2_config_keys[i].path, path) != (size_t)-1) return 1;
  return 0;
}

uint64_t a2_key_read(const void *base, const a2_config_key *k) {
  const char *p = (const char *)base + k->offset;
  if (k->width == 4) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
  }
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

void a2_key_write(void *base, const a2_config_key *k, uint64_t v) {
  char *p = (char *)base + k->offset;
  if (k->width == 4) {
    uint32_t w = (uint32_t)v; /* bounds (<= U32) were checked by the caller */
    memcpy(p, &w, 4);
  } else {
    memcpy(p, &v, 8);
  }
}

uint64_t a2_config_key_get(const a2_config *cfg, const a2_config_key *k) {
  return a2_key_read(cfg, k);
}

void a2_config_key_put(a2_config *cfg, const a2_config_key *k, uint64_t v) {
  a2_key_write(cfg, k, v);
}

static void format_bound(const a2_config_key *k, uint64_t v, char *out, size_t n) {
  if (k->kind == A2_KEY_ENUM)
    snprintf(out, n, "%llu", (unsigned long long)v);
  else
    a2_format_quantity(v, (a2_unit_kind)k->kind, out, n);
}

void a2_config_key_names(const a2_config_key *k, char *out, size_t out_size) {
  list l = {out, out_size, 0, 0};
  out[0] = 0;
  if (k->kind != A2_KEY_ENUM) return;
  for (const char *const *name = k->names; *name; name++) list_add(&l, *name, strlen(*name), ", ");
}

/* "unknown timing; expected one of packet, reservation": the noun is the
 * last segment of the path. */
static int unknown_name(const a2_config_key *k, char *why, size_t why_size) {
  char names[192];
  a2_config_key_names(k, names, sizeof names);
  snprintf(why, why_size, "unknown %s; expected one of %s", last_segment(k->path), names);
  return -1;
}

int a2_config_key_check(const a2_config_key *k, uint64_t v, char *why, size_t why_size) {
  if (v >= k->min && v <= k->max) return 0;
  if (k->kind == A2_KEY_ENUM) return unknown_name(k, why, why_size);
  char lo[48], hi[48];
  format_bound(k, k->min, lo, sizeof lo);
  format_bound(k, k->max, hi, sizeof hi);
  const char *unit = strchr(lo, ' '); /* " B/s" in "1 B/s" */
  if (k->max == ANY && k->min == 1 && unit)
    snprintf(why, why_size, "out of range; expected more than 0%s", unit);
  else if (k->max == ANY)
    snprintf(why, why_size, "out of range; expected at least %s", lo);
  else
    snprintf(why, why_size, "out of range; expected %s to %s", lo, hi);
  return -1;
}

static void trim(const char *s, const char **b, size_t *n) {
  while (*s == ' ' || *s == '\t') s++;
  size_t len = strlen(s);
  while (len && (s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
  *b = s;
  *n = len;
}

int a2_config_key_parse(const a2_config_key *k, const char *text, uint64_t *v, char *why,
                        size_t why_size) {
  uint64_t x;
  if (k->kind == A2_KEY_ENUM) {
    const char *b;
    size_t n;
    trim(text, &b, &n);
    for (uint64_t t = 0; k->names[t]; t++) {
      if (strlen(k->names[t]) == n && memcmp(k->names[t], b, n) == 0) {
        *v = t;
        return 0;
      }
    }
    return unknown_name(k, why, why_size);
  }
  if (a2_parse_quantity(text, (a2_unit_kind)k->kind, &x, why, why_size) != 0) return -1;
  if (a2_config_key_check(k, x, why, why_size) != 0) return -1;
  *v = x;
  return 0;
}

void a2_config_key_format(const a2_config_key *k, uint64_t v, char *out, size_t out_size) {
  if (k->kind == A2_KEY_ENUM && v <= k->max)
    snprintf(out, out_size, "%s", k->names[v]);
  else
    format_bound(k, v, out, out_size);
}

/* The segment of k's path right below prefix: sets seg and len, 0 if not below. */
static int child_of(const a2_config_key *k, const char *prefix, const char **seg, size_t *len) {
  size_t at = under(k->path, prefix);
  if (at == (size_t)-1) return 0;
  *seg = k->path + at;
  const char *dot = strchr(*seg, '.');
  *len = dot ? (size_t)(dot - *seg) : strlen(*seg);
  return 1;
}

/* Calls fn for each distinct name right below prefix, in table order. */
static void each_child(const char *prefix, void (*fn)(const char *, size_t, void *), void *ctx) {
  for (unsigned i = 0; i < a2_config_nkeys; i++) {
    const char *seg, *prev;
    size_t len, plen;
    if (!child_of(&a2_config_keys[i], prefix, &seg, &len)) continue;
    int dup = 0;
    for (unsigned j = 0; j < i && !dup; j++)
      dup = child_of(&a2_config_keys[j], prefix, &prev, &plen) && plen == len &&
            memcmp(prev, seg, len) == 0;
    if (!dup) fn(seg, len, ctx);
  }
}

static void add_child(const char *seg, size_t len, void *ctx) {
  list_add((list *)ctx, seg, len, ", ");
}

void a2_config_key_children(const char *prefix, char *out, size_t out_size) {
  list l = {out, out_size, 0, 0};
  out[0] = 0;
  each_child(prefix, add_child, &l);
}

static char lower(char c) {
  return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Case-insensitive edit distance; large for strings too long to compare. */
static size_t distance(const char *a, size_t na, const char *b, size_t nb) {
  enum { MAX = 64 };
  if (na >= MAX || nb >= MAX) return MAX;
  size_t row[MAX + 1];
  for (size_t j = 0; j <= nb; j++) row[j] = j;
  for (size_t i = 1; i <= na; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= nb; j++) {
      size_t up = row[j];
      size_t best = diag + (lower(a[i - 1]) != lower(b[j - 1]));
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[nb];
}

/* A typo of cand: a small edit distance, or one contains the other. */
static int close_to(const char *name, size_t nn, const char *cand, size_t nc) {
  size_t limit = nc >= 5 ? 2 : 1;
  if (distance(name, nn, cand, nc) <= limit) return 1;
  if (nn < 3 || nc < 3) return 0;
  const char *shorter = nn < nc ? name : cand, *longer = nn < nc ? cand : name;
  size_t ns = nn < nc ? nn : nc, nl = nn < nc ? nc : nn;
  for (size_t i = 0; i + ns <= nl; i++)
    if (strncmp(longer + i, shorter, ns) == 0) return 1;
  return 0;
}

typedef struct {
  list l;
  const char *name;
} suggest_ctx;

static void quote_into(list *l, const char *s, size_t n) {
  if (l->count >= 4) return; /* a short list helps; a long one is noise */
  char buf[96];
  snprintf(buf, sizeof buf, "'%.*s'", (int)(n > 80 ? 80 : n), s);
  list_add(l, buf, strlen(buf), ", ");
}

static void suggest_child(const char *seg, size_t len, void *ctx) {
  suggest_ctx *c = ctx;
  if (close_to(c->name, strlen(c->name), seg, len)) quote_into(&c->l, seg, len);
}

void a2_config_key_suggest(const char *prefix, const char *name, char *out, size_t out_size) {
  suggest_ctx c = {{out, out_size, 0, 0}, name};
  out[0] = 0;
  if (prefix) {
    each_child(prefix, suggest_child, &c);
    return;
  }
  /* Full paths for --set, best kind of match first: a typo in the path;
   * the tail of a path ("link.latency"); the leaf name under a missing or
   * wrong section ("bandwidth", "mte.bandwith"). */
  for (unsigned i = 0; i < a2_config_nkeys; i++) {
    const char *p = a2_config_keys[i].path;
    if (distance(name, strlen(name), p, strlen(p)) <= 3) quote_into(&c.l, p, strlen(p));
  }
  if (c.l.count) return;
  size_t nn = strlen(name);
  for (unsigned i = 0; i < a2_config_nkeys; i++) {
    const char *p = a2_config_keys[i].path;
    size_t np = strlen(p);
    if (np > nn && p[np - nn - 1] == '.' && !strcmp(p + np - nn, name)) quote_into(&c.l, p, np);
  }
  if (c.l.count) return;
  const char *leaf = last_segment(name);
  for (unsigned i = 0; i < a2_config_nkeys; i++) {
    const char *p = a2_config_keys[i].path, *pl = last_segment(p);
    if (distance(leaf, strlen(leaf), pl, strlen(pl)) <= (strlen(pl) >= 5 ? 2u : 1u))
      quote_into(&c.l, p, strlen(p));
  }
}
