/* Happens-before race detection: see race.h for the clock rules and what is
 * kept.
 *
 * State per buffer of each rank: a directory of pages of PAGE_BYTES buffer
 * bytes, allocated when first touched; each page a sorted array of disjoint
 * regions, each region pointing at a history: the list of accesses still
 * candidates for a race at its bytes, in dispatch order. Histories are
 * shared (reference-counted) and immutable; accesses are records in a pool,
 * reference-counted by the histories that hold them.
 *
 * An access [off, off+len) walks the regions of its pages in order. Each
 * history it meets is rewritten once (a memo maps the last history met to
 * its rewrite, so a run of regions with one history costs one rewrite): every
 * earlier access in it is examined once per access (a stamp), reported when
 * it races, dropped when superseded, and the new access is appended.
 * Adjacent regions whose histories are equal are merged, so the regions
 * follow the boundaries of the live accesses. */
#include "model/race.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define PAGE_SHIFT 12
#define PAGE_BYTES (1u << PAGE_SHIFT)
#define PAGES_PER_CHUNK 512 /* directory leaves: 2 MiB of buffer each */
#define RECS_PER_CHUNK 4096
#define NO_REC UINT32_MAX
#define ALLOC_OVERHEAD 16 /* bytes malloc adds to each block, for the budget */

/* One access. */
typedef struct {
  uint64_t off, len;
  uint64_t t_ps;
  uint64_t seq;  /* dispatch order among all accesses (from 1) */
  uint64_t seen; /* seq of the last access that examined it; free: next free record */
  uint32_t gid, epoch, line;
  uint32_t refs; /* histories holding it */
  uint8_t op, kind;
  uint8_t drop; /* the examining access `seen` supersedes it */
} rec;

/* The candidates of some bytes, oldest first. Immutable once shared. */
typedef struct {
  uint32_t refs; /* regions (and the access in progress) pointing here */
  uint32_t n;
  uint32_t rec[]; /* record ids */
} hist;

typedef struct {
  uint32_t lo, hi; /* bytes within the page */
  hist *h;
} region;

typedef struct {
  region *v;
  uint32_t n, cap;
} page;

typedef struct {
  page **chunk; /* [npages / PAGES_PER_CHUNK], each PAGES_PER_CHUNK pages or NULL */
  uint32_t nchunk;
} bufdir;

/* What a racing pair's report needs of one access. */
typedef struct {
  uint64_t off, len, t_ps;
  uint32_t gid, line;
  uint8_t op, kind;
} access_desc;

typedef struct {
  access_desc a, b;
  uint32_t owner;
  uint16_t buf;
} race_pair;

/* Release clock of one signal cell, in an open-addressing table keyed by
 * (rank, buf, byte offset): only cells that were notified cost memory. */
typedef struct {
  uint64_t key; /* 0 = empty */
  uint32_t *vc;
} cell_slot;

/* An earlier access found racing the current one. */
typedef struct {
  uint64_t seq;
  uint32_t id;
} race_hit;

#define DEFAULT_SHOWN 8
#define SNAPS_PER_SLAB 64

struct a2_race {
  const a2_kernel *k;
  uint32_t T;   /* cores in all */
  uint32_t *vc; /* T x T: row t = core t's clock */
  bufdir *dirs; /* [rank * nbufs + buf] */
  /* access records */
  rec **rchunk;
  uint32_t nrchunk, rchunk_cap;
  uint32_t free_rec;
  uint64_t seq;
  /* per access in progress */
  uint32_t cur;             /* its record */
  hist *memo_in, *memo_out; /* last history met and its rewrite (refs held) */
  hist *gap;                /* history of bytes never touched before: {cur} */
  race_hit *hits;           /* records racing cur */
  uint32_t nhits, hits_cap;
  region *out; /* a page's regions being rebuilt */
  uint32_t out_cap;
  /* results */
  uint64_t count;
  race_pair *shown;
  uint32_t nshown, shown_cap, show_limit;
  /* signal cells */
  cell_slot *cells;
  uint64_t ncells, cells_cap;
  /* Clock snapshots come from slabs and go back to a free list, so notifies
   * still in flight when a run stops are not leaked. */
  uint32_t **slabs;
  uint32_t nslabs, slab_cap;
  uint32_t *free_snaps; /* first word of a free snapshot links to the next */
  /* memory held, against the budget */
  uint64_t bytes, budget;
  uint64_t last_ps; /* dispatch time of the last access checked */
  bool abandoned;
  uint64_t abandoned_ps;
};

