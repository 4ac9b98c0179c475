/* HCCL's algorithm selection for all-reduce, all-gather, reduce-scatter,
 * all-to-all and broadcast, reproduced from the rules of its operator
 * sources (docs/sources.md "Algorithms"), single-operator mode, AIV mode
 * off or on (--hccl-aiv: the 910B's and the 910_93's AIV rules, first in
 * their tables and needing C_AIV), non-deterministic or deterministic
 * reduction (--hccl-deterministic, HCCL_DETERMINISTIC=true: the 910B's
 * rules that read it, needing C_DETER), no zero-copy, the default 200 MiB CCL buffer (more than the
 * 16 MiB the AIV all-reduce and reduce-scatter need and the 8 MiB of the AIV all-to-all). Each
 * operation is a table of rules, tried in order; a rule is the conditions it needs and refuses, a
 * size test, HCCL's executor, the built-in that runs it (or a name pattern the level-1 algorithm
 * between servers fills in) and, for an AIV executor, the vector cores it runs on. A named built-in
 * that is missing or cannot run the parameters falls back to the nearest one, and the explanation
 * says so. */
#include "collectives/hccl_choose.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define KB 1024ull
#define MB (1024ull * 1024ull)
/* HCCL's static step delay of its level-1 cost model (coll_alg_operator.cc: LATENCY) */
#define LEVEL1_DELAY_US 60.0
/* HCCL_BUFFSIZE's default, the CCL buffer each rank has */
#define CCL_BUFFER (200 * MB)
/* below this HCCL's level-1 Pipeline is off (PIPELINE_MIN_SIZE_NO_LITE): the RS/AG size,
 * the all-reduce's slice N / P (without RDMA lite, which is not modelled) */
#define PIPELINE_MIN (2 * MB)
/* the FFTS+ contexts a Pipeline may take (HCCL_FFTS_CAPACITY) */
#define PIPELINE_CONTEXTS 65535u
/* the vector cores HCCL's AIV kernels may launch (hccl_aiv.h MAX_BLOCK_DIM) */
#define MAX_BLOCK_DIM 48u

/* conditions a rule needs or refuses */
enum {
  C_ONE = 1 << 0,           /* the ranks are one server */
  C_MULTI = 1 << 1,         /* several servers */
  C_RING = 1 << 2,          /* ring topology (isRingTopo) */
  C_INLINE = 1 << 3,        /* SDMA / RDMA inline reduce: --op sum */
  C_D_GT2 = 1 << 4,         /* more than 2 devices a server */
  C_P_GT2 = 1 << 5,         /* more than 2 ranks */
  C_D_MOD4 = 1 << 6,        /* devices a server a multiple of 4 */
  C_P_POW2 = 1 << 7,        /* P a power of two */
  C_BIG = 1 << 8,           /* N x P above the CCL buffer */
  C_AG_DMA_LIMIT = 1 << 9,  /* all-gather's dmaReduceLimit: N x P above 4 (d % 4 = 0), 2 (d even)
                               or 1 CCL buffers */
  C_RS_DMA_LIMIT = 1 << 10, /* reduce-scatter's: P a power of two and N x P above 2 buffers */
  C_D_GT1 = 1 << 11,        /* more than 1 device a server */
  C_AIV = 1 << 12,          /* AIV mode (HCCL_OP_EXPANSION_MODE=AIV, --hccl-aiv) */
  C_AIV_REDUCE = 1 << 13,   /* IsSupportAIVReduce: --op sum, max or min (fp32 and fp16 both) */
  C_P_GT1 = 1 << 14,        /* more than 1 rank */
  C_AR_PIPE_FITS = 1 << 15, /* an all-reduce Pipeline's contexts fit (CalcContextNumForPipeline) */
  C_AR_A3_ENTRY = 1 << 16,  /* A3 AIV all-reduce: N / d <= 1 MiB (AIV_ALL_REDUCE_A3_ENTRY_SIZE) */
  C_SYM = 1 << 17,          /* every server d devices: P a multiple of d */
  C_M_POW2 = 1 << 18,       /* the servers a power of two */
  C_TOTAL_LE16M = 1 << 19,  /* N x P <= 16 MiB (HCCL_MID_COUNT_16_MB) */
  C_M_LE8 = 1 << 20,        /* at most 8 servers (alltoall_operator.cc MAX_RMDA_RANK_SIZE) */
  C_DETER = 1 << 21,        /* deterministic reduction (HCCL_DETERMINISTIC, --hccl-deterministic) */
  C_D_EQ8 = 1 << 22,        /* 8 devices a server (DEVICE_EIGHT) */
  C_NODES = 1 << 23,        /* A3: the config has a level under the super-node's whose groups
                               are HCCL's servers of d (the three-level built-ins' servers) */
  C_PODS = 1 << 24,         /* A3: and P spans more than one super-node (superPodNum_ > 1) */
};

/* the size test of a rule: N <= lim (x P, x d, / servers), N >= lim (x P), N < lim or
 * N x P < lim */
typedef enum {
  T_ANY,
  T_LE,
  T_LE_P,
  T_LE_D,
  T_LE_PER_SERVER,
  T_GE,
  T_GE_P,
  T_LT,
  T_LT_TOTAL
} size_test;

/* the vector cores an AIV executor runs on (its CalBlockDim, op-base mode):
 * --cores as given, P, P + 1, 2P, the A3 cross-server executors' tiers
 * (a2_hccl_a3_xnode_cores), P rounded up to even (A3 all-to-all across
 * servers) or d (the 910B's executors across servers: a server's ranks), at
 * most chip.vector_cores */
typedef enum { K_ARG, K_P, K_P1, K_2P, K_A3_XNODE, K_EVEN_P, K_D } core_count;

/* the level-1 algorithm of a rule: none, HCCL's cost comparison, or fixed */
typedef enum { L1_NONE, L1_COST, L1_HD, L1_NHR } level1;

typedef struct {
  unsigned need, deny;
  size_test test;
  uint64_t lim;
  const char *hccl; /* HCCL's executor */
  const char *algo; /* the built-in; with a level-1 algorithm a pattern, %s = ring|nhr|rhd */
  level1 l1;
  const char *why;
  core_count cores;
} rule;

/* the level-1 cost formula an operation's SelectAlgoTypeFor* uses */
typedef enum { COST_ALLREDUCE, COST_GATHER } cost_kind;

typedef struct {
  const char *from, *to;
} fallback;

