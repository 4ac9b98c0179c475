/* A cube (AIC) core's own pipes (docs/timing-model.md, "Cube cores"):
 *   textract  MTE1, L1 -> L0A / L0B:   T = len / chip.cube.l1_to_l0a (or l0b)
 *   tmatmul   the cube:                T = (startup_cycles + M K N / fp16_macs_per_cycle) * cycle
 * each serialised on its pipe (it starts at max(ready, pipe free)). Its
 * tload (MTE2, through the rank's L2) and tstore_fixpipe (FixPipe, to the
 * rank's HBM) are transfers (transfer.c). */
#include <string.h>

#include "model/internal.h"
#include "traces/fp16.h"

/* ps to move len bytes at bw bytes/s, rounded up. */
static uint64_t move_ps(uint64_t len, uint64_t bw) {
  unsigned __int128 ps = (unsigned __int128)len * 1000000000000ull + bw - 1;
  return (uint64_t)(ps / bw);
}

static void matmul(a2_core *c, const a2_instr *in) {
  const a2_sim *s = c->sim;
  float *C = (float *)(void *)(c->ub + s->ub_off[in->tile]);
  const uint8_t *A = c->ub + s->ub_off[in->tile_a], *B = c->ub + s->ub_off[in->tile_b];
  uint64_t m = (uint64_t)in->value, kk = in->chunk, n = in->off;
  if (!in->mode) memset(C, 0, m * n * sizeof *C);
  float brow[1024];
  for (uint64_t p = 0; p < kk; p++) {
    for (uint64_t j = 0; j < n; j += 1024) {
      uint64_t w = n - j < 1024 ? n - j : 1024;
      for (uint64_t q = 0; q < w; q++) {
        uint16_t h;
        memcpy(&h, B + (p * n + j + q) * 2, 2);
        brow[q] = a2_f16_to_f32(h);
      }
      for (uint64_t i = 0; i < m; i++) {
        uint16_t h;
        memcpy(&h, A + (i * kk + p) * 2, 2);
        float a = a2_f16_to_f32(h);
        float *row = C + i * n + j;
        for (uint64_t q = 0; q < w; q++) row[q] += a * brow[q];
      }
    }
  }
}

void a2_cube_start(a2_core *c, const a2_instr *in, uint32_t slot, uint64_t now) {
  const a2_config *cfg = c->sim->cfg;
  uint64_t *free_ps, dur;
  if (in->op == A2_OP_TEXTRACT) {
    free_ps = &c->mte1_free_ps;
    uint8_t sp = c->sim->k->tiles[in->tile].space;
    dur = move_ps(in->len, sp == A2_SPACE_L0A ? cfg->l1_to_l0a_bw : cfg->l1_to_l0b_bw);
    if (!c->sim->no_data)
      memcpy(c->ub + c->sim->ub_off[in->tile], c->ub + c->sim->ub_off[in->tile_a] + in->off2,
             in->len);
  } else {
    free_ps = &c->cube_free_ps;
    uint64_t macs = (uint64_t)in->value * in->chunk * in->off;
    uint64_t cycles =
        cfg->cube_startup_cycles + (macs + cfg->cube_fp16_macs - 1) / cfg->cube_fp16_macs;
    dur = cycles * c->sim->cycle_ps;
    if (!c->sim->no_data) matmul(c, in);
  }
  uint64_t start = *free_ps > now ? *free_ps : now; /* max(ready, pipe free) */
  *free_ps = start + dur;
  c->done[slot] = *free_ps;
  if (!c->ahead) a2_core_wake(c, *free_ps);
}

void a2_fixpipe_cast(uint8_t *dst, const uint8_t *src, uint64_t len, a2_dtype dt) {
  if (dt == A2_FP32) {
    memcpy(dst, src, len);
    return;
  }
  for (uint64_t i = 0; i < len / 2; i++) {
    float f;
    memcpy(&f, src + i * 4, 4);
    uint16_t h = a2_f32_to_f16(f);
    memcpy(dst + i * 2, &h, 2);
  }
}
