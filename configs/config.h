/* The simulator's configuration: chip and interconnect parameters, loaded
 * from YAML (libyaml) into validated, typed fields. Every time is in
 * picoseconds, every size in bytes, every bandwidth in bytes per second.
 * The loader is table-driven (configs/config_keys.c): one row per key with
 * its type, unit, bounds and field, shared by the YAML reader, --set and
 * `config check`. */
#ifndef A2_CONFIG_H
#define A2_CONFIG_H

#include <stdint.h>

#include "common/err.h"
#include "common/units.h"
#include "configs/faults.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  A2_TOPO_FULL_MESH = 0, /* every rank has a direct link to every other */
  A2_TOPO_RING = 1,      /* bidirectional ring, shortest direction */
  A2_TOPO_SWITCH = 2,    /* every rank has one up/down link to one switch */
  A2_TOPO_TWO_LEVEL = 3, /* groups (servers) of group_size: full mesh inside, NICs to a switch */
  A2_TOPO_TORUS = 4,     /* 2-D torus, torus_width x (ranks / torus_width) */
  A2_TOPO_LEVELS = 5     /* a hierarchy of levels (interconnect.levels), each a mesh or a
                            switch plane (docs/timing-model.md, "Levels") */
} a2_topology;

/* One level of `topology: levels` (interconnect.levels, listed lowest
 * first). A group of level i holds `fanout` groups of level i - 1 (level 0:
 * `fanout` NPUs); the top level holds the whole system (its fan-out follows
 * interconnect.ranks). A message between two NPUs crosses the lowest level
 * whose group holds both: the direct link of a mesh level, or its source's
 * up-port and its destination's down-port of a switch level. */
#define A2_MAX_LEVELS 8
#define A2_LEVEL_NAME_MAX 32
typedef enum {
  A2_LEVEL_SWITCH = 0, /* every NPU has an up- and a down-port to the level's switch */
  A2_LEVEL_MESH = 1    /* a link per ordered pair of NPUs of a group (level 0 only) */
} a2_level_kind;
/* The engine a put/get runs on when its route crosses a switch level
 * (levels) or the NIC ports (two_level) (docs/timing-model.md, "DMA
 * engines"). */
typedef enum {
  A2_ENGINE_RDMA = 0, /* RDMA on the NIC: interconnect.nic.rdma_* (RoCE between A2 servers) */
  A2_ENGINE_SDMA = 1  /* the chip's SDMA engines: chip.sdma.* (the A3 super-node's Unified Bus) */
} a2_engine;

typedef struct {
  char name[A2_LEVEL_NAME_MAX]; /* name: letters, digits, '_', '-', '.' */
  a2_level_kind kind;           /* kind: switch | mesh */
  uint32_t fanout;              /* fanout: units of the level below per group; 0 on the top */
  uint64_t bw;                  /* bandwidth: per port (switch) or per link (mesh), per
                                   direction, bytes/s */
  uint64_t lat_ps;              /* latency: one way across the level */
  uint64_t switch_lat_ps;       /* switch_latency: added once per crossing of a switch level */
  a2_engine engine;             /* engine: what a put/get whose lowest common level is this
                                   one runs on (levels above the lowest) */
  uint64_t dma_ack_ps;          /* dma_ack_latency: such a put/get holds its queue this long
                                   after its bytes pass the engine (0: not at all) */
  uint64_t dma_ack_bw;          /* dma_ack_bandwidth: and n / this for n bytes, bytes/s (0: no
                                   such term) */
} a2_level;

/* How the network times packets (docs/timing-model.md). */
typedef enum {
  A2_TIMING_PACKET = 0,      /* every packet is served at every stage in order of arrival
                                (one event-kernel activation per packet per stage) */
  A2_TIMING_RESERVATION = 1, /* a transfer's packet times are computed when it starts, in
                                the earliest free slot of each stage; one event per transfer */
  A2_TIMING_ORDERED = 2      /* reservation, with transfers reserved in order of their starts
                                across cores (a core starts ahead only up to the event
                                kernel's horizon) */
} a2_timing;

