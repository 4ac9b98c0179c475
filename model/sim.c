/* Building and running the model: one HBM stage per rank, an MTE-in and an
 * MTE-out stage and a core process per vector core, the topology's link
 * stages, and, for a program with put/get, the DMA engines (dma.c). Creation
 * order is fixed, so runs are deterministic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/huge.h"
#include "model/internal.h"
#include "noc/topology.h"
#include "traces/fp16.h"
#include "traces/validate.h"

/* Bytes of a block holding `each` bytes for every core. */
static size_t per_core(const a2_program *k, size_t each) {
  return (size_t)k->nranks * k->ncores * each;
}
/* a core's tile scoreboard entries and last-write slots (at least one each) */
#define NTILES(k) ((size_t)((k)->ntiles ? (k)->ntiles : 1))
#define NBUFS(k) ((size_t)((k)->nbufs ? (k)->nbufs : 1))

/* Bytes of one core's unified buffer: its tiles, on lines of its own. */
static size_t ub_stride(const a2_program *k) {
  size_t ub = 0;
  for (uint32_t i = 0; i < k->ntiles; i++) ub += k->tiles[i].bytes;
  return a2_stride_lines(ub);
}

/* Bytes between two ranks' copies of a buffer. */
static size_t buf_stride(const a2_buf_decl *b) {
  return a2_stride_lines(b->bytes ? b->bytes : 1);
}

static void fill_pattern(uint8_t *m, const a2_buf_decl *b, uint32_t seed, uint32_t rank) {
  uint32_t es = a2_dtype_size(b->dtype);
  for (uint64_t i = 0; i < b->bytes / es; i++) {
    float v = a2_pattern_value(seed, rank, i);
    if (b->dtype == A2_FP32) {
      memcpy(m + i * 4, &v, 4);
    } else if (b->dtype == A2_FP16) {
      uint16_t h = a2_f32_to_f16(v);
      memcpy(m + i * 2, &h, 2);
    } else {
      int32_t x = (int32_t)(v * 64.0f);
      memcpy(m + i * 4, &x, 4);
    }
  }
}

/* The --set flags that give the config P NPUs, as text for an error. */
static void suggest_ranks(const a2_config *cfg, uint32_t P, bool by_ranks, char *out, size_t n) {
  if (cfg->topology == A2_TOPO_TORUS && P % cfg->torus_width) {
    uint32_t w = 1; /* the divisor of P nearest its square root, for a squarish torus */
    for (uint32_t d = 1; (uint64_t)d * d <= P; d++)
      if (P % d == 0) w = d;
    snprintf(out, n,
             "run it with --set interconnect.ranks=%u --set interconnect.torus_width=%u (the "
             "width must divide the ranks)",
             P, w);
  } else if (cfg->topology == A2_TOPO_FULL_MESH && by_ranks) {
    snprintf(out, n,
             "run it with --set interconnect.ranks=%u (a full mesh of %u NPUs), or on a topology "
             "that grows with --ranks (--set interconnect.topology=two_level)",
             P, P);
  } else {
    snprintf(out, n, "run it with --set interconnect.ranks=%u", P);
  }
}

static a2_code check_devices(const a2_config *cfg, const a2_program *k, const uint32_t *dev,
                             a2_err *err) {
  const char *name = dev ? "-d" : "--ranks"; /* the flag that chose the ranks */
  char fix[256];
  if (k->nranks > cfg->ranks) {
    suggest_ranks(cfg, k->nranks, !dev, fix, sizeof fix);
    return a2_err_set(err, A2_E_INPUT, name, 0, 0,
                      "%u ranks requested but the config's %s has %u NPUs (interconnect.ranks): "
                      "%s",
                      k->nranks, a2_topo_name(cfg->topology), cfg->ranks, fix);
  }
  for (uint32_t r = 0; dev && r < k->nranks; r++) {
    if (dev[r] >= cfg->ranks) {
      suggest_ranks(cfg, dev[r] + 1, false, fix, sizeof fix);
      return a2_err_set(err, A2_E_INPUT, name, 0, 0,
                        "device %u outside 0..%u (interconnect.ranks is %u): %s", dev[r],
                        cfg->ranks - 1, cfg->ranks, fix);
    }
    for (uint32_t q = 0; q < r; q++)
      if (dev[q] == dev[r])
        return a2_err_set(err, A2_E_INPUT, name, 0, 0, "device %u listed twice", dev[r]);
  }
  return A2_OK;
}

