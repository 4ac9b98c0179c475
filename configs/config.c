/* The public config API (config.h): YAML loading with libyaml, --set,
 * validation and printing, all driven by the key table in config_keys.c.
 *
 * The YAML is read with libyaml's document API (a node tree with marks),
 * which keeps the walk a short recursion over nested mappings; libyaml does
 * not reject duplicate keys, so the walk does. Every error carries the
 * 1-based line:col of the node it is about.
 *
 * libyaml takes time that grows faster than the input for some shapes
 * (nesting: each token checks every open flow level; anchors: each one is
 * compared with all earlier ones; %TAG directives: likewise), so the shape
 * is bounded first (check_shape) and only a document within the bounds is
 * composed. docs/config.md, "Limits", lists them. */
#include "configs/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "configs/config_keys.h"
#include "configs/levels.h"

/* Bounds on a config file (docs/config.md, "Limits"). A config is a few
 * KiB with about 60 nodes, 3 levels deep, no directive: inputs past these
 * are certainly not configs, and refusing them bounds time and memory. */
#define MAX_FILE_BYTES (1u << 20) /* bytes */
#define MAX_DEPTH 16              /* sequences and mappings open at once */
#define MAX_NODES 10000           /* scalars, sequences, mappings and aliases */
#define MAX_ANCHORS 100           /* `&name` */
#define MAX_DIRECTIVES 64         /* lines that start with '%' (%YAML, %TAG) */

void a2_config_default(a2_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  for (unsigned i = 0; i < a2_config_nkeys; i++) {
    uint64_t v = 0;
    char why[256];
    /* Cannot fail: the defaults are constants checked by the tests. */
    if (a2_config_key_parse(&a2_config_keys[i], a2_config_keys[i].def, &v, why, sizeof why) == 0)
      a2_config_key_put(cfg, &a2_config_keys[i], v);
  }
}

uint64_t a2_config_cycle_ps(const a2_config *cfg) {
  if (cfg->clock_hz == 0) return 0;
  return (1000000000000ull + cfg->clock_hz / 2) / cfg->clock_hz;
}

/* ---- validation ---------------------------------------------------------- */

typedef struct {
  int line, col; /* where a key's value was given; 0 when not from a file */
} mark;

/* Where each level of interconnect.levels was given: [0] the entry, [1]
 * its name, [2 + f] field f of a2_level_fields. */
#define LEVEL_MARKS 10
/* (a2_level_nfields + 2 <= LEVEL_MARKS: checked in levels.c) */
typedef mark level_marks[A2_MAX_LEVELS][LEVEL_MARKS];

static const a2_config_key *row(const char *path) {
  return a2_config_key_find(path);
}

static mark mark_of(const mark *marks, const char *path) {
  mark none = {0, 0};
  return marks ? marks[row(path) - a2_config_keys] : none;
}

/* Per-key bounds (a config built in code may break them) and the checks
 * that involve more than one key. marks (may be NULL) locate the keys. */