typedef struct {
  const char *op, *label; /* "allgather", "an all-gather" */
  const char *source_a2, *source_a3;
  const rule *a2, *a3; /* terminated by a rule with hccl NULL */
  cost_kind cost;
  const fallback *fallbacks; /* one step, terminated by from NULL */
  const char *fallback_other, *last_resort;
} op_rules;

#define END \
  { 0, 0, T_ANY, 0, NULL, NULL, L1_NONE, NULL, K_ARG }

/* ---- all-reduce (all_reduce_operator.cc) ---- */
#define AIV_AR (C_AIV | C_ONE | C_AIV_REDUCE)
#define AIV_AR_RDMA (C_AIV | C_MULTI | C_SYM | C_AIV_REDUCE)
static const rule allreduce_a2[] = {
    {AIV_AR | C_DETER, C_RING, T_LE, 8 * MB, "AllReduceAivDeterSmallExecutor",
     "allreduce_two_phase", L1_NONE,
     "AIV mode, deterministic, one server, mesh, IsSupportAIVReduce, N <= 8 MiB "
     "(isSupportAivDeter): P vector cores stage the chunks, P more gather chunk r of every peer "
     "and reduce it in a fixed order, then an all-gather (CalBlockDim: 2 x rankSize; "
     "AllReduceAivDeterExecutor needs N > 8 MiB, which isSupportAivDeter excludes)",
     K_2P},
    {AIV_AR, C_RING | C_DETER, T_GE, 16 * MB, "AllReduceMeshAivExecutor", "allreduce_two_phase",
     L1_NONE,
     "AIV mode, one server, mesh, IsSupportAIVReduce, N >= 16 MiB (AIV_ALL_REDUCE_BIG_SIZE): a "
     "reduce-scatter then an all-gather on 2P vector cores (CalBlockDim: 2 x rankSize)",
     K_2P},
    {AIV_AR, C_RING | C_DETER, T_ANY, 0, "AllReduceMeshAivSmallCountExecutor", "allreduce_mesh",
     L1_NONE,
     "AIV mode, one server, mesh, IsSupportAIVReduce, N < 16 MiB: every rank reads every peer, "
     "P vector cores (CalBlockDim: rankSize)",
     K_P},
    {AIV_AR_RDMA | C_M_POW2, C_RING | C_DETER, T_LE_D, 190 * KB,
     "AllReduceSmallCountAivRdmaExecutor", "allreduce_hier_%s", L1_HD,
     "AIV mode, several servers of d devices each, a power of two of them, mesh, "
     "IsSupportAIVReduce, N / d <= 190 KiB (HCCL_SMALL_COUNT_190_KB): an AIV server "
     "reduce-scatter and all-gather on d vector cores (CalBlockDim: the server's rankSize) around "
     "a recursive doubling of the slice between the servers (InterServerHDOneshot); the "
     "hierarchical HD stands in, on d vector cores (d parts at once)",
     K_D},
    {AIV_AR_RDMA, C_RING | C_DETER, T_LE, 16 * MB, "AllReduceMidCountAivRdmaExecutor",
     "allreduce_hier_%s", L1_COST,
     "AIV mode, several servers of d devices each, mesh, IsSupportAIVReduce, N <= 16 MiB "
     "(HCCL_MID_COUNT_16_MB): an AIV server reduce-scatter and all-gather on d vector cores "
     "around the level-1 all-reduce of least cost; the hierarchical all-reduce stands in, on d "
     "vector cores (d parts at once)",
     K_D},
    {C_ONE | C_RING, 0, T_ANY, 0, "AllReduceRingExecutor", "allreduce_ring", L1_NONE,
     "one server, ring topology (isRingTopo)", K_ARG},
    {C_ONE, C_INLINE, T_ANY, 0, "AllReduceMeshExecutor", "allreduce_two_phase", L1_NONE,
     "one server, mesh; this --op has no SDMA inline reduce, so the mesh executor with a local "
     "reduce",
     K_ARG},
    {C_ONE | C_DETER | C_D_GT2, 0, T_LE, 128 * KB, "AllReduceMeshSmallCountExecutor",
     "allreduce_mesh", L1_NONE,
     "deterministic (DeterministicSelector), one server of more than 2, mesh, SDMA inline "
     "reduce, N <= 128 KiB (GetCountTypeForDeterAllReduce: small)",
     K_ARG},
    {C_ONE | C_DETER | C_D_EQ8, 0, T_ANY, 0, "AllReduceMeshMidCountLoopExecutor", "allreduce_mesh",
     L1_NONE,
     "deterministic, one server of 8, mesh, SDMA inline reduce, N > 128 KiB (medium): the "
     "local-reduce template, every rank gathering the peers' data and reducing it in one order; "
     "the one-shot mesh stands in",
     K_ARG},
    {C_ONE | C_DETER | C_D_GT2, 0, T_ANY, 0, "AllReduceMeshOneshotLoopExecutor",
     "allreduce_two_phase", L1_NONE,
     "deterministic, one server of more than 2 (not 8), mesh, SDMA inline reduce, N > 128 KiB "
     "(huge): the chunked-mesh template, each rank reducing its chunk; the two-phase mesh stands "
     "in",
     K_ARG},
    {C_MULTI | C_DETER, 0, T_ANY, 0, "AllReduceMeshExecutor", "allreduce_hier_%s", L1_COST,
     "deterministic, several servers: no level-1 Pipeline (GetDefaultAlgoLevel1V2 needs "
     "non-deterministic reduction), the hierarchical all-reduce by level-1 cost",
     K_ARG},
    {C_ONE, 0, T_LE, 256 * KB, "AllReduceMeshSmallCountExecutor", "allreduce_mesh", L1_NONE,
     "one server, mesh, SDMA inline reduce, N <= 256 KiB (MeshTopoSelector: small count)", K_ARG},
    {C_ONE, 0, T_ANY, 0, "AllReduceMeshOpbaseLoopExecutor", "allreduce_sdma_mesh", L1_NONE,
     "one server, mesh, SDMA inline reduce, N > 256 KiB (MeshTopoSelector: loop)", K_ARG},
    {C_MULTI | C_INLINE | C_D_GT1 | C_AR_PIPE_FITS, C_RING, T_GE_P, PIPELINE_MIN,
     "AllReduceMeshOpbasePipelineExecutor", "allreduce_pipeline", L1_NONE,
     "several servers of more than one device, mesh, SDMA and RDMA inline reduce, no AIV "
     "executor (isAivMode), a slice N / P >= 2 MiB (GetDefaultAlgoLevel1V2: level-1 Pipeline; "
     "NonDeterministicSelector): server and inter-server links at once",
     K_ARG},
    {C_MULTI, 0, T_ANY, 0, "AllReduceMeshExecutor", "allreduce_hier_%s", L1_COST,
     "several servers: the hierarchical all-reduce (server-local mesh reduce-scatter, the "
     "level-1 algorithm of least cost between the servers' same-index ranks, server-local "
     "all-gather)",
     K_ARG},
    END};
