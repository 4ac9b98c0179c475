/* Timeline production: see observe.h. */
#include "model/observe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/oom.h"
#include "model/pipes.h"
#include "model/timeline.h"

#define LANES 64
#define WINDOW_PS 1000000ull /* utilisation counter window: 1 us */
#define TID_CORE(core, pipe, lane) (1000u + (core)*1000u + (pipe)*100u + (lane))
#define TID_WAIT(core) (1000u + (core)*1000u + 900u)
#define TID_STAGE(id) (1000000u + (id))

static const char *const pipe_names[NPIPES] = {"mte_in", "mte_out", "vector", "scalar",
                                               "dma",    "mte1",    "cube"};

typedef struct {
  uint64_t window; /* index of the window being accumulated */
  uint64_t busy;   /* busy ps in it */
  uint32_t pid;
  char name[64]; /* counter series name; "" = no counter (MTE engines) */
  char track[64];
  uint8_t named;
} stage_obs;

typedef struct {
  uint64_t key; /* 0 = empty */
  uint32_t pid, tid;
  uint64_t ts;
} cell_src;

struct a2_observer {
  uint32_t nranks, ncores, nbufs;
  const uint32_t *dev; /* NPU of each rank */
  const a2_noc *net;
  a2_timeline *tl;
  uint64_t *lane_free; /* [core gid][pipe][lane] */
  uint8_t *lane_named; /* same shape */
  uint8_t *wait_named; /* [core gid] */
  stage_obs *st;
  cell_src *cells;
  uint64_t ncells, cells_cap;
  uint64_t flow_id;
};

static uint32_t gid_of(const a2_observer *o, uint32_t rank, uint32_t core) {
  return rank * o->ncores + core;
}

static void name_stage(a2_observer *o, uint32_t id) {
  stage_obs *so = &o->st[id];
  int32_t a, b;
  a2_stage_kind kind = a2_noc_stage_kind(o->net, id, &a, &b);
  uint32_t P = o->nranks, owner = P;                          /* P = the "network" process */
  if (kind == A2_STAGE_LINK || kind == A2_STAGE_STORE_PORT) { /* a link, or its store port */
    for (uint32_t r = 0; r < P && a >= 0; r++)
      if (o->dev[r] == (uint32_t)a) owner = r;
    char from[16], to[16];
    bool link = kind == A2_STAGE_LINK;
    snprintf(from, sizeof from, a < 0 ? "switch" : "npu%d", a);
    snprintf(to, sizeof to, b < 0 ? "switch" : "npu%d", b);
    snprintf(so->track, sizeof so->track, "%s %s->%s", link ? "link" : "store port of", from, to);
    snprintf(so->name, sizeof so->name, "util %s%s->%s", link ? "" : "store port ", from, to);
  } else if (kind == A2_STAGE_HBM || kind == A2_STAGE_L2) {
    owner = (uint32_t)a;
    snprintf(so->track, sizeof so->track, "%s", a2_stage_kind_name(kind));
    snprintf(so->name, sizeof so->name, "util %s", a2_stage_kind_name(kind));
  } else { /* a core's MTE engine, or a DMA queue's engine */
    owner = (uint32_t)a;
    int dma = kind == A2_STAGE_SDMA_WRITE || kind == A2_STAGE_SDMA_READ ||
              kind == A2_STAGE_SDMA_LOCAL || kind == A2_STAGE_RDMA;
    snprintf(so->track, sizeof so->track, "%s %s%d", a2_stage_kind_name(kind),
             dma ? "queue" : "core", b);
  }
  so->pid = owner;
  a2_tl_thread(o->tl, owner, TID_STAGE(id), so->track, TID_STAGE(id));
  so->named = 1;
}