static void charge(a2_race *r, uint64_t n) {
  r->bytes += n;
}
static void uncharge(a2_race *r, uint64_t n) {
  r->bytes -= n;
}

/* Stop checking (out of memory, or past the budget). */
static void abandon(a2_race *r) {
  if (r->abandoned) return;
  r->abandoned = true;
  r->abandoned_ps = r->last_ps;
}

static void check_budget(a2_race *r) {
  if (r->bytes > r->budget) abandon(r);
}

/* ---- access records ---- */

static rec *rec_at(const a2_race *r, uint32_t id) {
  return &r->rchunk[id / RECS_PER_CHUNK][id % RECS_PER_CHUNK];
}

static uint32_t rec_new(a2_race *r) {
  if (r->free_rec == NO_REC) {
    if (r->nrchunk == r->rchunk_cap) {
      uint32_t cap = r->rchunk_cap ? r->rchunk_cap * 2 : 16;
      rec **v = realloc(r->rchunk, cap * sizeof *v);
      if (!v) return NO_REC;
      charge(r, (uint64_t)(cap - r->rchunk_cap) * sizeof *v);
      r->rchunk = v;
      r->rchunk_cap = cap;
    }
    if ((uint64_t)(r->nrchunk + 1) * RECS_PER_CHUNK > NO_REC) return NO_REC;
    rec *c = malloc(RECS_PER_CHUNK * sizeof *c);
    if (!c) return NO_REC;
    charge(r, RECS_PER_CHUNK * sizeof *c + ALLOC_OVERHEAD);
    uint32_t base = r->nrchunk * RECS_PER_CHUNK;
    r->rchunk[r->nrchunk++] = c;
    for (uint32_t i = RECS_PER_CHUNK; i-- > 0;) {
      c[i].seen = r->free_rec;
      r->free_rec = base + i;
    }
  }
  uint32_t id = r->free_rec;
  rec *e = rec_at(r, id);
  r->free_rec = (uint32_t)e->seen;
  return id;
}

static void rec_unref(a2_race *r, uint32_t id) {
  rec *e = rec_at(r, id);
  if (--e->refs) return;
  e->seen = r->free_rec;
  r->free_rec = id;
}

/* ---- histories ---- */

static uint64_t hist_bytes(uint32_t n) {
  return sizeof(hist) + n * sizeof(uint32_t) + ALLOC_OVERHEAD;
}

/* A history of n records (refs 0): the caller fills rec[] and takes refs. */
static hist *hist_new(a2_race *r, uint32_t n) {
  hist *h = malloc(sizeof(hist) + n * sizeof(uint32_t));
  if (!h) return NULL;
  charge(r, hist_bytes(n));
  h->refs = 0;
  h->n = n;
  return h;
}

static void hist_unref(a2_race *r, hist *h) {
  if (!h || --h->refs) return;
  for (uint32_t i = 0; i < h->n; i++) rec_unref(r, h->rec[i]);
  uncharge(r, hist_bytes(h->n));
  free(h);
}

static bool hist_eq(const hist *a, const hist *b) {
  return a == b || (a->n == b->n && !memcmp(a->rec, b->rec, a->n * sizeof a->rec[0]));
}

/* ---- checking one access ---- */

static bool hit(a2_race *r, uint32_t id) {
  if (r->nhits == r->hits_cap) {
    uint32_t cap = r->hits_cap ? r->hits_cap * 2 : 64;
    race_hit *v = realloc(r->hits, cap * sizeof *v);
    if (!v) return false;
    charge(r, (uint64_t)(cap - r->hits_cap) * sizeof *v);
    r->hits = v;
    r->hits_cap = cap;
  }
  r->hits[r->nhits++] = (race_hit){rec_at(r, id)->seq, id};
  return true;
}

/* Examine earlier access e against the current one n (once per access):
 * count it when it races, mark it when n supersedes it. */
static bool examine(a2_race *r, const rec *n, const uint32_t *mine, uint32_t id) {
  rec *e = rec_at(r, id);
  if (e->seen == n->seq) return true;
  e->seen = n->seq;
  e->drop = 0;
  bool ordered = e->epoch <= mine[e->gid];
  if (!ordered) {
    bool conflict = e->kind != n->kind || e->kind == A2_RACE_WRITE;
    return !conflict || hit(r, id);
  }
  bool covered = n->off <= e->off && e->off + e->len <= n->off + n->len;
  e->drop =
      covered && (n->kind == A2_RACE_WRITE ||
                  (n->kind == e->kind && (n->kind == A2_RACE_ATOMIC_ADD || e->gid == n->gid)));
  return true;
}