#define AIV_AR_A3 (C_AIV | C_ONE | C_AIV_REDUCE | C_AR_A3_ENTRY)
static const rule allreduce_a3[] = {
    {AIV_AR_A3, 0, T_LT, 16 * MB, "AllReduceMeshAivSmallCountExecutor", "allreduce_mesh", L1_NONE,
     "A3 AIV mode, one server, IsSupportAIVReduce, N / d <= 1 MiB (AIV_ALL_REDUCE_A3_ENTRY_SIZE), "
     "N < 16 MiB (AIV_ALL_REDUCE_BIG_SIZE): every rank reads every peer, P vector cores "
     "(CalBlockDim: rankSize)",
     K_P},
    {AIV_AR_A3, 0, T_ANY, 0, "AllReduceMeshAivExecutor", "allreduce_two_phase", L1_NONE,
     "A3 AIV mode, one server, IsSupportAIVReduce, N / d <= 1 MiB, N >= 16 MiB (only N = 16 MiB "
     "at d = 16): a reduce-scatter then an all-gather on 2P vector cores (CalBlockDim: 2 x "
     "rankSize)",
     K_2P},
    {C_MULTI | C_D_GT2, C_PODS, T_LE_D, MB, "AllReduceComm", "allreduce_nhr", L1_NHR,
     "A3, several servers in one super-node, N <= 1 MiB x d (smallCountOptimMultiServer): NHR "
     "over all ranks",
     K_ARG},
    {C_ONE | C_INLINE | C_P_GT2, 0, T_LE_P, 512 * KB, "AllReduceMeshSmallCountExecutor",
     "allreduce_mesh", L1_NONE,
     "A3, one server, SDMA inline reduce, N <= 512 KiB x P (smallCountOptimSingleServer)", K_ARG},
    {C_MULTI | C_NODES, 0, T_ANY, 0, "AlignedAllReduceDoubleRingFor91093Executor",
     "allreduce_hier3_%s", L1_NHR,
     "A3, several servers, a config with a level under the super-node's (its KernelRun, "
     "coll_all_reduce_ring_for_910_93_executor.cc): reduce-scatter in the server (a double "
     "ring; here a mesh), then in one super-node the level-1 all-reduce (NHR: A3 makes HD "
     "NHR), over several (superPodNum > 1) a level-1 reduce-scatter and the level-2 "
     "all-reduce among super-nodes; all-gathers back",
     K_ARG},
    {0, 0, T_ANY, 0, "AllReduce double-ring executor", "allreduce_double_ring", L1_NONE,
     "A3: the double-ring executors (two rings in opposite directions, half the data each)", K_ARG},
    END};
/* hierarchical HD on servers that are not a power of two: NHR between them; a
 * hierarchy that cannot run: the flat level-1 algorithm; at last the one-shot
 * mesh, which runs any whole elements */
static const fallback allreduce_fb[] = {{"allreduce_sdma_mesh", "allreduce_mesh"},
                                        {"allreduce_nhr", "allreduce_rhd"},
                                        {"allreduce_hier_rhd", "allreduce_hier_nhr"},
                                        {"allreduce_hier_nhr", "allreduce_nhr"},
                                        {"allreduce_hier_ring", "allreduce_ring"},
                                        {"allreduce_double_ring", "allreduce_ring"},
                                        {"allreduce_ring", "allreduce_mesh"},
                                        {"allreduce_pipeline", "allreduce_hier_ring"},
                                        {"allreduce_hier3_nhr", "allreduce_double_ring"},
                                        {NULL, NULL}};

/* ---- all-gather (all_gather_operator.cc) ---- */
#define AIV_AG_RDMA (C_AIV | C_MULTI | C_SYM | C_TOTAL_LE16M)
static const rule allgather_a2[] = {
    {C_AIV | C_ONE, 0, T_LE, 700 * KB, "AllGatherMeshAivSmallCountExecutor", "allgather", L1_NONE,
     "AIV mode, one server, N <= 700 KiB (AIV_ALL_GATHER_SMALL_SIZE): P vector cores "
     "(CalBlockDim: rankSize)",
     K_P},
    {C_AIV | C_ONE, 0, T_LE, 256 * MB, "AllGatherMeshAivExecutor", "allgather", L1_NONE,
     "AIV mode, one server, 700 KiB < N <= 256 MiB (AIV_BIG_SIZE): P + 1 vector cores "
     "(CalBlockDim: rankSize + 1)",
     K_P1},
    {AIV_AG_RDMA | C_M_POW2, C_RING, T_LE, 256 * KB, "AllGatherAivRdmaExecutor",
     "allgather_hier_%s", L1_COST,
     "AIV mode, several servers of d devices each, a power of two of them, mesh, N <= 256 KiB, "
     "N x P <= 16 MiB (isSupportAivRdmaCount): the level-1 all-gather of least cost between the "
     "servers, then an AIV server all-gather on d vector cores (CalBlockDim: the server's "
     "rankSize); the hierarchical all-gather stands in (it gathers in the server first), on d "
     "vector cores, a part of every rank's block each",
     K_D},
    {AIV_AG_RDMA, C_RING | C_M_POW2, T_LE, 128 * KB, "AllGatherAivRdmaExecutor",
     "allgather_hier_%s", L1_COST,
     "AIV mode, several servers of d devices each, mesh, N <= 128 KiB, N x P <= 16 MiB "
     "(isSupportAivRdmaCount): the level-1 all-gather, then an AIV server all-gather on d vector "
     "cores; the hierarchical all-gather stands in, on d vector cores",
     K_D},
    {C_ONE | C_RING, 0, T_ANY, 0, "AllGatherRingExecutor", "allgather_ring", L1_NONE,
     "one server, ring topology (isRingTopo)", K_ARG},
    {C_ONE, 0, T_ANY, 0, "AllGatherMeshOpbaseExecutor", "allgather", L1_NONE,
     "one server, mesh (isSingleMeshAggregation)", K_ARG},
    {C_MULTI | C_D_GT1, 0, T_GE, PIPELINE_MIN, "AllGatherMeshOpbasePipelineExecutor",
     "allgather_pipeline", L1_NONE,
     "several servers, N >= 2 MiB (GetDefaultAlgoLevel1V2: level-1 Pipeline, intra- and "
     "inter-server links at once)",
     K_ARG},
    {C_MULTI, 0, T_ANY, 0, "AllGatherMeshExecutor", "allgather_hier_%s", L1_COST,
     "several servers: server-local mesh, the level-1 algorithm of least cost between servers",
     K_ARG},
    END};