a2_code a2_obs_create(const char *path, uint32_t nranks, uint32_t ncores, uint32_t nbufs,
                      const uint32_t *dev, const char *const *names, const a2_noc *net,
                      a2_observer **out, a2_err *err) {
  a2_observer *o = calloc(1, sizeof *o);
  if (!o) return a2_err_set(err, A2_E_NOMEM, NULL, 0, 0, "out of memory for the timeline");
  uint32_t T = nranks * ncores, nst = a2_noc_stage_count(net);
  o->nranks = nranks;
  o->ncores = ncores;
  o->nbufs = nbufs;
  o->dev = dev;
  o->net = net;
  o->lane_free = calloc((size_t)T * NPIPES * LANES, sizeof *o->lane_free);
  o->lane_named = calloc((size_t)T * NPIPES * LANES, 1);
  o->wait_named = calloc(T ? T : 1, 1);
  o->st = calloc(nst ? nst : 1, sizeof *o->st);
  o->cells_cap = 256;
  o->cells = calloc(o->cells_cap, sizeof *o->cells);
  a2_code rc = A2_OK;
  if (!o->lane_free || !o->lane_named || !o->wait_named || !o->st || !o->cells)
    rc = a2_err_set(err, A2_E_NOMEM, NULL, 0, 0, "out of memory for the timeline");
  if (!rc) rc = a2_tl_open(path, &o->tl, err);
  if (rc) {
    free(o->lane_free);
    free(o->lane_named);
    free(o->wait_named);
    free(o->st);
    free(o->cells);
    free(o);
    return rc;
  }
  for (uint32_t r = 0; r < nranks; r++) {
    char name[64];
    snprintf(name, sizeof name, "rank %u (npu %u)", r, dev[r]);
    a2_tl_process(o->tl, r, names ? names[r] : name, r);
  }
  a2_tl_process(o->tl, nranks, "network (switch ports)", nranks);
  *out = o;
  return A2_OK;
}

uint8_t a2_obs_start(a2_observer *o, uint32_t rank, uint32_t core, int pipe, uint64_t now) {
  uint64_t *free_at = o->lane_free + ((size_t)gid_of(o, rank, core) * NPIPES + pipe) * LANES;
  uint8_t lane = 0;
  while (lane + 1 < LANES && free_at[lane] > now) lane++;
  free_at[lane] = UINT64_MAX; /* until its slice is known */
  size_t ni = ((size_t)gid_of(o, rank, core) * NPIPES + pipe) * LANES + lane;
  if (!o->lane_named[ni]) {
    char name[48];
    snprintf(name, sizeof name, "core%u %s #%u", core, pipe_names[pipe], lane);
    uint32_t tid = TID_CORE(core, pipe, lane);
    a2_tl_thread(o->tl, rank, tid, name, tid);
    o->lane_named[ni] = 1;
  }
  return lane;
}

static void instr_args(const a2_instr *in, a2_tl_arg *a, int *n) {
  *n = 0;
  a[(*n)++] = (a2_tl_arg){"step", in->line, NULL};
  if (in->op == A2_OP_COMPUTE) {
    a[(*n)++] = (a2_tl_arg){"cycles", in->value, NULL};
    return;
  }
  a[(*n)++] = (a2_tl_arg){"bytes", (int64_t)in->len, NULL};
  if (in->op == A2_OP_RLOAD || in->op == A2_OP_RSTORE || in->op == A2_OP_NOTIFY ||
      in->op == A2_OP_PUT || in->op == A2_OP_GET)
    a[(*n)++] = (a2_tl_arg){"peer", in->peer, NULL};
  if (in->op < A2_OP_VADD || in->op == A2_OP_PUT || in->op == A2_OP_GET)
    a[(*n)++] = (a2_tl_arg){"offset", (int64_t)in->off, NULL};
}

void a2_obs_done(a2_observer *o, uint32_t rank, uint32_t core, int pipe, uint8_t lane,
                 uint64_t start_ps, uint64_t done_ps, const a2_instr *in) {
  o->lane_free[((size_t)gid_of(o, rank, core) * NPIPES + pipe) * LANES + lane] = done_ps;
  a2_tl_arg args[5];
  int n;
  instr_args(in, args, &n);
  a2_tl_slice(o->tl, rank, TID_CORE(core, pipe, lane), a2_op_name((a2_opcode)in->op), "instr",
              start_ps, done_ps - start_ps, args, n);
}

static uint64_t cell_key(const a2_observer *o, uint32_t rank, uint16_t buf, uint64_t off) {
  return (((uint64_t)rank * o->nbufs + buf) << 40 | (off / 4)) + 1;
}

