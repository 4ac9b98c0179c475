/* Quantities with units (see units.h). The parser is hand-written rather than
 * strtod-based so that it is locale-independent, never accepts "nan"/"inf"
 * or hex floats, and keeps integer values exact: the integer part is
 * accumulated in uint64_t and only the fraction goes through long double. */
#include "common/units.h"

#include <stdio.h>
#include <string.h>

typedef struct {
  const char *name;
  uint64_t mult; /* base units (byte, B/s, ps, Hz) per one of this unit */
  int format;    /* 1: a2_format_quantity may choose it */
} unit;

/* Parsing accepts every row; formatting picks among the rows marked 1. Bit
 * rates are parse-only so that printed bandwidths are always in bytes. */
#define K1 1000ull
#define M1 (K1 * K1)
#define G1 (K1 * M1)
#define T1 (K1 * G1)
#define KI 1024ull
#define MI (KI * KI)
#define GI (KI * MI)
#define TI (KI * GI)
static const unit bytes_units[] = {
    {"B", 1, 1},    {"KB", K1, 1},  {"MB", M1, 1},  {"GB", G1, 1},  {"TB", T1, 1},
    {"KiB", KI, 1}, {"MiB", MI, 1}, {"GiB", GI, 1}, {"TiB", TI, 1}, {NULL, 0, 0},
};
static const unit bw_units[] = {
    {"B/s", 1, 1},       {"KB/s", K1, 1},     {"MB/s", M1, 1},  {"GB/s", G1, 1},
    {"TB/s", T1, 1},     {"KiB/s", KI, 1},    {"MiB/s", MI, 1}, {"GiB/s", GI, 1},
    {"Mb/s", M1 / 8, 0}, {"Gb/s", G1 / 8, 0}, {NULL, 0, 0},
};
static const unit time_units[] = {
    {"ps", 1, 1}, {"ns", K1, 1}, {"us", M1, 1}, {"ms", G1, 1}, {"s", T1, 1}, {NULL, 0, 0},
};
static const unit freq_units[] = {
    {"Hz", 1, 1}, {"kHz", K1, 1}, {"KHz", K1, 0}, {"MHz", M1, 1}, {"GHz", G1, 1}, {NULL, 0, 0},
};
static const unit count_units[] = {{"", 1, 1}, {NULL, 0, 0}};

typedef struct {
  const unit *units;
  const char *base;   /* unit of a bare number; NULL: a unit is required */
  const char *expect; /* what a valid value looks like, for error messages */
} kind_info;

/* Bandwidth and frequency have no bare-number meaning: "bandwidth: 28" is
 * far more likely to mean GB/s than B/s, so it is rejected, not guessed. */
static const kind_info kinds[] = {
    [A2_UNIT_COUNT] = {count_units, "", "expected a whole number such as 8"},
    [A2_UNIT_BYTES] = {bytes_units, "B",
                       "expected a size such as 4KiB or 256B (units: B, KB, MB, GB, TB, KiB, "
                       "MiB, GiB, TiB; a bare number is bytes)"},
    [A2_UNIT_BANDWIDTH] = {bw_units, NULL,
                           "expected a bandwidth such as 28GB/s (units: B/s, KB/s, MB/s, GB/s, "
                           "TB/s, KiB/s, MiB/s, GiB/s, Mb/s, Gb/s)"},
    [A2_UNIT_TIME] = {time_units, "ps",
                      "expected a time such as 500ns (units: ps, ns, us, ms, s; a bare number "
                      "is ps)"},
    [A2_UNIT_FREQUENCY] = {freq_units, NULL,
                           "expected a frequency such as 1.8GHz (units: Hz, kHz, MHz, GHz)"},
};

static int is_blank(char c) {
  return c == ' ' || c == '\t';
}
static int is_digit(char c) {
  return c >= '0' && c <= '9';
}

static int fail(char *why, unsigned long n, const char *what, const char *expect) {
  if (why && n) {
    if (what)
      snprintf(why, n, "%s; %s", what, expect);
    else
      snprintf(why, n, "%s", expect);
  }
  return -1;
}

