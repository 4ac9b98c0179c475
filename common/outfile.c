#include "common/outfile.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/oom.h"

struct a2_outfile {
  FILE *f;
  char *path; /* where it goes */
  char *tmp;  /* the temporary; NULL when written in place */
  char what[64];
  int error;        /* first write error (errno value), 0 = none */
  a2_outfile *next; /* the open outputs, for the out-of-memory cleanup */
};

static a2_outfile *g_open;

/* Async-signal-safe enough for the last moments of a2_out_of_memory:
 * unlink only. */
static void remove_temporaries(void) {
  for (a2_outfile *o = g_open; o; o = o->next)
    if (o->tmp) unlink(o->tmp);
}

static void unlist(a2_outfile *o) {
  for (a2_outfile **p = &g_open; *p; p = &(*p)->next)
    if (*p == o) {
      *p = o->next;
      return;
    }
}

static void free_outfile(a2_outfile *o) {
  unlist(o);
  free(o->path);
  free(o->tmp);
  free(o);
}

a2_code a2_outfile_open(const char *path, const char *what, a2_outfile **out, a2_err *err) {
  *out = NULL;
  a2_outfile *o = calloc(1, sizeof *o);
  if (!o || !(o->path = strdup(path))) {
    free(o);
    return a2_err_set(err, A2_E_NOMEM, path, 0, 0, "out of memory for %s", what);
  }
  snprintf(o->what, sizeof o->what, "%s", what);
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) { /* a device or FIFO: in place */
    if (!(o->f = fopen(path, "w"))) {
      int e = errno;
      free_outfile(o);
      return a2_err_set(err, A2_E_IO, path, 0, 0, "cannot write %s: %s", what, strerror(e));
    }
  } else {
    size_t n = strlen(path) + sizeof ".tmpXXXXXX";
    int fd = -1;
    if ((o->tmp = malloc(n))) {
      snprintf(o->tmp, n, "%s.tmpXXXXXX", path);
      fd = mkstemp(o->tmp);
    }
    if (fd < 0) {
      int e = o->tmp ? errno : ENOMEM;
      free_outfile(o);
      return a2_err_set(err, e == ENOMEM ? A2_E_NOMEM : A2_E_IO, path, 0, 0, "cannot write %s: %s",
                        what, strerror(e));
    }
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask); /* the mode fopen would give PATH */
    if (!(o->f = fdopen(fd, "w"))) {
      int e = errno;
      close(fd);
      unlink(o->tmp);
      free_outfile(o);
      return a2_err_set(err, A2_E_IO, path, 0, 0, "cannot write %s: %s", what, strerror(e));
    }
  }
  o->next = g_open;
  g_open = o;
  a2_oom_set_cleanup(remove_temporaries);
  *out = o;
  return A2_OK;
}

FILE *a2_outfile_stream(const a2_outfile *o) {
  return o->f;
}

void a2_outfile_fail(a2_outfile *o, int errnum) {
  if (!o->error) o->error = errnum ? errnum : EIO;
}

a2_code a2_outfile_commit(a2_outfile *o, a2_err *err) {
  if (!o) return A2_OK;
  if (fflush(o->f)) a2_outfile_fail(o, errno);
  if (ferror(o->f)) a2_outfile_fail(o, EIO);
  if (o->tmp && !o->error && fsync(fileno(o->f))) a2_outfile_fail(o, errno);
  if (fclose(o->f)) a2_outfile_fail(o, errno);
  o->f = NULL;
  if (o->tmp && !o->error && rename(o->tmp, o->path)) a2_outfile_fail(o, errno);
  a2_code rc = A2_OK;
  if (o->error) {
    if (o->tmp) unlink(o->tmp);
    rc =
        a2_err_set(err, A2_E_IO, o->path, 0, 0, "cannot write %s: %s", o->what, strerror(o->error));
  }
  free_outfile(o);
  return rc;
}

void a2_outfile_discard(a2_outfile *o) {
  if (!o) return;
  if (o->f) fclose(o->f);
  if (o->tmp) unlink(o->tmp);
  free_outfile(o);
}
