/* a2a3sim: entry point and subcommand table. */
#include <string.h>

#include "calibrate/calibrate.h"
#include "cli/cli.h"
#include "common/cmd_err.h"
#include "sweep/sweep.h"

static const char usage[] =
    "a2a3sim - a cycle-approximate simulator of Ascend a2a3 NPUs running collective programs\n"
    "\n"
    "usage: a2a3sim <command> [flags]\n"
    "\n"
    "commands:\n"
    "  run    run a collective (built-in or program file), check it and print its measured\n"
    "         cost card\n"
    "  gen    write a built-in collective as a program file\n"
    "  list   list the built-in collectives with their cost-card formulas\n"
    "  sweep  run a grid of algorithms x ranks x sizes x config values; CSV, plots, crossovers\n"
    "  calibrate FILE.csv  compare measurements with the simulator; --fit config keys to them\n"
    "  config check FILE   validate a config and print it resolved, with units\n"
    "  help   show this text (also: a2a3sim <command> --help)\n"
    "\n"
    "exit status: 0 OK, 1 functional FAIL or deadlock, 2 usage or input error,\n"
    "3 internal error. Results go to stdout, errors to stderr.\n";

typedef struct {
  const char *name;
  int (*fn)(int argc, char **argv);
} command;

static const command commands[] = {{"run", a2_cli_run},      {"gen", a2_cli_gen},
                                   {"list", a2_cli_list},    {"config", a2_cli_config},
                                   {"sweep", a2_sweep_main}, {"calibrate", a2_calibrate_main}};

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage, stderr);
    return A2_EXIT_USAGE;
  }
  if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(usage, stdout);
    return A2_EXIT_OK;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
  a2_cmd_usage_error(
      NULL, "unknown command '%s' (expected: run, gen, list, config, sweep, calibrate, help)",
      argv[1]);
  return A2_EXIT_USAGE;
}
