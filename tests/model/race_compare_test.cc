// The race detector (model/race.h) against its slow reference
// (race_reference.h) on generated programs: random instruction lists of loads, stores,
// remote loads and stores (plain and atomic add), puts, gets, notifies and
// waits over 2-4 ranks of 1-3 cores, executed in a random order that keeps
// each core's program order, lands each notify some time after its dispatch
// and passes a wait only when its cell holds the value. Both detectors see
// the same calls; their racing pairs must be the same, in the same order:
// every report, listed in full, is compared as text. Some programs are
// synchronised by barriers and race-free by construction (each phase gives
// every slot of a buffer one writer, several atomic adders or only readers);
// some break that on purpose; some are unstructured. Seeds are fixed.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "model/race.h"
#include "tests/model/race_reference.h"
#include "traces/program.h"

namespace {

// What a generated program's buffers are (index into a2_program.bufs).
enum Buf : uint16_t { kWide, kNarrow, kBig, kTensor, kSig, kNBufs };
constexpr uint64_t kWideBytes = 3 * 4096 + 512;  // crosses page boundaries
constexpr uint64_t kNarrowBytes = 256;           // fine-grained overlaps
constexpr uint64_t kBlock = 64 << 10;            // whole blocks of the checker's index
constexpr uint64_t kBigBytes = 4 * kBlock;
constexpr uint64_t kTensorBytes = 1024;

struct Access {
  uint32_t owner;
  uint16_t buf;
  uint64_t off, len;
  a2_race_kind kind;
};

// One instruction of a generated program: up to two buffer accesses (put and
// get have two), or a notify, or a wait.
struct Op {
  a2_opcode op;
  std::vector<Access> acc;
  uint32_t peer = 0;  // notify: target rank
  uint32_t cell = 0;  // notify / wait: cell index
  int set = 0;        // notify: set (else add)
  int32_t value = 0;  // notify value; wait: awaited value
  int ge = 1;         // wait: >= (else ==)
};

struct Program {
  a2_program k{};
  uint32_t ncells = 0;
  std::vector<std::vector<Op>> prog;  // [rank * ncores + core]
  ~Program() { a2_program_free(&k); }
};

uint64_t BufBytes(uint16_t b) {
  return b == kWide     ? kWideBytes
         : b == kNarrow ? kNarrowBytes
         : b == kBig    ? kBigBytes
                        : kTensorBytes;
}

class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) {}
  uint32_t Below(uint32_t n) { return (uint32_t)(rng_() % n); }
  bool Chance(uint32_t pct) { return Below(100) < pct; }

  // A byte range of buffer b in whole fp32 elements: mostly small, some
  // spanning pages.
  void Range(uint16_t b, uint64_t *off, uint64_t *len) {
    uint64_t bytes = BufBytes(b);
    if (b == kBig && Chance(40)) {  // whole blocks
      uint32_t n = 1 + Below(2), first = Below((uint32_t)(bytes / kBlock) - n + 1);
      *off = first * kBlock;
      *len = n * kBlock;
      return;
    }
    uint32_t c = Below(10);
    uint64_t max = c < 5 ? 64 : c < 8 ? 1024 : bytes;
    uint64_t l = 4 * (1 + Below((uint32_t)(max / 4)));
    if (l > bytes) l = bytes;
    uint64_t o = 4 * Below((uint32_t)((bytes - l) / 4 + 1));
    if (Chance(20)) o = o / 256 * 256;  // aligned starts: exact overlaps
    *off = o;
    *len = l;
  }

  // Within slot [lo, hi) of a buffer.
  void RangeIn(uint64_t lo, uint64_t hi, uint64_t *off, uint64_t *len) {
    uint32_t words = (uint32_t)((hi - lo) / 4);
    uint32_t a = Below(words), b = Below(words);
    if (a > b) std::swap(a, b);
    if (Chance(30)) a = 0, b = words - 1;
    *off = lo + 4ull * a;
    *len = 4ull * (b - a + 1);
  }

 private:
  std::mt19937_64 rng_;
};

// A plain access instruction touching (owner, buf) [off, off+len) as `kind`,
// from a core of rank `me`: the opcode follows from locality and kind.
Op AccessOp(Gen &g, uint32_t me, uint32_t owner, uint16_t buf, uint64_t off, uint64_t len,
            a2_race_kind kind) {
  Op o;
  bool remote = buf != kTensor && (owner != me || g.Chance(20));
  if (kind == A2_RACE_ATOMIC_ADD) remote = true;  // only remote_store adds
  if (!remote) owner = me;
  if (kind == A2_RACE_READ)
    o.op = remote ? A2_OP_RLOAD : A2_OP_LOAD;
  else
    o.op = remote ? A2_OP_RSTORE : A2_OP_STORE;
  o.acc.push_back({owner, buf, off, len, kind});
  return o;
}