int a2_parse_quantity(const char *s, a2_unit_kind kind, uint64_t *out, char *why,
                      unsigned long why_size) {
  if ((unsigned)kind >= sizeof kinds / sizeof kinds[0]) {
    return fail(why, why_size, NULL, "internal error: unknown unit kind");
  }
  const kind_info *ki = &kinds[kind];
  const char *p = s ? s : "";
  while (is_blank(*p)) p++;
  if (!*p) return fail(why, why_size, "empty value", ki->expect);
  if (*p == '-') return fail(why, why_size, "negative values are not allowed", ki->expect);

  /* Integer part: exact in uint64_t. */
  uint64_t ip = 0;
  int ndigits = 0, too_big = 0;
  for (; is_digit(*p); p++, ndigits++) {
    unsigned d = (unsigned)(*p - '0');
    if (ip > (UINT64_MAX - d) / 10)
      too_big = 1;
    else
      ip = ip * 10 + d;
  }
  /* Fraction: the first 19 digits (10^19 < 2^64); later digits move the
   * result by less than 10^-19 of a unit (< 10^-6 base units even for TiB),
   * so they are only checked to be digits. */
  uint64_t frac = 0, scale = 1;
  int has_frac = 0;
  if (*p == '.') {
    has_frac = 1;
    p++;
    for (; is_digit(*p); p++, ndigits++) {
      if (scale <= UINT64_MAX / 10) {
        frac = frac * 10 + (uint64_t)(*p - '0');
        scale *= 10;
      }
    }
  }
  if (ndigits == 0) return fail(why, why_size, NULL, ki->expect);

  /* Unit suffix: the rest, minus surrounding blanks. */
  while (is_blank(*p)) p++;
  const char *u = p;
  size_t ulen = strlen(u);
  while (ulen && is_blank(u[ulen - 1])) ulen--;
  const unit *found = NULL;
  if (ulen == 0) {
    if (!ki->base) return fail(why, why_size, "missing unit", ki->expect);
    found = &ki->units[0]; /* the base unit is listed first */
  } else {
    for (const unit *r = ki->units; r->name; r++) {
      if (strlen(r->name) == ulen && memcmp(r->name, u, ulen) == 0) found = r;
    }
    if (!found || kind == A2_UNIT_COUNT) {
      char what[96];
      snprintf(what, sizeof what, "unknown unit '%.*s'", ulen > 40 ? 40 : (int)ulen, u);
      return fail(why, why_size, kind == A2_UNIT_COUNT ? "unexpected text after the number" : what,
                  ki->expect);
    }
  }
  if (kind == A2_UNIT_COUNT && has_frac) {
    return fail(why, why_size, "not a whole number", ki->expect);
  }

  const uint64_t m = found->mult;
  if (too_big || ip > UINT64_MAX / m) {
    return fail(why, why_size, "value too large (the limit is 2^64-1 base units)", ki->expect);
  }
  uint64_t v = ip * m;
  if (frac) {
    /* frac/scale * m, rounded half up; exact when the product is whole. */
    long double f = (long double)frac * (long double)m / (long double)scale;
    uint64_t r = (uint64_t)(f + 0.5L);
    if (v > UINT64_MAX - r) {
      return fail(why, why_size, "value too large (the limit is 2^64-1 base units)", ki->expect);
    }
    v += r;
  }
  *out = v;
  return 0;
}

void a2_format_quantity(uint64_t v, a2_unit_kind kind, char *out, unsigned long out_size) {
  if (!out || !out_size) return;
  if ((unsigned)kind >= sizeof kinds / sizeof kinds[0] || kind == A2_UNIT_COUNT) {
    snprintf(out, out_size, "%llu", (unsigned long long)v);
    return;
  }
  /* The largest unit (value >= 1 of it) in which v is whole, or has at most
   * three decimals and fewer than 1000 units ("1.8 GHz", "230.4 GB/s", not
   * "555555.555 ns"). Every choice is exact, so parsing the text gives v. */
  const unit *best = NULL;
  int best_digits = 0;
  for (const unit *r = kinds[kind].units; r->name; r++) {
    if (!r->format || (best && r->mult <= best->mult)) continue;
    if (r->mult != 1 && v < r->mult) continue;
    uint64_t rem = v % r->mult;
    int d = 0;
    while (rem != 0 && d < 3) { /* rem < mult <= 2^40, so rem * 10 cannot overflow */
      rem = rem * 10 % r->mult;
      d++;
    }
    if (rem == 0 && (d == 0 || v / r->mult < 1000)) {
      best = r;
      best_digits = d;
    }
  }
  /* The base unit (mult 1) always qualifies, so best is set. */
  uint64_t whole = v / best->mult, rem = v % best->mult;
  if (best_digits == 0) {
    snprintf(out, out_size, "%llu %s", (unsigned long long)whole, best->name);
    return;
  }
  uint64_t pow10 = 1;
  for (int i = 0; i < best_digits; i++) pow10 *= 10;
  uint64_t fdigits = rem * pow10 / best->mult; /* exact by construction */
  snprintf(out, out_size, "%llu.%0*llu %s", (unsigned long long)whole, best_digits,
           (unsigned long long)fdigits, best->name);
}
