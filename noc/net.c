/* Stages, packets and transfers: see net.h for the queueing equations. */
#include "noc/net.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/huge.h"
#include "common/tq.h"
#include "model/kernel/kernel.h"

typedef struct a2_pkt {
  a2_xfer *x;
  uint64_t off;
  uint64_t ready_ps; /* arrival at the current stage */
  uint32_t len;
  uint16_t hop;
  struct a2_pkt *next;
} a2_pkt;

/* A reserved service interval [s, e) of a stage (reservation timing). */
typedef struct {
  uint64_t s, e;
} a2_ival;

#define INL 3 /* busy intervals a stage holds in place (in its second cache line) */

typedef struct {
  /* first cache line: what reserving a packet reads and writes */
  _Alignas(64) uint64_t last_e; /* reservation: end of the last interval, 0 when none */
  uint64_t ser_full;            /* service time of a full packet */
  uint64_t lat_ps;
  a2_ival *iv; /* reservation: future busy intervals, sorted and disjoint, in
                  iv[ihead, in); inl while they fit there */
  uint32_t ihead, in;
  a2_stage_stats st;
  /* second: the intervals while there are at most INL (the usual case: a
   * stage without contention holds a few) */
  a2_ival inl[INL];
  uint32_t icap;
  uint32_t id;
  uint64_t bw;
  /* the rest: not read by an uncontended reservation */
  a2_ival *heap; /* kept for reuse after the intervals went back to inl */
  uint32_t heap_cap;
  /* packet timing */
  uint64_t free_ps; /* end of current service */
  uint64_t wake_ps; /* pending wake-up, UINT64_MAX when none */
  a2_pkt *head, *tail;
  a2k_proc proc;
  a2_stage_kind kind;
  int32_t a, b;
  a2_net *net;
} a2_stage;

_Static_assert(offsetof(a2_stage, inl) == 64 && offsetof(a2_stage, heap) == 128,
               "a reservation touches a stage's first two lines");

#define SLAB_BYTES A2_HUGE_PAGE
/* stages per allocation: a stage is found from its id without loading a
 * pointer per stage (a cache miss at scale), and a chunk is one huge page */
#define CHUNK_BITS 13 /* 8192 stages per chunk: a power of two (a shift, not a division) */
#define CHUNK ((uint32_t)1 << CHUNK_BITS)
_Static_assert(CHUNK * sizeof(a2_stage) <= A2_HUGE_PAGE, "a chunk fits in a huge page");

struct a2_net {
  uint32_t pkt_bytes;
  a2_stage **chunks; /* stage id i is chunks[i / CHUNK][i % CHUNK] */
  uint32_t nstages, nchunks;
  a2_pkt *free_pkts;
  a2_xfer *free_xfers;
  void **slabs;
  uint32_t nslabs, slab_cap;
  a2_net_observer observer;
  void *observer_ctx;
  a2_net_defer_fn defer; /* non-NULL: reservation timing */
  void *defer_ctx;
  /* reservation timing with an observer: packet services are reserved out
   * of time order, so they are held here (a = end, b = stage << 32 | bytes)
   * and shown in order of start */
  a2_tq held;
};

static inline a2_stage *stage_at(const a2_net *n, uint32_t id) {
  return &n->chunks[id >> CHUNK_BITS][id & (CHUNK - 1)];
}

void a2_net_prefetch_stages(const a2_net *n, const uint32_t *ids, unsigned count, int level) {
  for (unsigned i = 0; i < count; i++) {
    if (ids[i] == A2_NO_STAGE) continue;
    const a2_stage *st = stage_at(n, ids[i]);
    if (level == 0) {
      __builtin_prefetch(st, 1);
      __builtin_prefetch((const char *)st + 64, 1);
    } else if (st->in && st->iv != st->inl) {
      __builtin_prefetch(&st->iv[st->in - 1], 1);
    } else if (st->heap) { /* in place now: where the list goes when it grows */
      __builtin_prefetch(st->heap, 1);
    }
  }
}

/* Show every held service that starts by `upto`: nothing reserved from now
 * on can start earlier than now. */
static void held_flush(a2_net *n, uint64_t upto) {
  a2_tq_item it;
  while (a2_tq_pop_due(&n->held, upto, &it))
    if (n->observer)
      n->observer(n->observer_ctx, (uint32_t)(it.b >> 32), it.t_ps, it.a, (uint32_t)it.b);
}

