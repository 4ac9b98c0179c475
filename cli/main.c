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
    "  help [COMMAND]  show this text, or a command's (a2a3sim COMMAND --help)\n"
    "  help --markdown COMMAND  the command's flag table as docs/cli.md holds it\n"
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

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static int unknown(const char *name) {
  return a2_cmd_usage_error(
      NULL, "unknown command '%s' (expected: run, gen, list, config, sweep, calibrate, help)",
      name);
}

/* `help --markdown COMMAND`: the flag table of COMMAND as docs/cli.md holds
 * it (scripts/check_cli_doc.sh compares them). */
static int markdown(const char *name) {
  static const a2_flag_table *const tables[] = {&a2_run_flags, &a2_config_flags, &a2_sweep_flags,
                                                &a2_cal_flags};
  size_t n = strlen(name);
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
    for (size_t c = 0; c < tables[i]->ncmds; c++) {
      const char *cmd = tables[i]->cmds[c].name;
      if (!strncmp(cmd, name, n) && (cmd[n] == '\0' || cmd[n] == ' ')) {
        a2_flags_markdown(tables[i], stdout);
        return A2_EXIT_OK;
      }
    }
  return a2_cmd_usage_error("--markdown",
                            "no flag table for '%s' (expected: run, gen, config, "
                            "sweep, calibrate)",
                            name);
}

/* help, help COMMAND (= COMMAND --help), help --markdown COMMAND */
static int help(int argc, char **argv) {
  if (argc == 1) {
    fputs(usage, stdout);
    return A2_EXIT_OK;
  }
  if (!strcmp(argv[1], "--markdown")) {
    if (argc != 3) return a2_cmd_usage_error("--markdown", "expected one COMMAND");
    return markdown(argv[2]);
  }
  if (argc > 2) return a2_cmd_usage_error(argv[2], "unexpected argument");
  char flag[] = "--help";
  char *args[] = {argv[1], flag, NULL};
  for (size_t i = 0; i < NCOMMANDS; i++)
    if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(2, args);
  return unknown(argv[1]);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage, stderr);
    return A2_EXIT_USAGE;
  }
  if (!strcmp(argv[1], "help")) return help(argc - 1, argv + 1);
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) return help(1, argv + 1);
  for (size_t i = 0; i < NCOMMANDS; i++)
    if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
  return unknown(argv[1]);
}
