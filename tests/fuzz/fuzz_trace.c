/* libFuzzer harness: the trace reader (a2_program_load_string), the static
 * checks (a2_program_validate) and the writer (a2_program_write) on arbitrary
 * text. The first byte picks P (1, 2, 3 or 8); the rest is the trace.
 * Findings: crashes, sanitizer reports, leaks, running out of the memory
 * or time limits, and a program that loads but whose written text does not
 * load back (abort) or loads back different (docs/program-format.md, "Files
 * written by gen": the same program field by field, except instruction lines).
 * No SystemC is touched. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz_common.h"
#include "traces/program.h"
#include "traces/text.h"
#include "traces/validate.h"

/* The default config's unified buffer and vector cores (configs/a2-8p-hccs.yaml). */
#define UB_BYTES (192u * 1024u)
#define MAX_CORES 48u

static void check_same(const a2_program *a, const a2_program *b, const char *text) {
#define SAME(f) A2F_CHECK(a->f == b->f, #f " differs after write/load:\n%.1500s", text)
  SAME(nranks);
  SAME(ncores);
  SAME(nbufs);
  SAME(ntiles);
  SAME(seed);
  SAME(has_card);
  SAME(card_read_bytes);
  SAME(card_write_bytes);
  SAME(card_rounds);
  SAME(golden.kind);
  SAME(golden.in_buf);
  SAME(golden.out_buf);
  SAME(golden.bytes);
  A2F_CHECK(!strcmp(a->algo, b->algo), "algo differs after write/load:\n%.1500s", text);
  for (uint32_t i = 0; i < a->nbufs; i++) {
    SAME(bufs[i].kind);
    SAME(bufs[i].dtype);
    SAME(bufs[i].bytes);
    SAME(init[i]);
    A2F_CHECK(!strcmp(a->bufs[i].name, b->bufs[i].name), "buffer name differs:\n%.1500s", text);
  }
  for (uint32_t i = 0; i < a->ntiles; i++) {
    SAME(tiles[i].dtype);
    SAME(tiles[i].bytes);
    A2F_CHECK(!strcmp(a->tiles[i].name, b->tiles[i].name), "tile name differs:\n%.1500s", text);
  }
  for (uint32_t p = 0; p < a->nranks * a->ncores; p++) {
    SAME(progs[p].n);
    for (uint32_t i = 0; i < a->progs[p].n; i++) {
      const a2_instr *x = &a->progs[p].v[i], *y = &b->progs[p].v[i];
#define SAMEI(f)                                                                                \
  A2F_CHECK(x->f == y->f, "program %u instruction %u: " #f " %lld became %lld:\n%.1500s", p, i, \
            (long long)x->f, (long long)y->f, text)
      SAMEI(op);
      SAMEI(mode);
      SAMEI(tile);
      SAMEI(tile_a);
      SAMEI(tile_b);
      SAMEI(buf);
      SAMEI(peer);
      SAMEI(value);
      SAMEI(off);
      SAMEI(len);
      SAMEI(buf2);
      SAMEI(chunk);
      SAMEI(off2);
#undef SAMEI
    }
  }
#undef SAME
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const uint32_t ranks[4] = {1, 2, 3, 8};
  uint32_t nranks = size ? ranks[data[0] & 3] : 2;
  char *text = a2f_strndup(size ? data + 1 : data, size ? size - 1 : 0);

  a2_program k;
  a2_err err;
  memset(&err, 0, sizeof err);
  a2_code rc = a2_program_load_string(text, "fuzz.a2t", nranks, &k, &err);
  if (rc) {
    a2f_check_err(&err, rc);
    A2F_CHECK(!strcmp(err.file, "fuzz.a2t"), "error names '%s'", err.file);
  } else {
    A2F_CHECK(k.nranks == nranks, "loaded for %u ranks, asked %u", k.nranks, nranks);
    a2_err verr;
    memset(&verr, 0, sizeof verr);
    a2_code vrc = a2_program_validate(&k, UB_BYTES, MAX_CORES, "fuzz.a2t", &verr);
    if (vrc) a2f_check_err(&verr, vrc);

    /* write, then load the written text back: it must load, and be the same program */
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    A2F_CHECK(f != NULL, "open_memstream");
    a2_err werr;
    memset(&werr, 0, sizeof werr);
    a2_code wrc = a2_program_write(&k, f, &werr);
    fclose(f);
    /* A program whose text would pass the reader's size limit is refused by
     * the writer (documented); every other loaded program must write. Pins a
     * past failure (corpus: crash-write-over-16MiB.a2t): the writer wrote
     * more than the reader's 16 MiB for a loop of 1.5 M `compute 1`, so `gen`
     * wrote files that `run --program` refused. */
    if (wrc != A2_OK && strstr(werr.msg, "a program file may have")) {
      free(out);
      a2_program_free(&k);
      free(text);
      return 0;
    }
    A2F_CHECK(wrc == A2_OK, "a loaded program cannot be written: %s\n%.1500s", werr.msg, text);
    a2_program again;
    a2_err lerr;
    memset(&lerr, 0, sizeof lerr);
    rc = a2_program_load_string(out, "written.a2t", nranks, &again, &lerr);
    if (rc) {
      fprintf(stderr, "--- input (start)\n%.1500s\n--- written (start)\n%.1500s\n", text, out);
      fprintf(stderr, "a2 fuzz check failed: the written trace does not load back: %s:%d:%d: %s\n",
              lerr.file, lerr.line, lerr.col, lerr.msg);
      abort();
    }
    check_same(&k, &again, out);
    a2_program_free(&again);
    free(out);
  }
  a2_program_free(&k);
  free(text);
  return 0;
}
