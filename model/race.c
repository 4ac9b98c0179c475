/* Happens-before race detection: see race.h for the clock rules. */
#include "model/race.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  uint64_t off, len;
  uint32_t gid;
  uint32_t epoch;
  int write;
  uint32_t line; /* of the instruction, which is not kept (streamed programs) */
  uint8_t op;
  uint64_t t_ps;
} access_rec;

typedef struct {
  access_rec *v;
  uint32_t n, cap;
} rec_list;

/* Release clock of one signal cell, in an open-addressing table keyed by
 * (rank, buf, byte offset): only cells that were notified cost memory. */
typedef struct {
  uint64_t key; /* 0 = empty */
  uint32_t *vc;
} cell_slot;

#define SHOW 8

typedef struct {
  access_rec a, b;
  uint32_t owner;
  uint16_t buf;
} race_pair;

struct a2_race {
  const a2_kernel *k;
  uint32_t T;       /* cores in all */
  uint32_t *vc;     /* T x T: row t = core t's clock */
  rec_list *recs;   /* [rank * nbufs + buf] */
  cell_slot *cells;
  uint64_t ncells, cells_cap;
  uint64_t count;
  race_pair shown[SHOW];
  uint32_t nshown;
  /* Clock snapshots come from slabs and go back to a free list, so notifies
   * still in flight when a run stops are not leaked. */
  uint32_t **slabs;
  uint32_t nslabs, slab_cap;
  uint32_t *free_snaps; /* first word of a free snapshot links to the next */
  /* Vector clocks cost O(cores) per core and per notified cell: past the
   * budget the detector gives up (and says so) rather than exhaust memory. */
  uint64_t bytes, budget;
  bool abandoned;
};

/* Account for n more bytes; false (and the detector abandoned) past budget. */
static bool charge(a2_race *r, uint64_t n) {
  r->bytes += n;
  if (r->bytes <= r->budget) return true;
  r->abandoned = true;
  return false;
}

#define SNAPS_PER_SLAB 64

static uint32_t *snap_get(a2_race *r) {
  if (!r->free_snaps) {
    size_t words0 = r->T < 2 ? 2 : r->T;
    if (!charge(r, SNAPS_PER_SLAB * words0 * sizeof(uint32_t))) return NULL;
    if (r->nslabs == r->slab_cap) {
      uint32_t cap = r->slab_cap ? r->slab_cap * 2 : 16;
      uint32_t **v = realloc(r->slabs, cap * sizeof *v);
      if (!v) abort();
      r->slabs = v;
      r->slab_cap = cap;
    }
    size_t words = r->T < 2 ? 2 : r->T; /* room for the free-list link */
    uint32_t *m = malloc(SNAPS_PER_SLAB * words * sizeof *m);
    if (!m) abort();
    r->slabs[r->nslabs++] = m;
    for (int i = 0; i < SNAPS_PER_SLAB; i++) {
      uint32_t *snap = m + i * words;
      memcpy(snap, &r->free_snaps, sizeof r->free_snaps);
      r->free_snaps = snap;
    }
  }
  uint32_t *snap = r->free_snaps;
  memcpy(&r->free_snaps, snap, sizeof r->free_snaps);
  return snap;
}

static void snap_put(a2_race *r, uint32_t *snap) {
  memcpy(snap, &r->free_snaps, sizeof r->free_snaps);
  r->free_snaps = snap;
}

a2_race *a2_race_create(const a2_kernel *k, uint64_t budget_bytes) {
  a2_race *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->k = k;
  r->T = k->nranks * k->ncores;
  r->budget = budget_bytes;
  if (!charge(r, (uint64_t)r->T * r->T * sizeof(uint32_t))) return r; /* abandoned at once */
  r->vc = calloc((size_t)r->T * r->T, sizeof *r->vc);
  r->recs = calloc((size_t)k->nranks * (k->nbufs ? k->nbufs : 1), sizeof *r->recs);
  r->cells_cap = 1024;
  r->cells = calloc(r->cells_cap, sizeof *r->cells);
  if (!r->vc || !r->recs || !r->cells) {
    a2_race_free(r);
    return NULL;
  }
  for (uint32_t t = 0; t < r->T; t++) r->vc[(size_t)t * r->T + t] = 1;
  return r;
}

void a2_race_free(a2_race *r) {
  if (!r) return;
  if (r->recs)
    for (size_t i = 0; i < (size_t)r->k->nranks * r->k->nbufs; i++) free(r->recs[i].v);
  for (uint32_t i = 0; i < r->nslabs; i++) free(r->slabs[i]);
  free(r->slabs);
  free(r->recs);
  free(r->cells);
  free(r->vc);
  free(r);
}

static uint32_t *vc_of(const a2_race *r, uint32_t gid) { return r->vc + (size_t)gid * r->T; }

static void note_race(a2_race *r, const access_rec *a, const access_rec *b, uint32_t owner,
                      uint16_t buf) {
  r->count++;
  if (r->nshown < SHOW) r->shown[r->nshown++] = (race_pair){*a, *b, owner, buf};
}

