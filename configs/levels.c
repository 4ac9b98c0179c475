/* interconnect.levels: the fields of a level, the rules across levels,
 * --set of a level's field, printing, and the group sizes collectives read
 * (configs/levels.h, config.h). */
#include "configs/levels.h"

#include <stdlib.h>
#include <string.h>

#define U32 4294967295ull
#define ANY UINT64_MAX
#define ONE_S 1000000000000ull
#define LFIELD(f) offsetof(a2_level, f), (unsigned)sizeof(((a2_level *)0)->f)

static const char *const kind_names[] = {"switch", "mesh", NULL};
_Static_assert(sizeof(a2_level_kind) == 4, "kind is stored as a 4-byte field");

/* Defaults: "" = required (fanout: on every level but the top). */
const a2_config_key a2_level_fields[] = {
    {"kind", A2_KEY_ENUM, 0, 1, LFIELD(kind), "switch", kind_names},
    {"fanout", A2_UNIT_COUNT, 1, 1048576, LFIELD(fanout), "", NULL},
    {"bandwidth", A2_UNIT_BANDWIDTH, 1, ANY, LFIELD(bw), "", NULL},
    {"latency", A2_UNIT_TIME, 0, ONE_S, LFIELD(lat_ps), "", NULL},
    {"switch_latency", A2_UNIT_TIME, 0, ONE_S, LFIELD(switch_lat_ps), "0ns", NULL},
    {"engine", A2_KEY_ENUM, 0, 1, LFIELD(engine), "rdma", a2_engine_names},
    {"dma_ack_latency", A2_UNIT_TIME, 0, ONE_S, LFIELD(dma_ack_ps), "0ns", NULL},
    {"dma_ack_bandwidth", A2_UNIT_BANDWIDTH, 0, ANY, LFIELD(dma_ack_bw), "0GB/s", NULL},
};
const unsigned a2_level_nfields = sizeof a2_level_fields / sizeof a2_level_fields[0];

const a2_config_key *a2_level_field(const char *name) {
  for (unsigned i = 0; i < a2_level_nfields; i++)
    if (!strcmp(a2_level_fields[i].path, name)) return &a2_level_fields[i];
  return NULL;
}

uint64_t a2_level_get(const a2_level *l, const a2_config_key *k) {
  return a2_key_read(l, k);
}

void a2_level_put(a2_level *l, const a2_config_key *k, uint64_t v) {
  a2_key_write(l, k, v);
}

int a2_level_name_check(const char *s, char *why, size_t why_size) {
  size_t n = strlen(s);
  int ok = n > 0 && n < A2_LEVEL_NAME_MAX;
  for (size_t i = 0; ok && i < n; i++) {
    char c = s[i];
    ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
  }
  if (ok) return 0;
  snprintf(why, why_size, "expected 1 to %d letters, digits, '_', '-' or '.'",
           A2_LEVEL_NAME_MAX - 1);
  return -1;
}

void a2_level_default_name(a2_level *l, unsigned i) {
  snprintf(l->name, sizeof l->name, "level%u", i);
}

int a2_levels_check(const a2_config *cfg, unsigned *level, const char **field, char *why,
                    size_t why_size) {
  *level = A2_MAX_LEVELS;
  *field = NULL;
  if (cfg->nlevels > A2_MAX_LEVELS) {
    snprintf(why, why_size, "more than %d levels", A2_MAX_LEVELS);
    return -1;
  }
  if (cfg->topology == A2_TOPO_LEVELS && cfg->nlevels == 0) {
    snprintf(why, why_size,
             "interconnect.topology levels needs interconnect.levels, a list of levels "
             "(docs/config.md, \"Levels\")");
    return -1;
  }
  for (unsigned i = 0; i < cfg->nlevels; i++) {
    const a2_level *l = &cfg->levels[i];
    int top = i + 1 == cfg->nlevels;
    *level = i;
    char sub[200];
    for (unsigned f = 0; f < a2_level_nfields; f++) {
      const a2_config_key *k = &a2_level_fields[f];
      uint64_t v = a2_level_get(l, k);
      *field = k->path;
      if (k == a2_level_field("fanout") && (top || v == 0)) {
        if (top && v) {
          snprintf(why, why_size,
                   "the top level has no fanout: it holds the whole system, so its fan-out "
                   "follows interconnect.ranks (--ranks)");
          return -1;
        }
        if (!top) {
          snprintf(why, why_size,
                   "fanout required on every level but the top (how many units of the level "
                   "below a group of this level holds)");
          return -1;
        }
        continue;
      }
      if (a2_config_key_check(k, v, sub, sizeof sub)) {
        snprintf(why, why_size, "%s: %s", k->path, sub);
        return -1;
      }
    }
    *field = "kind";
    if (l->kind == A2_LEVEL_MESH && i > 0) {
      snprintf(why, why_size,
               "kind mesh only on the lowest level (a mesh joins NPUs; a higher level joins "
               "groups: use kind switch)");
      return -1;
    }
    *field = "name";
    if (a2_level_name_check(l->name, sub, sizeof sub)) {
      snprintf(why, why_size, "'%.40s': %s", l->name, sub);
      return -1;
    }
  }
  *level = A2_MAX_LEVELS;
  *field = NULL;
  return 0;
}

