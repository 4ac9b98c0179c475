/* The race detector's slow reference: see race_reference.h. Each buffer of
 * each rank keeps a list of access records in dispatch order; an access scans
 * the whole list, reports the conflicting records no happens-before edge
 * orders, and drops the records it supersedes. */
#include "tests/model/race_reference.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  uint64_t off, len;
  uint32_t gid;
  uint32_t epoch;
  uint8_t kind; /* a2_race_kind */
  uint32_t line;
  uint8_t op;
  uint64_t t_ps;
} access_rec;

typedef struct {
  access_rec *v;
  uint32_t n, cap;
} rec_list;

typedef struct {
  uint64_t key; /* 0 = empty */
  uint32_t *vc;
} cell_slot;

typedef struct {
  access_rec a, b;
  uint32_t owner;
  uint16_t buf;
} race_pair;

struct a2_race_ref {
  const a2_program *k;
  uint32_t T;     /* cores in all */
  uint32_t *vc;   /* T x T: row t = core t's clock */
  rec_list *recs; /* [rank * nbufs + buf] */
  cell_slot *cells;
  uint64_t ncells, cells_cap;
  uint64_t count;
  race_pair *shown;
  uint32_t nshown, cap, limit;
};

static void *must(void *p) {
  if (!p) abort();
  return p;
}

a2_race_ref *a2_race_ref_create(const a2_program *k, uint32_t shown) {
  a2_race_ref *r = must(calloc(1, sizeof *r));
  r->k = k;
  r->T = k->nranks * k->ncores;
  r->vc = must(calloc((size_t)r->T * r->T, sizeof *r->vc));
  r->recs = must(calloc((size_t)k->nranks * (k->nbufs ? k->nbufs : 1), sizeof *r->recs));
  r->cells_cap = 1024;
  r->cells = must(calloc(r->cells_cap, sizeof *r->cells));
  r->limit = shown;
  for (uint32_t t = 0; t < r->T; t++) r->vc[(size_t)t * r->T + t] = 1;
  return r;
}

void a2_race_ref_free(a2_race_ref *r) {
  if (!r) return;
  for (size_t i = 0; i < (size_t)r->k->nranks * r->k->nbufs; i++) free(r->recs[i].v);
  for (uint64_t i = 0; i < r->cells_cap; i++) free(r->cells[i].vc);
  free(r->recs);
  free(r->cells);
  free(r->vc);
  free(r->shown);
  free(r);
}

static uint32_t *vc_of(const a2_race_ref *r, uint32_t gid) {
  return r->vc + (size_t)gid * r->T;
}

static void note_race(a2_race_ref *r, const access_rec *a, const access_rec *b, uint32_t owner,
                      uint16_t buf) {
  r->count++;
  if (r->nshown == r->limit) return;
  if (r->nshown == r->cap) {
    r->cap = r->cap ? 2 * r->cap : 8;
    r->shown = must(realloc(r->shown, r->cap * sizeof *r->shown));
  }
  r->shown[r->nshown++] = (race_pair){*a, *b, owner, buf};
}

void a2_race_ref_access(a2_race_ref *r, uint32_t gid, uint32_t owner, uint16_t buf, uint64_t off,
                        uint64_t len, a2_race_kind kind, const a2_instr *in, uint64_t now_ps) {
  if (r->k->bufs[buf].kind == A2_BUF_SIGNAL || len == 0) return;
  rec_list *L = &r->recs[(size_t)owner * r->k->nbufs + buf];
  const uint32_t *mine = vc_of(r, gid);
  access_rec cur = {off, len, gid, mine[gid], (uint8_t)kind, in->line, in->op, now_ps};
  uint32_t keep = 0;
  for (uint32_t i = 0; i < L->n; i++) {
    access_rec *e = &L->v[i];
    bool overlap = e->off < off + len && off < e->off + e->len;
    bool ordered = e->epoch <= mine[e->gid];
    /* reads do not conflict with reads, nor atomic adds with atomic adds */
    bool conflict = e->kind != kind || kind == A2_RACE_WRITE;
    if (overlap && conflict && !ordered) note_race(r, e, &cur, owner, buf);
    /* Forget what the new access supersedes: an ordered earlier access it
     * covers, when it is a write, both are atomic adds, or both are reads of
     * the same core. */
    bool covered = off <= e->off && e->off + e->len <= off + len;
    bool supersedes =
        kind == A2_RACE_WRITE || (e->kind == kind && (kind == A2_RACE_ATOMIC_ADD || e->gid == gid));
    if (covered && ordered && supersedes) continue;
    L->v[keep++] = *e;
  }
  L->n = keep;
  if (L->n == L->cap) {
    L->cap = L->cap ? L->cap * 2 : 8;
    L->v = must(realloc(L->v, L->cap * sizeof *L->v));
  }
  L->v[L->n++] = cur;
}