void Init(Program &K, uint32_t R, uint32_t C, uint32_t ncells) {
  a2_err e{};
  ASSERT_EQ(a2_program_init(&K.k, R, C, &e), A2_OK) << e.msg;
  K.k.nbufs = kNBufs;
  const char *names[kNBufs] = {"wide", "narrow", "big", "t", "sig"};
  a2_buf_kind kinds[kNBufs] = {A2_BUF_WINDOW, A2_BUF_WINDOW, A2_BUF_WINDOW, A2_BUF_TENSOR,
                               A2_BUF_SIGNAL};
  for (uint16_t b = 0; b < kNBufs; b++) {
    snprintf(K.k.bufs[b].name, sizeof K.k.bufs[b].name, "%s", names[b]);
    K.k.bufs[b].kind = kinds[b];
    K.k.bufs[b].dtype = b == kSig ? A2_INT32 : A2_FP32;
    K.k.bufs[b].bytes = b == kSig ? 4ull * ncells : BufBytes(b);
  }
  K.k.lines_are_file_lines = 1;
  K.ncells = ncells;
  K.prog.assign(R * C, {});
}

// Unstructured: random accesses of every kind, notifies to random cells of
// random ranks, waits for small values; races and deadlocks are likely.
void Unstructured(Gen &g, Program &K) {
  uint32_t R = 2 + g.Below(3), C = 1 + g.Below(3), ncells = 4;
  Init(K, R, C, ncells);
  for (uint32_t gid = 0; gid < R * C; gid++) {
    uint32_t me = gid / C, n = 5 + g.Below(30);
    for (uint32_t i = 0; i < n; i++) {
      uint32_t c = g.Below(20);
      Op o;
      if (c < 3) {
        o.op = A2_OP_NOTIFY;
        o.peer = g.Below(R);
        o.cell = g.Below(ncells);
        o.set = g.Chance(25);
        o.value = 1 + (int32_t)g.Below(2);
      } else if (c < 5) {
        o.op = A2_OP_WAIT;
        o.cell = g.Below(ncells);
        o.ge = !g.Chance(20);
        o.value = 1 + (int32_t)g.Below(2);
      } else if (c < 7) {                     // put / get: a local buffer and a peer's window
        uint16_t win = (uint16_t)g.Below(3);  // kWide, kNarrow or kBig
        uint16_t local = g.Chance(50) ? (uint16_t)kTensor : win;
        uint32_t peer = g.Below(R);
        uint64_t off, len, off2, len2;
        g.Range(win, &off, &len);
        g.Range(local, &off2, &len2);
        if (len2 < len) len = len2;
        if (g.Chance(50)) {
          o.op = A2_OP_PUT;
          o.acc.push_back({me, local, off2, len, A2_RACE_READ});
          o.acc.push_back({peer, win, off, len, A2_RACE_WRITE});
        } else {
          o.op = A2_OP_GET;
          o.acc.push_back({peer, win, off, len, A2_RACE_READ});
          o.acc.push_back({me, local, off2, len, A2_RACE_WRITE});
        }
      } else {
        uint16_t b = (uint16_t)g.Below(4);
        uint64_t off, len;
        g.Range(b, &off, &len);
        a2_race_kind kind = (a2_race_kind)g.Below(3);
        if (b == kTensor && kind == A2_RACE_ATOMIC_ADD) kind = A2_RACE_WRITE;
        o = AccessOp(g, me, b == kTensor ? me : g.Below(R), b, off, len, kind);
      }
      K.prog[gid].push_back(o);
    }
  }
}

