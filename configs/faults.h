/* Faults and stragglers of one run (docs/timing-model.md, "Faults"): slow
 * NPUs, degraded or failed links and a seeded timing jitter. Set from the
 * flags of `a2a3sim run` (--slow-rank, --slow-link, --link-down, --jitter,
 * --seed); the model reads them through a2_config.faults (NULL: none). */
#ifndef A2_FAULTS_H
#define A2_FAULTS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define A2_MAX_FAULTS 64 /* slow NPUs, and link faults, each */

typedef struct {
  uint32_t npu;
  double factor; /* > 0: its cores and engines run at factor x their speed */
} a2_slow_npu;

typedef struct {
  uint32_t a, b;    /* the link(s) between NPU a and NPU b, both directions */
  double factor;    /* bandwidth factor, > 0; 0: the link is down */
  const char *flag; /* the flag that named it, for errors ("--link-down") */
  const char *spec; /* its text as given, for errors and reports */
} a2_link_fault;

typedef struct a2_faults {
  a2_slow_npu slow[A2_MAX_FAULTS];
  uint32_t nslow;
  a2_link_fault links[A2_MAX_FAULTS];
  uint32_t nlinks;
  uint64_t jitter_ps; /* each remote transfer starts up to this much later (uniform) */
  uint64_t seed;      /* seeds the jitter */
} a2_faults;

/* The speed factor of NPU npu (1 when f is NULL or names no such NPU). */
double a2_faults_speed(const a2_faults *f, uint32_t npu);

/* The bandwidth factor of the link from NPU a to NPU b (either order): 1
 * when f is NULL or has no fault there, 0 when it is down. */
double a2_faults_link(const a2_faults *f, int32_t a, int32_t b);

/* The jitter of remote transfer i (the model numbers them per core):
 * uniform in [0, jitter_ps] ps, a pure function of (seed, i). */
uint64_t a2_faults_jitter(const a2_faults *f, uint64_t i);

/* x scaled by factor (> 0), rounded to nearest, at least 1 for x > 0. */
uint64_t a2_faults_scale(uint64_t x, double factor);

#ifdef __cplusplus
}
#endif
#endif
