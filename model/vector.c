/* Element-wise vector ops on UB tiles, per element type. */
#include <string.h>

#include "model/internal.h"
#include "traces/fp16.h"

static double op2(uint8_t op, double a, double b) {
  switch (op) {
  case A2_OP_VADD: return a + b;
  case A2_OP_VMAX: return a > b ? a : b;
  case A2_OP_VMIN: return a < b ? a : b;
  default: return a * b;
  }
}

void a2_vector_apply(a2_core *c, const a2_instr *in) {
  const a2_sim *s = c->sim;
  a2_dtype t = s->k->tiles[in->tile].dtype;
  uint8_t *d = c->ub + s->ub_off[in->tile];
  const uint8_t *a = c->ub + s->ub_off[in->tile_a], *b = c->ub + s->ub_off[in->tile_b];
  uint32_t es = a2_dtype_size(t);
  if (t == A2_FP32) { /* the common case, as a plain loop the compiler vectorises */
    float *D = (float *)(void *)d;
    const float *A = (const float *)(const void *)a, *B = (const float *)(const void *)b;
    uint64_t n = in->len / 4;
    switch (in->op) {
    case A2_OP_VADD:
      for (uint64_t i = 0; i < n; i++) D[i] = A[i] + B[i];
      return;
    case A2_OP_VMUL:
      for (uint64_t i = 0; i < n; i++) D[i] = A[i] * B[i];
      return;
    case A2_OP_VMAX:
      for (uint64_t i = 0; i < n; i++) D[i] = A[i] > B[i] ? A[i] : B[i];
      return;
    default:
      for (uint64_t i = 0; i < n; i++) D[i] = A[i] < B[i] ? A[i] : B[i];
      return;
    }
  }
  for (uint64_t i = 0; i + es <= in->len; i += es) {
    if (t == A2_FP32) {
      float x, y, r;
      memcpy(&x, a + i, 4);
      memcpy(&y, b + i, 4);
      r = (float)op2(in->op, x, y); /* exact: the fp32 op rounded once */
      memcpy(d + i, &r, 4);
    } else if (t == A2_FP16) {
      uint16_t x, y, r;
      memcpy(&x, a + i, 2);
      memcpy(&y, b + i, 2);
      r = a2_f32_to_f16((float)op2(in->op, a2_f16_to_f32(x), a2_f16_to_f32(y)));
      memcpy(d + i, &r, 2);
    } else {
      int32_t x, y, r;
      memcpy(&x, a + i, 4);
      memcpy(&y, b + i, 4);
      switch (in->op) {
      case A2_OP_VADD: r = (int32_t)((uint32_t)x + (uint32_t)y); break;
      case A2_OP_VMAX: r = x > y ? x : y; break;
      case A2_OP_VMIN: r = x < y ? x : y; break;
      default: r = (int32_t)((uint32_t)x * (uint32_t)y); break;
      }
      memcpy(d + i, &r, 4);
    }
  }
}
