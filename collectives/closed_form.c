/* Closed-form times of the all-reduce generators on an uncontended full
 * mesh, from the primitive equations of docs/timing-model.md. Nothing here
 * calls the model: each primitive is its equation, and each phase is the
 * schedule recurrence of the generator's instruction order (two receive
 * tiles, in-order pipes). Valid while one chunk holds the slice
 * (N <= chunk tile); otherwise the functions return 0 ("no closed form"). */
#include <stdbool.h>

#include "collectives/generators.h"

typedef struct {
  uint64_t bw, lat;
} stage;

typedef struct {
  const a2_config *cfg;
  stage h, l, i, o; /* HBM, link, MTE-in, MTE-out */
} prims;

static uint64_t ser(uint64_t n, uint64_t bw) {
  unsigned __int128 t = (unsigned __int128)n * 1000000000000ull + bw - 1;
  return (uint64_t)(t / bw);
}

static uint64_t max64(uint64_t a, uint64_t b) {
  return a > b ? a : b;
}

/* A transfer of n bytes through stages st[0..m): packets of at most
 * packet_size; packet j leaves stage x at
 *   D(x,j) = max(D(x-1,j) + lat(x-1), D(x,j-1)) + ser(size_j, bw(x)),
 * done = D(m-1, last) + lat(m-1). (Uniform packets: sum_x (ser(p)+lat) +
 * (k-1) * max_x ser(p).) */
static uint64_t pipe(const prims *P, uint64_t n, const stage *st, int m) {
  uint64_t D[4] = {0, 0, 0, 0}, p = P->cfg->packet_bytes;
  for (uint64_t off = 0; off < n; off += p) {
    uint64_t len = n - off < p ? n - off : p, arrive = 0;
    for (int x = 0; x < m; x++) {
      D[x] = max64(arrive, D[x]) + ser(len, st[x].bw);
      arrive = D[x] + st[x].lat;
    }
  }
  return D[m - 1] + st[m - 1].lat;
}

static uint64_t t_load(const prims *P, uint64_t n) {
  stage s[2] = {P->h, P->i};
  return pipe(P, n, s, 2);
}
static uint64_t t_store(const prims *P, uint64_t n) {
  stage s[2] = {P->o, P->h};
  return pipe(P, n, s, 2);
}
/* Control message over one link: a request or a notify. */
static uint64_t t_ctrl(const prims *P) {
  return ser(P->cfg->ctrl_bytes, P->l.bw) + P->l.lat;
}
/* remote_load: request there, data back through peer HBM, link, MTE-in. */
static uint64_t t_rload(const prims *P, uint64_t n) {
  stage s[3] = {P->h, P->l, P->i};
  return t_ctrl(P) + pipe(P, n, s, 3);
}
static uint64_t t_vec(const prims *P, uint64_t n) {
  const a2_config *c = P->cfg;
  return (c->vec_startup_cycles + (n + c->vec_bytes_per_cycle - 1) / c->vec_bytes_per_cycle) *
         a2_config_cycle_ps(c);
}
/* A notify blocks: out over the link, served at the peer's HBM, and the
 * acknowledgement back over the link (a control message each way). */
static uint64_t t_notify(const prims *P) {
  return 2 * t_ctrl(P) + ser(P->cfg->ctrl_bytes, P->h.bw) + P->h.lat;
}
/* Barrier: each rank's P-1 notifies go one after another, and its peers'
 * notifies to it have landed before its own last one is acknowledged
 * (notifies that land at one HBM together are served one after another:
 * a few S_h(c), ignored). */
static uint64_t t_barrier(const prims *P, uint32_t nr) {
  return (nr - 1) * t_notify(P);
}

static prims prims_of(const a2_config *c) {
  prims P = {c,
             {c->hbm_bw, c->hbm_lat_ps},
             {c->link_bw, c->link_lat_ps},
             {c->mte_in_bw, c->mte_lat_ps},
             {c->mte_out_bw, c->mte_lat_ps}};
  return P;
}

/* Accumulate n bytes from each of the P-1 peers starting at t: peer reads
 * alternate between two receive tiles (read j waits for the add of read
 * j-2), adds run in order on the vector pipe after the accumulator load.
 * Returns when the last add completes. */
static uint64_t reduce_phase(const prims *P, uint32_t nr, uint64_t n, uint64_t t) {
  uint64_t RL = t_rload(P, n), V = t_vec(P, n), acc = t + t_load(P, n);
  uint64_t v_done[2] = {0, 0}, last = acc;
  for (uint32_t j = 0; j + 1 < nr; j++) {
    uint64_t start = j < 2 ? t : v_done[j % 2];
    last = max64(start + RL, last) + V; /* waits for its data and the previous add */
    v_done[j % 2] = last;
  }
  return last;
}

static bool applicable(const a2_coll_params *p, const a2_config *cfg) {
  return cfg->topology == A2_TOPO_FULL_MESH && p->nranks >= 2 && p->cores == 1 &&
         p->size_bytes <= a2_coll_chunk_bytes(p->ub_bytes);
}

uint64_t a2_time_allreduce_mesh(const a2_coll_params *p, const a2_config *cfg) {
  if (!applicable(p, cfg)) return 0;
  prims P = prims_of(cfg);
  uint64_t N = p->size_bytes;
  uint64_t t = t_load(&P, N) + t_store(&P, N); /* stage-in */
  t += t_barrier(&P, p->nranks);
  t = reduce_phase(&P, p->nranks, N, t);
  return t + t_store(&P, N); /* stage-out */
}

uint64_t a2_time_allreduce_two_phase(const a2_coll_params *p, const a2_config *cfg) {
  if (!applicable(p, cfg)) return 0;
  prims P = prims_of(cfg);
  uint32_t nr = p->nranks;
  uint64_t N = p->size_bytes, B = N / nr;
  uint64_t t = t_load(&P, N) + t_store(&P, N);
  t += t_barrier(&P, nr);                          /* barrier A */
  t = reduce_phase(&P, nr, B, t) + t_store(&P, B); /* reduce-scatter */
  t += t_barrier(&P, nr);                          /* barrier B */
  /* all-gather: read j (chunk j, local when j == me) into tile j%2 waits for
   * the store of read j-2; reads start in order on the MTE-in pipe and
   * stores in order on the MTE-out pipe. */
  uint64_t RL = t_rload(&P, B), LOC = t_load(&P, B), ST = t_store(&P, B), end = t;
  for (uint32_t me = 0; me < nr; me++) {
    uint64_t st_done[2] = {t, t}, st_start = t, rl_start = t;
    for (uint32_t j = 0; j < nr; j++) {
      rl_start = max64(st_done[j % 2], rl_start); /* the MTE-in pipe starts in order */
      uint64_t done = rl_start + (j == me ? LOC : RL);
      st_start = max64(done, st_start);
      st_done[j % 2] = st_start + ST;
      end = max64(end, st_done[j % 2]);
    }
  }
  return end;
}