/* Which chip a config describes (chip.device): `a2a3sim config check` lists
 * the keys an a3 config leaves at the A2 defaults. */
typedef enum { A2_DEVICE_A2 = 0, A2_DEVICE_A3 = 1 } a2_device;

/* Whether a put's descriptor launch overlaps the transfer of the put
 * before it on its queue (chip.sdma.launch_overlap; docs/timing-model.md). */
typedef enum { A2_OVERLAP_NONE = 0, A2_OVERLAP_PUTS = 1 } a2_launch_overlap;

typedef struct a2_config {
  /* chip.* */
  a2_device device;               /* chip.device: a2 | a3 */
  uint64_t clock_hz;              /* chip.clock: AI core clock */
  uint32_t vector_cores;          /* chip.vector_cores: AIV cores per rank */
  uint64_t ub_bytes;              /* chip.ub_size: unified buffer per vector core */
  uint32_t vec_bytes_per_cycle;   /* chip.vector.bytes_per_cycle */
  uint32_t vec_startup_cycles;    /* chip.vector.startup_cycles: fixed cost per op */
  uint64_t mte_in_bw;             /* chip.mte.gm_to_ub: per core, bytes/s */
  uint64_t mte_out_bw;            /* chip.mte.ub_to_gm: per core, bytes/s */
  uint64_t mte_lat_ps;            /* chip.mte.latency: per transfer stage */
  uint64_t rd_window_bytes;       /* chip.mte.remote_read_window: remote-load bytes a core may
                                     have requested and not yet received */
  uint64_t wr_window_bytes;       /* chip.mte.remote_write_window: plain remote-store bytes a
                                     core may have sent and not yet had acknowledged */
  uint64_t atomic_window_bytes;   /* chip.mte.remote_atomic_window: the same for its atomic-add
                                     remote stores */
  uint64_t store_port_bw;         /* chip.mte.remote_store_bandwidth: a rank's remote stores over
                                     one link, all its cores together, bytes/s */
  uint32_t cube_cores;            /* chip.cube_cores: AIC cores per rank */
  uint64_t l1_bytes;              /* chip.cube.l1_size: L1 buffer per cube core */
  uint64_t l0a_bytes;             /* chip.cube.l0a_size: the cube's left-operand buffer */
  uint64_t l0b_bytes;             /* chip.cube.l0b_size: the cube's right-operand buffer */
  uint64_t l0c_bytes;             /* chip.cube.l0c_size: the cube's fp32 accumulator buffer */
  uint32_t cube_fp16_macs;        /* chip.cube.fp16_macs_per_cycle: fp16 multiply-adds per cycle */
  uint32_t cube_startup_cycles;   /* chip.cube.startup_cycles: fixed cost per tmatmul */
  uint64_t gm_to_l1_bw;           /* chip.cube.gm_to_l1: MTE2 per cube core, bytes/s */
  uint64_t l1_to_l0a_bw;          /* chip.cube.l1_to_l0a: MTE1 per cube core, bytes/s */
  uint64_t l1_to_l0b_bw;          /* chip.cube.l1_to_l0b: MTE1 per cube core, bytes/s */
  uint64_t l0c_to_gm_bw;          /* chip.cube.l0c_to_gm: FixPipe per cube core, bytes/s */
  uint64_t l2_bw;                 /* chip.l2.bandwidth: per rank, bytes/s, what the cube
                                     cores' loads share (they read through L2) */
  uint64_t l2_lat_ps;             /* chip.l2.latency: per cube-core load */
  uint64_t hbm_bw;                /* chip.hbm.bandwidth: per rank, bytes/s */
  uint64_t hbm_lat_ps;            /* chip.hbm.latency */
  uint64_t window_bytes;          /* chip.window_size: max symmetric window bytes per rank */
  uint32_t sdma_queues;           /* chip.sdma.queues: DMA queues per rank (put/get) */
  uint64_t sdma_launch_ps;        /* chip.sdma.launch: per descriptor, serial on its queue */
  uint64_t sdma_write_bw;         /* chip.sdma.write_bandwidth: per queue, a put, bytes/s */
  uint64_t sdma_read_bw;          /* chip.sdma.read_bandwidth: per queue, a get, bytes/s */
  uint64_t sdma_local_bw;         /* chip.sdma.local_bandwidth: per queue, a put/get within
                                     the rank's own NPU, bytes/s */
  a2_launch_overlap sdma_overlap; /* chip.sdma.launch_overlap: none | puts */
  /* interconnect.* */
  a2_topology topology;    /* interconnect.topology: full_mesh | ring | switch */
  uint32_t ranks;          /* interconnect.ranks: NPUs in the system */
  uint64_t link_bw;        /* interconnect.link.bandwidth: per direction, bytes/s */
  uint64_t link_lat_ps;    /* interconnect.link.latency: per hop */
  uint32_t packet_bytes;   /* interconnect.packet_size: max payload per packet */
  uint64_t switch_lat_ps;  /* interconnect.switch_latency: added per switch traversal */
  uint32_t ctrl_bytes;     /* interconnect.control_message_size: request / notify */
  uint32_t group_size;     /* interconnect.group_size: NPUs per server (two_level) */
  uint64_t nic_bw;         /* interconnect.nic.bandwidth: per NPU to the switch, bytes/s */
  uint64_t nic_lat_ps;     /* interconnect.nic.latency: NIC + cable, per direction */
  uint64_t rdma_launch_ps; /* interconnect.nic.rdma_launch: per RDMA message, serial on its queue */
  uint64_t rdma_bw;        /* interconnect.nic.rdma_bandwidth: per queue, an RDMA put/get */
  a2_engine nic_engine;    /* interconnect.nic.engine: rdma | sdma, a put/get between groups */
  uint32_t torus_width;    /* interconnect.torus_width: X size of the torus */
  a2_timing timing;        /* interconnect.timing: packet | reservation | ordered */
  /* interconnect.levels (topology levels): lowest first; ignored by the
   * other topologies */
  a2_level levels[A2_MAX_LEVELS];
  uint32_t nlevels;
  /* not a key: the run's faults (slow NPUs, link faults, jitter), owned by
   * the caller and outliving the simulation; NULL: none */
  const a2_faults *faults;
} a2_config;

