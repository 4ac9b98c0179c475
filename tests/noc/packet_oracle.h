// The packet-timing equations of docs/timing-model.md, written out
// independently of noc/noc.c: the oracles of the noc tests.
#ifndef A2_TESTS_NOC_PACKET_ORACLE_H
#define A2_TESTS_NOC_PACKET_ORACLE_H

#include <algorithm>
#include <cstdint>
#include <vector>

namespace a2oracle {

struct StageSpec {
  uint64_t bw, lat_ps;
};

// S(n) = ceil(n bytes / bw) in ps.
inline uint64_t Ser(uint64_t num_bytes, uint64_t bw) {
  unsigned __int128 t = static_cast<unsigned __int128>(num_bytes) * 1000000000000ull;
  return static_cast<uint64_t>((t + bw - 1) / bw);
}

// The packet sizes of a transfer of `bytes`.
inline std::vector<uint64_t> Sizes(uint64_t bytes, uint32_t pkt) {
  std::vector<uint64_t> v;
  for (uint64_t left = bytes; left > 0; left -= std::min<uint64_t>(left, pkt))
    v.push_back(std::min<uint64_t>(left, pkt));
  return v;
}

// The tandem recurrence of docs/timing-model.md for one transfer alone:
//   D(x, j) = max(D(x-1, j) + lat(x-1), D(x, j-1)) + S_x(size_j)
// (packet j enters the first stage when packet j-1 starts service there).
// Returns the completion D(last, k) + lat(last); *last_start receives when
// the last packet starts service at hop `hop` (if not null).
inline uint64_t Recurrence(uint64_t bytes, uint32_t pkt, const std::vector<StageSpec> &path,
                           uint64_t t0, size_t hop = 0, uint64_t *last_start = nullptr) {
  std::vector<uint64_t> sizes = Sizes(bytes, pkt);
  std::vector<uint64_t> prev(sizes.size());
  uint64_t last = 0;
  for (size_t x = 0; x < path.size(); x++) {
    uint64_t d_prev = 0, start_prev = t0;
    std::vector<uint64_t> cur(sizes.size());
    for (size_t j = 0; j < sizes.size(); j++) {
      uint64_t arrive = x == 0 ? (j == 0 ? t0 : start_prev) : prev[j] + path[x - 1].lat_ps;
      uint64_t start = std::max(arrive, j == 0 ? 0 : d_prev);
      cur[j] = start + Ser(sizes[j], path[x].bw);
      start_prev = start;
      d_prev = cur[j];
      if (x == hop && j + 1 == sizes.size() && last_start) *last_start = start;
    }
    prev = cur;
    last = cur.back() + path[x].lat_ps;
  }
  return last;
}

}  // namespace a2oracle

#endif
