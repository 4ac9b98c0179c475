/* Lookups of the faults of a run (faults.h). */
#include "configs/faults.h"

#include <math.h>

double a2_faults_speed(const a2_faults *f, uint32_t npu) {
  if (!f) return 1.0;
  double s = 1.0;
  for (uint32_t i = 0; i < f->nslow; i++)
    if (f->slow[i].npu == npu) s = f->slow[i].factor; /* the last one given wins */
  return s;
}

double a2_faults_link(const a2_faults *f, int32_t a, int32_t b) {
  if (!f || a < 0 || b < 0) return 1.0;
  double x = 1.0;
  for (uint32_t i = 0; i < f->nlinks; i++) {
    const a2_link_fault *l = &f->links[i];
    if (((int32_t)l->a == a && (int32_t)l->b == b) || ((int32_t)l->a == b && (int32_t)l->b == a))
      x = l->factor == 0 ? 0 : (x == 0 ? 0 : x * l->factor); /* down wins; factors multiply */
  }
  return x;
}

/* splitmix64: a well-mixed 64-bit function of its input. */
static uint64_t mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t a2_faults_jitter(const a2_faults *f, uint64_t i) {
  if (!f || !f->jitter_ps) return 0;
  uint64_t r = mix(mix(f->seed) ^ i);
  return f->jitter_ps == UINT64_MAX ? r : r % (f->jitter_ps + 1);
}

uint64_t a2_faults_scale(uint64_t x, double factor) {
  if (factor == 1.0 || x == 0) return x;
  double v = nearbyint((double)x * factor);
  if (v < 1) return 1;
  if (v >= 1.8e19) return UINT64_MAX;
  return (uint64_t)v;
}