a2_code a2_sim_create(const a2_config *cfg, const a2_program *k, const uint32_t *devices,
                      const char *name, a2_sim **out, a2_err *err) {
  return a2_sim_create_mode(cfg, k, devices, name, 0, 0, out, err);
}

int a2_sim_no_data(const a2_sim *s) {
  return s->no_data;
}

/* Payload bytes a run allocates, saturating at UINT64_MAX. */
static uint64_t payload_bytes(const a2_program *k, int no_data) {
  unsigned __int128 per_rank = 0, ub = 0;
  for (uint32_t b = 0; b < k->nbufs; b++)
    if (!no_data || k->bufs[b].kind == A2_BUF_SIGNAL) per_rank += k->bufs[b].bytes;
  for (uint32_t t = 0; t < k->ntiles && !no_data; t++) ub += k->tiles[t].bytes;
  unsigned __int128 all = per_rank * k->nranks + ub * k->nranks * k->ncores;
  return all > UINT64_MAX ? UINT64_MAX : (uint64_t)all;
}

/* Validate, then build into *out; on failure *out may hold a half-built
 * simulation (a2_sim_create_mode frees it). */
/* Whether a whole (not produced on demand) program holds a remote store. */
static bool has_rstore(const a2_program *k) {
  if (k->source) return false;
  for (uint32_t p = 0; p < k->nranks * k->ncores; p++)
    for (uint32_t i = 0; i < k->progs[p].n; i++)
      if (k->progs[p].v[i].op == A2_OP_RSTORE) return true;
  return false;
}

/* A store port for each link from an NPU that the topology built (the
 * stages added so far): a rank's remote stores pass the port of their
 * route's first link, at chip.mte.remote_store_bandwidth
 * (docs/timing-model.md, "Store ports"). */
static a2_code store_ports_build(a2_sim *s, a2_err *err) {
  uint32_t n = a2_noc_stage_count(s->net);
  s->store_port = malloc((n ? n : 1) * sizeof *s->store_port);
  if (!s->store_port)
    return a2_err_set(err, A2_E_NOMEM, NULL, 0, 0, "out of memory for store ports");
  for (uint32_t id = 0; id < n; id++) {
    int32_t a, b;
    s->store_port[id] = A2_NO_STAGE;
    /* a switch's ports (from -1) are never a route's first link */
    if (a2_noc_stage_kind(s->net, id, &a, &b) != A2_STAGE_LINK || a < 0) continue;
    a2_code rc = a2_noc_add_stage(s->net, A2_STAGE_STORE_PORT, s->cfg->store_port_bw, 0, a, b,
                                  &s->store_port[id], err);
    if (rc) return rc;
  }
  return A2_OK;
}

