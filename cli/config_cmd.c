/* a2a3sim config check FILE [--set KEY=VALUE]...: validate a config and print
 * it resolved (every key, defaults filled in, with units). */
#include <string.h>

#include "cli/cli.h"

static const char usage[] =
    "usage: a2a3sim config check FILE [--set KEY=VALUE]...\n"
    "\n"
    "Loads FILE over the built-in defaults, applies the overrides, validates\n"
    "(errors name FILE:LINE:COL) and prints the resolved config as YAML with units.\n";

int a2_cli_config(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? A2_EXIT_USAGE : A2_EXIT_OK;
  }
  if (strcmp(argv[1], "check"))
    return a2_cmd_usage_error(NULL, "unknown config command '%s' (expected: check)", argv[1]);
  a2_run_opts o = {0};
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--set") && i + 1 < argc) {
      if (o.nsets == A2_MAX_SETS) return a2_cmd_usage_error("--set", "more than %d", A2_MAX_SETS);
      o.sets[o.nsets++] = argv[++i];
    } else if (!strncmp(argv[i], "--set=", 6)) {
      if (o.nsets == A2_MAX_SETS) return a2_cmd_usage_error("--set", "more than %d", A2_MAX_SETS);
      o.sets[o.nsets++] = argv[i] + 6;
    } else if (argv[i][0] == '-' || o.config_path) {
      return a2_cmd_usage_error(argv[i], "unexpected argument (see a2a3sim config --help)");
    } else {
      o.config_path = argv[i];
    }
  }
  if (!o.config_path) return a2_cmd_usage_error("config check", "missing FILE");
  a2_config cfg;
  int rc = a2_load_run_config(&o, &cfg, NULL);
  if (rc) return rc;
  printf("# %s: OK (resolved, with defaults)\n", o.config_path);
  a2_config_print(&cfg, stdout);
  return A2_EXIT_OK;
}