static const rule allgather_a3[] = {
    {C_AIV | C_MULTI, 0, T_LE, 32 * KB, "AllGatherMeshAivFor91093Executor", "allgather", L1_NONE,
     "A3 AIV mode, several servers of the super-node, N <= 32 KiB "
     "(AIV_ALL_GATHER_A3_LARGE_RANKSIZE_ENTRY_SIZE; the 1 MiB and 512 KiB entries need P <= 6 or "
     "16, never several servers of 16): one launch over all ranks, the cross-server tiers of "
     "vector cores (CalBlockDim)",
     K_A3_XNODE},
    {C_AIV | C_ONE, 0, T_LE, 512 * KB, "AllGatherMeshAivSmallCountExecutor", "allgather", L1_NONE,
     "A3 AIV mode, one server, N <= 512 KiB (AIV_ALL_GATHER_A3_ENTRY_SIZE, under the 700 KiB of "
     "AIV_ALL_GATHER_SMALL_SIZE): P vector cores (CalBlockDim: rankSize)",
     K_P},
    {C_ONE | C_D_GT2, 0, T_LE, 512 * KB, "AllGatherSmallCount", "allgather", L1_NONE,
     "A3, one server, N <= 512 KiB (smallCountOptimSingleServer)", K_ARG},
    {C_MULTI | C_D_GT2 | C_D_MOD4, C_AG_DMA_LIMIT, T_LE_PER_SERVER, MB, "AllGatherSmallCount",
     "allgather", L1_NONE,
     "A3, several servers, d a multiple of 4, N x servers <= 1 MiB (smallCountOptimMultiServer)",
     K_ARG},
    {C_MULTI | C_D_GT2, C_D_MOD4 | C_AG_DMA_LIMIT, T_LE_PER_SERVER, 512 * KB, "AllGatherSmallCount",
     "allgather", L1_NONE,
     "A3, several servers, N x servers <= 512 KiB (smallCountOptimMultiServer)", K_ARG},
    {C_ONE, 0, T_ANY, 0, "AlignedAllGatherDoubleRingFor91093Executor", "allgather_double_ring",
     L1_NONE, "A3, one server: the double ring", K_ARG},
    {C_MULTI, 0, T_ANY, 0, "AlignedAllGatherDoubleRingFor91093Executor", "allgather_hier_nhr",
     L1_NHR, "A3, several servers: the double ring in a server, NHR between (A3's default)", K_ARG},
    END};

/* ---- reduce-scatter (reduce_scatter_operator.cc) ---- */
static const rule reduce_scatter_a2[] = {
    {AIV_AR | C_DETER, 0, T_LT_TOTAL, 8 * MB, "ReduceScatterAivDeterSmallExecutor",
     "reduce_scatter", L1_NONE,
     "AIV mode, deterministic, one server, IsSupportAIVReduce, N x P < 8 MiB "
     "(isSupportAivDeter): the blocks reduced in a fixed order on 2P vector cores (CalBlockDim: "
     "2 x rankSize; ReduceScatterAivDeterExecutor needs N x P >= 8 MiB, which isSupportAivDeter "
     "excludes)",
     K_2P},
    {AIV_AR, C_DETER, T_LE, 2 * MB, "ReduceScatterMeshAivSmallCountExecutor", "reduce_scatter",
     L1_NONE,
     "AIV mode, one server, IsSupportAIVReduce, N <= 2 MiB (AIV_REDUCE_SCATTER_MID_SIZE): P "
     "vector cores (CalBlockDim: rankSize)",
     K_P},
    {AIV_AR, C_DETER, T_LE, 256 * MB, "ReduceScatterMeshAivExecutor", "reduce_scatter", L1_NONE,
     "AIV mode, one server, IsSupportAIVReduce, 2 MiB < N <= 256 MiB (AIV_BIG_SIZE): 2P vector "
     "cores (CalBlockDim: 2 x rankSize)",
     K_2P},
    {AIV_AG_RDMA | C_AIV_REDUCE | C_M_POW2, C_RING | C_DETER, T_LE, 256 * KB,
     "ReduceScatterAivRdmaExecutor", "reduce_scatter_hier_%s", L1_COST,
     "AIV mode, several servers of d devices each, a power of two of them, mesh, "
     "IsSupportAIVReduce, N <= 256 KiB, N x P <= 16 MiB (isSupportAivRdmaCount): an AIV server "
     "reduce-scatter on d vector cores (CalBlockDim: the server's rankSize), then the level-1 "
     "reduce-scatter of least cost between the servers; the hierarchical reduce-scatter stands "
     "in (it reduces between the servers first), on d vector cores, a part of every rank's "
     "block each",
     K_D},
    {AIV_AG_RDMA | C_AIV_REDUCE, C_RING | C_M_POW2 | C_DETER, T_LE, 128 * KB,
     "ReduceScatterAivRdmaExecutor", "reduce_scatter_hier_%s", L1_COST,
     "AIV mode, several servers of d devices each, mesh, IsSupportAIVReduce, N <= 128 KiB, N x P "
     "<= 16 MiB (isSupportAivRdmaCount): an AIV server reduce-scatter on d vector cores, then the "
     "level-1 reduce-scatter; the hierarchical reduce-scatter stands in, on d vector cores",
     K_D},
    {C_ONE | C_RING, 0, T_ANY, 0, "ReduceScatterRingExecutor", "reduce_scatter_ring", L1_NONE,
     "one server, ring topology (isRingTopo)", K_ARG},
    {C_ONE | C_INLINE | C_DETER, 0, T_ANY, 0, "ReduceScatterDeterExecutor", "reduce_scatter",
     L1_NONE, "deterministic, one server, mesh, SDMA inline reduce (SingleMeshInlineReduce)",
     K_ARG},
    {C_MULTI | C_DETER, 0, T_ANY, 0, "ReduceScatterMeshExecutor", "reduce_scatter_hier_%s", L1_COST,
     "deterministic, several servers: no level-1 Pipeline (GetDefaultAlgoLevel1V2 needs "
     "non-deterministic reduction), server-local mesh, the level-1 algorithm of least cost",
     K_ARG},
    {C_ONE | C_INLINE, 0, T_ANY, 0, "ReduceScatterMeshDmaEliminationExecutor", "reduce_scatter",
     L1_NONE, "one server, mesh, SDMA inline reduce (SingleMeshInlineReduce)", K_ARG},
    {C_ONE, 0, T_ANY, 0, "ReduceScatterMeshExecutor", "reduce_scatter", L1_NONE,
     "one server, mesh, no inline reduce for this --op", K_ARG},
    {C_MULTI | C_INLINE | C_D_GT1, 0, T_GE, PIPELINE_MIN, "ReduceScatterMeshOpbasePipelineExecutor",
     "reduce_scatter_pipeline", L1_NONE,
     "several servers, inline reduce, N >= 2 MiB (GetDefaultAlgoLevel1V2: level-1 Pipeline, "
     "intra- and inter-server links at once)",
     K_ARG},
    {C_MULTI, 0, T_ANY, 0, "ReduceScatterMeshExecutor", "reduce_scatter_hier_%s", L1_COST,
     "several servers: server-local mesh, the level-1 algorithm of least cost between servers",
     K_ARG},
    END};
