/* a2a3sim list: the collectives table, with each cost-card formula. */
#include <string.h>

#include "cli/cli.h"

int a2_cli_list(int argc, char **argv) {
  if (argc > 1) {
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
      puts(
          "usage: a2a3sim list\n\nLists every built-in collective (--algo NAME), one line of "
          "description, its analytic cost card and, for HCCL's algorithms, HCCL's "
          "alpha-beta-gamma cost (a, b, g: docs/collectives.md).");
      return A2_EXIT_OK;
    }
    return a2_cmd_usage_error(argv[1], "unexpected argument (list takes no flags)");
  }
  uint32_t n;
  const a2_collective *t = a2_collective_table(&n);
  for (uint32_t i = 0; i < n; i++) {
    const char *hccl = NULL;
    a2_abg none = {0};
    printf("%-34s %s\n%-34s card: %s\n", t[i].name, t[i].summary, "", t[i].card_formula);
    if (a2_hccl_cost_ps(t[i].name, 2, 0, &none, &hccl) >= 0)
      printf("%-34s hccl: %s\n", "", hccl); /* a = alpha, b = beta, g = gamma (from the config) */
  }
  return A2_EXIT_OK;
}