/* The rewrite of history h by the current access (a new reference), or
 * NULL when out of memory. */
static hist *rewrite(a2_race *r, const uint32_t *mine, hist *h) {
  if (h == r->memo_in) {
    r->memo_out->refs++;
    return r->memo_out;
  }
  rec *n = rec_at(r, r->cur);
  uint32_t keep = 0;
  for (uint32_t i = 0; i < h->n; i++) {
    if (!examine(r, n, mine, h->rec[i])) return NULL;
    keep += !rec_at(r, h->rec[i])->drop;
  }
  hist *o = hist_new(r, keep + 1);
  if (!o) return NULL;
  uint32_t j = 0;
  for (uint32_t i = 0; i < h->n; i++) {
    rec *e = rec_at(r, h->rec[i]);
    if (e->drop) continue;
    e->refs++;
    o->rec[j++] = h->rec[i];
  }
  o->rec[j] = r->cur;
  n->refs++;
  hist_unref(r, r->memo_in);
  hist_unref(r, r->memo_out);
  h->refs++;
  o->refs += 2; /* the memo's and the caller's */
  r->memo_in = h;
  r->memo_out = o;
  return o;
}

/* Append [lo, hi) with history h (a reference the caller hands over) to the
 * page being rebuilt, merging it into an adjacent equal predecessor. */
static bool out_push(a2_race *r, uint32_t *nout, uint32_t lo, uint32_t hi, hist *h) {
  if (*nout) {
    region *last = &r->out[*nout - 1];
    if (last->hi == lo && hist_eq(last->h, h)) {
      last->hi = hi;
      hist_unref(r, h);
      return true;
    }
  }
  if (*nout == r->out_cap) {
    uint32_t cap = r->out_cap ? r->out_cap * 2 : 64;
    region *v = realloc(r->out, cap * sizeof *v);
    if (!v) {
      hist_unref(r, h);
      return false;
    }
    charge(r, (uint64_t)(cap - r->out_cap) * sizeof *v);
    r->out = v;
    r->out_cap = cap;
  }
  r->out[(*nout)++] = (region){lo, hi, h};
  return true;
}

/* First region of pg that ends after byte lo. */
static uint32_t first_after(const page *pg, uint32_t lo) {
  uint32_t a = 0, b = pg->n;
  while (a < b) {
    uint32_t m = (a + b) / 2;
    if (pg->v[m].hi > lo)
      b = m;
    else
      a = m + 1;
  }
  return a;
}

/* Apply the current access to bytes [lo, hi) of page pg: rebuild the regions
 * it overlaps (and its neighbours, to merge with them) into r->out, then put
 * them in place. On failure the page is left as it was. */
static bool page_apply(a2_race *r, const uint32_t *mine, page *pg, uint32_t lo, uint32_t hi) {
  uint32_t i = first_after(pg, lo), j = i;
  while (j < pg->n && pg->v[j].lo < hi) j++;
  uint32_t from = i > 0 ? i - 1 : i, to = j < pg->n ? j + 1 : j;
  uint32_t nout = 0;
  bool ok = true;
  if (from < i) {
    pg->v[from].h->refs++;
    ok = out_push(r, &nout, pg->v[from].lo, pg->v[from].hi, pg->v[from].h);
  }
  uint32_t pos = lo;
  for (uint32_t m = i; ok && m <= j; m++) {
    const region *g = m < j ? &pg->v[m] : NULL;
    uint32_t glo = g ? g->lo : hi;
    if (g && glo < lo) { /* the part before the access keeps its history */
      g->h->refs++;
      ok = out_push(r, &nout, glo, lo, g->h);
      glo = lo;
    }
    if (ok && pos < glo) { /* bytes never touched */
      r->gap->refs++;
      ok = out_push(r, &nout, pos, glo, r->gap);
    }
    if (!ok || !g) break;
    uint32_t ghi = g->hi < hi ? g->hi : hi;
    hist *nh = rewrite(r, mine, g->h);
    ok = nh && out_push(r, &nout, glo, ghi, nh);
    if (ok && g->hi > hi) { /* the part after the access keeps its history */
      g->h->refs++;
      ok = out_push(r, &nout, hi, g->hi, g->h);
    }
    pos = ghi;
  }
  if (ok && to > j) {
    pg->v[j].h->refs++;
    ok = out_push(r, &nout, pg->v[j].lo, pg->v[j].hi, pg->v[j].h);
  }
  uint32_t n = pg->n - (to - from) + nout;
  if (ok && n > pg->cap) {
    uint32_t cap = pg->cap ? pg->cap : 4;
    while (cap < n) cap *= 2;
    region *v = realloc(pg->v, cap * sizeof *v);
    ok = v != NULL;
    if (ok) {
      charge(r, (uint64_t)(cap - pg->cap) * sizeof *v);
      pg->v = v;
      pg->cap = cap;
    }
  }
  if (!ok) {
    for (uint32_t m = 0; m < nout; m++) hist_unref(r, r->out[m].h);
    return false;
  }
  for (uint32_t m = from; m < to; m++) hist_unref(r, pg->v[m].h);
  memmove(pg->v + from + nout, pg->v + to, (pg->n - to) * sizeof *pg->v);
  memcpy(pg->v + from, r->out, nout * sizeof *pg->v);
  pg->n = n;
  return true;
}