uint32_t *a2_race_ref_notify(a2_race_ref *r, uint32_t gid) {
  uint32_t *snap = must(malloc(r->T * sizeof *snap));
  uint32_t *mine = vc_of(r, gid);
  memcpy(snap, mine, r->T * sizeof *snap);
  mine[gid]++;
  return snap;
}

static uint64_t cell_key(const a2_race_ref *r, uint32_t rank, uint16_t buf, uint64_t off) {
  return (((uint64_t)rank * r->k->nbufs + buf) << 40 | (off / 4)) + 1;
}

static uint64_t hash(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  return x ^ (x >> 33);
}

static cell_slot *cell_find(a2_race_ref *r, uint64_t key, bool insert) {
  if (insert && 2 * (r->ncells + 1) > r->cells_cap) {
    cell_slot *old = r->cells;
    uint64_t oldcap = r->cells_cap;
    r->cells_cap *= 2;
    r->cells = must(calloc(r->cells_cap, sizeof *r->cells));
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

void a2_race_ref_land(a2_race_ref *r, uint32_t rank, uint16_t buf, uint64_t off, int set,
                      uint32_t *snap) {
  cell_slot *c = cell_find(r, cell_key(r, rank, buf, off), true);
  if (!c->vc || set) {
    free(c->vc);
    c->vc = snap;
    return;
  }
  for (uint32_t t = 0; t < r->T; t++)
    if (snap[t] > c->vc[t]) c->vc[t] = snap[t];
  free(snap);
}

void a2_race_ref_acquire(a2_race_ref *r, uint32_t gid, uint32_t rank, uint16_t buf, uint64_t off) {
  uint64_t key = cell_key(r, rank, buf, off);
  uint64_t i = hash(key) & (r->cells_cap - 1);
  while (r->cells[i].key && r->cells[i].key != key) i = (i + 1) & (r->cells_cap - 1);
  if (!r->cells[i].key || !r->cells[i].vc) return; /* never notified: nothing to inherit */
  uint32_t *mine = vc_of(r, gid), *rel = r->cells[i].vc;
  for (uint32_t t = 0; t < r->T; t++)
    if (rel[t] > mine[t]) mine[t] = rel[t];
}

uint64_t a2_race_ref_count(const a2_race_ref *r) {
  return r->count;
}

static const char *kind_word(uint8_t kind) {
  return kind == A2_RACE_ATOMIC_ADD ? "atomic" : kind == A2_RACE_WRITE ? "write" : "read";
}

static void describe(const a2_race_ref *r, const access_rec *a, FILE *out) {
  fprintf(out, "    %-5s by rank %u core %u, %s %u (%s%s), dispatched at %.3f ns\n",
          kind_word(a->kind), a->gid / r->k->ncores, a->gid % r->k->ncores, a2_line_word(r->k),
          a->line, a2_op_name((a2_opcode)a->op), a->kind == A2_RACE_ATOMIC_ADD ? " atomic_add" : "",
          (double)a->t_ps / 1e3);
}

void a2_race_ref_report(const a2_race_ref *r, FILE *out) {
  for (uint32_t i = 0; i < r->nshown; i++) {
    const race_pair *p = &r->shown[i];
    uint64_t lo = p->a.off > p->b.off ? p->a.off : p->b.off;
    uint64_t hi =
        p->a.off + p->a.len < p->b.off + p->b.len ? p->a.off + p->a.len : p->b.off + p->b.len;
    fprintf(out, "race on %s@rank%u bytes [%llu, %llu): no notify/wait orders\n",
            r->k->bufs[p->buf].name, p->owner, (unsigned long long)lo, (unsigned long long)hi);
    describe(r, &p->a, out);
    describe(r, &p->b, out);
  }
  if (r->count > r->nshown)
    fprintf(out, "... and %llu more racing pairs\n", (unsigned long long)(r->count - r->nshown));
}
