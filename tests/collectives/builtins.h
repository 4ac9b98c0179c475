// What the collectives tests expect of every built-in collective: its
// per-rank cost card (written out here independently of collectives/, from
// docs/collectives.md), its divisibility rule, and how to run it.
#ifndef A2_TESTS_COLLECTIVES_BUILTINS_H
#define A2_TESTS_COLLECTIVES_BUILTINS_H

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace a2test {

struct Builtin {
  const char *algo;
  // Remote bytes read / written by `rank` (root = the --root flag).
  uint64_t (*read)(uint32_t P, uint64_t N, uint32_t rank, uint32_t root);
  uint64_t (*write)(uint32_t P, uint64_t N, uint32_t rank, uint32_t root);
  uint64_t (*rounds)(uint32_t P);  // barrier rounds, max over ranks
  uint64_t multiple_per_rank;      // N must be a multiple of this * P (0: of 4 bytes only)
  bool reduces;                    // honours --op
  bool rooted;                     // honours --root
  bool sum_only = false;           // refuses --op other than sum
  // N must be a multiple of unit(P) bytes (overrides multiple_per_rank)
  uint64_t (*unit)(uint32_t P) = nullptr;
};

inline uint64_t Zero(uint32_t, uint64_t, uint32_t, uint32_t) {
  return 0;
}
inline uint64_t PeersTimesN(uint32_t P, uint64_t N, uint32_t, uint32_t) {
  return (P - 1) * N;
}
inline uint64_t TwoChunks(uint32_t P, uint64_t N, uint32_t, uint32_t) {
  return 2 * (P - 1) * (N / P);
}
inline uint64_t FromRoot(uint32_t, uint64_t N, uint32_t r, uint32_t root) {
  return r == root ? 0 : N;
}
// Star broadcast: the root writes N to each other rank
inline uint64_t FromRootByPut(uint32_t P, uint64_t N, uint32_t r, uint32_t root) {
  return r == root ? (P - 1) * N : 0;
}
// broadcast + mesh all-reduce + all-gather
inline uint64_t Composed(uint32_t P, uint64_t N, uint32_t r, uint32_t root) {
  return FromRoot(P, N, r, root) + 2 * PeersTimesN(P, N, r, root);
}
// reduce-scatter and all-gather by put: (P-1) slices of N/P each way
inline uint64_t TwoSlices(uint32_t P, uint64_t N, uint32_t, uint32_t) {
  return 2 * (P - 1) * (N / P);
}
// recursive halving-doubling: P' = 2^floor(log2 P)
inline uint64_t Pow2Below(uint32_t P) {
  uint64_t q = 1;
  while (q * 2 <= P) q *= 2;
  return q;
}
inline uint64_t RhdRead(uint32_t P, uint64_t N, uint32_t r, uint32_t) {
  uint64_t q = Pow2Below(P), rest = P - q;
  if (r < 2 * rest && r % 2) return N;  // folded out: reads the result
  return (r < 2 * rest ? N : 0) + 2 * (q - 1) * (N / q);
}
inline uint64_t RhdRounds(uint32_t P) {
  uint64_t q = Pow2Below(P), k = 0;
  while ((1ull << k) < q) k++;
  return 2 * k + (q != P);
}
inline uint64_t RhdUnit(uint32_t P) {
  return 4 * Pow2Below(P);
}
// NHR: ceil(log2 P) steps a phase
inline uint64_t NhrRounds(uint32_t P) {
  uint64_t k = 0;
  while ((1ull << k) < P) k++;
  return 2 * k;
}
inline uint64_t CeilLog2(uint32_t P) {
  uint64_t k = 0;
  while ((1ull << k) < P) k++;
  return k;
}
// the hierarchical collectives on one server (G = P: no inter-server step)
inline uint64_t HierOneServerRounds(uint32_t P) {
  return P > 1 ? 2 : 0;
}
inline uint64_t HierOneServerRound(uint32_t P) {
  return P > 1 ? 1 : 0;
}
// scatter from the root, then the mesh all-gather: (P-1)/P N at the root
inline uint64_t HierBroadcastRead(uint32_t P, uint64_t N, uint32_t r, uint32_t root) {
  return r == root ? (P - 1) * (N / P) : N;
}
inline uint64_t PeerRounds(uint32_t P) {
  return P - 1;
}
inline uint64_t OneRound(uint32_t) {
  return 1;
}
inline uint64_t TwoRounds(uint32_t) {
  return 2;
}
inline uint64_t RingRounds(uint32_t P) {
  return 2 * (P - 1);
}
inline uint64_t ThreeRounds(uint32_t) {
  return 3;
}

inline const std::vector<Builtin> &AllCollectives() {
  static const std::vector<Builtin> v = {
      {"allreduce_mesh", PeersTimesN, Zero, OneRound, 0, true, false},
      {"allreduce_two_phase", TwoChunks, Zero, TwoRounds, 4, true, false},
      {"allreduce_sdma_mesh", Zero, TwoSlices, ThreeRounds, 4, false, false, true},
      {"allreduce_ring", TwoChunks, Zero, RingRounds, 4, true, false},
      {"allreduce_rhd", RhdRead, Zero, RhdRounds, 0, true, false, false, RhdUnit},
      {"allreduce_nhr", TwoChunks, Zero, NhrRounds, 4, true, false},
      {"allreduce_double_ring", TwoChunks, Zero, RingRounds, 8, true, false},
      {"allreduce_hier_ring", TwoChunks, Zero, HierOneServerRounds, 4, true, false},
      {"allreduce_hier_rhd", TwoChunks, Zero, HierOneServerRounds, 4, true, false},
      {"allreduce_hier_nhr", TwoChunks, Zero, HierOneServerRounds, 4, true, false},
      {"allreduce_hier3_ring", TwoChunks, Zero, HierOneServerRounds, 4, true, false},
      {"allreduce_hier3_rhd", TwoChunks, Zero, HierOneServerRounds, 4, true, false},
      {"allreduce_hier3_nhr", TwoChunks, Zero, HierOneServerRounds, 4, true, false},
      {"reduce_scatter_hier_ring", PeersTimesN, Zero, HierOneServerRound, 0, true, false},
      {"reduce_scatter_hier_rhd", PeersTimesN, Zero, HierOneServerRound, 0, true, false},
      {"reduce_scatter_hier_nhr", PeersTimesN, Zero, HierOneServerRound, 0, true, false},
      {"allgather_hier_ring", PeersTimesN, Zero, HierOneServerRound, 0, false, false},
      {"allgather_hier_rhd", PeersTimesN, Zero, HierOneServerRound, 0, false, false},
      {"allgather_hier_nhr", PeersTimesN, Zero, HierOneServerRound, 0, false, false},
      {"broadcast_hier_ring", HierBroadcastRead, Zero, HierOneServerRounds, 4, false, true},
      {"broadcast_hier_rhd", HierBroadcastRead, Zero, HierOneServerRounds, 4, false, true},
      {"broadcast_hier_nhr", HierBroadcastRead, Zero, HierOneServerRounds, 4, false, true},
      {"allreduce_pipeline", TwoChunks, Zero, HierOneServerRounds, 16, true, false},
      {"allgather_pipeline", PeersTimesN, Zero, HierOneServerRound, 0, false, false},
      {"reduce_scatter_pipeline", PeersTimesN, Zero, HierOneServerRound, 0, true, false},
      {"allreduce_nb", TwoChunks, Zero, NhrRounds, 4, true, false},
      {"reduce_scatter_nb", PeersTimesN, Zero, CeilLog2, 0, true, false},
      {"allgather_nb", PeersTimesN, Zero, CeilLog2, 0, false, false},
      {"broadcast", FromRoot, Zero, OneRound, 0, false, true},
      {"broadcast_star", Zero, FromRootByPut, OneRound, 0, false, true},
      {"allgather", PeersTimesN, Zero, OneRound, 0, false, false},
      {"reduce_scatter", PeersTimesN, Zero, OneRound, 0, true, false},
      {"all_to_all", Zero, PeersTimesN, OneRound, 0, false, false},
      {"all_to_all_pairwise", Zero, PeersTimesN, PeerRounds, 0, false, false},
      {"barrier", Zero, Zero, OneRound, 0, false, false},
      {"compose_bcast_allreduce_allgather", Composed, Zero, ThreeRounds, 0, true, true},
  };
  return v;
}

// The built-ins that take --cores C > 1, each rank's C vector cores
// splitting the data (docs/collectives.md): their cards do not depend on C.
inline const std::vector<std::string> &MultiCoreCollectives() {
  static const std::vector<std::string> v = {"allreduce_mesh",
                                             "allreduce_two_phase",
                                             "allgather",
                                             "reduce_scatter",
                                             "all_to_all",
                                             "allreduce_hier_ring",
                                             "allreduce_hier_rhd",
                                             "allreduce_hier_nhr",
                                             "allreduce_hier3_ring",
                                             "allreduce_hier3_rhd",
                                             "allreduce_hier3_nhr",
                                             "allgather_hier_ring",
                                             "allgather_hier_rhd",
                                             "allgather_hier_nhr",
                                             "reduce_scatter_hier_ring",
                                             "reduce_scatter_hier_rhd",
                                             "reduce_scatter_hier_nhr"};
  return v;
}

inline bool IsMultiCore(const std::string &algo) {
  for (const std::string &m : MultiCoreCollectives())
    if (m == algo) return true;
  return false;
}

// The GEMM built-ins (the GEMM alone and the fused compute + communication
// programs): they take --size as the GEMM's M without --m
// (docs/collectives.md), so the byte-slice matrices above do not apply;
// tests/collectives/gemm_allreduce_test.cc and gemm_test.cc cover them.
inline const std::vector<std::string> &FusedCollectives() {
  static const std::vector<std::string> v = {"gemm", "gemm_allreduce", "allgather_gemm"};
  return v;
}

inline const Builtin &Find(const std::string &algo) {
  for (const Builtin &l : AllCollectives())
    if (algo == l.algo) return l;
  static const Builtin none{};
  return none;
}

inline bool Divisible(const Builtin &l, uint32_t P, uint64_t N) {
  if (l.unit) return N % l.unit(P) == 0;
  return l.multiple_per_rank == 0 ? N % 4 == 0 : N % (l.multiple_per_rank * P) == 0;
}

// One run of the matrix.
struct Case {
  std::string algo;
  uint32_t P;
  uint64_t N;
};

inline void PrintTo(const Case &c, std::ostream *os) {
  *os << c.algo << " P=" << c.P << " N=" << c.N;
}

inline std::vector<std::string> RunArgs(const std::string &algo, uint32_t P, uint64_t N,
                                        std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"run",    "--algo",         algo, "--ranks", std::to_string(P),
                                "--size", std::to_string(N)};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

}  // namespace a2test

#endif