static a2_code build(const a2_config *cfg, const a2_program *k, const uint32_t *devices,
                     const char *name, int no_data, uint64_t mem_limit_bytes, a2_sim **out,
                     a2_err *err) {
  a2_code rc = a2_program_validate(k, cfg->ub_bytes, cfg->vector_cores, name, err);
  if (rc) return rc;
  a2_cube_caps caps = {
      {cfg->ub_bytes, cfg->l1_bytes, cfg->l0a_bytes, cfg->l0b_bytes, cfg->l0c_bytes},
      cfg->cube_cores};
  if ((rc = a2_program_validate_cube(k, &caps, name, err))) return rc;
  if ((rc = check_devices(cfg, k, devices, err))) return rc;
  uint64_t win = 0;
  for (uint32_t b = 0; b < k->nbufs; b++)
    if (k->bufs[b].kind != A2_BUF_TENSOR) win += k->bufs[b].bytes;
  if (win > cfg->window_bytes)
    return a2_err_set(err, A2_E_INPUT, name, 0, 0,
                      "windows need %llu bytes per rank; chip.window_size allows %llu",
                      (unsigned long long)win, (unsigned long long)cfg->window_bytes);
  if ((rc = a2_config_validate(cfg, name, err))) return rc;
  bool dma;
  if ((rc = a2_dma_needed(k, cfg, name, &dma, err))) return rc;
  bool stores = k->uses_rstore || has_rstore(k);
  uint64_t limit = mem_limit_bytes ? mem_limit_bytes : A2_DEFAULT_MEM_LIMIT;
  uint64_t need = payload_bytes(k, no_data);
  if (need > limit)
    return a2_err_set(err, A2_E_INPUT, name, 0, 0,
                      "the run needs %llu MiB of simulated buffers and tiles, over the %llu MiB "
                      "limit (raise it with --mem-limit, or run timing-only with --no-data)",
                      (unsigned long long)(need >> 20), (unsigned long long)(limit >> 20));

  a2_sim *s = calloc(1, sizeof *s);
  if (!s) return a2_err_set(err, A2_E_NOMEM, name, 0, 0, "out of memory for the simulation");
  *out = s;
  s->cfg = cfg;
  s->k = k;
  s->no_data = no_data != 0;
  s->cycle_ps = a2_config_cycle_ps(cfg);
  uint32_t P = k->nranks, C = k->ncores;
  s->dev = calloc(P, sizeof *s->dev);
  s->ub_off = calloc(k->ntiles ? k->ntiles : 1, sizeof *s->ub_off);
  s->hbm = calloc(P, sizeof *s->hbm);
  s->l2 = k->ncube ? calloc(P, sizeof *s->l2) : NULL;
  /* cache-line aligned (a window slot is one line), on huge pages */
  s->cores = a2_huge_alloc(per_core(k, sizeof(a2_core)));
  s->stats = calloc(P, sizeof *s->stats);
  s->buf_mem = calloc(k->nbufs ? k->nbufs : 1, sizeof *s->buf_mem);
  s->buf_stride = calloc(k->nbufs ? k->nbufs : 1, sizeof *s->buf_stride);
  s->core_tiles = a2_huge_alloc(per_core(k, NTILES(k) * sizeof(a2_tile_state)));
  s->core_buf_w = a2_huge_alloc(per_core(k, NBUFS(k) * sizeof(uint64_t)));
  s->ub_stride = ub_stride(k);
  if (!s->no_data) s->core_ub = a2_huge_alloc(per_core(k, s->ub_stride));
  if (!s->dev || !s->ub_off || !s->hbm || (k->ncube && !s->l2) || !s->cores || !s->stats ||
      !s->buf_mem || !s->buf_stride || !s->core_tiles || !s->core_buf_w ||
      (!s->no_data && !s->core_ub))
    return a2_err_set(err, A2_E_NOMEM, name, 0, 0,
                      "out of memory for the state of %u ranks x %u cores", P, C);
  for (uint32_t r = 0; r < P; r++) s->dev[r] = devices ? devices[r] : r;
  for (uint32_t i = 1; i < k->ntiles; i++) s->ub_off[i] = s->ub_off[i - 1] + k->tiles[i - 1].bytes;
  /* a buffer of every rank in one block (rank r's at r * buf_stride): */
  for (uint32_t b = 0; b < k->nbufs; b++) {
    if (s->no_data && k->bufs[b].kind != A2_BUF_SIGNAL) continue; /* stays NULL */
    size_t stride = buf_stride(&k->bufs[b]);
    uint8_t *m = stride <= SIZE_MAX / P ? a2_huge_alloc(stride * P) : NULL;
    if (!m)
      return a2_err_set(err, A2_E_NOMEM, name, 0, 0,
                        "out of memory for buffer '%s' (%llu MiB for its %u ranks)",
                        k->bufs[b].name, (unsigned long long)(k->bufs[b].bytes * P >> 20), P);
    s->buf_mem[b] = m;
    s->buf_stride[b] = stride;
    for (uint32_t r = 0; r < P && k->init[b] == A2_INIT_PATTERN; r++)
      fill_pattern(m + (size_t)r * stride, &k->bufs[b], k->seed, r);
  }

  if ((rc = a2k_init(err))) return rc;
  if ((rc = a2_noc_create(cfg->packet_bytes, sizeof(a2_xfer_ctx), &s->net, err))) return rc;
  if (cfg->timing != A2_TIMING_PACKET) a2_noc_set_reservation(s->net, a2_core_defer, s);
  if ((rc = a2_topo_build(cfg, cfg->ranks, s->net, &s->topo, err))) return rc;
  if (stores && (rc = store_ports_build(s, err))) return rc;
  for (uint32_t r = 0; r < P; r++)
    if ((rc = a2_noc_add_stage(s->net, A2_STAGE_HBM, cfg->hbm_bw, cfg->hbm_lat_ps, (int32_t)r, -1,
                               &s->hbm[r], err)))
      return rc;
  /* with cube cores, an L2 stage per rank their loads share (docs/timing-model.md) */
  for (uint32_t r = 0; r < P && k->ncube; r++)
    if ((rc = a2_noc_add_stage(s->net, A2_STAGE_L2, cfg->l2_bw, cfg->l2_lat_ps, (int32_t)r, -1,
                               &s->l2[r], err)))
      return rc;
  for (uint32_t r = 0; r < P; r++)
    for (uint32_t c = 0; c < C; c++) {
      /* a cube core's MTE2 (GM -> L1) and FixPipe (L0C -> GM) in place of MTE-in/out */
      int cube = c >= C - k->ncube;
      size_t i = (size_t)r * C + c;
      a2_core *co = &s->cores[i];
      /* its slices of the per-core blocks (no UB when timing-only) */
      co->tiles = s->core_tiles + i * NTILES(k);
      co->buf_w = s->core_buf_w + i * NBUFS(k);
      co->ub = s->no_data ? NULL : s->core_ub + i * s->ub_stride;
      if ((rc = a2_noc_add_stage(
               s->net, cube ? A2_STAGE_MTE2 : A2_STAGE_MTE_IN,
               a2_fault_rank_scale(s, r, cube ? cfg->gm_to_l1_bw : cfg->mte_in_bw, 0),
               a2_fault_rank_scale(s, r, cfg->mte_lat_ps, 1), (int32_t)r, (int32_t)c,
               &co->stages[ST_MTE_IN], err)))
        return rc;
      if ((rc = a2_noc_add_stage(
               s->net, cube ? A2_STAGE_FIXPIPE : A2_STAGE_MTE_OUT,
               a2_fault_rank_scale(s, r, cube ? cfg->l0c_to_gm_bw : cfg->mte_out_bw, 0),
               a2_fault_rank_scale(s, r, cfg->mte_lat_ps, 1), (int32_t)r, (int32_t)c,
               &co->stages[ST_MTE_OUT], err)))
        return rc;
      if ((rc = a2_core_init(s, co, r, c, err))) return rc;
    }
  if (dma && (rc = a2_dma_build(s, err))) return rc;
  s->held.due_ps = UINT64_MAX;
  s->held.net = s->net;
  s->held.batch_ps = a2_ser_ps(cfg->packet_bytes, cfg->hbm_bw); /* a packet at the HBM */
  if (cfg->timing == A2_TIMING_ORDERED) {
    if ((rc = a2k_proc_create("replies", a2_replies_reserve, &s->held, &s->held.proc, err)))
      return rc;
    if (!(s->held.requests = calloc(a2_noc_stage_count(s->net), 1)))
      return a2_err_set(err, A2_E_NOMEM, name, 0, 0, "out of memory for the held replies");
    s->held.arrival = (uint8_t)a2_topo_relays(s->topo);
    a2_tq_set_sorted(&s->held.at_hbm); /* pushed about in time order: a2_tq_set_sorted */
    /* rest too, but where ranks have several cores and routes more than one
     * link: it then holds the legs of requests and replies past their first
     * link (model/transfer.c), pushed further out of order, which a heap
     * takes better (either layout gives the same order) */
    bool links = false;
    for (uint32_t r = 1; r < P && k->ncores > 1 && !links; r++)
      links = a2_topo_route_len(s->topo, s->dev[0], s->dev[r]) > 1;
    if (!links) a2_tq_set_sorted(&s->held.rest);
  }
  return a2_sim_set_race_check(s, 1, err);
}