static const rule reduce_scatter_a3[] = {
    {C_AIV | C_MULTI | C_AIV_REDUCE, 0, T_LE, 128 * KB, "ReduceScatterMeshAivFor91093Executor",
     "reduce_scatter", L1_NONE,
     "A3 AIV mode, several servers of the super-node, IsSupportAIVReduce, N <= 128 KiB "
     "(AIV_REDUCE_SCATTER_A3_LARGE_RANKSIZE_ENTRY_SIZE; the 1 MiB and 512 KiB entries need P <= 6 "
     "or 16, never several servers of 16): one launch over all ranks, the cross-server tiers of "
     "vector cores (CalBlockDim)",
     K_A3_XNODE},
    {C_AIV | C_ONE | C_AIV_REDUCE, 0, T_LE, MB, "ReduceScatterMeshAivSmallCountExecutor",
     "reduce_scatter", L1_NONE,
     "A3 AIV mode, one server, IsSupportAIVReduce, N <= 1 MiB (AIV_REDUCE_SCATTER_A3_ENTRY_SIZE, "
     "under the 2 MiB of AIV_REDUCE_SCATTER_MID_SIZE): P vector cores (CalBlockDim: rankSize)",
     K_P},
    {C_ONE | C_INLINE | C_D_GT2, C_RS_DMA_LIMIT, T_LE, 512 * KB, "ReduceScatterDeterExecutor",
     "reduce_scatter", L1_NONE,
     "A3, one server, SDMA inline reduce, N <= 512 KiB (smallCountOptimSingleServer)", K_ARG},
    {C_MULTI | C_INLINE | C_D_GT2, C_P_POW2 | C_RS_DMA_LIMIT, T_LE, 256 * KB, "ReduceScatterComm",
     "reduce_scatter_rhd", L1_HD,
     "A3, several servers, P not a power of two, N <= 256 KiB: HD over all ranks", K_ARG},
    {C_MULTI | C_INLINE | C_D_GT2 | C_P_POW2, C_RS_DMA_LIMIT, T_LE_PER_SERVER, MB,
     "ReduceScatterDeterExecutor", "reduce_scatter", L1_NONE,
     "A3, several servers, P a power of two, N x servers <= 1 MiB (smallCountOptimMultiServer)",
     K_ARG},
    {C_ONE, 0, T_ANY, 0, "AlignedReduceScatterDoubleRingFor91093Executor",
     "reduce_scatter_double_ring", L1_NONE, "A3, one server: the double ring", K_ARG},
    {C_MULTI, 0, T_ANY, 0, "AlignedReduceScatterDoubleRingFor91093Executor",
     "reduce_scatter_hier_nhr", L1_NHR,
     "A3, several servers: the double ring in a server, NHR between (A3's default)", K_ARG},
    END};

/* ---- broadcast (broadcast_operator.cc): level 1 only HD or NHR ---- */
static const rule broadcast_a2[] = {
    {C_ONE | C_RING, 0, T_ANY, 0, "BroadCastRingExecutor", "broadcast_ring", L1_NONE,
     "one server, ring topology", K_ARG},
    {C_ONE, 0, T_ANY, 0, "BroadCastMeshExecutor", "broadcast", L1_NONE, "one server, mesh", K_ARG},
    {C_MULTI, 0, T_ANY, 0, "BroadCastMeshExecutor", "broadcast_hier_rhd", L1_HD,
     "several servers: HCCL's broadcast has no level-1 ring and resets it to HD", K_ARG},
    END};
static const rule broadcast_a3[] = {
    {C_MULTI | C_D_GT2, 0, T_LE_D, MB, "BroadCastComm", "broadcast_hier_nhr", L1_NHR,
     "A3, several servers, N <= 1 MiB x d (smallCountOptimMultiServer): NHR", K_ARG},
    {C_ONE | C_D_GT2, 0, T_LE_P, 512 * KB, "BroadCastSmallCountExecutor", "broadcast", L1_NONE,
     "A3, one server, N <= 512 KiB x P (smallCountOptimSingleServer)", K_ARG},
    {C_ONE, 0, T_ANY, 0, "BroadCastRingFor91093Executor", "broadcast_ring", L1_NONE,
     "A3, one server: the ring", K_ARG},
    {C_MULTI, 0, T_ANY, 0, "BroadCastRingFor91093Executor", "broadcast_hier_nhr", L1_NHR,
     "A3, several servers: the ring in a server, NHR between", K_ARG},
    END};

