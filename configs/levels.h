/* Private to configs/: the fields of one entry of interconnect.levels
 * (config.h, a2_level) as key rows (config_keys.h), so that a field's unit,
 * bounds and messages come from the same helpers as the other keys; the
 * cross-level rules; --set and printing of levels. */
#ifndef A2_LEVELS_H
#define A2_LEVELS_H

#include <stddef.h>
#include <stdio.h>

#include "configs/config_keys.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The rows of a level's fields other than `name`; offsets are into a2_level. */
extern const a2_config_key a2_level_fields[];
extern const unsigned a2_level_nfields;
/* The fields' names, for messages. */
#define A2_LEVEL_FIELD_LIST                                                           \
  "name, kind, fanout, bandwidth, latency, switch_latency, engine, dma_ack_latency, " \
  "dma_ack_bandwidth"

const a2_config_key *a2_level_field(const char *name);
uint64_t a2_level_get(const a2_level *l, const a2_config_key *k);
void a2_level_put(a2_level *l, const a2_config_key *k, uint64_t v);
/* 0 when s is a level name (1..31 of letters, digits, '_', '-', '.'); -1 with why. */
int a2_level_name_check(const char *s, char *why, size_t why_size);
/* The level's default name, "level<i>". */
void a2_level_default_name(a2_level *l, unsigned i);

/* The rules across levels: topology levels has at least one; every level
 * but the top has a fan-out and the top none; mesh only at level 0; every
 * field in bounds. 0, or -1 with *level (the level at fault, or
 * A2_MAX_LEVELS for the list as a whole), *field (its field name, or NULL)
 * and why. */
int a2_levels_check(const a2_config *cfg, unsigned *level, const char **field, char *why,
                    size_t why_size);

/* --set interconnect.levels.I.FIELD=VALUE (I < nlevels, or I == nlevels to
 * add a level; an added level starts as a switch level named level<I> with
 * no fan-out, bandwidth or latency). Returns 1 when key names a level field
 * (then *rc and err are its result), 0 when it does not. */
int a2_levels_set(a2_config *cfg, const char *key, const char *value, a2_code *rc, a2_err *err);
/* The row of the field interconnect.levels.I.FIELD names (any I), or NULL
 * when key names no level field. */
const a2_config_key *a2_levels_key(const char *key);
/* The value of interconnect.levels.I.FIELD in base units; 0 when none. */
int a2_levels_get(const a2_config *cfg, const char *key, uint64_t *v);

/* The levels as YAML under interconnect (indent 2), nothing without levels. */
void a2_levels_print(const a2_config *cfg, FILE *f);

#ifdef __cplusplus
}
#endif
#endif
