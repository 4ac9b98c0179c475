/* a2a3sim gen: write a built-in collective as a program file. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/outfile.h"
#include "traces/text.h"
#include "traces/validate.h"

int a2_cli_gen(int argc, char **argv) {
  a2_run_opts o;
  int rc = a2_parse_run_flags(A2_CMD_GEN, argc, argv, &o);
  a2_config cfg;
  a2_program k = {0};
  a2_run_desc d;
  a2_err e = {0};
  int exit_code = A2_EXIT_OK;
  if (rc) {
    exit_code = rc < 0 ? A2_EXIT_OK : rc;
    goto out;
  }
  if ((exit_code = a2_load_run_config(&o, &cfg, NULL))) goto out;
  if ((exit_code = a2_build_program(&o, &cfg, &k, &d))) goto out;
  /* A built-in comes as a program source; the file needs whole programs. */
  if (a2_coll_materialise(&k, &e)) {
    a2_cmd_error(&e);
    exit_code = a2_err_exit_code(e.code);
    goto out;
  }
  /* Refuse here what run would refuse, rather than write a file that fails. */
  if (a2_program_validate(&k, cfg.ub_bytes, cfg.vector_cores, o.algo, &e)) {
    a2_cmd_error(&e);
    exit_code = a2_err_exit_code(e.code);
    goto out;
  }
  if (!strcmp(o.out_path, "-")) {
    if (a2_program_write(&k, stdout, &e) ||
        (fflush(stdout) &&
         a2_err_set(&e, A2_E_IO, "-", 0, 0, "cannot write: %s", strerror(errno)))) {
      a2_cmd_error(&e);
      exit_code = a2_err_exit_code(e.code);
    }
    goto out;
  }
  /* a temporary next to -o, renamed when complete: no half-written trace */
  a2_outfile *f;
  if (a2_outfile_open(o.out_path, "the trace", &f, &e)) {
    a2_cmd_error(&e);
    exit_code = a2_err_exit_code(e.code);
    goto out;
  }
  a2_code wrc = a2_program_write(&k, a2_outfile_stream(f), &e);
  if (wrc && wrc != A2_E_IO) { /* refused before a byte was written */
    a2_outfile_discard(f);
  } else {
    if (wrc) a2_outfile_fail(f, errno);
    if (!a2_outfile_commit(f, &e)) goto out; /* a write error: named once, with the path */
  }
  a2_cmd_error(&e);
  exit_code = a2_err_exit_code(e.code);
out:
  a2_program_free(&k);
  free(o.devices);
  return exit_code;
}
