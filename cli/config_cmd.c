/* a2a3sim config check FILE [--set KEY=VALUE]...: validate a config and print
 * it resolved (every key, defaults filled in, with units). For a config that
 * declares `chip.device: a3`, first one comment line per parameter it still
 * takes from the A2 defaults (a2_config_inherited; docs/sources.md). */
#include <stddef.h>
#include <string.h>

#include "cli/cli.h"
#include "common/cmd_err.h"

static const a2_flag rows[] = {
    {A2_FLAG_LIST, "--set", .arg = "KEY=VALUE", .type = "KEY=VALUE",
     .off = offsetof(a2_run_opts, sets), .count_off = offsetof(a2_run_opts, nsets),
     .hi = A2_MAX_SETS, .repeat = true,
     .help = "override one config key after the file, as `a2a3sim run --set`"},
};

static const a2_flag_cmd cmds[] = {
    {"config check", 1, "usage: a2a3sim config check FILE [--set KEY=VALUE]...\n",
     .about = "Loads FILE over the built-in defaults, applies the overrides, validates\n"
              "(errors name FILE:LINE:COL) and prints the resolved config as YAML with units.\n"
              "For a config with chip.device: a3, a comment line first for each parameter it\n"
              "leaves at the A2 defaults (inherited from A2, low confidence).\n"},
};

const a2_flag_table a2_config_flags = {rows, 1, cmds, 1};

int a2_cli_config(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    a2_flags_help(&a2_config_flags, 0, argc < 2 ? stderr : stdout);
    return argc < 2 ? A2_EXIT_USAGE : A2_EXIT_OK;
  }
  if (strcmp(argv[1], "check"))
    return a2_cmd_usage_error(NULL, "unknown config command '%s' (expected: check)", argv[1]);
  a2_run_opts o = {0};
  a2_flags_seen seen;
  int rc = a2_flags_parse(&a2_config_flags, 0, argc - 1, argv + 1, &o, &seen);
  if (rc) return rc < 0 ? A2_EXIT_OK : rc;
  if (!seen.nargs) return a2_cmd_usage_error("config check", "missing FILE");
  o.config_path = seen.args[0];
  a2_config cfg;
  if ((rc = a2_load_run_config(&o, &cfg, NULL))) return rc;
  a2_config_inherited_key inh[64];
  unsigned n = 0;
  a2_err e = {0};
  if (a2_config_inherited(o.config_path, (const char *const *)o.sets, (unsigned)o.nsets, inh, 64,
                          &n, &e)) {
    a2_cmd_error(&e); /* not reached: the same load passed above */
    return a2_err_exit_code(e.code);
  }
  printf("# %s: OK (resolved, with defaults)\n", o.config_path);
  if (cfg.device == A2_DEVICE_A3)
    printf("# chip.device a3: %u parameter%s inherited from the A2 defaults (docs/sources.md)\n", n,
           n == 1 ? "" : "s");
  for (unsigned i = 0; i < n && i < 64; i++)
    printf("# inherited from A2 (low confidence): %s = %s\n", inh[i].path, inh[i].value);
  a2_config_print(&cfg, stdout);
  return A2_EXIT_OK;
}
