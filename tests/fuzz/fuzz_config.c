/* libFuzzer harness: the YAML config loader (a2_config_load_string) on
 * arbitrary text. Findings: crashes, sanitizer reports, leaks, and a config
 * that loads but does not survive a2_config_print -> load unchanged (the
 * round trip docs/config.md promises). No SystemC is touched. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "configs/config.h"
#include "tests/fuzz/fuzz_common.h"

static void check_same(const a2_config *a, const a2_config *b, const char *text) {
#define SAME(f) A2F_CHECK(a->f == b->f, "field " #f " differs after print/load:\n%s", text)
  SAME(clock_hz);
  SAME(vector_cores);
  SAME(ub_bytes);
  SAME(vec_bytes_per_cycle);
  SAME(vec_startup_cycles);
  SAME(mte_in_bw);
  SAME(mte_out_bw);
  SAME(mte_lat_ps);
  SAME(hbm_bw);
  SAME(hbm_lat_ps);
  SAME(window_bytes);
  SAME(sdma_queues);
  SAME(sdma_launch_ps);
  SAME(sdma_write_bw);
  SAME(sdma_read_bw);
  SAME(sdma_local_bw);
  SAME(topology);
  SAME(ranks);
  SAME(link_bw);
  SAME(link_lat_ps);
  SAME(packet_bytes);
  SAME(switch_lat_ps);
  SAME(ctrl_bytes);
  SAME(group_size);
  SAME(nic_bw);
  SAME(nic_lat_ps);
  SAME(rdma_launch_ps);
  SAME(rdma_bw);
  SAME(torus_width);
  SAME(timing);
#undef SAME
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *yaml = a2f_strndup(data, size);
  a2_config cfg;
  a2_err err;
  memset(&cfg, 0, sizeof cfg);
  memset(&err, 0, sizeof err);
  a2_code rc = a2_config_load_string(yaml, "fuzz.yaml", &cfg, &err);
  if (rc) {
    a2f_check_err(&err, rc);
    A2F_CHECK(!strcmp(err.file, "fuzz.yaml"), "error names '%s'", err.file);
  } else {
    /* a loaded config is valid, and prints to YAML that loads back identical */
    rc = a2_config_validate(&cfg, "fuzz.yaml", &err);
    A2F_CHECK(rc == A2_OK, "loaded config fails validation: %s", err.msg);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    A2F_CHECK(f != NULL, "open_memstream");
    a2_config_print(&cfg, f);
    fclose(f);
    a2_config again;
    memset(&again, 0, sizeof again);
    rc = a2_config_load_string(text, "printed.yaml", &again, &err);
    A2F_CHECK(rc == A2_OK, "printed config does not load: %s:%d:%d: %s\n%s", err.file, err.line,
              err.col, err.msg, text);
    check_same(&cfg, &again, text);
    free(text);
  }
  free(yaml);
  return 0;
}