/* ---- all-to-all (alltoall_operator.cc SelectAlgforAlltoAll) ---- */
static const rule all_to_all_a2[] = {
    {C_AIV | C_ONE | C_P_GT1, C_RING, T_LT, 512 * KB, "AlltoAllMeshAivExecutor", "all_to_all",
     L1_NONE,
     "AIV mode, one server, mesh, P > 1 (IsSatisfyAlltoAllAivCondition), N < 512 KiB "
     "(AIV_ALL_TO_ALL_BIG_SIZE): one launch on P vector cores (CalBlockDim: rankSize)",
     K_P},
    {C_AIV | C_ONE | C_P_GT1, C_RING, T_ANY, 0, "AlltoAllMeshAivExecutor", "all_to_all", L1_NONE,
     "AIV mode, one server, mesh, P > 1 (IsSatisfyAlltoAllAivCondition), N >= 512 KiB: 2P "
     "vector cores (CalBlockDim: 2 x rankSize)",
     K_2P},
    {C_AIV | C_MULTI | C_SYM | C_P_GT1 | C_M_LE8, C_RING | C_BIG, T_LE, 190 * KB,
     "AlltoAllStagedAIVRdmaExecutor", "all_to_all", L1_NONE,
     "AIV mode, at most 8 servers of d devices each (MAX_RMDA_RANK_SIZE), mesh, N <= 190 KiB and "
     "N x P within the CCL buffer (IsBufferSatisfyAlltoAllAivCondition): an AIV exchange in the "
     "server on d vector cores (CalBlockDim: the server's rankSize), then pairwise RDMA between "
     "servers; the one-step all-to-all over all ranks stands in, on d cores",
     K_D},
    {C_ONE | C_BIG, 0, T_ANY, 0, "RunAlltoAllDirectFullmesh", "all_to_all", L1_NONE,
     "one server, N x P above the 200 MiB CCL buffer (IsSupportDirectFullmeshForAlltoallv): "
     "every block at once",
     K_ARG},
    {C_ONE, 0, T_ANY, 0, "RunAlltoAllVFullMesh", "all_to_all_pairwise", L1_NONE,
     "one server, N x P within the CCL buffer: the full-mesh executor's pairwise steps", K_ARG},
    {C_MULTI, 0, T_ANY, 0, "RunAlltoAllVStaged", "all_to_all_pairwise", L1_NONE,
     "several servers: staged (server-local, then pairwise between servers); the flat pairwise "
     "over all ranks stands in",
     K_ARG},
    END};
static const rule all_to_all_a3[] = {
    {C_AIV | C_MULTI | C_P_GT1, 0, T_ANY, 0, "AlltoAllMeshAivFor91093Executor", "all_to_all",
     L1_NONE,
     "A3 AIV mode, several servers of the super-node (IsSatisfyAlltoAllAivCondition: HCCS "
     "between them): one launch over all ranks on P vector cores rounded up to even, at most 48 "
     "(CalBlockDim)",
     K_EVEN_P},
    {C_AIV | C_ONE | C_P_GT1, 0, T_LT, 512 * KB, "AlltoAllMeshAivExecutor", "all_to_all", L1_NONE,
     "A3 AIV mode, one server, P > 1, N < 512 KiB (AIV_ALL_TO_ALL_A3_ENTRY_SIZE admits N <= 512 "
     "KiB): P vector cores (CalBlockDim: rankSize)",
     K_P},
    {C_AIV | C_ONE | C_P_GT1, 0, T_LE, 512 * KB, "AlltoAllMeshAivExecutor", "all_to_all", L1_NONE,
     "A3 AIV mode, one server, P > 1, N = 512 KiB (the entry's bound, AIV_ALL_TO_ALL_BIG_SIZE): 2P "
     "vector cores (CalBlockDim: 2 x rankSize)",
     K_2P},
    {0, 0, T_ANY, 0, "RunAlltoAllDirectFullmesh", "all_to_all", L1_NONE,
     "A3: HCCS between every die of the super-node (IsSupportDirectFullmeshForAlltoallv): every "
     "block at once",
     K_ARG},
    END};

static const fallback none_fb[] = {{NULL, NULL}};

static const op_rules ops[] = {
    {"allreduce", "an all-reduce", "all_reduce_operator.cc SelectAlgfor910B, coll_alg_operator.cc",
     "all_reduce_operator.cc SelectAlgfor91093", allreduce_a2, allreduce_a3, COST_ALLREDUCE,
     allreduce_fb, "allreduce_ring", "allreduce_mesh"},
    {"allgather", "an all-gather", "all_gather_operator.cc SelectAlgfor910B, coll_alg_operator.cc",
     "all_gather_operator.cc SelectAlgfor91093", allgather_a2, allgather_a3, COST_GATHER, none_fb,
     "allgather", "allgather"},
    {"reduce_scatter", "a reduce-scatter",
     "reduce_scatter_operator.cc SelectAlgfor910B, coll_alg_operator.cc",
     "reduce_scatter_operator.cc SelectAlgfor91093", reduce_scatter_a2, reduce_scatter_a3,
     COST_GATHER, none_fb, "reduce_scatter", "reduce_scatter"},
    {"all_to_all", "an all-to-all", "alltoall_operator.cc SelectAlgforAlltoAll",
     "alltoall_operator.cc SelectAlgforAlltoAll", all_to_all_a2, all_to_all_a3, COST_GATHER,
     none_fb, "all_to_all", "all_to_all"},
    {"broadcast", "a broadcast", "broadcast_operator.cc SelectAlgfor910B",
     "broadcast_operator.cc SelectAlgfor91093", broadcast_a2, broadcast_a3, COST_GATHER, none_fb,
     "broadcast", "broadcast"},
};
#define NOPS (sizeof ops / sizeof ops[0])

static const op_rules *find_op(const char *name) {
  for (size_t i = 0; name && i < NOPS; i++)
    if (!strcmp(ops[i].op, name)) return &ops[i];
  return NULL;
}

int a2_hccl_is_op(const char *name) {
  return find_op(name) != NULL;
}

int a2_hccl_implicit(const char *name) {
  return a2_hccl_is_op(name) && !a2_collective_find(name);
}

const char *a2_hccl_ops(void) {
  return "allreduce, allgather, reduce_scatter, all_to_all, broadcast";
}

/* A built-in of `op`: the operation's name, or it and an underscore. */
static int of_op(const char *op, const char *name) {
  size_t n = strlen(op);
  return !strncmp(name, op, n) && (name[n] == 0 || name[n] == '_');
}