static page *page_of(a2_race *r, bufdir *d, uint64_t bytes, uint64_t pidx) {
  if (!d->chunk) {
    uint64_t npages = (bytes + PAGE_BYTES - 1) >> PAGE_SHIFT;
    uint32_t nchunk = (uint32_t)((npages + PAGES_PER_CHUNK - 1) / PAGES_PER_CHUNK);
    if (!(d->chunk = calloc(nchunk, sizeof *d->chunk))) return NULL;
    charge(r, nchunk * sizeof *d->chunk + ALLOC_OVERHEAD);
    d->nchunk = nchunk;
  }
  page **c = &d->chunk[pidx / PAGES_PER_CHUNK];
  if (!*c) {
    if (!(*c = calloc(PAGES_PER_CHUNK, sizeof **c))) return NULL;
    charge(r, PAGES_PER_CHUNK * sizeof **c + ALLOC_OVERHEAD);
  }
  return &(*c)[pidx % PAGES_PER_CHUNK];
}

static void note_races(a2_race *r, const rec *n, uint32_t owner, uint16_t buf);

void a2_race_access(a2_race *r, uint32_t gid, uint32_t owner, uint16_t buf, uint64_t off,
                    uint64_t len, a2_race_kind kind, const a2_instr *in, uint64_t now_ps) {
  if (r->abandoned || r->k->bufs[buf].kind == A2_BUF_SIGNAL || len == 0) return;
  r->last_ps = now_ps;
  const uint32_t *mine = r->vc + (size_t)gid * r->T;
  uint32_t id = rec_new(r);
  hist *gap = hist_new(r, 1);
  if (id == NO_REC || !gap) {
    if (id != NO_REC) {
      rec_at(r, id)->refs = 1;
      rec_unref(r, id);
    }
    free(gap);
    abandon(r);
    return;
  }
  rec *n = rec_at(r, id);
  *n = (rec){off, len, now_ps, ++r->seq, 0, gid, mine[gid], in->line, 1, in->op, (uint8_t)kind, 0};
  gap->rec[0] = id;
  gap->refs = 1;
  r->cur = id;
  r->gap = gap;
  r->nhits = 0;
  bufdir *d = &r->dirs[(size_t)owner * r->k->nbufs + buf];
  uint64_t bytes = r->k->bufs[buf].bytes;
  bool ok = true;
  for (uint64_t p = off >> PAGE_SHIFT; ok && p <= (off + len - 1) >> PAGE_SHIFT; p++) {
    uint64_t base = p << PAGE_SHIFT;
    uint32_t lo = off > base ? (uint32_t)(off - base) : 0;
    uint32_t hi = off + len < base + PAGE_BYTES ? (uint32_t)(off + len - base) : PAGE_BYTES;
    page *pg = page_of(r, d, bytes, p);
    ok = pg && page_apply(r, mine, pg, lo, hi);
  }
  note_races(r, n, owner, buf);
  hist_unref(r, r->memo_in);
  hist_unref(r, r->memo_out);
  r->memo_in = r->memo_out = NULL;
  /* The gap history holds the record's first reference: once it is let go,
   * the record lives as long as the regions' histories that hold it. */
  hist_unref(r, r->gap);
  r->gap = NULL;
  if (!ok) abandon(r);
  check_budget(r);
}