a2_code a2_sim_create_mode(const a2_config *cfg, const a2_program *k, const uint32_t *devices,
                           const char *name, int no_data, uint64_t mem_limit_bytes, a2_sim **out,
                           a2_err *err) {
  a2_sim *s = NULL;
  a2_code rc = build(cfg, k, devices, name, no_data, mem_limit_bytes, &s, err);
  if (rc) { /* the caller gets nothing half-built */
    a2_sim_free(s);
    s = NULL;
  }
  *out = s;
  return rc;
}

void a2_sim_free(a2_sim *s) {
  if (!s) return;
  const a2_program *k = s->k;
  if (s->cores)
    for (uint32_t i = 0; i < k->nranks * k->ncores; i++) {
      a2_tq_free(&s->cores[i].pend);
      for (int w = 0; w < A2_NIO; w++) a2_window_free(&s->cores[i].win_io[w]);
      if (!s->cores[i].batch.lent) free(s->cores[i].batch.v); /* it outgrew batch_v */
    }
  a2_huge_free(s->core_tiles, per_core(k, NTILES(k) * sizeof(a2_tile_state)));
  a2_huge_free(s->core_buf_w, per_core(k, NBUFS(k) * sizeof(uint64_t)));
  a2_huge_free(s->core_ub, per_core(k, s->ub_stride));
  if (s->buf_mem && s->buf_stride) /* a block is allocated only with its stride set */
    for (uint32_t b = 0; b < k->nbufs; b++)
      a2_huge_free(s->buf_mem[b], s->buf_stride[b] * k->nranks);
  free(s->buf_mem);
  free(s->buf_stride);
  a2_huge_free(s->cores, per_core(k, sizeof(a2_core)));
  free(s->ub_off);
  free(s->store_port);
  free(s->hbm);
  free(s->l2);
  free(s->stats);
  free(s->dev);
  a2_dma_free(s);
  a2_topo_free(s->topo);
  free(s->unrouted);
  free(s->held.v);
  a2_tq_free(&s->held.at_hbm);
  a2_tq_free(&s->held.rest);
  free(s->held.requests);
  free(s->held.b);
  free(s->held.done);
  free(s->held.r);
  free(s->held.rdone);
  free(s->start_ps);
  a2_noc_free(s->net);
  a2_race_free(s->race);
  if (s->obs) a2_obs_discard(s->obs); /* set, but the run never finished it */
  free(s);
}