static a2_code check(const a2_config *cfg, const char *name, const mark *marks,
                     const level_marks *lm, a2_err *err) {
  char why[256], val[64];
  for (unsigned i = 0; i < a2_config_nkeys; i++) {
    const a2_config_key *k = &a2_config_keys[i];
    uint64_t v = a2_config_key_get(cfg, k);
    if (a2_config_key_check(k, v, why, sizeof why) != 0) {
      mark m = mark_of(marks, k->path);
      a2_config_key_format(k, v, val, sizeof val);
      return a2_err_set(err, A2_E_INPUT, name, m.line, m.col, "%s: '%s': %s", k->path, val, why);
    }
  }
  if (cfg->topology == A2_TOPO_TORUS && cfg->ranks % cfg->torus_width) {
    mark m = mark_of(marks, "interconnect.torus_width");
    if (!m.line) m = mark_of(marks, "interconnect.ranks");
    return a2_err_set(err, A2_E_INPUT, name, m.line, m.col,
                      "interconnect.torus_width (%u) must divide interconnect.ranks (%u)",
                      cfg->torus_width, cfg->ranks);
  }
  unsigned lv;
  const char *field;
  if (a2_levels_check(cfg, &lv, &field, why, sizeof why)) {
    mark m = mark_of(marks, "interconnect.topology");
    if (lv < A2_MAX_LEVELS) {
      unsigned f = 0;
      if (field && !strcmp(field, "name")) f = 1;
      for (unsigned j = 0; field && j < a2_level_nfields; j++)
        if (!strcmp(a2_level_fields[j].path, field)) f = 2 + j;
      mark none = {0, 0};
      m = lm ? ((*lm)[lv][f].line ? (*lm)[lv][f] : (*lm)[lv][0]) : none;
      return a2_err_set(err, A2_E_INPUT, name, m.line, m.col, "interconnect.levels[%u] (%s): %s",
                        lv, cfg->levels[lv].name, why);
    }
    return a2_err_set(err, A2_E_INPUT, name, m.line, m.col, "%s", why);
  }
  /* Every link is an event-kernel process and a queue: refuse, before building
   * anything, a network that would not fit in memory (a policy bound). */
  uint64_t P = cfg->ranks, g = cfg->group_size < P ? cfg->group_size : P, links = 2 * P;
  if (cfg->topology == A2_TOPO_FULL_MESH) links = P * (P - 1);
  if (cfg->topology == A2_TOPO_TWO_LEVEL) links = P * (g - 1) + 2 * P;
  if (cfg->topology == A2_TOPO_TORUS) links = 4 * P;
  if (cfg->topology == A2_TOPO_LEVELS) {
    uint64_t g0 = a2_config_group_ranks(cfg, 0);
    links = 0;
    for (uint32_t i = 0; i < cfg->nlevels; i++)
      links += cfg->levels[i].kind == A2_LEVEL_MESH ? P * (g0 - 1) : 2 * P;
  }
  if (links > A2_CONFIG_MAX_LINKS) {
    mark m = mark_of(marks, "interconnect.ranks");
    return a2_err_set(err, A2_E_INPUT, name, m.line, m.col,
                      "interconnect.ranks (%u) on a %s needs %llu links, over the %llu the "
                      "simulator builds (a full mesh is for small servers: use two_level or "
                      "switch for more NPUs)",
                      cfg->ranks,
                      cfg->topology == A2_TOPO_FULL_MESH ? "full mesh"
                      : cfg->topology == A2_TOPO_LEVELS  ? "levels topology"
                                                         : "two_level",
                      (unsigned long long)links, (unsigned long long)A2_CONFIG_MAX_LINKS);
  }
  if (cfg->packet_bytes % 32) {
    /* DMA moves whole 32-byte blocks (windows are 32 B aligned); it also keeps
     * every element of every type inside one packet, which atomic adds need. */
    mark m = mark_of(marks, "interconnect.packet_size");
    return a2_err_set(err, A2_E_INPUT, name, m.line, m.col,
                      "interconnect.packet_size: %u B is not a multiple of 32 B",
                      cfg->packet_bytes);
  }
  /* A window is filled by pieces of whole 32-byte blocks (as packets are). */
  const struct {
    const char *key;
    uint64_t bytes;
  } windows[] = {{"chip.mte.remote_read_window", cfg->rd_window_bytes},
                 {"chip.mte.remote_write_window", cfg->wr_window_bytes},
                 {"chip.mte.remote_atomic_window", cfg->atomic_window_bytes}};
  for (size_t i = 0; i < sizeof windows / sizeof windows[0]; i++) {
    if (windows[i].bytes % 32 == 0) continue;
    mark m = mark_of(marks, windows[i].key);
    return a2_err_set(err, A2_E_INPUT, name, m.line, m.col, "%s: %llu B is not a multiple of 32 B",
                      windows[i].key, (unsigned long long)windows[i].bytes);
  }
  if (cfg->ctrl_bytes > cfg->packet_bytes) {
    /* A control message (request / notify) must fit in one packet. */
    char c[48], p[48];
    a2_format_quantity(cfg->ctrl_bytes, A2_UNIT_BYTES, c, sizeof c);
    a2_format_quantity(cfg->packet_bytes, A2_UNIT_BYTES, p, sizeof p);
    mark m = mark_of(marks, "interconnect.control_message_size");
    if (!m.line) m = mark_of(marks, "interconnect.packet_size");
    return a2_err_set(err, A2_E_INPUT, name, m.line, m.col,
                      "interconnect.control_message_size (%s) must not be larger than "
                      "interconnect.packet_size (%s): a control message is one packet",
                      c, p);
  }
  return A2_OK;
}

a2_code a2_config_validate(const a2_config *cfg, const char *name, a2_err *err) {
  return check(cfg, name, NULL, NULL, err);
}

/* ---- --set --------------------------------------------------------------- */

/* The error for a path that is no key: a section and its keys, or close
 * paths (typos), as --set and --fit word it. */
static a2_code no_such_key(const char *key, const char *flag, a2_err *err) {
  char list[256];
  if (key[0] && a2_config_key_is_section(key)) {
    a2_config_key_children(key, list, sizeof list);
    return a2_err_set(err, A2_E_INPUT, flag, 0, 0,
                      "'%.80s' is a section, not a key; its keys are %s", key, list);
  }
  a2_config_key_suggest(NULL, key, list, sizeof list);
  if (list[0])
    return a2_err_set(err, A2_E_INPUT, flag, 0, 0, "unknown key '%.80s'; did you mean %s?", key,
                      list);
  return a2_err_set(err, A2_E_INPUT, flag, 0, 0,
                    "unknown key '%.80s'; keys are dotted paths such as chip.clock or "
                    "interconnect.link.bandwidth (see docs/config.md)",
                    key);
}

a2_code a2_config_set(a2_config *cfg, const char *key, const char *value, a2_err *err) {
  const char *f = "--set";
  key = key ? key : "";
  value = value ? value : "";
  a2_code lrc;
  if (a2_levels_set(cfg, key, value, &lrc, err)) return lrc;
  const a2_config_key *k = a2_config_key_find(key);
  if (!k) return no_such_key(key, f, err);
  uint64_t v;
  char why[256];
  if (a2_config_key_parse(k, value, &v, why, sizeof why) != 0)
    return a2_err_set(err, A2_E_INPUT, f, 0, 0, "%s=%.80s: %s", key, value, why);
  a2_config_key_put(cfg, k, v);
  return A2_OK;
}

