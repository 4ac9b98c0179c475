/* a2a3sim calibrate: rank trends. A model fitted to a few rows can match
 * each of them and still move the wrong way when the rank count grows; the
 * rows measured at several rank counts say which way is right. A series is
 * the rows of one file with the same program, metric, source and size
 * column and different ranks; each step from one rank count to the next larger one in
 * the series is checked. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/calibrate.h"

/* The row's rank count, 0 when it has none (its args hold -d) or it is not
 * a plain number. */
static unsigned long ranks_of(const a2_cal_row *row) {
  if (!row->ranks) return 0;
  char *end;
  unsigned long n = strtoul(row->ranks, &end, 10);
  return *end ? 0 : n;
}

static bool same_text(const char *a, const char *b) {
  return a && b ? !strcmp(a, b) : a == b;
}

static bool same_series(const a2_cal_row *a, const a2_cal_row *b) {
  return a->file == b->file && a->metric == b->metric && !strcmp(a->program, b->program) &&
         !strcmp(a->source, b->source) && same_text(a->size, b->size);
}

/* The row of i's series with the smallest rank count above i's, or nrows. */
static size_t next_in_series(const a2_cal_table *t, size_t i) {
  unsigned long p = ranks_of(&t->rows[i]), best = 0;
  size_t at = t->nrows;
  for (size_t j = 0; j < t->nrows; j++) {
    unsigned long q = ranks_of(&t->rows[j]);
    if (q > p && (!best || q < best) && same_series(&t->rows[i], &t->rows[j])) {
      best = q;
      at = j;
    }
  }
  return at;
}

size_t a2_cal_wrong_trends(const a2_cal_runner *r, size_t point, const char *prefix, FILE *out,
                           size_t *steps) {
  const a2_cal_table *t = r->t;
  const a2_cal_sim *sims = r->points[point].sims;
  size_t wrong = 0;
  *steps = 0;
  for (size_t i = 0; i < t->nrows; i++) {
    if (!ranks_of(&t->rows[i]) || !sims[i].ok) continue;
    size_t j = next_in_series(t, i);
    if (j == t->nrows || !sims[j].ok) continue;
    const a2_cal_row *a = &t->rows[i], *b = &t->rows[j];
    double measured = b->measured / a->measured, simulated = sims[j].value / sims[i].value;
    double flat = a->tolerance > b->tolerance ? a->tolerance : b->tolerance;
    (*steps)++;
    if (fabs(measured - 1) <= flat || (measured > 1) == (simulated > 1)) continue;
    wrong++;
    if (!out) continue;
    char na[128], nb[128];
    a2_cal_row_name(t, i, na, sizeof na);
    a2_cal_row_name(t, j, nb, sizeof nb);
    fprintf(out, "%s%s: %s (%s ranks) -> %s (%s ranks): measured x%.3f, simulated x%.3f\n", prefix,
            a->file, na, a->ranks, nb, b->ranks, measured, simulated);
  }
  return wrong;
}