a2_code a2_sim_set_race_check(a2_sim *s, int on, a2_err *err) {
  if (!on) {
    a2_race_free(s->race);
    s->race = NULL;
    return A2_OK;
  }
  if (!s->race_budget) s->race_budget = A2_RACE_DEFAULT_BUDGET;
  if (!s->race && !(s->race = a2_race_create(s->k, s->race_budget)))
    return a2_err_set(err, A2_E_NOMEM, NULL, 0, 0,
                      "out of memory for race detection (%u cores); try --no-race-check",
                      s->k->nranks * s->k->ncores);
  return A2_OK;
}

a2_code a2_sim_set_timeline(a2_sim *s, const char *path, a2_err *err) {
  if (s->obs) return a2_err_set(err, A2_E_INTERNAL, NULL, 0, 0, "timeline already set");
  a2_code rc = a2_obs_create(path, s->k->nranks, s->k->ncores, s->k->nbufs, s->dev, s->rank_names,
                             s->net, &s->obs, err);
  if (rc == A2_OK) a2_noc_set_observer(s->net, a2_obs_packet, s->obs);
  return rc;
}

a2_code a2_sim_set_rank_start(a2_sim *s, uint32_t rank, uint64_t t_ps, a2_err *err) {
  if (!s->start_ps && !(s->start_ps = calloc(s->k->nranks, sizeof *s->start_ps)))
    return a2_err_set(err, A2_E_NOMEM, NULL, 0, 0, "out of memory for start times");
  s->start_ps[rank] = t_ps;
  return A2_OK;
}