// Phases separated by barriers (every core adds 1 to a cell of every other
// core, then waits for all of them). In each phase every slot of each
// window is written by one core, added to atomically by several, or only
// read; `break_pct` of the phases get one access against that plan.
void Phased(Gen &g, Program &K, uint32_t break_pct) {
  uint32_t R = 2 + g.Below(3), C = 1 + g.Below(3), T = R * C, phases = 2 + g.Below(3);
  Init(K, R, C, phases * C);
  constexpr uint32_t kSlots = 4;  // of the big buffer: a block each
  for (uint32_t ph = 0; ph < phases; ph++) {
    for (uint16_t b : {kWide, kNarrow, kBig}) {
      for (uint32_t r = 0; r < R; r++) {
        for (uint32_t s = 0; s < kSlots; s++) {
          uint64_t lo = BufBytes(b) * s / kSlots / 4 * 4,
                   hi = BufBytes(b) * (s + 1) / kSlots / 4 * 4;
          uint32_t plan = g.Below(4);  // 0 one writer, 1 atomic adders, 2 readers, 3 untouched
          if (plan == 3) continue;
          uint32_t writer = g.Below(T);
          for (uint32_t gid = 0; gid < T; gid++) {
            uint32_t me = gid / C, n = g.Below(3);
            if (plan == 0 && gid != writer) n = 0;
            for (uint32_t i = 0; i < n; i++) {
              uint64_t off, len;
              g.RangeIn(lo, hi, &off, &len);
              a2_race_kind kind = plan == 0   ? (g.Chance(70) ? A2_RACE_WRITE : A2_RACE_READ)
                                  : plan == 1 ? A2_RACE_ATOMIC_ADD
                                              : A2_RACE_READ;
              K.prog[gid].push_back(AccessOp(g, me, r, b, off, len, kind));
            }
          }
        }
      }
    }
    if (g.Chance(break_pct)) {  // one access against the plan
      uint32_t gid = g.Below(T);
      uint16_t b = (uint16_t)g.Below(3);
      uint64_t off, len;
      g.Range(b, &off, &len);
      K.prog[gid].push_back(
          AccessOp(g, gid / C, g.Below(R), b, off, len, (a2_race_kind)g.Below(3)));
    }
    for (uint32_t gid = 0; gid < T; gid++) {  // tensor traffic: a slice per core
      uint64_t off, len, slice = kTensorBytes / C / 4 * 4;
      g.RangeIn(gid % C * slice, (gid % C + 1) * slice, &off, &len);
      K.prog[gid].push_back(AccessOp(g, gid / C, gid / C, kTensor, off, len,
                                     g.Chance(50) ? A2_RACE_WRITE : A2_RACE_READ));
    }
    // Shuffle each core's accesses of this phase: the plan holds in any order.
    for (uint32_t gid = 0; gid < T; gid++) {
      std::vector<Op> &p = K.prog[gid];
      size_t start = 0;
      for (size_t i = p.size(); i-- > 0;)
        if (p[i].op == A2_OP_WAIT) {
          start = i + 1;
          break;
        }
      for (size_t i = p.size(); i > start + 1; i--)
        std::swap(p[i - 1], p[start + g.Below((uint32_t)(i - start))]);
    }
    for (uint32_t gid = 0; gid < T; gid++) {  // the barrier
      for (uint32_t to = 0; to < T; to++) {
        if (to == gid) continue;
        Op n;
        n.op = A2_OP_NOTIFY;
        n.peer = to / C;
        n.cell = ph * C + to % C;
        n.value = 1;
        K.prog[gid].push_back(n);
      }
      Op w;
      w.op = A2_OP_WAIT;
      w.cell = ph * C + gid % C;
      w.value = (int32_t)(T - 1);
      K.prog[gid].push_back(w);
    }
  }
}

// Two detectors fed the same calls.
struct Pair {
  a2_race *fast;
  a2_race_ref *ref;
  explicit Pair(const a2_program *k, uint32_t shown) {
    fast = a2_race_create(k, 1ull << 30);
    a2_race_set_report_limit(fast, shown);
    ref = a2_race_ref_create(k, shown);
  }
  ~Pair() {
    a2_race_free(fast);
    a2_race_ref_free(ref);
  }
};

// A notify on its way: the clock snapshots of each pair's two detectors.
struct InFlight {
  uint32_t rank, cell;
  int set;
  int32_t value;
  uint32_t *snap[2], *ref_snap[2];
};

std::string Report(a2_race *r) {
  char *buf = nullptr;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  a2_race_report(r, f);
  fclose(f);
  std::string s(buf, n);
  free(buf);
  return s;
}

std::string Report(a2_race_ref *r) {
  char *buf = nullptr;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  a2_race_ref_report(r, f);
  fclose(f);
  std::string s(buf, n);
  free(buf);
  return s;
}