a2_code a2_config_key_about(const char *path, const char *flag, a2_config_key_info *info,
                            a2_err *err) {
  const a2_config_key *k = a2_config_key_find(path ? path : "");
  if (!k && path) k = a2_levels_key(path); /* interconnect.levels.I.FIELD */
  if (!k) return no_such_key(path ? path : "", flag, err);
  info->quantity = k->kind != A2_KEY_ENUM;
  info->kind = info->quantity ? (a2_unit_kind)k->kind : A2_UNIT_COUNT;
  info->min = k->min;
  info->max = k->max;
  /* The keys a2_config_validate wants in whole 32-byte blocks. */
  info->step = !strcmp(path, "interconnect.packet_size") ||
                       !strcmp(path, "chip.mte.remote_read_window") ||
                       !strcmp(path, "chip.mte.remote_write_window") ||
                       !strcmp(path, "chip.mte.remote_atomic_window")
                   ? 32
                   : 1;
  a2_config_key_names(k, info->names, sizeof info->names);
  return A2_OK;
}

uint64_t a2_config_get(const a2_config *cfg, const char *path) {
  uint64_t lv;
  if (a2_levels_get(cfg, path, &lv)) return lv;
  const a2_config_key *k = a2_config_key_find(path);
  return k ? a2_config_key_get(cfg, k) : 0;
}

/* ---- printing ------------------------------------------------------------ */

/* Splits a dotted path into at most 8 segments (pointers + lengths). */
static int split(const char *path, const char **seg, size_t *len) {
  int n = 0;
  while (n < 8) {
    const char *dot = strchr(path, '.');
    seg[n] = path;
    len[n] = dot ? (size_t)(dot - path) : strlen(path);
    n++;
    if (!dot) break;
    path = dot + 1;
  }
  return n;
}

void a2_config_print(const a2_config *cfg, void *file) {
  FILE *f = file;
  const char *pseg[8] = {0}, *seg[8];
  size_t plen[8] = {0}, len[8];
  int pn = 0;
  for (unsigned i = 0; i < a2_config_nkeys; i++) {
    const a2_config_key *k = &a2_config_keys[i];
    int n = split(k->path, seg, len);
    /* Open only the sections that differ from the previous key's. */
    int same = 0;
    while (same < n - 1 && same < pn - 1 && len[same] == plen[same] &&
           memcmp(seg[same], pseg[same], len[same]) == 0)
      same++;
    for (int d = same; d < n - 1; d++) fprintf(f, "%*s%.*s:\n", 2 * d, "", (int)len[d], seg[d]);
    char val[64];
    a2_config_key_format(k, a2_config_key_get(cfg, k), val, sizeof val);
    fprintf(f, "%*s%.*s: %s\n", 2 * (n - 1), "", (int)len[n - 1], seg[n - 1], val);
    memcpy(pseg, seg, sizeof seg);
    memcpy(plen, len, sizeof len);
    pn = n;
  }
  a2_levels_print(cfg, f); /* interconnect is the last section printed */
}

/* ---- YAML ---------------------------------------------------------------- */

typedef struct {
  const char *name;
  yaml_document_t *doc;
  a2_config *cfg;
  a2_err *err;
  struct {
    char path[128];
    int line;
  } seen[2 * A2_CONFIG_MAX_KEYS]; /* keys and sections given so far (known ones only) */
  unsigned nseen;
  mark marks[A2_CONFIG_MAX_KEYS]; /* per table row */
  level_marks lmarks;             /* per level of interconnect.levels */
  a2_config_job *jobs;            /* NULL: the jobs are checked, not kept */
  unsigned jobs_max, njobs;
} loader;

static const char *node_kind(const yaml_node_t *n) {
  switch (n->type) {
  case YAML_SCALAR_NODE: return "a scalar";
  case YAML_SEQUENCE_NODE: return "a sequence";
  case YAML_MAPPING_NODE: return "a mapping";
  default: return "nothing";
  }
}

#define AT(L, node, ...)                                                        \
  a2_err_set((L)->err, A2_E_INPUT, (L)->name, (int)(node)->start_mark.line + 1, \
             (int)(node)->start_mark.column + 1, __VA_ARGS__)

/* `chip:` with nothing under it (say, every key commented out) is an empty
 * section, not an error. */
static int is_null(const yaml_node_t *n) {
  if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return 0;
  const char *s = (const char *)n->data.scalar.value;
  return !strcmp(s, "") || !strcmp(s, "~") || !strcmp(s, "null");
}

static a2_code walk(loader *L, yaml_node_t *map, const char *prefix);

