/* a2a3sim config check FILE [--set KEY=VALUE]...: validate a config and print
 * it resolved (every key, defaults filled in, with units). */
#include <stddef.h>
#include <string.h>

#include "cli/cli.h"

static int set_set(const a2_flag *f, const char *s, void *opts) {
  a2_run_opts *o = opts;
  (void)f;
  if (o->nsets == A2_MAX_SETS) return a2_cmd_usage_error("--set", "more than %d", A2_MAX_SETS);
  o->sets[o->nsets++] = s;
  return 0;
}

static const a2_flag rows[] = {
    {A2_FLAG_CUSTOM, "--set", .arg = "KEY=VALUE", .type = "KEY=VALUE", .set = set_set,
     .repeat = true, .help = "override one config key after the file, as `a2a3sim run --set`"},
};

static const a2_flag_cmd cmds[] = {
    {"config check", 1, "usage: a2a3sim config check FILE [--set KEY=VALUE]...\n",
     .about = "Loads FILE over the built-in defaults, applies the overrides, validates\n"
              "(errors name FILE:LINE:COL) and prints the resolved config as YAML with units.\n"},
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
  printf("# %s: OK (resolved, with defaults)\n", o.config_path);
  a2_config_print(&cfg, stdout);
  return A2_EXIT_OK;
}