/* Most link stages a config may ask for (each is an event-kernel process). */
#define A2_CONFIG_MAX_LINKS (1ull << 22)

/* The built-in default: identical to configs/a2-8p-hccs.yaml (a test checks
 * that the file and this function agree). */
void a2_config_default(a2_config *cfg);
/* The shipped file a2_config_default reproduces, as the commands name it. */
#define A2_DEFAULT_CONFIG "configs/a2-8p-hccs.yaml"
/* Most --set overrides (a2_config_set) one command takes. */
#define A2_MAX_SETS 64

/* Load a YAML file over the defaults. Every key is optional unless the table
 * says otherwise; unknown keys, wrong types, duplicate keys, bad units and
 * out-of-range values are errors with file:line:col. On error *cfg is left
 * unspecified. (Implementation: the a2_config_validate checks run at the end
 * of the load, pointing at the offending key; *cfg is written only on
 * success. A missing/unreadable file is A2_E_IO; an empty file = defaults.
 * The layout and messages are in docs/config.md.) */
a2_code a2_config_load(const char *path, a2_config *cfg, a2_err *err);

/* Same, from a string; `name` is used as the file name in errors. */
a2_code a2_config_load_string(const char *yaml, const char *name, a2_config *cfg, a2_err *err);

/* Override one key, e.g. key="interconnect.link.bandwidth", value="56GB/s",
 * with the same validation and messages as the file; err->file is "--set".
 * (Per-key checks only, so a batch may pass through a state that breaks a
 * cross-key rule: call a2_config_validate after the batch. On error *cfg is
 * unchanged; err->line/col are 0 and err->msg is "KEY=VALUE: reason".) */
a2_code a2_config_set(a2_config *cfg, const char *key, const char *value, a2_err *err);

/* What a key holds, for commands that vary keys by name (`a2a3sim
 * calibrate --fit KEY`). */