/* The names under prefix: the table's, and the lists (interconnect.levels, jobs). */
static void children(const char *prefix, char *out, size_t n) {
  a2_config_key_children(prefix, out, n);
  size_t used = strlen(out);
  if (!strcmp(prefix, "interconnect"))
    snprintf(out + used, n - used, ", levels");
  else if (!prefix[0])
    snprintf(out + used, n - used, ", jobs");
}

static a2_code unknown_key(loader *L, yaml_node_t *kn, const char *prefix, const char *name) {
  char valid[256], close[256], hint[300] = "";
  children(prefix, valid, sizeof valid);
  a2_config_key_suggest(prefix, name, close, sizeof close);
  if (close[0]) snprintf(hint, sizeof hint, " (did you mean %s?)", close);
  if (!prefix[0])
    return AT(L, kn, "unknown top-level key '%.60s'%s; valid keys: %s", name, hint, valid);
  return AT(L, kn, "unknown key '%.60s' in %s%s; valid keys: %s", name, prefix, hint, valid);
}

static a2_code leaf(loader *L, const a2_config_key *k, yaml_node_t *vn) {
  if (vn->type != YAML_SCALAR_NODE)
    return AT(L, vn, "%s: expected a single value such as %s, found %s", k->path, k->def,
              node_kind(vn));
  const char *text = (const char *)vn->data.scalar.value;
  uint64_t v;
  char why[256];
  if (strlen(text) != vn->data.scalar.length)
    return AT(L, vn, "%s: the value contains a NUL character", k->path);
  if (a2_config_key_parse(k, text, &v, why, sizeof why) != 0)
    return AT(L, vn, "%s: '%.60s': %s", k->path, text, why);
  a2_config_key_put(L->cfg, k, v);
  L->marks[k - a2_config_keys] =
      (mark){(int)vn->start_mark.line + 1, (int)vn->start_mark.column + 1};
  return A2_OK;
}

static mark at(const yaml_node_t *n) {
  return (mark){(int)n->start_mark.line + 1, (int)n->start_mark.column + 1};
}

/* A scalar value of a list entry's field, or an error naming what (e.g.
 * "interconnect.levels[1].bandwidth"). */
static a2_code entry_scalar(loader *L, yaml_node_t *vn, const char *what, const char **text) {
  if (vn->type != YAML_SCALAR_NODE)
    return AT(L, vn, "%s: expected a single value, found %s", what, node_kind(vn));
  *text = (const char *)vn->data.scalar.value;
  if (strlen(*text) != vn->data.scalar.length)
    return AT(L, vn, "%s: the value contains a NUL character", what);
  return A2_OK;
}

/* interconnect.levels: a list of mappings, lowest level first
 * (docs/config.md, "Levels"). The rules across levels (fan-outs, mesh
 * only at the bottom) are check()'s, with the marks kept here. */
static a2_code levels_list(loader *L, yaml_node_t *vn) {
  L->cfg->nlevels = 0;
  if (is_null(vn)) return A2_OK;
  if (vn->type != YAML_SEQUENCE_NODE)
    return AT(L, vn,
              "interconnect.levels: expected a list of levels, lowest first (each '- name: N' "
              "with keys %s), found %s",
              A2_LEVEL_FIELD_LIST, node_kind(vn));
  unsigned n = 0;
  for (yaml_node_item_t *it = vn->data.sequence.items.start; it < vn->data.sequence.items.top;
       it++) {
    yaml_node_t *e = yaml_document_get_node(L->doc, *it);
    if (n == A2_MAX_LEVELS)
      return AT(L, e, "interconnect.levels: more than %d levels", A2_MAX_LEVELS);
    if (e->type != YAML_MAPPING_NODE)
      return AT(L, e, "interconnect.levels[%u]: expected a mapping with keys %s, found %s", n,
                A2_LEVEL_FIELD_LIST, node_kind(e));
    a2_level l = {0};
    a2_level_default_name(&l, n);
    mark *m = L->lmarks[n];
    memset(m, 0, sizeof L->lmarks[n]);
    m[0] = at(e);
    for (yaml_node_pair_t *p = e->data.mapping.pairs.start; p < e->data.mapping.pairs.top; p++) {
      yaml_node_t *kn = yaml_document_get_node(L->doc, p->key);
      yaml_node_t *fv = yaml_document_get_node(L->doc, p->value);
      if (kn->type != YAML_SCALAR_NODE)
        return AT(L, kn, "interconnect.levels[%u]: expected a key name (one of %s), found %s", n,
                  A2_LEVEL_FIELD_LIST, node_kind(kn));
      const char *key = (const char *)kn->data.scalar.value;
      const a2_config_key *f = a2_level_field(key);
      unsigned slot = !strcmp(key, "name") ? 1 : f ? 2 + (unsigned)(f - a2_level_fields) : 0;
      if (!slot)
        return AT(L, kn, "unknown key '%.60s' in interconnect.levels[%u]; valid keys: %s", key, n,
                  A2_LEVEL_FIELD_LIST);
      if (m[slot].line)
        return AT(L, kn, "duplicate key '%s' in interconnect.levels[%u] (first given on line %d)",
                  key, n, m[slot].line);
      char what[96], why[256];
      const char *text;
      snprintf(what, sizeof what, "interconnect.levels[%u].%s", n, key);
      a2_code rc = entry_scalar(L, fv, what, &text);
      if (rc) return rc;
      if (slot == 1) {
        if (a2_level_name_check(text, why, sizeof why))
          return AT(L, fv, "%s: '%.60s': %s", what, text, why);
        snprintf(l.name, sizeof l.name, "%s", text);
      } else {
        uint64_t v;
        if (a2_config_key_parse(f, text, &v, why, sizeof why))
          return AT(L, fv, "%s: '%.60s': %s", what, text, why);
        a2_level_put(&l, f, v);
      }
      m[slot] = at(fv);
    }
    static const char *const required[] = {"bandwidth", "latency"};
    for (unsigned r = 0; r < 2; r++)
      if (!m[2 + (unsigned)(a2_level_field(required[r]) - a2_level_fields)].line)
        return AT(L, e, "interconnect.levels[%u] (%s): %s required", n, l.name, required[r]);
    L->cfg->levels[n++] = l;
  }
  if (!n) return AT(L, vn, "interconnect.levels: expected at least one level, found none");
  L->cfg->nlevels = n;
  return A2_OK;
}