void a2_net_flush_observer(a2_net *n) {
  held_flush(n, UINT64_MAX);
}

void a2_net_set_observer(a2_net *n, a2_net_observer fn, void *ctx) {
  n->observer = fn;
  n->observer_ctx = ctx;
}

uint64_t a2_ser_ps(uint64_t len, uint64_t bw) {
  /* a packet's length * 1e12 fits in 64 bits: one division instruction
   * instead of a 128-bit division call (same result) */
  if (len <= 18000000 && bw <= 100000000000000ull) return (len * 1000000000000ull + bw - 1) / bw;
  unsigned __int128 t = (unsigned __int128)len * 1000000000000ull + bw - 1;
  return (uint64_t)(t / bw);
}

/* A slab of SLAB_BYTES / each objects (one huge page: transfers pending
 * at scale, one per rank and more, are touched in no particular order). */
static void *slab_alloc(a2_net *n) {
  if (n->nslabs == n->slab_cap) {
    uint32_t cap = n->slab_cap ? n->slab_cap * 2 : 16;
    void **s = realloc(n->slabs, cap * sizeof *s);
    if (!s) return NULL;
    n->slabs = s;
    n->slab_cap = cap;
  }
  void *m = a2_huge_alloc(SLAB_BYTES);
  if (m) n->slabs[n->nslabs++] = m;
  return m;
}

static a2_pkt *pkt_get(a2_net *n) {
  if (!n->free_pkts) {
    a2_pkt *m = slab_alloc(n);
    if (!m) abort(); /* pools only grow with packets in flight; see docs/architecture.md */
    for (size_t i = 0; i < SLAB_BYTES / sizeof *m; i++) {
      m[i].next = n->free_pkts;
      n->free_pkts = &m[i];
    }
  }
  a2_pkt *p = n->free_pkts;
  n->free_pkts = p->next;
  return p;
}

static void pkt_put(a2_net *n, a2_pkt *p) {
  p->next = n->free_pkts;
  n->free_pkts = p;
}

a2_xfer *a2_xfer_alloc(a2_net *n) {
  if (!n->free_xfers) {
    a2_xfer *m = slab_alloc(n);
    if (!m) return NULL;
    for (size_t i = 0; i < SLAB_BYTES / sizeof *m; i++) {
      m[i].next_free = n->free_xfers;
      n->free_xfers = &m[i];
    }
  }
  a2_xfer *x = n->free_xfers;
  n->free_xfers = x->next_free;
  /* zeroed in two parts: GCC then emits a few vector stores for each
   * instead of a `rep stos`, whose start-up costs more at this size */
  _Static_assert(offsetof(a2_xfer, ext) > 64, "the first part is 64 bytes");
  memset(x, 0, 64);
  memset((char *)x + 64, 0, offsetof(a2_xfer, ext) - 64);
  x->path = x->path_inline;
  x->path_cap = A2_INLINE_HOPS;
  x->apply_hop = A2_NO_HOP;
  return x;
}

uint32_t *a2_xfer_path(a2_xfer *x, uint16_t nhops) {
  if (nhops > x->path_cap) {
    uint32_t *p = malloc(nhops * sizeof *p);
    if (!p) return NULL;
    if (x->path != x->path_inline) free(x->path);
    x->path = p;
    x->path_cap = nhops;
  }
  x->nhops = nhops;
  return x->path;
}

static void xfer_put(a2_net *n, a2_xfer *x) {
  if (x->path != x->path_inline) free(x->path);
  x->path = x->path_inline;
  x->path_cap = A2_INLINE_HOPS;
  x->next_free = n->free_xfers;
  n->free_xfers = x;
}

static void stage_wake(a2_stage *s, uint64_t t) {
  if (t < s->wake_ps) {
    s->wake_ps = t;
    a2k_wake_at(s->proc, t);
  }
}

/* Insert keeping arrival order; equal arrivals stay FIFO. Packets almost
 * always arrive in order, so the scan from the tail is short. */
