/* a2a3sim sweep: crossovers. For each rank count and --set combination,
 * the fastest algorithm (least simulated time, compared in exact
 * picoseconds; a tie goes to the first in --algo) at each size, and the
 * sizes at which the fastest changes. */
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "sweep/sweep.h"

static const a2_sweep_row *row_at(const a2_sweep *s, const a2_sweep_row *rows, size_t algo,
                                  size_t rank, size_t size, size_t combo) {
  a2_sweep_coord c = {algo, rank, size, combo};
  const a2_sweep_row *r = &rows[a2_sweep_point_of(s, c)];
  return r->ran && r->ok && r->time_ns ? r : NULL;
}

/* The fastest and the runner-up at one size; SIZE_MAX when none. */
static void rank_algos(const a2_sweep *s, const a2_sweep_row *rows, size_t rank, size_t size,
                       size_t combo, size_t *best, size_t *second) {
  *best = *second = SIZE_MAX;
  for (size_t a = 0; a < s->nalgos; a++) {
    const a2_sweep_row *r = row_at(s, rows, a, rank, size, combo);
    if (!r) continue;
    if (*best == SIZE_MAX || r->time_ps < row_at(s, rows, *best, rank, size, combo)->time_ps) {
      *second = *best;
      *best = a;
    } else if (*second == SIZE_MAX ||
               r->time_ps < row_at(s, rows, *second, rank, size, combo)->time_ps) {
      *second = a;
    }
  }
}

static void size_text(uint64_t v, char *out, size_t n) {
  a2_format_quantity(v, A2_UNIT_BYTES, out, n);
}

/* "A fastest up to X, B from Y up to Z, C from W" for one group. */
static void summary(const a2_sweep *s, const a2_sweep_row *rows, size_t rank, size_t combo,
                    FILE *out) {
  char label[1024], a[32], b[32];
  a2_sweep_group_label(s, rank, combo, label, sizeof label);
  fprintf(out, "%s:", label);
  size_t prev = SIZE_MAX, first = SIZE_MAX, last = SIZE_MAX, nseg = 0;
  /* One pass to count the segments, one to print them. */
  for (int pass = 0; pass < 2; pass++) {
    prev = SIZE_MAX;
    size_t seg = 0;
    for (size_t z = 0; z <= s->nsizes; z++) {
      size_t best = SIZE_MAX, second;
      if (z < s->nsizes) rank_algos(s, rows, rank, z, combo, &best, &second);
      if (z < s->nsizes && best == SIZE_MAX) continue; /* nothing ran OK at this size */
      if (z < s->nsizes && best == prev) {
        last = z;
        continue;
      }
      if (prev != SIZE_MAX) { /* close the segment prev: sizes first..last */
        if (pass == 1) {
          size_text(s->sizes[first], a, sizeof a);
          size_text(s->sizes[last], b, sizeof b);
          if (nseg == 1 && first == last)
            fprintf(out, " %s fastest at %s", s->algos[prev], a);
          else if (nseg == 1)
            fprintf(out, " %s fastest at every size (%s .. %s)", s->algos[prev], a, b);
          else if (seg == 0)
            fprintf(out, " %s fastest up to %s", s->algos[prev], b);
          else if (seg + 1 == nseg)
            fprintf(out, ", %s from %s", s->algos[prev], a);
          else
            fprintf(out, ", %s from %s up to %s", s->algos[prev], a, b);
        }
        seg++;
      }
      prev = best;
      first = last = z;
    }
    nseg = seg;
  }
  if (!nseg) fputs(" no point ran OK", out);
  /* Name the algorithms that never ran OK here (refused, say). */
  bool any = false;
  for (size_t al = 0; al < s->nalgos; al++) {
    bool ran = false;
    for (size_t z = 0; z < s->nsizes && !ran; z++) ran = row_at(s, rows, al, rank, z, combo);
    if (ran) continue;
    fprintf(out, "%s%s", any ? ", " : "; not OK at any size: ", s->algos[al]);
    any = true;
  }
  fputc('\n', out);
}

static void table(const a2_sweep *s, const a2_sweep_row *rows, size_t rank, size_t combo,
                  FILE *out) {
  char label[1024], sz[32];
  int w = 7; /* width of the algorithm columns */
  for (size_t a = 0; a < s->nalgos; a++)
    if ((int)strlen(s->algos[a]) > w) w = (int)strlen(s->algos[a]);
  a2_sweep_group_label(s, rank, combo, label, sizeof label);
  fprintf(out, "%s\n  %-10s  %-*s  %12s  %-*s  %9s\n", label, "size", w, "fastest", "time (us)", w,
          "next", "next/best");
  for (size_t z = 0; z < s->nsizes; z++) {
    size_t best, second;
    rank_algos(s, rows, rank, z, combo, &best, &second);
    size_text(s->sizes[z], sz, sizeof sz);
    if (best == SIZE_MAX) {
      fprintf(out, "  %-10s  -\n", sz);
      continue;
    }
    uint64_t tb = row_at(s, rows, best, rank, z, combo)->time_ps;
    fprintf(out, "  %-10s  %-*s  %12.3f", sz, w, s->algos[best], (double)tb / 1e6);
    if (second == SIZE_MAX) {
      fputs("  -\n", out);
      continue;
    }
    uint64_t ts = row_at(s, rows, second, rank, z, combo)->time_ps;
    fprintf(out, "  %-*s  %8.2fx\n", w, s->algos[second], tb ? (double)ts / (double)tb : 1.0);
  }
}

void a2_sweep_crossovers(const a2_sweep *s, const a2_sweep_row *rows, FILE *out) {
  fputs(
      "fastest algorithm per size (least simulated time; a tie goes to the first in --algo;\n"
      "next = the runner-up, next/best = how much slower it is)\n\n",
      out);
  for (size_t r = 0; r < s->nranks; r++)
    for (size_t c = 0; c < s->ncombos; c++) {
      table(s, rows, r, c, out);
      fputc('\n', out);
    }
  fputs("crossovers:\n", out);
  for (size_t r = 0; r < s->nranks; r++)
    for (size_t c = 0; c < s->ncombos; c++) summary(s, rows, r, c, out);
}