static cell_src *cell_at(a2_observer *o, uint64_t key, int insert) {
  if (insert && 2 * (o->ncells + 1) > o->cells_cap) {
    cell_src *old = o->cells;
    uint64_t oldcap = o->cells_cap;
    o->cells_cap *= 2;
    o->cells = calloc(o->cells_cap, sizeof *o->cells);
    if (!o->cells) a2_out_of_memory("the timeline's signal cells");
    for (uint64_t i = 0; i < oldcap; i++)
      if (old[i].key) *cell_at(o, old[i].key, 0) = old[i];
    free(old);
  }
  uint64_t i = (key * 0x9e3779b97f4a7c15ull >> 20) & (o->cells_cap - 1);
  while (o->cells[i].key && o->cells[i].key != key) i = (i + 1) & (o->cells_cap - 1);
  if (insert && !o->cells[i].key) {
    o->cells[i].key = key;
    o->ncells++;
  }
  return &o->cells[i];
}

void a2_obs_notify_landed(a2_observer *o, uint32_t rank, uint32_t core, uint8_t lane,
                          uint64_t issue_ps, uint64_t now, const a2_instr *in, uint32_t peer) {
  a2_obs_done(o, rank, core, PIPE_SCALAR, lane, issue_ps, now, in);
  cell_src *cs = cell_at(o, cell_key(o, peer, in->buf, in->off), 1);
  cs->pid = rank;
  cs->tid = TID_CORE(core, PIPE_SCALAR, lane);
  cs->ts = issue_ps;
}

void a2_obs_wait(a2_observer *o, uint32_t rank, uint32_t core, uint64_t since_ps, uint64_t now,
                 const a2_instr *in) {
  uint32_t tid = TID_WAIT(core), gid = gid_of(o, rank, core);
  if (!o->wait_named[gid]) {
    char name[32];
    snprintf(name, sizeof name, "core%u waits", core);
    a2_tl_thread(o->tl, rank, tid, name, tid);
    o->wait_named[gid] = 1;
  }
  a2_tl_arg args[3] = {
      {"step", in->line, NULL}, {"cell", (int64_t)(in->off / 4), NULL}, {"value", in->value, NULL}};
  a2_tl_slice(o->tl, rank, tid, "wait", "sync", since_ps, now - since_ps, args, 3);
  cell_src *cs = cell_at(o, cell_key(o, rank, in->buf, in->off), 0);
  if (cs->key)
    a2_tl_flow(o->tl, ++o->flow_id, "notify->wait", cs->pid, cs->tid, cs->ts, rank, tid, now);
}

static void counter_flush(a2_observer *o, stage_obs *so, uint64_t upto_window) {
  if (!so->name[0]) return;
  a2_tl_counter(o->tl, so->pid, so->name, so->window * WINDOW_PS,
                (double)so->busy / (double)WINDOW_PS);
  if (upto_window > so->window + 1) /* an idle gap: back to 0 */
    a2_tl_counter(o->tl, so->pid, so->name, (so->window + 1) * WINDOW_PS, 0.0);
}

void a2_obs_packet(void *ctx, uint32_t stage, uint64_t start_ps, uint64_t end_ps, uint32_t bytes) {
  a2_observer *o = ctx;
  stage_obs *so = &o->st[stage];
  if (!so->named) name_stage(o, stage);
  a2_tl_arg args[1] = {{"bytes", bytes, NULL}};
  a2_tl_slice(o->tl, so->pid, TID_STAGE(stage), "packet", "noc", start_ps, end_ps - start_ps, args,
              1);
  /* Utilisation: spread the busy time over the 1 us windows it covers. */
  for (uint64_t t = start_ps; t < end_ps;) {
    uint64_t w = t / WINDOW_PS, upto = (w + 1) * WINDOW_PS < end_ps ? (w + 1) * WINDOW_PS : end_ps;
    if (w != so->window) {
      if (so->busy) counter_flush(o, so, w);
      so->window = w;
      so->busy = 0;
    }
    so->busy += upto - t;
    t = upto;
  }
}

static void free_observer(a2_observer *o) {
  free(o->lane_free);
  free(o->lane_named);
  free(o->wait_named);
  free(o->st);
  free(o->cells);
  free(o);
}

a2_code a2_obs_finish(a2_observer *o, a2_err *err) {
  uint32_t nst = a2_noc_stage_count(o->net);
  for (uint32_t i = 0; i < nst; i++)
    if (o->st[i].busy) counter_flush(o, &o->st[i], o->st[i].window + 2);
  a2_code rc = a2_tl_close(o->tl, err);
  free_observer(o);
  return rc;
}

void a2_obs_discard(a2_observer *o) {
  a2_tl_discard(o->tl);
  free_observer(o);
}