static void stage_enqueue(a2_stage *s, a2_pkt *p) {
  p->next = NULL;
  if (!s->tail) {
    s->head = s->tail = p;
  } else if (s->tail->ready_ps <= p->ready_ps) {
    s->tail->next = p;
    s->tail = p;
  } else if (p->ready_ps < s->head->ready_ps) {
    p->next = s->head;
    s->head = p;
  } else {
    a2_pkt *q = s->head;
    while (q->next && q->next->ready_ps <= p->ready_ps) q = q->next;
    p->next = q->next;
    q->next = p;
  }
  stage_wake(s, p->ready_ps > s->free_ps ? p->ready_ps : s->free_ps);
}

/* Turn the next piece of x into a packet ready at the first stage at t. */
static void inject(a2_net *n, a2_xfer *x, uint64_t t) {
  a2_pkt *p = pkt_get(n);
  uint64_t left = x->bytes - x->injected;
  p->x = x;
  p->off = x->injected;
  p->len = (uint32_t)(left < n->pkt_bytes ? left : n->pkt_bytes);
  p->hop = 0;
  p->ready_ps = t;
  x->injected += p->len;
  stage_enqueue(stage_at(n, x->path[0]), p);
}

/* ---- reservation timing ---- */

void a2_net_set_reservation(a2_net *n, a2_net_defer_fn defer, void *ctx) {
  n->defer = defer;
  n->defer_ctx = ctx;
}

int a2_net_reservation(const a2_net *n) {
  return n->defer != NULL;
}

/* Drop intervals that ended by `now`: nothing can be reserved before now
 * (past intervals left in the list are harmless: searches skip them). */
static void ival_prune(a2_stage *st, uint64_t now) {
  if (st->last_e <= now) { /* all past: the usual case, without touching iv */
    st->ihead = st->in = 0;
    st->last_e = 0;
    if (st->iv != st->inl) { /* back in place; the heap array is kept */
      st->iv = st->inl;
      st->icap = INL;
    }
    return;
  }
  if (st->iv == st->inl) { /* in place: drop the past ones, the line is at hand */
    uint32_t h = st->ihead;
    while (h < st->in && st->iv[h].e <= now) h++;
    if (h) {
      memmove(st->iv, st->iv + h, (st->in - h) * sizeof *st->iv);
      st->in -= h;
      st->ihead = 0;
    }
    return;
  }
  /* In the heap array: a list of one goes back in place (room for two
   * more there), one of up to 16 moves to the array's start, so that the
   * stage keeps using the same few lines (left to slide along the array,
   * its lines came back only after the whole array, and at scale every
   * append was a cache miss); a longer one slides until half of the array
   * is past. */
  uint32_t h = st->ihead;
  while (h < st->in && st->iv[h].e <= now) h++;
  uint32_t live = st->in - h;
  if (live <= 1) {
    memcpy(st->inl, st->iv + h, live * sizeof *st->iv);
    st->iv = st->inl;
    st->icap = INL;
    st->ihead = 0;
    st->in = live;
  } else if (h > st->ihead && (live <= 16 || (h >= 64 && h * 2 >= st->in))) {
    memmove(st->iv, st->iv + h, live * sizeof *st->iv);
    st->ihead = 0;
    st->in = live;
  } else {
    st->ihead = h;
  }
}

static void ival_grow(a2_stage *st) {
  if (st->iv == st->inl) { /* out of place: into the kept heap array, or a new one */
    if (!st->heap) {
      st->heap_cap = 4 * INL;
      st->heap = malloc(st->heap_cap * sizeof *st->heap);
      if (!st->heap) abort(); /* grows only with reservations in flight */
    }
    memcpy(st->heap, st->inl, st->in * sizeof *st->heap);
    st->iv = st->heap;
    st->icap = st->heap_cap;
    if (st->in < st->icap) return;
  }
  uint32_t cap = st->icap * 2;
  a2_ival *v = realloc(st->iv, cap * sizeof *v);
  if (!v) abort();
  st->iv = st->heap = v;
  st->icap = st->heap_cap = cap;
}

/* Reserve d ps at the earliest start >= a that overlaps no reserved
 * interval; returns the start. Intervals that touch are merged, so a
 * stream at the stage's own rate stays one interval. *hint: where the
 * previous packet of the block went (0: none); the search starts there
 * when every interval before it ends by a (packets arrive in order), and
 * *hint is left where this one went. */
