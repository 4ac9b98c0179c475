/* Faults as the model applies them: slow NPUs' speed, transfers that could
 * not be routed around a link that is down, and the seeded jitter
 * (configs/faults.h; docs/timing-model.md, "Faults"). */
#include <stdlib.h>

#include "model/internal.h"

void a2_fault_note_route(a2_core *c, uint32_t src, uint32_t dst) {
  a2_sim *s = c->sim;
  int32_t a = -1, b = -1;
  if (!a2_topo_unroutable(s->topo, s->dev[src], s->dev[dst], &a, &b, s->net)) return;
  if (!s->unrouted) s->unrouted = calloc(A2_UNROUTED_KEPT, sizeof *s->unrouted);
  if (s->unrouted && s->nunrouted < A2_UNROUTED_KEPT)
    s->unrouted[s->nunrouted] = (a2_unrouted){c->rank, c->idx, src, dst, a, b, a2k_now_ps()};
  s->nunrouted++;
}

uint64_t a2_fault_jitter_next(a2_core *c) {
  uint64_t stream = (uint64_t)c->sim->dev[c->rank] * 1024u + c->idx; /* < 2^30 */
  return a2_faults_jitter(c->sim->cfg->faults, stream << 34 | (c->jit_n++ & ((1ull << 34) - 1)));
}

uint64_t a2_fault_rank_scale(const a2_sim *s, uint32_t r, uint64_t x, int time) {
  if (!s->cfg->faults) return x;
  double f = a2_faults_speed(s->cfg->faults, s->dev[r]);
  return f == 1.0 ? x : a2_faults_scale(x, time ? 1.0 / f : f);
}

uint64_t a2_sim_unrouted(const a2_sim *s) {
  return s->nunrouted;
}

void a2_sim_report_unrouted(const a2_sim *s, FILE *out) {
  if (!s->nunrouted) return;
  for (uint64_t i = 0; i < s->nunrouted && i < A2_UNROUTED_KEPT; i++) {
    const a2_unrouted *u = &s->unrouted[i];
    fprintf(out,
            "  rank %u core %u at %.3f us: rank %u (NPU %u) -> rank %u (NPU %u) needs the link "
            "NPU %d - NPU %d\n",
            u->rank, u->core, (double)u->t_ps / 1e6, u->src, s->dev[u->src], u->dst, s->dev[u->dst],
            u->link_a, u->link_b);
  }
  if (s->nunrouted > A2_UNROUTED_KEPT)
    fprintf(out, "  ... and %llu more\n", (unsigned long long)(s->nunrouted - A2_UNROUTED_KEPT));
}