uint32_t a2_hccl_candidates(const char *op, const char **out, uint32_t max) {
  uint32_t n = 0, nt = 0;
  const a2_collective *t = a2_collective_table(&nt);
  if (!a2_hccl_is_op(op)) return 0;
  for (uint32_t i = 0; i < nt; i++)
    if (t[i].kind == A2_KIND_COMM && of_op(op, t[i].name) && n < max) out[n++] = t[i].name;
  return n;
}

/* p with the config's servers (the hierarchical built-ins check them) */
static int runs(const char *algo, const a2_config *cfg, const a2_coll_params *p) {
  const a2_collective *c = a2_collective_find(algo);
  a2_coll_params q = *p;
  a2_coll_set_servers(cfg, &q);
  a2_err e = {0};
  return c && (!c->check || !c->check(&q, &e));
}

/* The next built-in to try after `algo`: its row of the fallbacks, else the
 * operation's other one, else its last resort. */
static const char *next_fallback(const op_rules *o, const char *algo) {
  const char *fb = o->fallback_other;
  for (const fallback *f = o->fallbacks; f->from; f++)
    if (!strcmp(f->from, algo)) fb = f->to;
  return strcmp(fb, algo) ? fb : o->last_resort;
}

typedef struct {
  uint32_t P, d, m; /* ranks, devices a server, servers */
  uint64_t N;
  unsigned cond;
} situation;

static int is_pow2(uint32_t x) {
  return x && !(x & (x - 1));
}

static situation situate(const a2_config *cfg, a2_hccl_device dev, unsigned mode,
                         const a2_coll_params *p) {
  situation s = {p->nranks, p->nranks, 1, p->size_bytes, 0};
  if (dev == A2_HCCL_A3)
    s.d = p->nranks < A2_HCCL_A3_SERVER_DEVICES ? p->nranks : A2_HCCL_A3_SERVER_DEVICES;
  else
    s.d = a2_coll_group(cfg, p->nranks); /* a group of the level below the top */
  if (s.d == 0) s.d = 1;
  s.m = (s.P + s.d - 1) / s.d;
  uint64_t total = s.N * s.P;
  s.cond |= s.m > 1 ? C_MULTI : C_ONE;
  if (dev == A2_HCCL_A2 && cfg->topology == A2_TOPO_RING) s.cond |= C_RING;
  if (p->op == A2_RED_SUM) s.cond |= C_INLINE;
  if (s.d > 2) s.cond |= C_D_GT2;
  if (s.d > 1) s.cond |= C_D_GT1;
  if (s.P > 2) s.cond |= C_P_GT2;
  if (s.P > 1) s.cond |= C_P_GT1;
  if (mode & A2_HCCL_AIV) s.cond |= C_AIV;
  if (mode & A2_HCCL_DETERMINISTIC) s.cond |= C_DETER;
  if (s.d == 8) s.cond |= C_D_EQ8;
  if (p->op != A2_RED_PROD) s.cond |= C_AIV_REDUCE;
  if (s.d % 4 == 0) s.cond |= C_D_MOD4;
  if (is_pow2(s.P)) s.cond |= C_P_POW2;
  if (total > CCL_BUFFER) s.cond |= C_BIG;
  if (s.N <= MB * s.d) s.cond |= C_AR_A3_ENTRY;
  if (s.P % s.d == 0) s.cond |= C_SYM;
  if (is_pow2(s.m)) s.cond |= C_M_POW2;
  if (total <= 16 * MB) s.cond |= C_TOTAL_LE16M;
  if (s.m <= 8) s.cond |= C_M_LE8;
  if (dev == A2_HCCL_A3 && a2_coll_node(cfg, s.P) == s.d) {
    s.cond |= C_NODES;
    if (a2_coll_group(cfg, s.P) < s.P) s.cond |= C_PODS;
  }
  uint64_t ag_bufs = s.d % 4 == 0 ? 4 : s.d % 2 == 0 ? 2 : 1;
  if (total > ag_bufs * CCL_BUFFER) s.cond |= C_AG_DMA_LIMIT;
  if (is_pow2(s.P) && total > 2 * CCL_BUFFER) s.cond |= C_RS_DMA_LIMIT;
  /* CalcContextNumForPipeline: a step per server, each 5 (d - 1) SDMA, 7 RDMA and one copy
   * context, 4 for the closing barrier and 1 copy; an all-reduce twice that */
  uint64_t contexts = (uint64_t)s.m * (5ull * (s.d - 1) + 7 + 1) + 4 + 1;
  if (2 * contexts <= PIPELINE_CONTEXTS) s.cond |= C_AR_PIPE_FITS;
  return s;
}

static int size_ok(const rule *r, const situation *s) {
  switch (r->test) {
  case T_ANY: return 1;
  case T_LE: return s->N <= r->lim;
  case T_LE_P: return s->N <= r->lim * s->P;
  case T_LE_D: return s->N <= r->lim * s->d;
  case T_LE_PER_SERVER: return s->N * s->m <= r->lim;
  case T_GE: return s->N >= r->lim;
  case T_GE_P: return s->N >= r->lim * s->P;
  case T_LT: return s->N < r->lim;
  case T_LT_TOTAL: return s->N * s->P < r->lim;
  }
  return 0;
}

/* coll_alg_operator.cc SelectAlgoTypeFor*: m servers of d devices, a fixed
 * 60 us a step and the NIC's bandwidth; ties go Ring > NHR > HD. Writes
 * the costs into why, returns "ring", "nhr" or "rhd". */
static const char *level1_cost(const op_rules *o, const a2_config *cfg, const situation *s,
                               char *why, size_t n) {
  double m = s->m, D = LEVEL1_DELAY_US, lg = ceil(log2(m));
  double bw = (double)(cfg->nic_bw ? cfg->nic_bw : cfg->link_bw);
  if (cfg->topology == A2_TOPO_LEVELS && cfg->nlevels) /* the top level's port */
    bw = (double)cfg->levels[cfg->nlevels - 1].bw;
  int pow2 = is_pow2(s->m);
  double ring, nhr, hd;
  if (o->cost == COST_ALLREDUCE) { /* both halves: factor 2, a server's share N/d */
    double t = (double)s->N / s->d / bw * 1e6;
    ring = 2 * (m - 1) * D + 2 * (m - 1) / m * t;
    nhr = 2 * lg * D + 2 * (m - 1) / m * t;
    hd = pow2 ? 2 * log2(m) * D + 2 * (m - 1) / m * t : 2 * lg * D + 2 * (2 * m - 1) / m * t;
  } else { /* one pass of N x P, a loop at most the CCL buffer's share */
    uint64_t per_loop = CCL_BUFFER / s->P;
    double t = (double)(s->N < per_loop ? s->N : per_loop) * s->P / bw * 1e6;
    ring = (m - 1) * D + (m - 1) / m * t;
    nhr = lg * D + (m - 1) / m * t;
    hd = pow2 ? log2(m) * D + (m - 1) / m * t : lg * D + (2 * m - 1) / m * t;
  }
  const char *l1 = nhr < ring ? "nhr" : "ring";
  double best = nhr < ring ? nhr : ring;
  if (hd < best) l1 = "rhd";
  snprintf(why, n,
           "level-1 costs (60 us a step, NIC %.0f GB/s): Ring %.1f us, NHR %.1f us, HD %.1f us "
           "(ties: Ring > NHR > HD)",
           bw / 1e9, ring, nhr, hd);
  return l1;
}