/* jobs: a list of --job specs as mappings (config.h, a2_config_job). */
static a2_code jobs_list(loader *L, yaml_node_t *vn) {
  static const char *const fields[A2_JOB_NFIELDS] = {"algo", "ranks", "size", "start", "cores"};
  static const char field_list[] = "algo, ranks, size, start, cores";
  if (is_null(vn)) return A2_OK;
  if (vn->type != YAML_SEQUENCE_NODE)
    return AT(L, vn,
              "jobs: expected a list of jobs (each '- algo: NAME' with keys %s, as --job), "
              "found %s",
              field_list, node_kind(vn));
  unsigned n = 0;
  for (yaml_node_item_t *it = vn->data.sequence.items.start; it < vn->data.sequence.items.top;
       it++) {
    yaml_node_t *e = yaml_document_get_node(L->doc, *it);
    if (n == A2_CONFIG_MAX_JOBS) return AT(L, e, "jobs: more than %d jobs", A2_CONFIG_MAX_JOBS);
    if (e->type != YAML_MAPPING_NODE)
      return AT(L, e, "jobs[%u]: expected a mapping with keys %s, found %s", n, field_list,
                node_kind(e));
    a2_config_job j;
    memset(&j, 0, sizeof j);
    j.line = at(e).line;
    j.col = at(e).col;
    size_t used = 0;
    for (yaml_node_pair_t *p = e->data.mapping.pairs.start; p < e->data.mapping.pairs.top; p++) {
      yaml_node_t *kn = yaml_document_get_node(L->doc, p->key);
      yaml_node_t *fv = yaml_document_get_node(L->doc, p->value);
      if (kn->type != YAML_SCALAR_NODE)
        return AT(L, kn, "jobs[%u]: expected a key name (one of %s), found %s", n, field_list,
                  node_kind(kn));
      const char *key = (const char *)kn->data.scalar.value;
      int f = -1;
      for (int i = 0; i < A2_JOB_NFIELDS; i++)
        if (!strcmp(key, fields[i])) f = i;
      if (f < 0)
        return AT(L, kn, "unknown key '%.60s' in jobs[%u]; valid keys: %s", key, n, field_list);
      if (j.fline[f])
        return AT(L, kn, "duplicate key '%s' in jobs[%u] (first given on line %d)", key, n,
                  j.fline[f]);
      char what[64];
      const char *text;
      snprintf(what, sizeof what, "jobs[%u].%s", n, key);
      a2_code rc = entry_scalar(L, fv, what, &text);
      if (rc) return rc;
      if (!text[0] || strpbrk(text, ",="))
        return AT(L, fv, "%s: '%.60s': expected one value, without ',' or '='", what, text);
      int w = snprintf(j.spec + used, sizeof j.spec - used, "%s%s=%s", used ? "," : "", key, text);
      if (w < 0 || (size_t)w >= sizeof j.spec - used)
        return AT(L, fv, "%s: the job is too long (%zu characters at most)", what,
                  sizeof j.spec - 1);
      used += (size_t)w;
      j.fline[f] = at(fv).line;
      j.fcol[f] = at(fv).col;
    }
    for (int f = A2_JOB_ALGO; f <= A2_JOB_RANKS; f++)
      if (!j.fline[f])
        return AT(L, e, "jobs[%u]: %s required (as --job %s=...)", n, fields[f], fields[f]);
    if (L->jobs && n < L->jobs_max) L->jobs[n] = j;
    n++;
  }
  L->njobs = n;
  return A2_OK;
}