/* ---- reports ---- */

static access_desc desc_of(const rec *e) {
  return (access_desc){e->off, e->len, e->t_ps, e->gid, e->line, e->op, e->kind};
}

static int by_seq(const void *a, const void *b) {
  uint64_t x = ((const race_hit *)a)->seq, y = ((const race_hit *)b)->seq;
  return x < y ? -1 : x > y;
}

/* Count the pairs (hit, n) and keep the first ones for the report, in the
 * earlier accesses' dispatch order. */
static void note_races(a2_race *r, const rec *n, uint32_t owner, uint16_t buf) {
  r->count += r->nhits;
  if (!r->nhits || r->nshown >= r->show_limit) return;
  qsort(r->hits, r->nhits, sizeof *r->hits, by_seq);
  for (uint32_t i = 0; i < r->nhits && r->nshown < r->show_limit; i++) {
    if (r->nshown == r->shown_cap) {
      uint32_t cap = r->shown_cap ? r->shown_cap * 2 : DEFAULT_SHOWN;
      race_pair *v = realloc(r->shown, cap * sizeof *v);
      if (!v) return;
      charge(r, (uint64_t)(cap - r->shown_cap) * sizeof *v);
      r->shown = v;
      r->shown_cap = cap;
    }
    r->shown[r->nshown++] = (race_pair){desc_of(rec_at(r, r->hits[i].id)), desc_of(n), owner, buf};
  }
}

static const char *kind_word(uint8_t kind) {
  return kind == A2_RACE_ATOMIC_ADD ? "atomic" : kind == A2_RACE_WRITE ? "write" : "read";
}

static void describe(const a2_race *r, const access_desc *a, FILE *out) {
  fprintf(out, "    %-5s by rank %u core %u, %s %u (%s%s), dispatched at %.3f ns\n",
          kind_word(a->kind), a->gid / r->k->ncores, a->gid % r->k->ncores, a2_line_word(r->k),
          a->line, a2_op_name((a2_opcode)a->op), a->kind == A2_RACE_ATOMIC_ADD ? " atomic_add" : "",
          (double)a->t_ps / 1e3);
}