static uint64_t ival_reserve(a2_stage *st, uint64_t a, uint64_t d, uint32_t *hint) {
  uint32_t lo = st->ihead, hi = st->in;
  if (*hint > lo && *hint <= hi && st->iv[*hint - 1].e <= a) {
    lo = *hint; /* the answer is usually at or just after it */
    for (int g = 0; g < 4 && lo < hi && st->iv[lo].e <= a; g++) lo++;
  }
  if (hi > lo && st->iv[hi - 1].e <= a) {
    lo = hi; /* the common case: after everything reserved */
  } else {
    while (lo < hi) { /* first interval ending after a */
      uint32_t mid = lo + (hi - lo) / 2;
      if (st->iv[mid].e <= a)
        lo = mid + 1;
      else
        hi = mid;
    }
  }
  uint64_t s = a;
  uint32_t i = lo;
  while (i < st->in && st->iv[i].s < s + d) {
    if (st->iv[i].e > s) s = st->iv[i].e;
    i++;
  }
  /* [s, s+d) goes between iv[i-1] (ends <= s) and iv[i] (starts >= s+d) */
  bool join_prev = i > st->ihead && st->iv[i - 1].e == s;
  bool join_next = i < st->in && st->iv[i].s == s + d;
  *hint = join_prev ? i - 1 : i; /* the interval that now holds [s, s+d) */
  if (join_prev && join_next) {
    st->iv[i - 1].e = st->iv[i].e;
    memmove(st->iv + i, st->iv + i + 1, (st->in - i - 1) * sizeof *st->iv);
    st->in--;
  } else if (join_prev) {
    st->iv[i - 1].e = s + d;
  } else if (join_next) {
    st->iv[i].s = s;
  } else {
    if (st->in == st->icap) ival_grow(st);
    memmove(st->iv + i + 1, st->iv + i, (st->in - i) * sizeof *st->iv);
    st->iv[i] = (a2_ival){s, s + d};
    st->in++;
  }
  st->last_e = st->iv[st->in - 1].e;
  return s;
}

#define BLOCK 64 /* packets reserved hop by hop together */

/* Open a new interval at s in slot in (the first free one; grows the
 * array when full); returns in + 1. */
static uint32_t ival_open(a2_stage *st, uint32_t in, uint64_t s) {
  if (in == st->icap) {
    st->in = in; /* what ival_grow moves */
    ival_grow(st);
  }
  st->iv[in].s = s;
  return in + 1;
}

/* Reserve d ps at st for work that arrives at or after the start of its
 * last interval: at that interval's end (joining it), or at the arrival
 * after it. Returns the start. */
static inline uint64_t ival_append(a2_stage *st, uint64_t arr, uint64_t d) {
  uint64_t free_ps = st->last_e, s = arr > free_ps ? arr : free_ps;
  uint32_t in = st->in;
  if (in == st->ihead || s != free_ps) in = ival_open(st, in, s);
  st->iv[in - 1].e = s + d;
  st->in = in;
  st->last_e = s + d;
  return s;
}

/* One hop of a block of k packets: arrivals a[] (hop 0: packet j+1 is
 * injected when packet j starts service, the first at `ready`), service
 * ser_full each except a short last packet (ser_last). Appends after
 * everything reserved at st: coalesces touching services into one interval
 * in registers, one store per interval. Requires rising arrivals, the
 * first at or after the end of the last interval, or at least after its
 * start (then no gap before the stage's last end can take it, nor a later
 * arrival). Leaves in a[] the arrivals at the next hop; returns the last
 * start. */
static uint64_t hop_append(a2_stage *st, uint64_t *a, uint32_t k, bool hop0, uint64_t ready,
                           uint64_t ser_last) {
  uint64_t ser = st->ser_full, lat = st->lat_ps, free_ps = st->last_e, s = 0, busy = 0;
  uint32_t in = st->in;
  bool open = in > st->ihead; /* iv[in-1] is the last interval, its end in free_ps */
  if (hop0) { /* each packet is ready when the one before starts: back to back, one interval */
    busy = (uint64_t)(k - 1) * ser + ser_last;
    s = ival_append(st, ready, busy);
    for (uint32_t j = 0; j + 1 < k; j++) a[j] = s + (j + 1) * ser + lat;
    a[k - 1] = s + busy + lat;
    st->st.busy_ps += busy;
    return s + (uint64_t)(k - 1) * ser;
  }
  for (uint32_t j = 0; j < k; j++) { /* later hops: each packet as it arrives */
    uint64_t arr = a[j], d = j + 1 == k ? ser_last : ser;
    s = arr > free_ps ? arr : free_ps;
    if (!open || s != free_ps) { /* a gap: close the open interval, open one at s */
      if (open) st->iv[in - 1].e = free_ps;
      in = ival_open(st, in, s);
      open = true;
    }
    free_ps = s + d;
    busy += d;
    a[j] = free_ps + lat;
  }
  st->iv[in - 1].e = free_ps;
  st->in = in;
  st->last_e = free_ps;
  st->st.busy_ps += busy;
  return s;
}

