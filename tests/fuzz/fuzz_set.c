/* libFuzzer harness: `--set KEY=VALUE` (a2_config_set) and the unit parser
 * (a2_parse_quantity) on arbitrary text. The input is split at its first
 * '=' into KEY and VALUE (no '=': all of it is the key, the value is "").
 * Findings: crashes, sanitizer reports, leaks; a failed set that changed the
 * config; a parsed quantity that does not print and parse back to the same
 * value (common/units.h promises it). No SystemC is touched. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "configs/config.h"
#include "tests/fuzz/fuzz_common.h"

static void check_quantity(const char *s, a2_unit_kind kind) {
  uint64_t v = 0xdeadbeef;
  char why[256];
  memset(why, 'x', sizeof why);
  if (a2_parse_quantity(s, kind, &v, why, sizeof why)) {
    A2F_CHECK(memchr(why, '\0', sizeof why) != NULL, "reason not terminated");
    A2F_CHECK(why[0] != '\0', "empty reason for '%s'", s);
    return;
  }
  char text[128];
  a2_format_quantity(v, kind, text, sizeof text);
  uint64_t back = 0;
  A2F_CHECK(a2_parse_quantity(text, kind, &back, why, sizeof why) == 0,
            "kind %d: '%s' -> %llu prints as '%s', which does not parse: %s", (int)kind, s,
            (unsigned long long)v, text, why);
  A2F_CHECK(back == v, "kind %d: '%s' -> %llu prints as '%s' -> %llu", (int)kind, s,
            (unsigned long long)v, text, (unsigned long long)back);
  /* a tiny buffer must truncate, never overflow */
  char small[4];
  a2_format_quantity(v, kind, small, sizeof small);
  A2F_CHECK(memchr(small, '\0', sizeof small) != NULL, "short format not terminated");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *in = a2f_strndup(data, size);
  char *eq = strchr(in, '=');
  const char *key = in, *value = "";
  if (eq) {
    *eq = '\0';
    value = eq + 1;
  }

  a2_config cfg, before;
  a2_err err;
  memset(&err, 0, sizeof err);
  a2_config_default(&cfg);
  memcpy(&before, &cfg, sizeof cfg);
  a2_code rc = a2_config_set(&cfg, key, value, &err);
  if (rc) {
    a2f_check_err(&err, rc);
    A2F_CHECK(!memcmp(&cfg, &before, sizeof cfg), "failed --set %s=%s changed the config", key,
              value);
  } else if (a2_config_validate(&cfg, "--set", &err) == A2_OK) {
    /* a valid config prints to YAML that loads back to the same values */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    A2F_CHECK(f != NULL, "open_memstream");
    a2_config_print(&cfg, f);
    fclose(f);
    a2_config again;
    rc = a2_config_load_string(text, "printed.yaml", &again, &err);
    A2F_CHECK(rc == A2_OK, "--set %s=%s: printed config does not load: %d:%d: %s\n%s", key, value,
              err.line, err.col, err.msg, text);
    char *text2 = NULL;
    size_t len2 = 0;
    f = open_memstream(&text2, &len2);
    A2F_CHECK(f != NULL, "open_memstream");
    a2_config_print(&again, f);
    fclose(f);
    A2F_CHECK(len == len2 && !memcmp(text, text2, len),
              "--set %s=%s: printed config changes "
              "when loaded and printed again:\n%s\n---\n%s",
              key, value, text, text2);
    free(text2);
    free(text);
  }

  static const a2_unit_kind kinds[] = {A2_UNIT_COUNT, A2_UNIT_BYTES, A2_UNIT_BANDWIDTH,
                                       A2_UNIT_TIME, A2_UNIT_FREQUENCY};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    check_quantity(key, kinds[i]); /* the whole input when there is no '=' */
    if (eq) check_quantity(value, kinds[i]);
  }
  free(in);
  return 0;
}