void a2_race_report(const a2_race *r, FILE *out) {
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

uint64_t a2_race_count(const a2_race *r) {
  return r->count;
}

bool a2_race_abandoned(const a2_race *r, uint64_t *budget, uint64_t *at_ps) {
  if (budget) *budget = r->budget;
  if (at_ps) *at_ps = r->abandoned_ps;
  return r->abandoned;
}

void a2_race_set_report_limit(a2_race *r, uint32_t pairs) {
  r->show_limit = pairs;
}

/* ---- clocks ---- */

static uint32_t *vc_of(const a2_race *r, uint32_t gid) {
  return r->vc + (size_t)gid * r->T;
}

static uint32_t *snap_get(a2_race *r) {
  if (!r->free_snaps) {
    size_t words = r->T < 2 ? 2 : r->T; /* room for the free-list link */
    if (r->nslabs == r->slab_cap) {
      uint32_t cap = r->slab_cap ? r->slab_cap * 2 : 16;
      uint32_t **v = realloc(r->slabs, cap * sizeof *v);
      if (!v) return NULL;
      charge(r, (uint64_t)(cap - r->slab_cap) * sizeof *v);
      r->slabs = v;
      r->slab_cap = cap;
    }
    uint32_t *m = malloc(SNAPS_PER_SLAB * words * sizeof *m);
    if (!m) return NULL;
    charge(r, SNAPS_PER_SLAB * words * sizeof *m + ALLOC_OVERHEAD);
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

uint32_t *a2_race_notify(a2_race *r, uint32_t gid) {
  if (r->abandoned) return NULL;
  uint32_t *snap = snap_get(r);
  if (!snap) {
    abandon(r);
    return NULL;
  }
  uint32_t *mine = vc_of(r, gid);
  memcpy(snap, mine, r->T * sizeof *snap);
  mine[gid]++;
  check_budget(r);
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

static cell_slot *cell_probe(cell_slot *cells, uint64_t cap, uint64_t key) {
  uint64_t i = hash(key) & (cap - 1);
  while (cells[i].key && cells[i].key != key) i = (i + 1) & (cap - 1);
  return &cells[i];
}

/* The slot of key, inserted when missing; NULL when out of memory. */
static cell_slot *cell_insert(a2_race *r, uint64_t key) {
  if (2 * (r->ncells + 1) > r->cells_cap) { /* the table doubles */
    uint64_t cap = r->cells_cap * 2;
    cell_slot *v = calloc(cap, sizeof *v);
    if (!v) return NULL;
    for (uint64_t i = 0; i < r->cells_cap; i++)
      if (r->cells[i].key) *cell_probe(v, cap, r->cells[i].key) = r->cells[i];
    free(r->cells);
    charge(r, (cap - r->cells_cap) * sizeof *v);
    r->cells = v;
    r->cells_cap = cap;
  }
  cell_slot *c = cell_probe(r->cells, r->cells_cap, key);
  if (!c->key) {
    c->key = key;
    r->ncells++;
  }
  return c;
}

void a2_race_land(a2_race *r, uint32_t rank, uint16_t buf, uint64_t off, int set, uint32_t *snap) {
  if (r->abandoned || !snap) return;
  cell_slot *c = cell_insert(r, cell_key(r, rank, buf, off));
  if (!c) {
    abandon(r);
    return;
  }
  if (!c->vc || set) {
    if (c->vc) snap_put(r, c->vc);
    c->vc = snap;
  } else {
    for (uint32_t t = 0; t < r->T; t++)
      if (snap[t] > c->vc[t]) c->vc[t] = snap[t];
    snap_put(r, snap);
  }
  check_budget(r);
}

void a2_race_acquire(a2_race *r, uint32_t gid, uint32_t rank, uint16_t buf, uint64_t off) {
  if (r->abandoned) return;
  cell_slot *c = cell_probe(r->cells, r->cells_cap, cell_key(r, rank, buf, off));
  if (!c->key || !c->vc) return; /* never notified: nothing to inherit */
  uint32_t *mine = vc_of(r, gid), *rel = c->vc;
  for (uint32_t t = 0; t < r->T; t++)
    if (rel[t] > mine[t]) mine[t] = rel[t];
}

/* ---- life cycle ---- */

a2_race *a2_race_create(const a2_kernel *k, uint64_t budget_bytes) {
  a2_race *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->k = k;
  r->T = k->nranks * k->ncores;
  r->budget = budget_bytes;
  r->free_rec = NO_REC;
  r->show_limit = DEFAULT_SHOWN;
  size_t ndirs = (size_t)k->nranks * (k->nbufs ? k->nbufs : 1);
  charge(r, (uint64_t)r->T * r->T * sizeof(uint32_t) + ndirs * sizeof(bufdir));
  if (r->bytes > r->budget) { /* abandoned at once */
    abandon(r);
    return r;
  }
  r->vc = calloc((size_t)r->T * r->T, sizeof *r->vc);
  r->dirs = calloc(ndirs, sizeof *r->dirs);
  r->cells_cap = 1024;
  r->cells = calloc(r->cells_cap, sizeof *r->cells);
  if (!r->vc || !r->dirs || !r->cells) {
    a2_race_free(r);
    return NULL;
  }
  charge(r, r->cells_cap * sizeof *r->cells);
  for (uint32_t t = 0; t < r->T; t++) r->vc[(size_t)t * r->T + t] = 1;
  return r;
}

void a2_race_free(a2_race *r) {
  if (!r) return;
  if (r->dirs)
    for (size_t i = 0; i < (size_t)r->k->nranks * (r->k->nbufs ? r->k->nbufs : 1); i++) {
      bufdir *d = &r->dirs[i];
      for (uint32_t c = 0; d->chunk && c < d->nchunk; c++) {
        if (!d->chunk[c]) continue;
        for (uint32_t p = 0; p < PAGES_PER_CHUNK; p++) {
          page *pg = &d->chunk[c][p];
          /* histories only: the records go with their chunks below */
          for (uint32_t g = 0; g < pg->n; g++)
            if (!--pg->v[g].h->refs) free(pg->v[g].h);
          free(pg->v);
        }
        free(d->chunk[c]);
      }
      free(d->chunk);
    }
  for (uint32_t i = 0; i < r->nrchunk; i++) free(r->rchunk[i]);
  for (uint32_t i = 0; i < r->nslabs; i++) free(r->slabs[i]);
  free(r->rchunk);
  free(r->slabs);
  free(r->dirs);
  free(r->cells);
  free(r->vc);
  free(r->hits);
  free(r->out);
  free(r->shown);
  free(r);
}