/* Reservation timing: every packet of x through every hop, now. Packets go
 * in blocks, hop by hop: a block's arrivals at a stage are known once the
 * previous hop is done, and a block arriving after everything reserved at a
 * stage (the uncontended case) is appended without searching. */
/* on_apply over the whole payload, in pieces that fit its uint32 length. */
static void apply_all(a2_xfer *x) {
  for (uint64_t off = 0; off < x->bytes; off += 1u << 30) {
    uint64_t left = x->bytes - off;
    x->on_apply(x, off, (uint32_t)(left < (1u << 30) ? left : (1u << 30)));
  }
}

/* Reservation of a one-packet transfer (control messages, chunks up to a
 * packet: at thousands of ranks, every transfer of the ring) along stages
 * sp[0..x->nhops): the general loop of reserve_all for a block of one,
 * without the block arithmetic. Returns when the packet leaves the last stage; *applied
 * is when it started service at the apply hop. */
static uint64_t reserve_one(a2_net *n, const a2_xfer *x, a2_stage *const *sp, uint64_t t0,
                            uint64_t *applied) {
  uint32_t len = (uint32_t)x->bytes;
  bool obs = n->observer != NULL;
  uint64_t arr = t0;
  for (uint16_t h = 0; h < x->nhops; h++) {
    a2_stage *st = sp[h];
    uint64_t ser = len == n->pkt_bytes ? st->ser_full : a2_ser_ps(len, st->bw);
    uint64_t s;
    if (!obs && (st->last_e <= arr || st->iv[st->in - 1].s <= arr)) {
      s = ival_append(st, arr, ser);
    } else {
      uint32_t hint = 0;
      s = ival_reserve(st, arr, ser, &hint);
      if (obs) a2_tq_push(&n->held, s, s + ser, (uint64_t)st->id << 32 | len);
    }
    st->st.bytes += len;
    st->st.packets++;
    st->st.busy_ps += ser;
    if (h == x->apply_hop) *applied = s;
    arr = s + ser + st->lat_ps;
  }
  return arr;
}