void a2_sim_set_rank_names(a2_sim *s, const char *const *names) {
  s->rank_names = names;
}

a2_code a2_sim_set_race_budget(a2_sim *s, uint64_t bytes, a2_err *err) {
  bool on = s->race != NULL;
  a2_race_free(s->race);
  s->race = NULL;
  s->race_budget = bytes ? bytes : A2_RACE_DEFAULT_BUDGET;
  return on ? a2_sim_set_race_check(s, 1, err) : A2_OK;
}

int a2_sim_race_abandoned(const a2_sim *s, uint64_t *budget, uint64_t *at_ps) {
  return s->race && a2_race_abandoned(s->race, budget, at_ps);
}

uint64_t a2_sim_races(const a2_sim *s) {
  return s->race ? a2_race_count(s->race) : 0;
}

void a2_sim_report_races(const a2_sim *s, FILE *out) {
  if (s->race) a2_race_report(s->race, out);
}

a2_code a2_sim_run(a2_sim *s, uint64_t max_ps, a2_run_status *status, a2_err *err) {
  uint32_t n = s->k->nranks * s->k->ncores;
  for (uint32_t i = 0; i < n; i++)
    a2_core_wake(&s->cores[i], s->start_ps ? s->start_ps[i / s->k->ncores] : 0);
  a2k_stop why;
  a2_code rc = a2k_run(max_ps, &why, err);
  /* the bound is where a time-limited run stopped, whatever its last event */
  s->stop_ps = !rc && why == A2K_TIME_LIMIT && max_ps > a2k_now_ps() ? max_ps : a2k_now_ps();
  if (!rc && s->run_rc) { /* a program source failed: the run is not a result */
    *err = s->run_err;
    rc = s->run_rc;
  }
  if (s->obs) {
    a2_noc_flush_observer(s->net);
    if (rc) /* the run failed: its timeline would look complete, so none is left */
      a2_obs_discard(s->obs);
    else
      rc = a2_obs_finish(s->obs, err);
    s->obs = NULL;
    a2_noc_set_observer(s->net, NULL, NULL);
  }
  if (rc) return rc;
  bool all_done = true;
  for (uint32_t r = 0; r < s->k->nranks; r++) { /* the counters: the sum of its cores' */
    a2_rank_stats *st = &s->stats[r];
    st->remote_read_bytes = st->remote_write_bytes = st->remote_ops = 0;
    st->notifies = st->waits = 0;
  }
  for (uint32_t i = 0; i < n; i++) {
    a2_core *c = &s->cores[i];
    a2_rank_stats *st = &s->stats[c->rank];
    st->remote_read_bytes += c->cnt.remote_read_bytes;
    st->remote_write_bytes += c->cnt.remote_write_bytes;
    st->remote_ops += c->cnt.remote_ops;
    st->notifies += c->cnt.notifies;
    st->waits += c->cnt.waits;
    if (!a2_core_finished(c)) all_done = false;
    if (c->end_ps > st->end_ps) st->end_ps = c->end_ps;
    if (c->idx >= s->k->ncores - s->k->ncube && c->end_ps > st->cube_end_ps)
      st->cube_end_ps = c->end_ps;
    if (c->rounds > st->barrier_rounds) st->barrier_rounds = c->rounds;
  }
  *status = all_done                 ? A2_RUN_DONE
            : why == A2K_TIME_LIMIT  ? A2_RUN_TIME_LIMIT
            : why == A2K_EVENT_LIMIT ? A2_RUN_EVENT_LIMIT
                                     : A2_RUN_DEADLOCK;
  return A2_OK;
}

