// The chooser's rules for every operation (collectives/hccl_choose.c,
// docs/collectives.md "Choosing as HCCL does"): HCCL's executor for each
// case of its operator sources on the A2 server, the A2 cluster, a ring and
// the A3 super-node, and the built-in that runs it - the named one when it
// is a built-in that runs the parameters, otherwise the fallback, which the
// explanation names. The rules are checked by HCCL's executor string, so
// they hold whichever built-ins exist.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "collectives/hccl_choose.h"
#include "configs/config.h"

namespace a2test {
namespace {

a2_config Load(const char *file, uint32_t ranks = 0) {
  a2_config cfg;
  a2_err e{};
  EXPECT_EQ(a2_config_load((std::string(A2_SOURCE_DIR) + "/configs/" + file).c_str(), &cfg, &e),
            A2_OK)
      << e.msg;
  if (ranks) {
    EXPECT_EQ(a2_config_set(&cfg, "interconnect.ranks", std::to_string(ranks).c_str(), &e), A2_OK);
  }
  return cfg;
}

a2_coll_params Params(const a2_config &cfg, uint32_t P, uint64_t N, a2_reduce_op op) {
  a2_coll_params p{};
  p.nranks = P;
  p.size_bytes = N;
  p.cores = 1;
  p.op = op;
  p.dtype = A2_FP32;
  p.ub_bytes = cfg.ub_bytes;
  return p;
}

struct Pick {
  std::string hccl, name, algo, why;
  uint32_t cores;
};

// mode: 0, A2_HCCL_AIV (1) and / or A2_HCCL_DETERMINISTIC
Pick Choose(const char *op, const a2_config &cfg, a2_hccl_device dev, uint32_t P, uint64_t N,
            a2_reduce_op rop = A2_RED_SUM, unsigned mode = 0) {
  a2_coll_params p = Params(cfg, P, N, rop);
  p.max_cores = cfg.vector_cores;
  a2_hccl_choice c;
  a2_err e{};
  EXPECT_EQ(a2_hccl_choose(op, &cfg, dev, mode, &p, nullptr, &c, &e), A2_OK) << e.msg;
  return {c.hccl, c.name, c.algo ? c.algo : "", c.why, c.cores};
}

bool Runs(const std::string &algo, const a2_config &cfg, uint32_t P, uint64_t N) {
  const a2_collective *c = a2_collective_find(algo.c_str());
  a2_coll_params p = Params(cfg, P, N, A2_RED_SUM);
  a2_err e{};
  return c && (!c->check || !c->check(&p, &e));
}

// The rule named `name`; the run is that built-in when it exists and runs
// the parameters, else `fallback`, and the explanation says why.
void ExpectNamed(const Pick &k, const std::string &name, const std::string &fallback,
                 const a2_config &cfg, uint32_t P, uint64_t N) {
  EXPECT_EQ(k.name, name) << k.why;
  if (Runs(name, cfg, P, N)) {
    EXPECT_EQ(k.algo, name) << k.why;
  } else {
    EXPECT_EQ(k.algo, fallback) << k.why;
    EXPECT_NE(k.why.find("so " + fallback), std::string::npos) << k.why;
  }
}

TEST(HcclRules, OneA2ServerMeshExecutors) {
  a2_config cfg = Load("a2-8p-hccs.yaml");
  Pick k = Choose("allgather", cfg, A2_HCCL_A2, 8, 64 << 10);
  EXPECT_EQ(k.hccl, "AllGatherMeshOpbaseExecutor");
  EXPECT_EQ(k.algo, "allgather");
  EXPECT_EQ(Choose("reduce_scatter", cfg, A2_HCCL_A2, 8, 64 << 10).hccl,
            "ReduceScatterMeshDmaEliminationExecutor");
  k = Choose("reduce_scatter", cfg, A2_HCCL_A2, 8, 64 << 10, A2_RED_MAX);
  EXPECT_EQ(k.hccl, "ReduceScatterMeshExecutor");  // no inline reduce for max
  EXPECT_EQ(k.algo, "reduce_scatter");
  k = Choose("broadcast", cfg, A2_HCCL_A2, 8, 1 << 20);
  EXPECT_EQ(k.hccl, "BroadCastMeshExecutor");
  EXPECT_EQ(k.algo, "broadcast");
  // all-to-all: pairwise while N x P fits the 200 MiB CCL buffer, then every block at once
  k = Choose("all_to_all", cfg, A2_HCCL_A2, 8, 25 << 20);
  EXPECT_EQ(k.hccl, "RunAlltoAllVFullMesh");
  EXPECT_EQ(k.algo, "all_to_all_pairwise");
  k = Choose("all_to_all", cfg, A2_HCCL_A2, 8, (25 << 20) + 64);
  EXPECT_EQ(k.hccl, "RunAlltoAllDirectFullmesh");
  EXPECT_EQ(k.algo, "all_to_all");
}

TEST(HcclRules, RingTopologyRingExecutors) {
  a2_config cfg = Load("ring-8.yaml");
  Pick k = Choose("allgather", cfg, A2_HCCL_A2, 8, 4096);
  EXPECT_EQ(k.hccl, "AllGatherRingExecutor");
  ExpectNamed(k, "allgather_ring", "allgather", cfg, 8, 4096);
  k = Choose("reduce_scatter", cfg, A2_HCCL_A2, 8, 4096);
  EXPECT_EQ(k.hccl, "ReduceScatterRingExecutor");
  ExpectNamed(k, "reduce_scatter_ring", "reduce_scatter", cfg, 8, 4096);
  EXPECT_EQ(Choose("broadcast", cfg, A2_HCCL_A2, 8, 4096).hccl, "BroadCastRingExecutor");
}

TEST(HcclRules, AcrossA2ServersLevelOneByCostPipelineForLargeSlices) {
  a2_config c16 = Load("a2-cluster.yaml", 16), c64 = Load("a2-cluster.yaml", 64);
  // 2 servers: Ring's one step ties NHR's, Ring wins ties
  Pick k = Choose("allgather", c16, A2_HCCL_A2, 16, 64 << 10);
  EXPECT_EQ(k.hccl, "AllGatherMeshExecutor, level-1 Ring");
  ExpectNamed(k, "allgather_hier_ring", "allgather", c16, 16, 64 << 10);
  EXPECT_NE(k.why.find("Ring "), std::string::npos) << k.why;
  // 8 servers: NHR's 3 steps beat Ring's 7 and tie HD's (NHR wins ties)
  k = Choose("reduce_scatter", c64, A2_HCCL_A2, 64, 64 << 10);
  EXPECT_EQ(k.hccl, "ReduceScatterMeshExecutor, level-1 NHR");
  ExpectNamed(k, "reduce_scatter_hier_nhr", "reduce_scatter", c64, 64, 64 << 10);
  // from 2 MiB the level-1 Pipeline (reduce-scatter: with an inline reduce only)
  k = Choose("allgather", c16, A2_HCCL_A2, 16, 2 << 20);
  EXPECT_EQ(k.hccl, "AllGatherMeshOpbasePipelineExecutor");
  ExpectNamed(k, "allgather_pipeline", "allgather", c16, 16, 2 << 20);
  EXPECT_EQ(Choose("allgather", c16, A2_HCCL_A2, 16, (2 << 20) - 64).hccl,
            "AllGatherMeshExecutor, level-1 Ring");
  k = Choose("reduce_scatter", c16, A2_HCCL_A2, 16, 4 << 20);
  EXPECT_EQ(k.hccl, "ReduceScatterMeshOpbasePipelineExecutor");
  ExpectNamed(k, "reduce_scatter_pipeline", "reduce_scatter", c16, 16, 4 << 20);
  EXPECT_EQ(Choose("reduce_scatter", c16, A2_HCCL_A2, 16, 4 << 20, A2_RED_MAX).hccl,
            "ReduceScatterMeshExecutor, level-1 Ring");
  // the all-reduce's Pipeline: from a slice N / P of 2 MiB, with an inline
  // reduce, not in AIV mode
  const uint64_t slice = 2 << 20;
  k = Choose("allreduce", c16, A2_HCCL_A2, 16, 16 * slice);
  EXPECT_EQ(k.hccl, "AllReduceMeshOpbasePipelineExecutor");
  ExpectNamed(k, "allreduce_pipeline", "allreduce_hier_ring", c16, 16, 16 * slice);
  EXPECT_EQ(Choose("allreduce", c16, A2_HCCL_A2, 16, 16 * slice - 16 * 64).hccl,
            "AllReduceMeshExecutor, level-1 Ring");
  EXPECT_EQ(Choose("allreduce", c16, A2_HCCL_A2, 16, 16 * slice, A2_RED_MAX).hccl,
            "AllReduceMeshExecutor, level-1 Ring");
  // AIV mode: no AIV executor above 16 MiB, so the Pipeline stays
  EXPECT_EQ(Choose("allreduce", c16, A2_HCCL_A2, 16, 16 * slice, A2_RED_SUM, 1).hccl,
            "AllReduceMeshOpbasePipelineExecutor");
  // broadcast has no level-1 ring: HD
  k = Choose("broadcast", c16, A2_HCCL_A2, 16, 1 << 20);
  EXPECT_EQ(k.hccl, "BroadCastMeshExecutor, level-1 HD");
  ExpectNamed(k, "broadcast_hier_rhd", "broadcast", c16, 16, 1 << 20);
  k = Choose("all_to_all", c16, A2_HCCL_A2, 16, 4096);
  EXPECT_EQ(k.hccl, "RunAlltoAllVStaged");
  EXPECT_EQ(k.algo, "all_to_all_pairwise");
  // within one server of the cluster: the server rules
  EXPECT_EQ(Choose("allgather", c16, A2_HCCL_A2, 8, 4096).hccl, "AllGatherMeshOpbaseExecutor");
}

TEST(HcclRules, A3RulesOfSelectAlgfor91093) {
  a2_config cfg = Load("a3-supernode.yaml");
  EXPECT_EQ(Choose("allgather", cfg, A2_HCCL_A3, 16, 512 << 10).hccl, "AllGatherSmallCount");
  Pick k = Choose("allgather", cfg, A2_HCCL_A3, 16, (512 << 10) + 64);
  EXPECT_EQ(k.hccl, "AlignedAllGatherDoubleRingFor91093Executor");
  ExpectNamed(k, "allgather_double_ring", "allgather", cfg, 16, (512 << 10) + 64);
  // 4 servers of 16: N x 4 <= 1 MiB
  EXPECT_EQ(Choose("allgather", cfg, A2_HCCL_A3, 64, 256 << 10).hccl, "AllGatherSmallCount");
  k = Choose("allgather", cfg, A2_HCCL_A3, 64, 512 << 10);
  EXPECT_EQ(k.hccl, "AlignedAllGatherDoubleRingFor91093Executor, level-1 NHR");
  ExpectNamed(k, "allgather_hier_nhr", "allgather", cfg, 64, 512 << 10);
  // reduce-scatter: P not a power of two and small: HD over all ranks
  EXPECT_EQ(Choose("reduce_scatter", cfg, A2_HCCL_A3, 48, 128 << 10).hccl,
            "ReduceScatterComm, level-1 HD");
  EXPECT_EQ(Choose("reduce_scatter", cfg, A2_HCCL_A3, 64, 256 << 10).hccl,
            "ReduceScatterDeterExecutor");
  EXPECT_EQ(Choose("reduce_scatter", cfg, A2_HCCL_A3, 64, 1 << 20).hccl,
            "AlignedReduceScatterDoubleRingFor91093Executor, level-1 NHR");
  EXPECT_EQ(Choose("reduce_scatter", cfg, A2_HCCL_A3, 16, 256 << 10).hccl,
            "ReduceScatterDeterExecutor");
  EXPECT_EQ(Choose("broadcast", cfg, A2_HCCL_A3, 64, 1 << 20).hccl, "BroadCastComm, level-1 NHR");
  EXPECT_EQ(Choose("broadcast", cfg, A2_HCCL_A3, 16, 8 << 20).hccl,
            "BroadCastSmallCountExecutor");  // 512 KiB x 16
  EXPECT_EQ(Choose("broadcast", cfg, A2_HCCL_A3, 16, 16 << 20).hccl,
            "BroadCastRingFor91093Executor");
  k = Choose("all_to_all", cfg, A2_HCCL_A3, 64, 4096);
  EXPECT_EQ(k.hccl, "RunAlltoAllDirectFullmesh");
  EXPECT_EQ(k.algo, "all_to_all");
}

// Several A3 super-nodes (configs/a3-cluster-roce.yaml with super-nodes of
// 2 nodes, 32 dies): smallCountOptimMultiServer needs one super-node, so an
// all-reduce of any size takes the double-ring executor's super-node branch,
// the three-level built-in with level-1 NHR; within one super-node a small
// one stays NHR over all ranks, a large one takes the executor's branch
// without level 2.
TEST(HcclRules, A3AcrossNodesTakeTheDoubleRingExecutorsLevels) {
  a2_config cfg = Load("a3-cluster-roce.yaml");
  a2_err e{};
  ASSERT_EQ(a2_config_set(&cfg, "interconnect.levels.2.fanout", "2", &e), A2_OK) << e.msg;
  for (uint64_t N : {uint64_t(64) << 10, uint64_t(16) << 20}) {
    Pick k = Choose("allreduce", cfg, A2_HCCL_A3, 64, N);
    EXPECT_EQ(k.hccl, "AlignedAllReduceDoubleRingFor91093Executor, level-1 NHR") << k.why;
    ExpectNamed(k, "allreduce_hier3_nhr", "allreduce_double_ring", cfg, 64, N);
    EXPECT_EQ(k.algo, "allreduce_hier3_nhr") << k.why;
  }
  Pick one = Choose("allreduce", cfg, A2_HCCL_A3, 32, 64 << 10);
  EXPECT_EQ(one.hccl, "AllReduceComm, level-1 NHR") << one.why;
  EXPECT_EQ(one.algo, "allreduce_nhr");
  // one super-node beyond the small count: the same executor without level
  // 2, its servers the node level's (the three-level built-in with one
  // super-node); on a config without a node level the flat double ring
  Pick big = Choose("allreduce", cfg, A2_HCCL_A3, 32, 32 << 20);
  EXPECT_EQ(big.hccl, "AlignedAllReduceDoubleRingFor91093Executor, level-1 NHR") << big.why;
  EXPECT_EQ(big.algo, "allreduce_hier3_nhr") << big.why;
  a2_config sn = Load("a3-supernode.yaml");
  EXPECT_EQ(Choose("allreduce", sn, A2_HCCL_A3, 64, 32 << 20).algo, "allreduce_double_ring");
  // a level under the super-node's of 2 dies is not HCCL's server of 16
  a2_config pairs = Load("a3-supernode-levels.yaml");
  EXPECT_EQ(Choose("allreduce", pairs, A2_HCCL_A3, 64, 32 << 20).algo, "allreduce_double_ring");
  // not whole super-nodes: the three-level built-in refuses, the fallback runs
  Pick part = Choose("allreduce", cfg, A2_HCCL_A3, 48, 6 << 20);  // 2 x 48 x 16384 elements
  EXPECT_EQ(part.name, "allreduce_hier3_nhr");
  EXPECT_EQ(part.algo, "allreduce_double_ring") << part.why;
}

TEST(HcclRules, CandidatesAreTheOperationsBuiltIns) {
  const char *names[64];
  uint32_t n = a2_hccl_candidates("broadcast", names, 64);
  std::vector<std::string> v(names, names + n);
  EXPECT_NE(std::find(v.begin(), v.end(), "broadcast"), v.end());
  EXPECT_NE(std::find(v.begin(), v.end(), "broadcast_star"), v.end());
  for (const std::string &s : v) EXPECT_EQ(s.rfind("broadcast", 0), 0u) << s;
  n = a2_hccl_candidates("allreduce", names, 64);
  v.assign(names, names + n);
  EXPECT_NE(std::find(v.begin(), v.end(), "allreduce_sdma_mesh"), v.end());
  EXPECT_EQ(std::find(v.begin(), v.end(), "gemm_allreduce"), v.end());
  EXPECT_EQ(a2_hccl_candidates("gather", names, 64), 0u);
}

// AIV mode (--hccl-aiv) on one A2 server: each operation's AIV executor
// on either side of its size threshold (all_reduce_operator.cc,
// all_gather_operator.cc, reduce_scatter_operator.cc, alltoall_operator.cc
// SelectAlgfor910B / SelectAlgforAiv) and the vector cores its CalBlockDim
// launches (P, P + 1, 2P), at an even and an odd P.
struct AivCase {
  const char *op;
  uint64_t N;
  const char *hccl, *algo;
  uint32_t cores_per_rank, cores_extra;  // cores = cores_per_rank * P + cores_extra
};

const AivCase kAiv[] = {
    {"allreduce", 64 << 10, "AllReduceMeshAivSmallCountExecutor", "allreduce_mesh", 1, 0},
    {"allreduce", (16 << 20) - 4, "AllReduceMeshAivSmallCountExecutor", "allreduce_mesh", 1, 0},
    {"allreduce", 16 << 20, "AllReduceMeshAivExecutor", "allreduce_two_phase", 2, 0},
    {"allgather", 700 << 10, "AllGatherMeshAivSmallCountExecutor", "allgather", 1, 0},
    {"allgather", (700 << 10) + 4, "AllGatherMeshAivExecutor", "allgather", 1, 1},
    {"reduce_scatter", 2 << 20, "ReduceScatterMeshAivSmallCountExecutor", "reduce_scatter", 1, 0},
    {"reduce_scatter", (2 << 20) + 4, "ReduceScatterMeshAivExecutor", "reduce_scatter", 2, 0},
    {"all_to_all", (512 << 10) - 4, "AlltoAllMeshAivExecutor", "all_to_all", 1, 0},
    {"all_to_all", 512 << 10, "AlltoAllMeshAivExecutor", "all_to_all", 2, 0},
};

TEST(HcclRules, AivModePicksTheMultiCoreBuiltInsOnTheExecutorsCores) {
  for (uint32_t P : {8u, 5u}) {
    a2_config cfg = Load("a2-8p-hccs.yaml", P);
    for (const AivCase &a : kAiv) {
      // the two-phase stand-in runs N in P chunks: N rounded up to them
      uint64_t N = std::string(a.algo) != "allreduce_two_phase"
                       ? a.N
                       : (a.N + 4 * P - 1) / (4 * P) * (4 * P);
      SCOPED_TRACE(std::string(a.op) + " P=" + std::to_string(P) + " N=" + std::to_string(N));
      Pick k = Choose(a.op, cfg, A2_HCCL_A2, P, N, A2_RED_SUM, 1);
      EXPECT_EQ(k.hccl, a.hccl) << k.why;
      EXPECT_EQ(k.algo, a.algo) << k.why;
      EXPECT_EQ(k.cores, a.cores_per_rank * P + a.cores_extra) << k.why;
      // the same call without AIV mode: the rules of AIV mode off, on --cores
      Pick off = Choose(a.op, cfg, A2_HCCL_A2, P, N);
      EXPECT_EQ(off.hccl.find("Aiv"), std::string::npos) << off.why;
      EXPECT_EQ(off.cores, 0u) << off.why;
    }
  }
}

TEST(HcclRules, AivModeStepsAsideWhereItsConditionsFail) {
  a2_config one = Load("a2-8p-hccs.yaml");
  // prod: no IsSupportAIVReduce; the all-gather only copies, so AIV stays
  EXPECT_EQ(Choose("allreduce", one, A2_HCCL_A2, 8, 4096, A2_RED_PROD, 1).hccl,
            Choose("allreduce", one, A2_HCCL_A2, 8, 4096, A2_RED_PROD).hccl);
  EXPECT_EQ(Choose("reduce_scatter", one, A2_HCCL_A2, 8, 4096, A2_RED_PROD, 1).hccl,
            "ReduceScatterMeshExecutor");
  EXPECT_EQ(Choose("allgather", one, A2_HCCL_A2, 8, 4096, A2_RED_PROD, 1).cores, 8u);
  // N above AIV_BIG_SIZE: the all-gather's mesh executor of AIV mode off
  EXPECT_EQ(Choose("allgather", one, A2_HCCL_A2, 8, (256ull << 20) + 4, A2_RED_SUM, 1).hccl,
            "AllGatherMeshOpbaseExecutor");
  // several servers, above the cross-server executors' sizes: the rules of AIV mode off
  a2_config two = Load("a2-cluster.yaml");
  for (const char *op : {"allgather", "reduce_scatter", "all_to_all"}) {
    SCOPED_TRACE(op);
    Pick on = Choose(op, two, A2_HCCL_A2, 16, 1 << 20, A2_RED_SUM, 1);
    Pick off = Choose(op, two, A2_HCCL_A2, 16, 1 << 20);
    EXPECT_EQ(on.hccl, off.hccl);
    EXPECT_EQ(on.cores, 0u);
  }
  // 2P above the chip's 48 vector cores: at most 48
  a2_config wide = Load("a2-8p-hccs.yaml", 32);
  Pick k = Choose("all_to_all", wide, A2_HCCL_A2, 32, 1 << 20, A2_RED_SUM, 1);
  EXPECT_EQ(k.hccl, "AlltoAllMeshAivExecutor") << k.why;
  EXPECT_EQ(k.cores, wide.vector_cores);
}

// One AIV rule's case: with AIV mode on, HCCL runs `hccl` (and the built-in
// `algo` when given) on `cores`; nullptr: not an AIV executor, so the
// choice is AIV mode off's, at --cores. AIV mode off never picks one.
void ExpectAivCase(const char *op, const a2_config &cfg, a2_hccl_device dev, uint32_t P, uint64_t N,
                   const char *hccl, const char *algo, uint32_t cores) {
  SCOPED_TRACE(std::string(op) + " P=" + std::to_string(P) + " N=" + std::to_string(N));
  Pick k = Choose(op, cfg, dev, P, N, A2_RED_SUM, A2_HCCL_AIV);
  Pick off = Choose(op, cfg, dev, P, N);
  EXPECT_EQ(off.hccl.find("Aiv"), std::string::npos) << off.why;
  if (!hccl) {
    EXPECT_EQ(k.hccl, off.hccl) << k.why;
    EXPECT_EQ(k.cores, 0u) << k.why;
    return;
  }
  EXPECT_EQ(k.hccl, hccl) << k.why;
  if (algo) {
    EXPECT_EQ(k.algo, algo) << k.why;
  }
  EXPECT_EQ(k.cores, cores) << k.why;
}

// AIV mode across 910B servers (SelectAlgfor910B's isSupportAivRdma*
// branches, alltoall_operator.cc IsSatisfyAlltoAllAivCondition): each
// executor on both sides of its bounds on the A2 cluster (servers of 8).
struct RdmaCase {
  const char *op;
  uint32_t P;
  uint64_t N;
  const char *hccl;  // with its level-1 algorithm; nullptr: not an AIV executor
  uint32_t cores;
};

const RdmaCase kRdma[] = {
    // all-reduce: 2 servers (a power of two), N / 8 <= 190 KiB; then N <= 16 MiB; d = 8
    // vector cores, a part each
    {"allreduce", 16, 8 * (190 << 10), "AllReduceSmallCountAivRdmaExecutor, level-1 HD", 8},
    {"allreduce", 16, 8 * (190 << 10) + 64, "AllReduceMidCountAivRdmaExecutor, level-1 Ring", 8},
    {"allreduce", 16, 16 << 20, "AllReduceMidCountAivRdmaExecutor, level-1 Ring", 8},
    {"allreduce", 16, (16 << 20) + 64, nullptr, 0},
    {"allreduce", 24, 96 << 10, "AllReduceMidCountAivRdmaExecutor, level-1 Ring", 8},  // 3 servers
    {"allreduce", 12, 64 << 10, nullptr, 0},  // servers of 8 and 4
    // all-gather: N <= 256 KiB (servers a power of two) or 128 KiB, N x P <= 16 MiB; d = 8
    // vector cores, a part of every rank's block each
    {"allgather", 16, 256 << 10, "AllGatherAivRdmaExecutor, level-1 Ring", 8},
    {"allgather", 16, (256 << 10) + 4, nullptr, 0},
    {"allgather", 24, 128 << 10, "AllGatherAivRdmaExecutor, level-1 Ring", 8},
    {"allgather", 24, (128 << 10) + 4, nullptr, 0},
    {"allgather", 128, 128 << 10, "AllGatherAivRdmaExecutor, level-1 NHR", 8},  // 16 MiB
    {"allgather", 128, (128 << 10) + 4, nullptr, 0},
    // reduce-scatter: the same bounds
    {"reduce_scatter", 16, 256 << 10, "ReduceScatterAivRdmaExecutor, level-1 Ring", 8},
    {"reduce_scatter", 16, (256 << 10) + 4, nullptr, 0},
    {"reduce_scatter", 24, 128 << 10, "ReduceScatterAivRdmaExecutor, level-1 Ring", 8},
    {"reduce_scatter", 24, (128 << 10) + 4, nullptr, 0},
    {"reduce_scatter", 128, 128 << 10, "ReduceScatterAivRdmaExecutor, level-1 NHR", 8},
    {"reduce_scatter", 128, (128 << 10) + 4, nullptr, 0},
    // all-to-all: N <= 190 KiB, at most 8 servers; d = 8 vector cores
    {"all_to_all", 16, 190 << 10, "AlltoAllStagedAIVRdmaExecutor", 8},
    {"all_to_all", 16, (190 << 10) + 4, nullptr, 0},
    {"all_to_all", 64, 4096, "AlltoAllStagedAIVRdmaExecutor", 8},
    {"all_to_all", 72, 4096, nullptr, 0},  // 9 servers
};

TEST(HcclRules, AivModeAcrossA2ServersRdmaExecutors) {
  for (const RdmaCase &a : kRdma)
    ExpectAivCase(a.op, Load("a2-cluster.yaml", a.P), A2_HCCL_A2, a.P, a.N, a.hccl, nullptr,
                  a.cores);
  a2_config c16 = Load("a2-cluster.yaml", 16);
  // the stand-ins: the hierarchical forms, the all-to-all's one step on d cores
  Pick k = Choose("allreduce", c16, A2_HCCL_A2, 16, 64 << 10, A2_RED_SUM, 1);
  ExpectNamed(k, "allreduce_hier_rhd", "allreduce_hier_nhr", c16, 16, 64 << 10);
  k = Choose("allgather", c16, A2_HCCL_A2, 16, 4096, A2_RED_SUM, 1);
  ExpectNamed(k, "allgather_hier_ring", "allgather", c16, 16, 4096);
  k = Choose("all_to_all", c16, A2_HCCL_A2, 16, 4096, A2_RED_SUM, 1);
  EXPECT_EQ(k.algo, "all_to_all") << k.why;
  // prod: no IsSupportAIVReduce for the reductions; the all-gather only copies
  EXPECT_EQ(Choose("allreduce", c16, A2_HCCL_A2, 16, 4096, A2_RED_PROD, 1).hccl,
            Choose("allreduce", c16, A2_HCCL_A2, 16, 4096, A2_RED_PROD).hccl);
  EXPECT_EQ(Choose("reduce_scatter", c16, A2_HCCL_A2, 16, 4096, A2_RED_PROD, 1).hccl,
            Choose("reduce_scatter", c16, A2_HCCL_A2, 16, 4096, A2_RED_PROD).hccl);
  EXPECT_EQ(Choose("allgather", c16, A2_HCCL_A2, 16, 4096, A2_RED_PROD, 1).hccl,
            "AllGatherAivRdmaExecutor, level-1 Ring");
}

// AIV mode on the A3 (SelectAlgfor91093's isAivMode branches,
// alltoall_operator.cc SelectAlgforAiv): each rule on both sides of its
// bound, the vector cores of its CalBlockDim, and the rules of AIV mode
// off where none applies (no "Aiv" in the executor, no cores).
struct A3AivCase {
  const char *op;
  uint32_t P;
  uint64_t N;
  const char *hccl, *algo;  // hccl nullptr: not an AIV executor
  uint32_t cores;
};

const A3AivCase kA3Aiv[] = {
    // all-reduce, one server: N / d <= 1 MiB, then 16 MiB splits the two executors
    {"allreduce", 8, 8 << 20, "AllReduceMeshAivSmallCountExecutor", "allreduce_mesh", 8},
    {"allreduce", 8, (8 << 20) + 32, nullptr, nullptr, 0},
    {"allreduce", 16, (16 << 20) - 64, "AllReduceMeshAivSmallCountExecutor", "allreduce_mesh", 16},
    {"allreduce", 16, 16 << 20, "AllReduceMeshAivExecutor", "allreduce_two_phase", 32},
    {"allreduce", 16, (16 << 20) + 64, nullptr, nullptr, 0},
    {"allreduce", 32, 4096, nullptr, nullptr, 0},  // several servers: no A3 AIV all-reduce
    // all-gather: one server N <= 512 KiB; across servers N <= 32 KiB, the tiers' cores
    {"allgather", 16, 512 << 10, "AllGatherMeshAivSmallCountExecutor", "allgather", 16},
    {"allgather", 16, (512 << 10) + 4, nullptr, nullptr, 0},
    {"allgather", 20, 32 << 10, "AllGatherMeshAivFor91093Executor", "allgather", 40},
    {"allgather", 20, 16 << 10, "AllGatherMeshAivFor91093Executor", "allgather", 20},
    {"allgather", 31, 4096, "AllGatherMeshAivFor91093Executor", "allgather", 32},
    {"allgather", 64, 32 << 10, "AllGatherMeshAivFor91093Executor", "allgather", 48},
    {"allgather", 64, (32 << 10) + 4, nullptr, nullptr, 0},
    // reduce-scatter: one server N <= 1 MiB; across servers N <= 128 KiB
    {"reduce_scatter", 16, 1 << 20, "ReduceScatterMeshAivSmallCountExecutor", "reduce_scatter", 16},
    {"reduce_scatter", 16, (1 << 20) + 4, nullptr, nullptr, 0},
    {"reduce_scatter", 20, 128 << 10, "ReduceScatterMeshAivFor91093Executor", "reduce_scatter", 40},
    {"reduce_scatter", 64, 128 << 10, "ReduceScatterMeshAivFor91093Executor", "reduce_scatter", 48},
    {"reduce_scatter", 64, (128 << 10) + 4, nullptr, nullptr, 0},
    // all-to-all: one server N <= 512 KiB (2P at 512 KiB); across servers any N
    {"all_to_all", 8, (512 << 10) - 4, "AlltoAllMeshAivExecutor", "all_to_all", 8},
    {"all_to_all", 8, 512 << 10, "AlltoAllMeshAivExecutor", "all_to_all", 16},
    {"all_to_all", 8, (512 << 10) + 4, nullptr, nullptr, 0},
    {"all_to_all", 21, 1 << 20, "AlltoAllMeshAivFor91093Executor", "all_to_all", 22},
    {"all_to_all", 64, 1 << 20, "AlltoAllMeshAivFor91093Executor", "all_to_all", 48},
};

TEST(HcclRules, A3AivModeRulesOfSelectAlgfor91093) {
  a2_config cfg = Load("a3-supernode.yaml");
  for (const A3AivCase &a : kA3Aiv)
    ExpectAivCase(a.op, cfg, A2_HCCL_A3, a.P, a.N, a.hccl, a.algo, a.cores);
  // prod: no IsSupportAIVReduce, so the reductions step aside; the all-gather copies
  EXPECT_EQ(Choose("allreduce", cfg, A2_HCCL_A3, 8, 4096, A2_RED_PROD, 1).hccl,
            Choose("allreduce", cfg, A2_HCCL_A3, 8, 4096, A2_RED_PROD).hccl);
  EXPECT_EQ(Choose("reduce_scatter", cfg, A2_HCCL_A3, 64, 4096, A2_RED_PROD, 1).hccl,
            Choose("reduce_scatter", cfg, A2_HCCL_A3, 64, 4096, A2_RED_PROD).hccl);
  EXPECT_EQ(Choose("allgather", cfg, A2_HCCL_A3, 64, 4096, A2_RED_PROD, 1).hccl,
            "AllGatherMeshAivFor91093Executor");
}

TEST(HcclRules, A3CrossServerAivCoreTiers) {
  // CalBlockDim of the A3 cross-server executors: tiers of P and of the size
  EXPECT_EQ(a2_hccl_a3_xnode_cores(30, 1 << 20), 30u);  // above 24 ranks: P, even
  EXPECT_EQ(a2_hccl_a3_xnode_cores(25, 1 << 20), 26u);
  EXPECT_EQ(a2_hccl_a3_xnode_cores(60, 1 << 20), 48u);
  EXPECT_EQ(a2_hccl_a3_xnode_cores(24, (28 << 10) - 1), 24u);  // tiny
  EXPECT_EQ(a2_hccl_a3_xnode_cores(24, 28 << 10), 48u);
  EXPECT_EQ(a2_hccl_a3_xnode_cores(16, (112 << 10) - 1), 32u);
  EXPECT_EQ(a2_hccl_a3_xnode_cores(16, 112 << 10), 48u);  // 3P from 13 ranks
  EXPECT_EQ(a2_hccl_a3_xnode_cores(12, 112 << 10), 48u);  // 4P
  EXPECT_EQ(a2_hccl_a3_xnode_cores(8, (448 << 10) - 1), 32u);
  EXPECT_EQ(a2_hccl_a3_xnode_cores(8, 448 << 10), 48u);  // 6P
  EXPECT_EQ(a2_hccl_a3_xnode_cores(6, 448 << 10), 48u);  // 8P
  EXPECT_EQ(a2_hccl_a3_xnode_cores(4, 1 << 20), 32u);
}

// Deterministic reduction (HCCL_DETERMINISTIC, --hccl-deterministic) on the
// 910B: SelectAlgfor910B's isSupportAivDeter and DeterministicSelector,
// reduce_scatter_operator.cc's deterministic branches, and no level-1
// Pipeline for the all-reduce and reduce-scatter (GetDefaultAlgoLevel1V2).
TEST(HcclRules, DeterministicReductionExecutors) {
  const unsigned det = A2_HCCL_DETERMINISTIC, aiv_det = A2_HCCL_AIV | A2_HCCL_DETERMINISTIC;
  a2_config one = Load("a2-8p-hccs.yaml");
  // AIV: the deterministic all-reduce to 8 MiB, on 2P cores
  Pick k = Choose("allreduce", one, A2_HCCL_A2, 8, 8 << 20, A2_RED_SUM, aiv_det);
  EXPECT_EQ(k.hccl, "AllReduceAivDeterSmallExecutor") << k.why;
  EXPECT_EQ(k.algo, "allreduce_two_phase") << k.why;
  EXPECT_EQ(k.cores, 16u) << k.why;
  k = Choose("allreduce", one, A2_HCCL_A2, 8, (8 << 20) + 32, A2_RED_SUM, aiv_det);
  EXPECT_EQ(k.hccl, "AllReduceMeshMidCountLoopExecutor") << k.why;  // no AIV above 8 MiB
  EXPECT_EQ(k.cores, 0u) << k.why;
  // AIV: the deterministic reduce-scatter while N x P < 8 MiB
  k = Choose("reduce_scatter", one, A2_HCCL_A2, 8, (1 << 20) - 4, A2_RED_SUM, aiv_det);
  EXPECT_EQ(k.hccl, "ReduceScatterAivDeterSmallExecutor") << k.why;
  EXPECT_EQ(k.algo, "reduce_scatter") << k.why;
  EXPECT_EQ(k.cores, 16u) << k.why;
  k = Choose("reduce_scatter", one, A2_HCCL_A2, 8, 1 << 20, A2_RED_SUM, aiv_det);
  EXPECT_EQ(k.hccl, "ReduceScatterDeterExecutor") << k.why;
  EXPECT_EQ(k.cores, 0u) << k.why;
  // the all-gather and all-to-all do not reduce: AIV mode as without determinism
  EXPECT_EQ(Choose("allgather", one, A2_HCCL_A2, 8, 4096, A2_RED_SUM, aiv_det).hccl,
            "AllGatherMeshAivSmallCountExecutor");
  EXPECT_EQ(Choose("all_to_all", one, A2_HCCL_A2, 8, 4096, A2_RED_SUM, aiv_det).hccl,
            "AlltoAllMeshAivExecutor");
  // AIV mode off: DeterministicSelector by count (128 KiB) and devices (8 or not)
  k = Choose("allreduce", one, A2_HCCL_A2, 8, 128 << 10, A2_RED_SUM, det);
  EXPECT_EQ(k.hccl, "AllReduceMeshSmallCountExecutor") << k.why;
  EXPECT_EQ(k.algo, "allreduce_mesh") << k.why;
  k = Choose("allreduce", one, A2_HCCL_A2, 8, (128 << 10) + 32, A2_RED_SUM, det);
  EXPECT_EQ(k.hccl, "AllReduceMeshMidCountLoopExecutor") << k.why;
  EXPECT_EQ(k.algo, "allreduce_mesh") << k.why;
  a2_config four = Load("a2-8p-hccs.yaml", 4);
  k = Choose("allreduce", four, A2_HCCL_A2, 4, 256 << 10, A2_RED_SUM, det);
  EXPECT_EQ(k.hccl, "AllReduceMeshOneshotLoopExecutor") << k.why;
  EXPECT_EQ(k.algo, "allreduce_two_phase") << k.why;
  EXPECT_EQ(Choose("allreduce", four, A2_HCCL_A2, 4, 256 << 10).hccl,
            "AllReduceMeshSmallCountExecutor");
  a2_config two = Load("a2-8p-hccs.yaml", 2);  // 2 devices: no deterministic selector
  EXPECT_EQ(Choose("allreduce", two, A2_HCCL_A2, 2, 512 << 10, A2_RED_SUM, det).hccl,
            "AllReduceMeshOpbaseLoopExecutor");
  EXPECT_EQ(Choose("allreduce", one, A2_HCCL_A2, 8, 4096, A2_RED_MAX, det).hccl,
            "AllReduceMeshExecutor");
  EXPECT_EQ(Choose("reduce_scatter", one, A2_HCCL_A2, 8, 4096, A2_RED_SUM, det).hccl,
            "ReduceScatterDeterExecutor");
  EXPECT_EQ(Choose("reduce_scatter", one, A2_HCCL_A2, 8, 4096, A2_RED_MAX, det).hccl,
            "ReduceScatterMeshExecutor");
  // several servers: no Pipeline for the reductions, no AIV executor across servers
  a2_config c16 = Load("a2-cluster.yaml", 16);
  EXPECT_EQ(Choose("allreduce", c16, A2_HCCL_A2, 16, 32 << 20).hccl,
            "AllReduceMeshOpbasePipelineExecutor");
  k = Choose("allreduce", c16, A2_HCCL_A2, 16, 32 << 20, A2_RED_SUM, det);
  EXPECT_EQ(k.hccl, "AllReduceMeshExecutor, level-1 Ring") << k.why;
  ExpectNamed(k, "allreduce_hier_ring", "allreduce_ring", c16, 16, 32 << 20);
  EXPECT_EQ(Choose("allreduce", c16, A2_HCCL_A2, 16, 64 << 10, A2_RED_SUM, aiv_det).hccl,
            "AllReduceMeshExecutor, level-1 Ring");
  EXPECT_EQ(Choose("reduce_scatter", c16, A2_HCCL_A2, 16, 4 << 20, A2_RED_SUM, det).hccl,
            "ReduceScatterMeshExecutor, level-1 Ring");
  EXPECT_EQ(Choose("reduce_scatter", c16, A2_HCCL_A2, 16, 64 << 10, A2_RED_SUM, aiv_det).hccl,
            "ReduceScatterMeshExecutor, level-1 Ring");
  EXPECT_EQ(Choose("allgather", c16, A2_HCCL_A2, 16, 2 << 20, A2_RED_SUM, det).hccl,
            "AllGatherMeshOpbasePipelineExecutor");  // no reduction: Pipeline stays
  EXPECT_EQ(Choose("allgather", c16, A2_HCCL_A2, 16, 4096, A2_RED_SUM, aiv_det).hccl,
            "AllGatherAivRdmaExecutor, level-1 Ring");
  // the A3's rules of these sources do not read it
  a2_config a3 = Load("a3-supernode.yaml");
  EXPECT_EQ(Choose("allreduce", a3, A2_HCCL_A3, 16, 64 << 10, A2_RED_SUM, det).hccl,
            Choose("allreduce", a3, A2_HCCL_A3, 16, 64 << 10).hccl);
  EXPECT_EQ(Choose("reduce_scatter", a3, A2_HCCL_A3, 64, 4096, A2_RED_SUM, aiv_det).hccl,
            "ReduceScatterMeshAivFor91093Executor");
}

TEST(HcclRules, ForcingChecksTheOperationAndUnknownOpsAreRefused) {
  a2_config cfg = Load("a2-8p-hccs.yaml");
  a2_coll_params p = Params(cfg, 8, 4096, A2_RED_SUM);
  a2_hccl_choice c;
  a2_err e{};
  EXPECT_EQ(a2_hccl_choose("all_to_all", &cfg, A2_HCCL_A2, 0, &p, "all_to_all", &c, &e), A2_OK);
  EXPECT_EQ(std::string(c.algo), "all_to_all");
  EXPECT_TRUE(c.forced);
  EXPECT_EQ(a2_hccl_choose("allgather", &cfg, A2_HCCL_A2, 0, &p, "allreduce_ring", &c, &e),
            A2_E_INPUT);
  EXPECT_NE(std::string(e.msg).find("not an all-gather built-in"), std::string::npos) << e.msg;
  EXPECT_EQ(a2_hccl_choose("gather", &cfg, A2_HCCL_A2, 0, &p, nullptr, &c, &e), A2_E_INPUT);
}

}  // namespace
}  // namespace a2test