static const char *l1_hccl_name(const char *l1) {
  return !strcmp(l1, "ring") ? "Ring" : !strcmp(l1, "nhr") ? "NHR" : "HD";
}

uint32_t a2_hccl_a3_xnode_cores(uint32_t P, uint64_t D) {
  uint32_t k = P > 24 || D < 28 * KB    ? P
               : P > 16 || D < 112 * KB ? 2 * P
               : P > 12                 ? 3 * P
               : P > 8 || D < 448 * KB  ? 4 * P
               : P > 6                  ? 6 * P
                                        : 8 * P;
  if (P > 24) k = k < MAX_BLOCK_DIM ? k + k % 2 : MAX_BLOCK_DIM;
  return k;
}

/* The vector cores of rule r (0: --cores as given), at most the chip's
 * (max_cores; 0 = not bounded), as HCCL's at most MAX_BLOCK_DIM. The A3
 * cross-server tiers take the size as HCCL's CalBlockDim call computes it,
 * the count times 4 (the size of the data-type enum, not of the element). */
static uint32_t rule_cores(const rule *r, const situation *s, const a2_coll_params *p) {
  uint32_t P = s->P, esize = a2_dtype_size(p->dtype);
  uint64_t D = s->N / (esize ? esize : 4) * 4;
  uint32_t k = 0;
  switch (r->cores) {
  case K_ARG: break;
  case K_P: k = P; break;
  case K_P1: k = P + 1; break;
  case K_2P: k = 2 * P; break;
  case K_A3_XNODE: k = a2_hccl_a3_xnode_cores(P, D); break;
  case K_EVEN_P: k = P < MAX_BLOCK_DIM ? P + P % 2 : MAX_BLOCK_DIM; break;
  case K_D: k = s->d; break;
  }
  return p->max_cores && k > p->max_cores ? p->max_cores : k;
}

a2_code a2_hccl_choose(const char *op, const a2_config *cfg, a2_hccl_device dev, unsigned mode,
                       const a2_coll_params *p, const char *force, a2_hccl_choice *c, a2_err *err) {
  memset(c, 0, sizeof *c);
  const op_rules *o = find_op(op);
  if (!o)
    return a2_err_set(err, A2_E_INPUT, "--algo", 0, 0, "'%s': the chooser takes %s", op ? op : "",
                      a2_hccl_ops());
  if (force) {
    const char *names[64];
    uint32_t n = a2_hccl_candidates(op, names, 64);
    char list[512] = "";
    for (uint32_t i = 0; i < n; i++) {
      if (!strcmp(names[i], force)) {
        c->algo = names[i];
        c->forced = 1;
        snprintf(c->hccl, sizeof c->hccl, "forced");
        snprintf(c->why, sizeof c->why, "forced by --hccl-algo (as HCCL_ALGO forces HCCL's)");
        c->source = "--hccl-algo";
        return A2_OK;
      }
      size_t l = strlen(list);
      snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", names[i]);
    }
    return a2_err_set(err, A2_E_INPUT, "--hccl-algo", 0, 0, "'%s' is not %s built-in (%s)", force,
                      o->label, list);
  }
  situation s = situate(cfg, dev, mode, p);
  const rule *r = dev == A2_HCCL_A3 ? o->a3 : o->a2;
  for (; r->hccl; r++)
    if ((s.cond & r->need) == r->need && !(s.cond & r->deny) && size_ok(r, &s)) break;
  c->source = dev == A2_HCCL_A3 ? o->source_a3 : o->source_a2;
  char l1why[256] = "";
  const char *l1 = r->l1 == L1_HD ? "rhd" : r->l1 == L1_NHR ? "nhr" : NULL;
  if (r->l1 == L1_COST) l1 = level1_cost(o, cfg, &s, l1why, sizeof l1why);
  if (l1) {
    snprintf(c->hccl, sizeof c->hccl, "%s, level-1 %s", r->hccl, l1_hccl_name(l1));
    snprintf(c->name, sizeof c->name, r->algo, l1);
  } else {
    snprintf(c->hccl, sizeof c->hccl, "%s", r->hccl);
    snprintf(c->name, sizeof c->name, "%s", r->algo);
  }
  const a2_collective *named = a2_collective_find(c->name);
  c->algo = named ? named->name : c->name; /* static once it is a built-in */
  c->cores = rule_cores(r, &s, p);
  a2_coll_params q = *p;
  if (c->cores) q.cores = c->cores;
  int w = snprintf(c->why, sizeof c->why, "%s; N = %llu B, P = %u: %u server%s of %u", r->why,
                   (unsigned long long)s.N, s.P, s.m, s.m > 1 ? "s" : "", s.d);
  if (l1why[0] && w > 0 && (size_t)w < sizeof c->why)
    snprintf(c->why + w, sizeof c->why - w, "; %s", l1why);
  if (!runs(c->algo, cfg, &q)) {
    const char *fb = c->algo;
    for (int hop = 0; hop < 8 && strcmp(fb, o->last_resort); hop++) {
      fb = next_fallback(o, fb);
      if (runs(fb, cfg, p)) break;
    }
    if (!runs(fb, cfg, p)) fb = o->last_resort;
    size_t n = strlen(c->why);
    snprintf(c->why + n, sizeof c->why - n, "; %s %s, so %s", c->algo,
             a2_collective_find(c->algo) ? "cannot run this size or P" : "is not a built-in", fb);
    c->algo = fb;
    c->cores = 0; /* the fallback runs at --cores */
  }
  return A2_OK;
}