/* Returns whether x was handed to the defer hook (else the caller recycles it). */
static bool reserve_all(a2_net *n, a2_xfer *x, uint64_t now, uint64_t t0) {
  uint64_t ready = t0, done = 0, applied = 0;
  uint64_t a[BLOCK];
  uint32_t pkt = n->pkt_bytes;
  bool obs = n->observer != NULL;
  /* the path's stages, found once (the first MAXP; a longer path looks the
   * rest up per block) */
  enum { MAXP = 16 };
  a2_stage *sp[MAXP];
  uint16_t np = x->nhops < MAXP ? x->nhops : MAXP;
  /* they are cold at scale: ask for all of them at once, so that their
   * cache misses overlap instead of following one another */
  for (uint16_t h = 0; h < np; h++) {
    sp[h] = stage_at(n, x->path[h]);
    __builtin_prefetch(sp[h], 1);
    __builtin_prefetch((const char *)sp[h] + 64, 1);
  }
  for (uint16_t h = 0; h < x->nhops; h++) ival_prune(h < np ? sp[h] : stage_at(n, x->path[h]), now);
  if (n->held.n && now) held_flush(n, now - 1);
  if (x->bytes && x->bytes <= pkt && x->nhops == np) { /* one packet: the loop below, k = 1 */
    done = reserve_one(n, x, sp, t0, &applied);
    x->injected = x->bytes;
  }
  while (x->injected < x->bytes) {
    /* k packets, all full but perhaps the last (the transfer's tail) */
    uint64_t left = x->bytes - x->injected;
    uint64_t kk = (left + pkt - 1) / pkt;
    uint32_t k = kk < BLOCK ? (uint32_t)kk : BLOCK;
    uint64_t blk = kk <= BLOCK ? left : (uint64_t)k * pkt;
    uint32_t last_len = (uint32_t)(blk - (uint64_t)(k - 1) * pkt);
    x->injected += blk;
    /* a[] rises: the previous hop took the block in order, by hop_append (a
     * stage's earliest-fit search may put a short last packet into an
     * earlier gap) */
    bool sorted = true;
    for (uint16_t h = 0; h < x->nhops; h++) {
      a2_stage *st = h < np ? sp[h] : stage_at(n, x->path[h]);
      uint64_t ser_last = last_len == pkt ? st->ser_full : a2_ser_ps(last_len, st->bw);
      st->st.bytes += blk;
      st->st.packets += k;
      /* hop 0: packet j+1 is injected when packet j starts service. The
       * first arrival is after everything reserved, or queues behind the
       * last interval (a FIFO backlog: the usual case of a busy stage). */
      uint64_t a0 = h == 0 ? ready : a[0];
      if (!obs && (st->last_e <= a0 || (sorted && st->iv[st->in - 1].s <= a0))) {
        uint64_t last = hop_append(st, a, k, h == 0, ready, ser_last);
        if (h == 0) ready = last;
        if (h == x->apply_hop && last > applied) applied = last; /* starts rise */
        sorted = true;
        continue;
      }
      sorted = false;
      uint32_t hint = 0;
      uint64_t busy = 0, lat = st->lat_ps;
      for (uint32_t j = 0; j < k; j++) {
        uint64_t arr = h == 0 ? ready : a[j];
        uint64_t ser = j + 1 == k ? ser_last : st->ser_full;
        uint64_t s = ival_reserve(st, arr, ser, &hint);
        if (h == 0) ready = s;
        busy += ser;
        if (obs)
          a2_tq_push(&n->held, s, s + ser, (uint64_t)st->id << 32 | (j + 1 == k ? last_len : pkt));
        if (h == x->apply_hop && s > applied) applied = s;
        a[j] = s + ser + lat;
      }
      st->st.busy_ps += busy;
    }
    if (sorted) { /* the last hop took it in order: its last packet leaves last */
      if (a[k - 1] > done) done = a[k - 1];
    } else {
      for (uint32_t j = 0; j < k; j++)
        if (a[j] > done) done = a[j];
    }
  }
  x->done_bytes = x->bytes;
  x->t_done = done;
  /* Bytes move now when the caller has taken the completion time (x->known),
   * or when x reads at its first stage (a load's source), as packet timing
   * reads when that stage serves them: a later write to the source, which
   * program order puts after it, must not be seen. */
  bool applies = x->on_apply && x->apply_hop != A2_NO_HOP;
  if (applies && (x->known || x->apply_hop == 0)) {
    apply_all(x);
    applies = false;
    x->apply_hop = A2_NO_HOP;
  }
  if (!x->on_done && !applies) return false; /* nothing happens later */
  /* A transfer that only applies (a notify) acts when its last packet is
   * served at the apply hop, as with packet timing; one with a completion
   * applies its payload then. */
  n->defer(n->defer_ctx, x, x->on_done ? done : applied);
  return true;
}

void a2_xfer_finish(a2_net *n, a2_xfer *x) {
  if (x->apply_hop != A2_NO_HOP && x->on_apply) apply_all(x);
  if (x->on_done) x->on_done(x, x->t_done);
  xfer_put(n, x);
}

uint64_t a2_xfer_start(a2_net *n, a2_xfer *x, uint64_t t_ps) {
  uint64_t now = a2k_now_ps(), t0 = t_ps > now ? t_ps : now;
  if (!n->defer) {
    inject(n, x, t0);
    return UINT64_MAX;
  }
  bool deferred = reserve_all(n, x, now, t0);
  uint64_t t = x->t_done;
  if (!deferred) xfer_put(n, x); /* nothing left to do */
  return t;
}