/* "interconnect.levels.I.FIELD": I and FIELD; 0 when key is not of that shape. */
static int split_key(const char *key, unsigned *i, const char **field) {
  static const char pre[] = "interconnect.levels.";
  if (strncmp(key, pre, sizeof pre - 1)) return 0;
  const char *p = key + sizeof pre - 1;
  char *e;
  unsigned long v = strtoul(p, &e, 10);
  if (e == p || *e != '.' || v >= A2_MAX_LEVELS) return 0;
  *i = (unsigned)v;
  *field = e + 1;
  return 1;
}

int a2_levels_set(a2_config *cfg, const char *key, const char *value, a2_code *rc, a2_err *err) {
  unsigned i;
  const char *field;
  if (!strcmp(key, "interconnect.levels")) {
    *rc = a2_err_set(err, A2_E_INPUT, "--set", 0, 0,
                     "interconnect.levels is a list: give it in the config file, or set one "
                     "field as interconnect.levels.I.FIELD (I from 0, the lowest level; fields "
                     "%s)",
                     A2_LEVEL_FIELD_LIST);
    return 1;
  }
  if (!split_key(key, &i, &field)) return 0;
  if (i > cfg->nlevels) {
    *rc = a2_err_set(err, A2_E_INPUT, "--set", 0, 0,
                     "%s=%.80s: level %u: the config has %u level(s) (0..%u; %u adds one)", key,
                     value, i, cfg->nlevels, cfg->nlevels ? cfg->nlevels - 1 : 0, cfg->nlevels);
    return 1;
  }
  a2_level l = i < cfg->nlevels ? cfg->levels[i] : (a2_level){0};
  if (i == cfg->nlevels) a2_level_default_name(&l, i);
  char why[256];
  if (!strcmp(field, "name")) {
    if (a2_level_name_check(value, why, sizeof why)) {
      *rc = a2_err_set(err, A2_E_INPUT, "--set", 0, 0, "%s=%.80s: %s", key, value, why);
      return 1;
    }
    snprintf(l.name, sizeof l.name, "%s", value);
  } else {
    const a2_config_key *k = a2_level_field(field);
    uint64_t v;
    if (!k) {
      *rc = a2_err_set(err, A2_E_INPUT, "--set", 0, 0, "%s: unknown field '%.40s'; fields: %s", key,
                       field, A2_LEVEL_FIELD_LIST);
      return 1;
    }
    if (a2_config_key_parse(k, value, &v, why, sizeof why)) {
      *rc = a2_err_set(err, A2_E_INPUT, "--set", 0, 0, "%s=%.80s: %s", key, value, why);
      return 1;
    }
    a2_level_put(&l, k, v);
  }
  cfg->levels[i] = l;
  if (i == cfg->nlevels) cfg->nlevels++;
  *rc = A2_OK;
  return 1;
}

const a2_config_key *a2_levels_key(const char *key) {
  unsigned i;
  const char *field;
  return split_key(key, &i, &field) ? a2_level_field(field) : NULL;
}

int a2_levels_get(const a2_config *cfg, const char *key, uint64_t *v) {
  unsigned i;
  const char *field;
  if (!split_key(key, &i, &field) || i >= cfg->nlevels) return 0;
  const a2_config_key *k = a2_level_field(field);
  if (!k) return 0;
  *v = a2_level_get(&cfg->levels[i], k);
  return 1;
}

void a2_levels_print(const a2_config *cfg, FILE *f) {
  if (!cfg->nlevels) return;
  fprintf(f, "  levels:\n");
  for (unsigned i = 0; i < cfg->nlevels && i < A2_MAX_LEVELS; i++) {
    const a2_level *l = &cfg->levels[i];
    fprintf(f, "    - name: %s\n", l->name);
    for (unsigned j = 0; j < a2_level_nfields; j++) {
      const a2_config_key *k = &a2_level_fields[j];
      uint64_t v = a2_level_get(l, k);
      if (k == a2_level_field("fanout") && i + 1 == cfg->nlevels) continue; /* follows ranks */
      char val[64];
      a2_config_key_format(k, v, val, sizeof val);
      fprintf(f, "      %s: %s\n", k->path, val);
    }
  }
}

uint32_t a2_config_nlevels(const a2_config *cfg) {
  if (cfg->topology == A2_TOPO_LEVELS && cfg->nlevels) return cfg->nlevels;
  return cfg->topology == A2_TOPO_TWO_LEVEL ? 2 : 1;
}

uint32_t a2_config_group_ranks(const a2_config *cfg, uint32_t level) {
  uint32_t n = a2_config_nlevels(cfg);
  if (level + 1 >= n) return cfg->ranks;
  uint64_t g = 1;
  if (cfg->topology == A2_TOPO_TWO_LEVEL) {
    g = cfg->group_size;
  } else {
    for (uint32_t i = 0; i <= level; i++) {
      g *= cfg->levels[i].fanout ? cfg->levels[i].fanout : 1;
      if (g >= cfg->ranks) break;
    }
  }
  return g < cfg->ranks ? (uint32_t)g : cfg->ranks;
}
_Static_assert(sizeof a2_level_fields / sizeof a2_level_fields[0] + 2 <= 10,
               "raise LEVEL_MARKS in config.c");