void a2_race_access(a2_race *r, uint32_t gid, uint32_t owner, uint16_t buf, uint64_t off,
                    uint64_t len, int write, const a2_instr *in, uint64_t now_ps) {
  if (r->abandoned || r->k->bufs[buf].kind == A2_BUF_SIGNAL || len == 0) return;
  rec_list *L = &r->recs[(size_t)owner * r->k->nbufs + buf];
  const uint32_t *mine = vc_of(r, gid);
  access_rec cur = {off, len, gid, mine[gid], write, in->line, in->op, now_ps};
  uint32_t keep = 0;
  for (uint32_t i = 0; i < L->n; i++) {
    access_rec *e = &L->v[i];
    bool overlap = e->off < off + len && off < e->off + e->len;
    bool ordered = e->epoch <= mine[e->gid];
    if (overlap && (write || e->write) && !ordered) note_race(r, e, &cur, owner, buf);
    /* Forget what the new access supersedes: an ordered earlier access it
     * covers, when it is a write or both are reads of the same core. */
    bool covered = off <= e->off && e->off + e->len <= off + len;
    if (covered && ordered && (write || (!e->write && e->gid == gid))) continue;
    L->v[keep++] = *e;
  }
  L->n = keep;
  if (L->n == L->cap) {
    uint32_t cap = L->cap ? L->cap * 2 : 8;
    if (!charge(r, (uint64_t)(cap - L->cap) * sizeof *L->v)) return;
    access_rec *v = realloc(L->v, cap * sizeof *v);
    if (!v) abort();
    L->v = v;
    L->cap = cap;
  }
  L->v[L->n++] = cur;
}

uint32_t *a2_race_notify(a2_race *r, uint32_t gid) {
  if (r->abandoned) return NULL;
  uint32_t *snap = snap_get(r);
  if (!snap) return NULL;
  uint32_t *mine = vc_of(r, gid);
  memcpy(snap, mine, r->T * sizeof *snap);
  mine[gid]++;
  return snap;
}

static uint64_t cell_key(const a2_race *r, uint32_t rank, uint16_t buf, uint64_t off) {
  return (((uint64_t)rank * r->k->nbufs + buf) << 40 | (off / 4)) + 1;
}

static uint64_t hash(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  return x ^ (x >> 33);
}

static cell_slot *cell_find(a2_race *r, uint64_t key, bool insert) {
  if (insert && 2 * (r->ncells + 1) > r->cells_cap) {
    charge(r, r->cells_cap * sizeof *r->cells); /* the table doubles */
    cell_slot *old = r->cells;
    uint64_t oldcap = r->cells_cap;
    r->cells_cap *= 2;
    r->cells = calloc(r->cells_cap, sizeof *r->cells);
    if (!r->cells) abort();
    for (uint64_t i = 0; i < oldcap; i++)
      if (old[i].key) *cell_find(r, old[i].key, false) = old[i];
    free(old);
  }
  uint64_t i = hash(key) & (r->cells_cap - 1);
  while (r->cells[i].key && r->cells[i].key != key) i = (i + 1) & (r->cells_cap - 1);
  if (!r->cells[i].key && !insert) return &r->cells[i]; /* empty slot (for rehash) */
  if (!r->cells[i].key) {
    r->cells[i].key = key;
    r->ncells++;
  }
  return &r->cells[i];
}

void a2_race_land(a2_race *r, uint32_t rank, uint16_t buf, uint64_t off, int set, uint32_t *snap) {
  if (r->abandoned || !snap) return;
  cell_slot *c = cell_find(r, cell_key(r, rank, buf, off), true);
  if (!c->vc || set) {
    if (c->vc) snap_put(r, c->vc);
    c->vc = snap;
    return;
  }
  for (uint32_t t = 0; t < r->T; t++)
    if (snap[t] > c->vc[t]) c->vc[t] = snap[t];
  snap_put(r, snap);
}

void a2_race_acquire(a2_race *r, uint32_t gid, uint32_t rank, uint16_t buf, uint64_t off) {
  if (r->abandoned) return;
  uint64_t key = cell_key(r, rank, buf, off);
  uint64_t i = hash(key) & (r->cells_cap - 1);
  while (r->cells[i].key && r->cells[i].key != key) i = (i + 1) & (r->cells_cap - 1);
  if (!r->cells[i].key || !r->cells[i].vc) return; /* never notified: nothing to inherit */
  uint32_t *mine = vc_of(r, gid), *rel = r->cells[i].vc;
  for (uint32_t t = 0; t < r->T; t++)
    if (rel[t] > mine[t]) mine[t] = rel[t];
}

uint64_t a2_race_count(const a2_race *r) { return r->count; }

bool a2_race_abandoned(const a2_race *r, uint64_t *budget) {
  if (budget) *budget = r->budget;
  return r->abandoned;
}

static void describe(const a2_race *r, const access_rec *a, FILE *out) {
  fprintf(out, "    %-5s by rank %u core %u, %s %u (%s), dispatched at %.3f ns\n",
          a->write ? "write" : "read", a->gid / r->k->ncores, a->gid % r->k->ncores,
          a2_line_word(r->k), a->line,
          a2_op_name((a2_opcode)a->op), (double)a->t_ps / 1e3);
}

void a2_race_report(const a2_race *r, FILE *out) {
  for (uint32_t i = 0; i < r->nshown; i++) {
    const race_pair *p = &r->shown[i];
    uint64_t lo = p->a.off > p->b.off ? p->a.off : p->b.off;
    uint64_t hi = p->a.off + p->a.len < p->b.off + p->b.len ? p->a.off + p->a.len
                                                            : p->b.off + p->b.len;
    fprintf(out, "race on %s@rank%u bytes [%llu, %llu): no notify/wait orders\n",
            r->k->bufs[p->buf].name, p->owner, (unsigned long long)lo, (unsigned long long)hi);
    describe(r, &p->a, out);
    describe(r, &p->b, out);
  }
  if (r->count > r->nshown)
    fprintf(out, "... and %llu more racing pairs\n", (unsigned long long)(r->count - r->nshown));
}