const a2_rank_stats *a2_sim_rank_stats(const a2_sim *s, uint32_t rank) {
  return &s->stats[rank];
}

uint64_t a2_sim_end_ps(const a2_sim *s) {
  uint64_t t = 0;
  for (uint32_t r = 0; r < s->k->nranks; r++)
    if (s->stats[r].end_ps > t) t = s->stats[r].end_ps;
  return t;
}

uint64_t a2_sim_stop_ps(const a2_sim *s) {
  uint64_t end = a2_sim_end_ps(s);
  return s->stop_ps > end ? s->stop_ps : end;
}

const uint8_t *a2_sim_buffer(const a2_sim *s, uint32_t rank, uint32_t buf) {
  return a2_mem(s, rank, buf);
}

void a2_sim_set_event_limit(a2_sim *s, uint64_t max_events) {
  (void)s; /* one simulation per process: the limit is the event kernel's */
  a2k_set_event_limit(max_events);
}

uint64_t a2_sim_activations(const a2_sim *s) {
  (void)s;
  return a2k_activations();
}

void a2_sim_report_blocked(const a2_sim *s, FILE *out) {
  for (uint32_t i = 0; i < s->k->nranks * s->k->ncores; i++) {
    const a2_core *c = &s->cores[i];
    if (a2_core_finished(c)) continue;
    if (c->pc < c->base + c->prog->n && c->blocked) {
      const a2_instr *in = &c->prog->v[c->pc - c->base];
      int32_t v;
      memcpy(&v, a2_mem(s, c->rank, in->buf) + in->off, 4);
      fprintf(out, "rank %u core %u: blocked at %s %u (wait %s[%llu] %s %d): cell value is %d\n",
              c->rank, c->idx, a2_line_word(s->k), in->line, s->k->bufs[in->buf].name,
              (unsigned long long)(in->off / 4), in->mode == A2_MODE_EQ ? "eq" : "ge", in->value,
              v);
    } else {
      if (c->prog_done)
        fprintf(out, "rank %u core %u: unfinished at instruction %llu of %llu (%llu in flight)\n",
                c->rank, c->idx, (unsigned long long)c->pc + 1,
                (unsigned long long)(c->base + c->prog->n),
                (unsigned long long)(c->seq_next - c->seq_oldest));
      else
        fprintf(out, "rank %u core %u: unfinished at instruction %llu (%llu in flight)\n", c->rank,
                c->idx, (unsigned long long)c->pc + 1,
                (unsigned long long)(c->seq_next - c->seq_oldest));
    }
  }
}

uint32_t a2_sim_stage_count(const a2_sim *s) {
  return a2_noc_stage_count(s->net);
}

void a2_sim_stage_info(const a2_sim *s, uint32_t id, a2_stage_info *out) {
  a2_stage_kind k = a2_noc_stage_kind(s->net, id, &out->a, &out->b);
  const a2_stage_stats *st = a2_noc_stage_stats(s->net, id);
  out->kind = a2_stage_kind_name(k);
  out->bytes = st->bytes;
  out->busy_ps = st->busy_ps;
  out->packets = st->packets;
}
