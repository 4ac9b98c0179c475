// Generator parameters the collectives tests start from: P ranks, N bytes,
// one core, fp32 sum, the default 192 KiB UB and 8 DMA queues, seed 1.
#ifndef A2_TESTS_COLLECTIVES_COLL_PARAMS_H
#define A2_TESTS_COLLECTIVES_COLL_PARAMS_H

#include <cstdint>

#include "collectives/collective.h"

namespace a2test {

inline a2_coll_params DefaultParams(uint32_t P, uint64_t N) {
  a2_coll_params p{};
  p.nranks = P;
  p.size_bytes = N;
  p.cores = 1;
  p.op = A2_RED_SUM;
  p.dtype = A2_FP32;
  p.ub_bytes = 192 * 1024;
  p.seed = 1;
  p.dma_queues = 8;
  return p;
}

}  // namespace a2test

#endif