// Runs K in a random order (seeded), feeding two pairs of detectors: one
// listing every pair, one listing the default 8. Returns the races found.
uint64_t RunAndCompare(const Program &K, uint64_t seed) {
  Gen g(seed ^ 0x9e3779b97f4a7c15ull);
  const uint32_t T = K.k.nranks * K.k.ncores, C = K.k.ncores;
  Pair all(&K.k, 1u << 20), few(&K.k, 8);
  Pair *pairs[2] = {&all, &few};
  std::vector<size_t> pc(T, 0);
  std::vector<int32_t> cells(K.k.nranks * K.ncells, 0);
  std::vector<InFlight> flight;
  uint64_t now = 0;
  for (;;) {
    now += 1000 + g.Below(3) * 500;
    std::vector<uint32_t> ready;
    for (uint32_t gid = 0; gid < T; gid++) {
      if (pc[gid] == K.prog[gid].size()) continue;
      const Op &o = K.prog[gid][pc[gid]];
      if (o.op == A2_OP_WAIT) {
        int32_t v = cells[(gid / C) * K.ncells + o.cell];
        if (!(o.ge ? v >= o.value : v == o.value)) continue;
      }
      ready.push_back(gid);
    }
    if (ready.empty() && flight.empty()) break;
    if (!flight.empty() && (ready.empty() || g.Chance(30))) {  // a notify lands
      size_t i = g.Below((uint32_t)flight.size());
      InFlight f = flight[i];
      flight.erase(flight.begin() + (long)i);
      int32_t &v = cells[f.rank * K.ncells + f.cell];
      v = f.set ? f.value : v + f.value;
      for (int p = 0; p < 2; p++) {
        a2_race_land(pairs[p]->fast, f.rank, kSig, 4ull * f.cell, f.set, f.snap[p]);
        a2_race_ref_land(pairs[p]->ref, f.rank, kSig, 4ull * f.cell, f.set, f.ref_snap[p]);
      }
      continue;
    }
    uint32_t gid = ready[g.Below((uint32_t)ready.size())];
    const Op &o = K.prog[gid][pc[gid]++];
    a2_instr in{};
    in.op = (uint8_t)o.op;
    in.line = (uint32_t)pc[gid];  // 1-based index in its program
    uint32_t rank = gid / C;
    if (o.op == A2_OP_WAIT) {
      for (Pair *p : pairs) {
        a2_race_acquire(p->fast, gid, rank, kSig, 4ull * o.cell);
        a2_race_ref_acquire(p->ref, gid, rank, kSig, 4ull * o.cell);
      }
    } else if (o.op == A2_OP_NOTIFY) {
      InFlight f{o.peer, o.cell, o.set, o.value, {}, {}};
      for (int p = 0; p < 2; p++) {
        f.snap[p] = a2_race_notify(pairs[p]->fast, gid);
        f.ref_snap[p] = a2_race_ref_notify(pairs[p]->ref, gid);
      }
      flight.push_back(f);
    } else {
      for (const Access &a : o.acc) {
        in.mode = a.kind == A2_RACE_ATOMIC_ADD ? A2_MODE_ATOMIC_ADD : A2_MODE_PLAIN;
        for (Pair *p : pairs) {
          a2_race_access(p->fast, gid, a.owner, a.buf, a.off, a.len, a.kind, &in, now);
          a2_race_ref_access(p->ref, gid, a.owner, a.buf, a.off, a.len, a.kind, &in, now);
        }
      }
    }
  }
  for (Pair *p : pairs) {
    EXPECT_FALSE(a2_race_abandoned(p->fast, nullptr, nullptr));
    EXPECT_EQ(a2_race_count(p->fast), a2_race_ref_count(p->ref));
    EXPECT_EQ(Report(p->fast), Report(p->ref));
  }
  return a2_race_ref_count(all.ref);
}

constexpr int kSeeds = 400;

TEST(RaceCompare, UnstructuredProgramsGiveTheReferencesPairs) {
  uint64_t racy = 0;
  for (int s = 0; s < kSeeds; s++) {
    SCOPED_TRACE("seed " + std::to_string(s));
    Gen g(1000 + s);
    Program K;
    Unstructured(g, K);
    racy += RunAndCompare(K, 1000 + s) > 0;
    if (HasFailure()) return;
  }
  EXPECT_GT(racy, kSeeds / 2u) << "the generator should make most of these racy";
}

TEST(RaceCompare, BarrierPhasedProgramsAreRaceFree) {
  for (int s = 0; s < kSeeds; s++) {
    SCOPED_TRACE("seed " + std::to_string(s));
    Gen g(2000 + s);
    Program K;
    Phased(g, K, 0);
    EXPECT_EQ(RunAndCompare(K, 2000 + s), 0u);
    if (HasFailure()) return;
  }
}

TEST(RaceCompare, BrokenPhasesGiveTheReferencesPairs) {
  uint64_t racy = 0;
  for (int s = 0; s < kSeeds; s++) {
    SCOPED_TRACE("seed " + std::to_string(s));
    Gen g(3000 + s);
    Program K;
    Phased(g, K, 50);
    racy += RunAndCompare(K, 3000 + s) > 0;
    if (HasFailure()) return;
  }
  EXPECT_GT(racy, kSeeds / 4u);
  EXPECT_LT(racy, (uint64_t)kSeeds) << "some broken phases happen to be harmless";
}

}  // namespace