typedef struct {
  int quantity;      /* 1: a quantity of `kind`; 0: one of a few names (topology, timing) */
  a2_unit_kind kind; /* quantity only */
  uint64_t min, max; /* inclusive bounds: base units (bytes, ps, Hz, B/s), or name indices */
  uint64_t step;     /* values are multiples of it (32 B for packets and windows); 1: any */
  char names[192];   /* names only: "packet, reservation"; "" for a quantity */
} a2_config_key_info;

/* A2_OK and *info for a key (dotted path); A2_E_INPUT for a path that is no
 * key, with the message --set gives (a section and its keys, or close
 * paths) and err->file = flag. */
a2_code a2_config_key_about(const char *path, const char *flag, a2_config_key_info *info,
                            a2_err *err);

/* A key's value in base units (for a named key, the index of its name);
 * 0 for a path that is no key. */
uint64_t a2_config_get(const a2_config *cfg, const char *path);

/* Cross-field checks run after loading and after every --set batch
 * (e.g. packet_size > 0, ranks >= 1). */
a2_code a2_config_validate(const a2_config *cfg, const char *name, a2_err *err);

/* Write the resolved config as YAML with units (for `config check`).
 * (Every key, nested as in configs/a2-8p-hccs.yaml, without comments; the
 * output loads back to an identical config.) */
void a2_config_print(const a2_config *cfg, void *file /* FILE* */);

/* The hierarchy as collectives see it: how many levels the topology has
 * (levels: nlevels; two_level: 2, servers then the switch; others: 1) and
 * how many NPUs a group of level i holds (the last level: cfg->ranks; a
 * level's groups are consecutive NPU ids, the last one may be partial).
 * For level i past the last, cfg->ranks. */
uint32_t a2_config_nlevels(const a2_config *cfg);
uint32_t a2_config_group_ranks(const a2_config *cfg, uint32_t level);

/* `jobs:` in a config file: the jobs of `run --job`, one entry each, written
 * as the flag's spec ("algo=ring,ranks=0-3,size=1MiB") with the place of the
 * entry and of each field, for errors. The loader checks their shape (a list
 * of mappings of the fields algo, ranks, size, start, cores; algo and ranks
 * given) with file:line:col errors; cli/jobs.c checks the values. */
#define A2_CONFIG_MAX_JOBS 16
enum { A2_JOB_ALGO, A2_JOB_RANKS, A2_JOB_SIZE, A2_JOB_START, A2_JOB_CORES, A2_JOB_NFIELDS };
typedef struct {
  char spec[512];
  int line, col;                                   /* the entry (its '-') */
  int fline[A2_JOB_NFIELDS], fcol[A2_JOB_NFIELDS]; /* each field's value; 0: not given */
} a2_config_job;
/* The jobs of the file at path (after a successful load, the same checks):
 * *n of them, at most max (more is an error at the first extra entry). */
a2_code a2_config_load_jobs(const char *path, a2_config_job *jobs, unsigned max, unsigned *n,
                            a2_err *err);

/* What a config that declares `chip.device: a3` takes from the A2: every
 * key that neither the file at path nor one of the nsets `--set KEY=VALUE`
 * gives and that the config's topology reads (not chip.device or
 * interconnect.timing, which are no hardware parameters), in table order,
 * with its value as config check prints it. *n of them (at most max written
 * to out); none for a config of another device. The file is loaded and the
 * sets applied as a2_config_load and a2_config_set do (their errors). The
 * A3 configs cite a source for every key they give (docs/sources.md). */
typedef struct {
  const char *path; /* the key's dotted path (static) */
  char value[64];   /* "0 ps", "192 KiB" */
} a2_config_inherited_key;
a2_code a2_config_inherited(const char *path, const char *const *sets, unsigned nsets,
                            a2_config_inherited_key *out, unsigned max, unsigned *n, a2_err *err);

/* Convenience: picoseconds per cycle, rounded to nearest. */
uint64_t a2_config_cycle_ps(const a2_config *cfg);

#ifdef __cplusplus
}
#endif
#endif
