// The race detector's slow reference: every access is checked against every
// earlier access to the same buffer that it has not superseded, by a linear
// scan. The same happens-before rules, conflicts, superseding rules and
// report format as model/race.h (which documents them); no memory budget.
// The randomised comparison (race_compare_test.cc) runs both on the same
// calls and expects the same racing pairs.
#ifndef A2_TESTS_MODEL_RACE_REFERENCE_H
#define A2_TESTS_MODEL_RACE_REFERENCE_H

#include <stdint.h>
#include <stdio.h>

#include "model/race.h"
#include "traces/program.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct a2_race_ref a2_race_ref;

/* A reference detector for k->nranks * k->ncores cores; the report lists up
 * to `shown` pairs. Aborts when out of memory (a test's helper). */
a2_race_ref *a2_race_ref_create(const a2_program *k, uint32_t shown);
void a2_race_ref_free(a2_race_ref *r);
void a2_race_ref_access(a2_race_ref *r, uint32_t gid, uint32_t owner, uint16_t buf, uint64_t off,
                        uint64_t len, a2_race_kind kind, const a2_instr *in, uint64_t now_ps);
uint32_t *a2_race_ref_notify(a2_race_ref *r, uint32_t gid);
void a2_race_ref_land(a2_race_ref *r, uint32_t rank, uint16_t buf, uint64_t off, int set,
                      uint32_t *snap);
void a2_race_ref_acquire(a2_race_ref *r, uint32_t gid, uint32_t rank, uint16_t buf, uint64_t off);
uint64_t a2_race_ref_count(const a2_race_ref *r);
void a2_race_ref_report(const a2_race_ref *r, FILE *out);

#ifdef __cplusplus
}
#endif

#endif