static a2_code pair(loader *L, yaml_node_t *kn, yaml_node_t *vn, const char *prefix) {
  char valid[256];
  if (kn->type != YAML_SCALAR_NODE) {
    children(prefix, valid, sizeof valid);
    return AT(L, kn, "expected a key name (one of %s), found %s", valid, node_kind(kn));
  }
  const char *name = (const char *)kn->data.scalar.value;
  char path[128];
  snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "", name);
  const a2_config_key *k = a2_config_key_find(path);
  int is_list = !strcmp(path, "interconnect.levels") || !strcmp(path, "jobs");
  /* A dotted name ("mte.latency") would be a second spelling of a nested
   * key; the file has one layout, so it is unknown like any other typo. */
  if (strchr(name, '.') || (!k && !is_list && (!name[0] || !a2_config_key_is_section(path))))
    return unknown_key(L, kn, prefix, name);

  for (unsigned i = 0; i < L->nseen; i++)
    if (!strcmp(L->seen[i].path, path))
      return AT(L, kn, "duplicate key '%s' (first given on line %d)", path, L->seen[i].line);
  if (L->nseen < sizeof L->seen / sizeof L->seen[0]) { /* known paths only: always fits */
    snprintf(L->seen[L->nseen].path, sizeof L->seen[0].path, "%s", path);
    L->seen[L->nseen++].line = (int)kn->start_mark.line + 1;
  }

  if (k) return leaf(L, k, vn);
  if (is_list) return path[0] == 'j' ? jobs_list(L, vn) : levels_list(L, vn);
  if (vn->type == YAML_MAPPING_NODE) return walk(L, vn, path);
  if (is_null(vn)) return A2_OK;
  a2_config_key_children(path, valid, sizeof valid);
  return AT(L, vn, "%s: expected a mapping with keys %s, found %s", path, valid, node_kind(vn));
}

static a2_code walk(loader *L, yaml_node_t *map, const char *prefix) {
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    a2_code rc = pair(L, yaml_document_get_node(L->doc, p->key),
                      yaml_document_get_node(L->doc, p->value), prefix);
    if (rc != A2_OK) return rc;
  }
  return A2_OK;
}

/* libyaml's own error: scanner/parser errors carry a mark, reader errors
 * (bad UTF-8, control characters) only a byte offset. */
static a2_code syntax_error(yaml_parser_t *p, const char *name, const char *text, size_t len,
                            a2_err *err) {
  if (p->error == YAML_MEMORY_ERROR)
    return a2_err_set(err, A2_E_NOMEM, name, 0, 0, "out of memory while reading YAML");
  size_t at = p->problem_mark.index;
  int line = (int)p->problem_mark.line + 1, col = (int)p->problem_mark.column + 1;
  if (p->error == YAML_READER_ERROR) {
    at = p->problem_offset;
    line = 1;
    col = 1;
    for (size_t i = 0; i < at && i < len; i++, col++)
      if (text[i] == '\n') line++, col = 0;
  }
  char extra[96] = "";
  if (p->error != YAML_READER_ERROR && at >= len && len > 0) {
    /* libyaml marks the end of input one line past the last one: point at
     * the end of the last line instead, and say it is the end of the file. */
    size_t end = text[len - 1] == '\n' ? len - 1 : len;
    line = 1;
    col = 1;
    for (size_t i = 0; i < end; i++, col++)
      if (text[i] == '\n') line++, col = 0;
    snprintf(extra, sizeof extra, " (at the end of the file)");
  } else if (p->problem_value != -1 && p->error == YAML_READER_ERROR)
    snprintf(extra, sizeof extra, " (byte 0x%02x)", (unsigned)p->problem_value & 0xffu);
  else if (at < len && text[at] == '\t')
    snprintf(extra, sizeof extra, "; YAML does not allow tabs here, indent with spaces");
  return a2_err_set(err, A2_E_INPUT, name, line, col, "invalid YAML: %s%s%s%s",
                    p->problem ? p->problem : "syntax error", p->context ? " " : "",
                    p->context ? p->context : "", extra);
}

/* Refuses, before libyaml sees them, more directive lines than MAX_DIRECTIVES:
 * libyaml compares every %TAG with all earlier ones before it returns the
 * first event. (A '%' at the start of a line is a directive or an error,
 * except inside a multi-line quoted scalar, which no config needs.) */
static a2_code check_directives(const char *text, size_t len, const char *name, a2_err *err) {
  unsigned n = 0;
  int line = 1;
  for (size_t i = 0; i < len; i++) {
    if ((i == 0 || text[i - 1] == '\n') && text[i] == '%' && ++n > MAX_DIRECTIVES)
      return a2_err_set(err, A2_E_LIMIT, name, line, 1,
                        "more than %u lines start with '%%' (YAML directives such as %%TAG; a "
                        "config needs none)",
                        MAX_DIRECTIVES);
    if (text[i] == '\n') line++;
  }
  return A2_OK;
}

/* Reads the event stream of the first document, without composing it, and
 * refuses it when it passes a shape bound, at the event that passes it.
 * Syntax errors are left to the load that follows (it stops at the same
 * place, having composed no more than this pass allowed). */