static void stage_run(void *ctx) {
  a2_stage *s = ctx;
  a2_net *n = s->net;
  uint64_t now = a2k_now_ps();
  s->wake_ps = UINT64_MAX;
  while (s->head) {
    a2_pkt *p = s->head;
    uint64_t t = p->ready_ps > s->free_ps ? p->ready_ps : s->free_ps;
    if (t > now) {
      stage_wake(s, t);
      return;
    }
    s->head = p->next;
    if (!s->head) s->tail = NULL;
    uint64_t ser = a2_ser_ps(p->len, s->bw);
    s->free_ps = now + ser;
    s->st.bytes += p->len;
    s->st.busy_ps += ser;
    s->st.packets++;
    if (n->observer) n->observer(n->observer_ctx, s->id, now, s->free_ps, p->len);
    a2_xfer *x = p->x;
    if (p->hop == x->apply_hop && x->on_apply) x->on_apply(x, p->off, p->len);
    if (p->hop == 0 && x->injected < x->bytes) inject(n, x, now);
    uint64_t arrive = s->free_ps + s->lat_ps;
    if (p->hop + 1 < x->nhops) {
      p->hop++;
      p->ready_ps = arrive;
      stage_enqueue(stage_at(n, x->path[p->hop]), p);
    } else {
      x->done_bytes += p->len;
      pkt_put(n, p);
      if (x->done_bytes == x->bytes) {
        if (x->on_done) x->on_done(x, arrive);
        xfer_put(n, x);
      }
    }
  }
}

a2_code a2_net_create(uint32_t pkt_bytes, a2_net **out, a2_err *err) {
  a2_net *n = calloc(1, sizeof *n);
  if (!n) return a2_err_set(err, A2_E_NOMEM, NULL, 0, 0, "out of memory for the network");
  n->pkt_bytes = pkt_bytes;
  *out = n;
  return A2_OK;
}

void a2_net_free(a2_net *n) {
  if (!n) return;
  for (uint32_t i = 0; i < n->nstages; i++) free(stage_at(n, i)->heap);
  for (uint32_t i = 0; i < n->nchunks; i++) a2_huge_free(n->chunks[i], A2_HUGE_PAGE);
  free(n->chunks);
  a2_tq_free(&n->held);
  for (uint32_t i = 0; i < n->nslabs; i++) a2_huge_free(n->slabs[i], SLAB_BYTES);
  free(n->slabs);
  free(n);
}

static const char *const kind_names[] = {"link", "hbm", "mte_in", "mte_out"};

a2_code a2_net_add_stage(a2_net *n, a2_stage_kind kind, uint64_t bw, uint64_t lat_ps, int32_t a,
                         int32_t b, uint32_t *id, a2_err *err) {
  if (bw == 0) return a2_err_set(err, A2_E_INTERNAL, NULL, 0, 0, "stage with zero bandwidth");
  if (n->nstages == n->nchunks * CHUNK) { /* a new chunk (cache-line aligned) */
    a2_stage **v = realloc(n->chunks, (n->nchunks + 1) * sizeof *v);
    if (!v) return a2_err_set(err, A2_E_NOMEM, NULL, 0, 0, "out of memory for stages");
    n->chunks = v;
    v[n->nchunks] = a2_huge_alloc(A2_HUGE_PAGE); /* all of it: a huge page */
    if (!v[n->nchunks]) return a2_err_set(err, A2_E_NOMEM, NULL, 0, 0, "out of memory for stages");
    n->nchunks++;
  }
  a2_stage *s = stage_at(n, n->nstages);
  memset(s, 0, sizeof *s);
  s->net = n;
  s->id = n->nstages;
  s->kind = kind;
  s->a = a;
  s->b = b;
  s->bw = bw;
  s->lat_ps = lat_ps;
  s->ser_full = a2_ser_ps(n->pkt_bytes, bw);
  s->iv = s->inl;
  s->icap = INL;
  s->wake_ps = UINT64_MAX;
  if (!n->defer) { /* reservation timing needs no process per stage */
    a2_code rc = a2k_proc_create(kind_names[kind], stage_run, s, &s->proc, err);
    if (rc) return rc;
  }
  *id = n->nstages++;
  return A2_OK;
}

uint32_t a2_net_stage_count(const a2_net *n) {
  return n->nstages;
}

a2_stage_kind a2_net_stage_kind(const a2_net *n, uint32_t id, int32_t *a, int32_t *b) {
  if (a) *a = stage_at(n, id)->a;
  if (b) *b = stage_at(n, id)->b;
  return stage_at(n, id)->kind;
}

const a2_stage_stats *a2_net_stage_stats(const a2_net *n, uint32_t id) {
  return &stage_at(n, id)->st;
}
