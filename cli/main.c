/* a2a3sim: entry point and subcommand table. */
#include <stdarg.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/sweep.h"

static const char usage[] =
    "a2a3sim - a cycle-approximate simulator of Ascend a2a3 NPUs running collective kernels\n"
    "\n"
    "usage: a2a3sim <command> [flags]\n"
    "\n"
    "commands:\n"
    "  run    run a collective (built-in or trace file), check it and print its measured\n"
    "         cost card\n"
    "  gen    write a built-in collective as a trace file\n"
    "  list   list the built-in collectives with their cost-card formulas\n"
    "  sweep  run a grid of algorithms x ranks x sizes x config values; CSV, plots, crossovers\n"
    "  config check FILE   validate a config and print it resolved, with units\n"
    "  help   show this text (also: a2a3sim <command> --help)\n"
    "\n"
    "exit status: 0 OK, 1 functional FAIL or deadlock, 2 usage or input error,\n"
    "3 internal error. Results go to stdout, errors to stderr.\n";

void a2_cli_error(const a2_err *e) {
  char buf[1024];
  a2_err_format(e, buf, sizeof buf);
  fprintf(stderr, "a2a3sim: %s\n", buf);
}

int a2_cli_usage_error(const char *flag, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (flag)
    fprintf(stderr, "a2a3sim: error: %s: %s\n", flag, msg);
  else
    fprintf(stderr, "a2a3sim: error: %s\n", msg);
  return A2_EXIT_USAGE;
}

typedef struct {
  const char *name;
  int (*fn)(int argc, char **argv);
} command;

static const command commands[] = {
    {"run", a2_cli_run}, {"gen", a2_cli_gen}, {"list", a2_cli_list}, {"config", a2_cli_config},
    {"sweep", a2_cli_sweep}};

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
  a2_cli_usage_error(NULL, "unknown command '%s' (expected: run, gen, list, config, sweep, help)",
                     argv[1]);
  return A2_EXIT_USAGE;
}
