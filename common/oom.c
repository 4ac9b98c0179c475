#include "common/oom.h"

#include <stdio.h>
#include <unistd.h>

#include "common/err.h"

static void (*g_cleanup)(void);

void a2_out_of_memory(const char *what) {
  fprintf(stderr, "a2a3sim: error: out of memory for %s (the run cannot go on)\n", what);
  fflush(stderr);
  if (g_cleanup) g_cleanup();
  /* _exit: the event kernel is mid-run, its static destructors must not run */
  _exit(A2_EXIT_INTERNAL);
}

void a2_oom_set_cleanup(void (*cleanup)(void)) {
  g_cleanup = cleanup;
}
