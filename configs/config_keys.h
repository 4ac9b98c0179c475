/* Private to configs/: the one table of config keys (config_keys.c) and the
 * per-key helpers that the YAML reader, a2_config_set, a2_config_validate and
 * a2_config_print share, so a key's unit, bounds and messages live in one
 * row. Adding a key = adding a field to a2_config and a row here. */
#ifndef A2_CONFIG_KEYS_H
#define A2_CONFIG_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "common/units.h"
#include "configs/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kind of a row whose value is one of a few names, not a quantity
 * (a2_unit_kind otherwise): the field holds the index of the name in the
 * row's names, min is 0 and max the last index. Parsing, bounds, messages
 * ("unknown timing; expected one of packet, reservation", the noun being
 * the last segment of the path) and printing all come from names. */
#define A2_KEY_ENUM 100

typedef struct a2_config_key {
  const char *path; /* dotted YAML path, e.g. "interconnect.link.bandwidth" */
  int kind;         /* a2_unit_kind or A2_KEY_ENUM */
  uint64_t min;     /* inclusive bounds, in base units (bytes, ps, Hz, B/s) */
  uint64_t max;
  size_t offset;            /* field in a2_config */
  unsigned width;           /* field size in bytes: 4 or 8 */
  const char *def;          /* default, spelt as in configs/a2-8p-hccs.yaml */
  const char *const *names; /* A2_KEY_ENUM: NULL-terminated, indexed by value; else NULL */
} a2_config_key;

/* Upper bound on the number of rows (checked at compile time), so the
 * loader can keep per-row state in fixed arrays. */
#define A2_CONFIG_MAX_KEYS 64

/* The names of a2_engine ("rdma", "sdma"), for interconnect.nic.engine and
 * a level's engine. */
extern const char *const a2_engine_names[];

/* Rows in print order; keys of one section are contiguous. */
extern const a2_config_key a2_config_keys[];
extern const unsigned a2_config_nkeys;

/* The row for a full dotted path, or NULL. */
const a2_config_key *a2_config_key_find(const char *path);
/* 1 if path (e.g. "chip" or "chip.mte") has keys below it. */
int a2_config_key_is_section(const char *path);

/* The field k describes in the struct at base (an a2_config, or an a2_level
 * for the level fields of configs/levels.c), as a uint64_t. */
uint64_t a2_key_read(const void *base, const a2_config_key *k);
void a2_key_write(void *base, const a2_config_key *k, uint64_t v);
uint64_t a2_config_key_get(const a2_config *cfg, const a2_config_key *k);
void a2_config_key_put(a2_config *cfg, const a2_config_key *k, uint64_t v);

/* Parse text as the key's kind and check its bounds. 0 on success; -1 with
 * a reason in why ("expected ..."), which does not repeat the key. */
int a2_config_key_parse(const a2_config_key *k, const char *text, uint64_t *v, char *why,
                        size_t why_size);
/* Bounds check alone (for validate): 0 or -1 with why. */
int a2_config_key_check(const a2_config_key *k, uint64_t v, char *why, size_t why_size);
/* The value as the YAML file would spell it ("28 GB/s", "full_mesh"). */
void a2_config_key_format(const a2_config_key *k, uint64_t v, char *out, size_t out_size);
/* An A2_KEY_ENUM row's names, comma-separated ("packet, reservation"); "" otherwise. */
void a2_config_key_names(const a2_config_key *k, char *out, size_t out_size);

/* "clock, vector_cores, ..." : the names directly under prefix ("" = top). */
void a2_config_key_children(const char *prefix, char *out, size_t out_size);
/* Up to four names under prefix close to name (typos), quoted and
 * comma-separated ("'clock'", "'a', 'b'"); "" if none. With prefix NULL,
 * full paths close to name (for --set). */
void a2_config_key_suggest(const char *prefix, const char *name, char *out, size_t out_size);

#ifdef __cplusplus
}
#endif
#endif