static a2_code check_shape(const char *text, size_t len, const char *name, a2_err *err) {
  a2_code rc = check_directives(text, len, name, err);
  if (rc) return rc;
  yaml_parser_t p;
  if (!yaml_parser_initialize(&p))
    return a2_err_set(err, A2_E_NOMEM, name, 0, 0, "out of memory while reading YAML");
  yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
  unsigned depth = 0, nodes = 0, anchors = 0, docs = 0;
  for (int done = 0; !done && !rc;) {
    yaml_event_t ev;
    if (!yaml_parser_parse(&p, &ev)) break;
    const yaml_char_t *anchor = NULL;
    int line = (int)ev.start_mark.line + 1, col = (int)ev.start_mark.column + 1;
    switch (ev.type) {
    case YAML_STREAM_END_EVENT: done = 1; break;
    case YAML_DOCUMENT_START_EVENT: done = ++docs > 1; break; /* the load reports a second one */
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT: depth--; break;
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
      anchor = ev.type == YAML_SEQUENCE_START_EVENT ? ev.data.sequence_start.anchor
                                                    : ev.data.mapping_start.anchor;
      if (++depth > MAX_DEPTH)
        rc = a2_err_set(err, A2_E_LIMIT, name, line, col,
                        "YAML nested more than %u levels deep (a config has 3: a section, a "
                        "subsection and a key, as in chip.mte.latency)",
                        MAX_DEPTH);
      /* fallthrough */
    case YAML_SCALAR_EVENT:
    case YAML_ALIAS_EVENT:
      if (ev.type == YAML_SCALAR_EVENT) anchor = ev.data.scalar.anchor;
      if (!rc && ++nodes > MAX_NODES)
        rc = a2_err_set(err, A2_E_LIMIT, name, line, col,
                        "more than %u YAML nodes (keys, values, sequences, mappings and aliases; "
                        "a config has about 60)",
                        MAX_NODES);
      if (!rc && anchor && ++anchors > MAX_ANCHORS)
        rc = a2_err_set(err, A2_E_LIMIT, name, line, col, "more than %u YAML anchors ('&name')",
                        MAX_ANCHORS);
      break;
    default: break;
    }
    yaml_event_delete(&ev);
  }
  yaml_parser_delete(&p);
  return rc;
}

/* After the first document: a second one would be silently ignored, so its
 * first node is an error. Found from the events, without composing the
 * second document (which check_shape has not bounded). */
static a2_code single_document(loader *L, yaml_parser_t *p, const char *text, size_t len) {
  for (;;) {
    yaml_event_t ev;
    if (!yaml_parser_parse(p, &ev)) return syntax_error(p, L->name, text, len, L->err);
    yaml_event_type_t type = ev.type;
    yaml_mark_t m = ev.start_mark;
    yaml_event_delete(&ev);
    /* no event: the load of an empty stream has read its end already */
    if (type == YAML_STREAM_END_EVENT || type == YAML_NO_EVENT) return A2_OK;
    if (type != YAML_DOCUMENT_START_EVENT)
      return a2_err_set(L->err, A2_E_INPUT, L->name, (int)m.line + 1, (int)m.column + 1,
                        "expected a single YAML document, found a second one");
  }
}

/* given (may be NULL): per table row, 1 when the file gives the key. */
static a2_code load_text(const char *text, size_t len, const char *name, a2_config *cfg,
                         a2_config_job *jobs, unsigned jobs_max, unsigned *njobs,
                         unsigned char *given, a2_err *err) {
  a2_config tmp;
  a2_config_default(&tmp);
  yaml_parser_t parser;
  yaml_document_t doc;
  if (len >= MAX_FILE_BYTES)
    return a2_err_set(err, A2_E_LIMIT, name, 0, 0, "file too large for a config (%u MiB or more)",
                      MAX_FILE_BYTES >> 20);
  a2_code rc = check_shape(text, len, name, err);
  if (rc) return rc;
  if (!yaml_parser_initialize(&parser))
    return a2_err_set(err, A2_E_NOMEM, name, 0, 0, "out of memory while reading YAML");
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
  if (!yaml_parser_load(&parser, &doc)) {
    rc = syntax_error(&parser, name, text, len, err);
    yaml_parser_delete(&parser);
    return rc;
  }
  loader L = {
      .name = name, .doc = &doc, .cfg = &tmp, .err = err, .jobs = jobs, .jobs_max = jobs_max};
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  if (root && root->type == YAML_MAPPING_NODE)
    rc = walk(&L, root, "");
  else if (root && !is_null(root))
    rc = AT(&L, root, "expected a mapping with keys chip, interconnect at the top level, found %s",
            node_kind(root));
  if (rc == A2_OK) rc = single_document(&L, &parser, text, len);
  if (rc == A2_OK) rc = check(&tmp, name, L.marks, &L.lmarks, err);
  if (rc == A2_OK) *cfg = tmp;
  if (rc == A2_OK && njobs) *njobs = L.njobs;
  for (unsigned i = 0; rc == A2_OK && given && i < a2_config_nkeys; i++)
    given[i] = L.marks[i].line != 0;
  yaml_document_delete(&doc);
  yaml_parser_delete(&parser);
  return rc;
}

a2_code a2_config_load_string(const char *yaml, const char *name, a2_config *cfg, a2_err *err) {
  /* strnlen: a huge string is refused without reading all of it */
  return load_text(yaml ? yaml : "", yaml ? strnlen(yaml, MAX_FILE_BYTES) : 0,
                   name ? name : "<string>", cfg, NULL, 0, NULL, NULL, err);
}

