/* Parsing of quantities with units, shared by the YAML loader, --set and CLI
 * flags so that "28GB/s" means the same everywhere.
 *
 * Conventions (docs/config.md):
 *   sizes:      B, KB/MB/GB (powers of 10), KiB/MiB/GiB (powers of 2); bare
 *               number = bytes.
 *   bandwidth:  B/s, KB/s, MB/s, GB/s, TB/s (powers of 10), KiB/s, MiB/s, GiB/s
 *               (powers of 2); also Gb/s, Mb/s (bits, powers of 10, /8).
 *   time:       ps, ns, us, ms, s (powers of 10); bare number = ps.
 *   frequency:  Hz, KHz/kHz, MHz, GHz (powers of 10).
 * Values must be finite and non-negative; fractional values are allowed
 * ("1.8GHz") and rounded to the nearest integer unit (byte, ps, Hz, B/s).
 * (Implementation notes: sizes also take TB and TiB; bandwidth and
 * frequency have no bare-number meaning and require a unit; units are
 * case-sensitive; a blank may separate number and unit, "28 GB/s";
 * parsing does not depend on the locale; COUNT takes no fraction.) */
#ifndef A2_UNITS_H
#define A2_UNITS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  A2_UNIT_COUNT,     /* plain non-negative integer, no suffix */
  A2_UNIT_BYTES,     /* -> bytes */
  A2_UNIT_BANDWIDTH, /* -> bytes per second */
  A2_UNIT_TIME,      /* -> picoseconds */
  A2_UNIT_FREQUENCY  /* -> hertz */
} a2_unit_kind;

/* Parse s (whole string, surrounding blanks allowed) as a quantity of the
 * given kind into *out. Returns 0 on success; on failure returns -1 and
 * writes a one-line reason ("expected a size such as 4KiB or 256B") into
 * why (may be NULL). Rejects negative numbers, overflow past UINT64_MAX,
 * unknown suffixes and trailing garbage. */
int a2_parse_quantity(const char *s, a2_unit_kind kind, uint64_t *out, char *why,
                      unsigned long why_size);

/* Human-readable rendering with the unit, e.g. "28 GB/s", "500 ns",
 * "192 KiB", "1.8 GHz". Exact for values that are whole in the unit chosen.
 * (The unit chosen is the largest in which v is whole, or has at most three
 * decimals and is below 1000 units; else the base unit. The text always
 * parses back to v. COUNT prints the bare number.) */
void a2_format_quantity(uint64_t v, a2_unit_kind kind, char *out, unsigned long out_size);

#ifdef __cplusplus
}
#endif
#endif