static a2_code load_file(const char *path, a2_config *cfg, a2_config_job *jobs, unsigned max,
                         unsigned *njobs, unsigned char *given, a2_err *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return a2_err_set(err, A2_E_IO, path, 0, 0, "cannot open: %s", strerror(errno));
  char *buf = NULL;
  size_t len = 0, cap = 0;
  a2_code rc = A2_OK;
  for (;;) {
    if (len == cap) {
      cap = cap ? cap * 2 : 4096;
      char *nb = cap > MAX_FILE_BYTES + 1 ? NULL : realloc(buf, cap);
      if (!nb) {
        rc = cap > MAX_FILE_BYTES + 1
                 ? a2_err_set(err, A2_E_INPUT, path, 0, 0,
                              "file too large for a config (%u MiB or more)", MAX_FILE_BYTES >> 20)
                 : a2_err_set(err, A2_E_NOMEM, path, 0, 0, "out of memory reading the file");
        break;
      }
      buf = nb;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0) {
      if (ferror(f)) rc = a2_err_set(err, A2_E_IO, path, 0, 0, "cannot read: %s", strerror(errno));
      break;
    }
  }
  fclose(f);
  if (rc == A2_OK) rc = load_text(buf ? buf : "", len, path, cfg, jobs, max, njobs, given, err);
  free(buf);
  return rc;
}

a2_code a2_config_load(const char *path, a2_config *cfg, a2_err *err) {
  return load_file(path, cfg, NULL, 0, NULL, NULL, err);
}

a2_code a2_config_load_jobs(const char *path, a2_config_job *jobs, unsigned max, unsigned *n,
                            a2_err *err) {
  a2_config cfg;
  *n = 0;
  a2_code rc = load_file(path, &cfg, jobs, max, n, NULL, err);
  if (rc == A2_OK && *n > max) {
    *n = 0;
    return a2_err_set(err, A2_E_INPUT, path, 0, 0, "more than %u jobs", max);
  }
  return rc;
}

/* ---- what an A3 config inherits from the A2 ------------------------------ */

/* Whether the config's topology reads key k (a key it does not read is not
 * a parameter of that config); chip.device and interconnect.timing are no
 * hardware parameters. */
static int key_used(const a2_config *cfg, const char *p) {
  a2_topology t = cfg->topology;
  if (!strcmp(p, "chip.device") || !strcmp(p, "interconnect.timing")) return 0;
  if (!strncmp(p, "interconnect.link.", 18)) return t != A2_TOPO_LEVELS;
  if (!strcmp(p, "interconnect.switch_latency"))
    return t == A2_TOPO_SWITCH || t == A2_TOPO_TWO_LEVEL;
  if (!strcmp(p, "interconnect.group_size") || !strcmp(p, "interconnect.nic.bandwidth") ||
      !strcmp(p, "interconnect.nic.latency") || !strcmp(p, "interconnect.nic.engine"))
    return t == A2_TOPO_TWO_LEVEL;
  if (!strncmp(p, "interconnect.nic.rdma_", 22)) {
    if (t == A2_TOPO_TWO_LEVEL) return cfg->nic_engine == A2_ENGINE_RDMA;
    for (uint32_t i = 1; t == A2_TOPO_LEVELS && i < cfg->nlevels; i++)
      if (cfg->levels[i].engine == A2_ENGINE_RDMA) return 1;
    return 0;
  }
  if (!strcmp(p, "interconnect.torus_width")) return t == A2_TOPO_TORUS;
  return 1;
}

a2_code a2_config_inherited(const char *path, const char *const *sets, unsigned nsets,
                            a2_config_inherited_key *out, unsigned max, unsigned *n, a2_err *err) {
  a2_config cfg;
  unsigned char given[A2_CONFIG_MAX_KEYS] = {0};
  *n = 0;
  a2_code rc = load_file(path, &cfg, NULL, 0, NULL, given, err);
  for (unsigned i = 0; rc == A2_OK && i < nsets; i++) {
    const char *eq = strchr(sets[i], '=');
    char key[128];
    snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - sets[i]) : (int)strlen(sets[i]), sets[i]);
    rc = a2_config_set(&cfg, key, eq ? eq + 1 : "", err);
    const a2_config_key *k = a2_config_key_find(key);
    if (k) given[k - a2_config_keys] = 1;
  }
  if (rc == A2_OK) rc = a2_config_validate(&cfg, path, err);
  if (rc != A2_OK || cfg.device != A2_DEVICE_A3) return rc;
  for (unsigned i = 0; i < a2_config_nkeys; i++) {
    const a2_config_key *k = &a2_config_keys[i];
    if (given[i] || !key_used(&cfg, k->path)) continue;
    if (*n < max) {
      out[*n].path = k->path;
      a2_config_key_format(k, a2_config_key_get(&cfg, k), out[*n].value, sizeof out[*n].value);
    }
    (*n)++;
  }
  return A2_OK;
}
