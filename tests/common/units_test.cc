// Tests for common/units.h: every unit family, the edges of the number
// syntax, and that a2_format_quantity's text parses back to the same value.
#include "common/units.h"

#include <gtest/gtest.h>

#include <clocale>
#include <cstdint>
#include <string>
#include <vector>

namespace {

// Parses s or fails the test with the reason.
uint64_t Parse(const char *s, a2_unit_kind kind) {
  uint64_t v = 0;
  char why[256] = "";
  EXPECT_EQ(a2_parse_quantity(s, kind, &v, why, sizeof why), 0) << s << ": " << why;
  return v;
}

// Expects s to be rejected; returns the reason.
std::string Reject(const char *s, a2_unit_kind kind) {
  uint64_t v = 12345;
  char why[256] = "";
  EXPECT_EQ(a2_parse_quantity(s, kind, &v, why, sizeof why), -1) << s << " parsed as " << v;
  EXPECT_EQ(v, 12345u) << "output written on failure for " << s;
  return why;
}

std::string Format(uint64_t v, a2_unit_kind kind) {
  char out[64];
  a2_format_quantity(v, kind, out, sizeof out);
  return out;
}

constexpr uint64_t kKi = 1024, kK = 1000;

TEST(UnitsTest, SizesUsePowersOfTenAndPowersOfTwo) {
  EXPECT_EQ(Parse("256", A2_UNIT_BYTES), 256u);  // bare number = bytes
  EXPECT_EQ(Parse("256B", A2_UNIT_BYTES), 256u);
  EXPECT_EQ(Parse("4KB", A2_UNIT_BYTES), 4 * kK);
  EXPECT_EQ(Parse("4MB", A2_UNIT_BYTES), 4 * kK * kK);
  EXPECT_EQ(Parse("4GB", A2_UNIT_BYTES), 4 * kK * kK * kK);
  EXPECT_EQ(Parse("4TB", A2_UNIT_BYTES), 4 * kK * kK * kK * kK);
  EXPECT_EQ(Parse("4KiB", A2_UNIT_BYTES), 4 * kKi);
  EXPECT_EQ(Parse("4MiB", A2_UNIT_BYTES), 4 * kKi * kKi);
  EXPECT_EQ(Parse("4GiB", A2_UNIT_BYTES), 4 * kKi * kKi * kKi);
  EXPECT_EQ(Parse("4TiB", A2_UNIT_BYTES), 4 * kKi * kKi * kKi * kKi);
}

TEST(UnitsTest, BandwidthUsesBytesPerSecondAndBitsDividedByEight) {
  EXPECT_EQ(Parse("7B/s", A2_UNIT_BANDWIDTH), 7u);
  EXPECT_EQ(Parse("7KB/s", A2_UNIT_BANDWIDTH), 7 * kK);
  EXPECT_EQ(Parse("7MB/s", A2_UNIT_BANDWIDTH), 7 * kK * kK);
  EXPECT_EQ(Parse("28GB/s", A2_UNIT_BANDWIDTH), 28 * kK * kK * kK);
  EXPECT_EQ(Parse("2TB/s", A2_UNIT_BANDWIDTH), 2 * kK * kK * kK * kK);
  EXPECT_EQ(Parse("7KiB/s", A2_UNIT_BANDWIDTH), 7 * kKi);
  EXPECT_EQ(Parse("7MiB/s", A2_UNIT_BANDWIDTH), 7 * kKi * kKi);
  EXPECT_EQ(Parse("7GiB/s", A2_UNIT_BANDWIDTH), 7 * kKi * kKi * kKi);
  EXPECT_EQ(Parse("200Gb/s", A2_UNIT_BANDWIDTH), 25 * kK * kK * kK);  // RoCE 200 Gb/s = 25 GB/s
  EXPECT_EQ(Parse("8Mb/s", A2_UNIT_BANDWIDTH), kK * kK);
}

TEST(UnitsTest, TimeIsPicosecondsAndBareNumberIsPicoseconds) {
  EXPECT_EQ(Parse("3", A2_UNIT_TIME), 3u);
  EXPECT_EQ(Parse("3ps", A2_UNIT_TIME), 3u);
  EXPECT_EQ(Parse("3ns", A2_UNIT_TIME), 3 * kK);
  EXPECT_EQ(Parse("3us", A2_UNIT_TIME), 3 * kK * kK);
  EXPECT_EQ(Parse("3ms", A2_UNIT_TIME), 3 * kK * kK * kK);
  EXPECT_EQ(Parse("3s", A2_UNIT_TIME), 3 * kK * kK * kK * kK);
}

TEST(UnitsTest, FrequencyAcceptsBothSpellingsOfKilohertz) {
  EXPECT_EQ(Parse("5Hz", A2_UNIT_FREQUENCY), 5u);
  EXPECT_EQ(Parse("5kHz", A2_UNIT_FREQUENCY), 5 * kK);
  EXPECT_EQ(Parse("5KHz", A2_UNIT_FREQUENCY), 5 * kK);
  EXPECT_EQ(Parse("5MHz", A2_UNIT_FREQUENCY), 5 * kK * kK);
  EXPECT_EQ(Parse("5GHz", A2_UNIT_FREQUENCY), 5 * kK * kK * kK);
}

TEST(UnitsTest, CountIsAPlainWholeNumber) {
  EXPECT_EQ(Parse("48", A2_UNIT_COUNT), 48u);
  EXPECT_EQ(Parse("0", A2_UNIT_COUNT), 0u);
  EXPECT_NE(Reject("8.5", A2_UNIT_COUNT).find("not a whole number"), std::string::npos);
  EXPECT_NE(Reject("8.0", A2_UNIT_COUNT).find("not a whole number"), std::string::npos);
  EXPECT_NE(Reject("8KB", A2_UNIT_COUNT).find("expected a whole number such as 8"),
            std::string::npos);
}

TEST(UnitsTest, FractionsRoundToTheNearestBaseUnit) {
  EXPECT_EQ(Parse("1.8GHz", A2_UNIT_FREQUENCY), 1800000000u);
  EXPECT_EQ(Parse("1.85GHz", A2_UNIT_FREQUENCY), 1850000000u);
  EXPECT_EQ(Parse("0.5us", A2_UNIT_TIME), 500000u);
  EXPECT_EQ(Parse("188.5GiB/s", A2_UNIT_BANDWIDTH), 202400333824u);  // 188.5 * 2^30
  EXPECT_EQ(Parse("230.4GB/s", A2_UNIT_BANDWIDTH), 230400000000u);
  EXPECT_EQ(Parse("0.4B", A2_UNIT_BYTES), 0u);
  EXPECT_EQ(Parse("0.5B", A2_UNIT_BYTES), 1u);  // halves round up
  EXPECT_EQ(Parse("1.0005ns", A2_UNIT_TIME), 1001u);
  EXPECT_EQ(Parse("1.0004999ns", A2_UNIT_TIME), 1000u);
  EXPECT_EQ(Parse(".5KiB", A2_UNIT_BYTES), 512u);
  EXPECT_EQ(Parse("2.KiB", A2_UNIT_BYTES), 2048u);
  // Digits past the 19th cannot change the result but must still be digits.
  EXPECT_EQ(Parse("1.00000000000000000000000001KiB", A2_UNIT_BYTES), 1024u);
  Reject("1.0000000000000000000000000xKiB", A2_UNIT_BYTES);
}

TEST(UnitsTest, LargeIntegersAreExact) {
  EXPECT_EQ(Parse("18446744073709551615", A2_UNIT_BYTES), UINT64_MAX);
  EXPECT_EQ(Parse("18446744073709551615", A2_UNIT_COUNT), UINT64_MAX);
  EXPECT_EQ(Parse("18446744073709551615.4B", A2_UNIT_BYTES), UINT64_MAX);
  EXPECT_EQ(Parse("1TiB", A2_UNIT_BYTES), uint64_t{1} << 40);
  EXPECT_EQ(Parse("16777215TiB", A2_UNIT_BYTES), ((uint64_t{1} << 24) - 1) << 40);
  EXPECT_EQ(Parse("9007199254740993", A2_UNIT_BYTES), 9007199254740993u);  // 2^53 + 1
}

TEST(UnitsTest, OverflowPastUint64IsRejected) {
  for (const char *s : {"18446744073709551616", "18446744073709551615.5", "99999999999999999999999",
                        "16777216TiB", "18446745TB"}) {
    EXPECT_NE(Reject(s, A2_UNIT_BYTES).find("too large"), std::string::npos) << s;
  }
  EXPECT_NE(Reject("18446744073709551616", A2_UNIT_COUNT).find("too large"), std::string::npos);
  EXPECT_NE(Reject("18446745s", A2_UNIT_TIME).find("too large"), std::string::npos);
}

TEST(UnitsTest, NegativeValuesAreRejected) {
  EXPECT_NE(Reject("-1", A2_UNIT_BYTES).find("negative"), std::string::npos);
  EXPECT_NE(Reject(" -0.5us", A2_UNIT_TIME).find("negative"), std::string::npos);
  EXPECT_NE(Reject("-0", A2_UNIT_COUNT).find("negative"), std::string::npos);
}

TEST(UnitsTest, NotANumberInfinityAndExponentsAreRejected) {
  for (const char *s : {"nan", "NaN", "inf", "infinity", "+5", "0x10", "abc", "."}) {
    EXPECT_NE(Reject(s, A2_UNIT_BYTES).find("expected a size such as 4KiB"), std::string::npos)
        << s;
  }
  EXPECT_NE(Reject("1e9", A2_UNIT_FREQUENCY).find("unknown unit 'e9'"), std::string::npos);
}

TEST(UnitsTest, EmptyOrBlankValueIsRejected) {
  EXPECT_NE(Reject("", A2_UNIT_TIME).find("empty value"), std::string::npos);
  EXPECT_NE(Reject("   ", A2_UNIT_TIME).find("empty value"), std::string::npos);
  EXPECT_NE(Reject(nullptr, A2_UNIT_TIME).find("empty value"), std::string::npos);
}

TEST(UnitsTest, BlanksAroundNumberAndUnitAreAllowed) {
  EXPECT_EQ(Parse("  4 KiB\t", A2_UNIT_BYTES), 4096u);
  EXPECT_EQ(Parse("28 GB/s", A2_UNIT_BANDWIDTH), 28 * kK * kK * kK);
}

TEST(UnitsTest, UnknownSuffixAndTrailingGarbageNameTheText) {
  EXPECT_EQ(Reject("4KiBs", A2_UNIT_BYTES),
            "unknown unit 'KiBs'; expected a size such as 4KiB or 256B (units: B, KB, MB, GB, TB, "
            "KiB, MiB, GiB, TiB; a bare number is bytes)");
  EXPECT_NE(Reject("4 KiB x", A2_UNIT_BYTES).find("unknown unit 'KiB x'"), std::string::npos);
  EXPECT_NE(Reject("28GBps", A2_UNIT_BANDWIDTH).find("unknown unit 'GBps'"), std::string::npos);
  EXPECT_NE(Reject("1.2.3ns", A2_UNIT_TIME).find("unknown unit '.3ns'"), std::string::npos);
  EXPECT_NE(Reject("1,5ns", A2_UNIT_TIME).find("unknown unit"), std::string::npos);
}

TEST(UnitsTest, UnitsAreCaseSensitiveBecauseBitsAreNotBytes) {
  EXPECT_EQ(Parse("8MB/s", A2_UNIT_BANDWIDTH), 8 * kK * kK);
  EXPECT_EQ(Parse("8Mb/s", A2_UNIT_BANDWIDTH), kK * kK);
  Reject("4kib", A2_UNIT_BYTES);
  Reject("1ghz", A2_UNIT_FREQUENCY);
  Reject("5NS", A2_UNIT_TIME);
}

TEST(UnitsTest, BandwidthAndFrequencyNeedAUnit) {
  EXPECT_EQ(Reject("28", A2_UNIT_BANDWIDTH),
            "missing unit; expected a bandwidth such as 28GB/s (units: B/s, KB/s, MB/s, GB/s, "
            "TB/s, KiB/s, MiB/s, GiB/s, Mb/s, Gb/s)");
  EXPECT_NE(Reject("1800000000", A2_UNIT_FREQUENCY).find("expected a frequency such as 1.8GHz"),
            std::string::npos);
}

TEST(UnitsTest, WrongFamilyIsRejected) {
  Reject("4KiB", A2_UNIT_TIME);
  Reject("500ns", A2_UNIT_BYTES);
  Reject("28GB", A2_UNIT_BANDWIDTH);
  Reject("1GHz", A2_UNIT_TIME);
}

TEST(UnitsTest, ReasonBufferMayBeNullOrTiny) {
  uint64_t v;
  EXPECT_EQ(a2_parse_quantity("bad", A2_UNIT_BYTES, &v, nullptr, 0), -1);
  char tiny[8];
  EXPECT_EQ(a2_parse_quantity("bad", A2_UNIT_BYTES, &v, tiny, sizeof tiny), -1);
  EXPECT_EQ(std::string(tiny), "expecte");
}

TEST(UnitsTest, FormatPicksTheLargestReadableUnit) {
  EXPECT_EQ(Format(196608, A2_UNIT_BYTES), "192 KiB");
  EXPECT_EQ(Format(4096, A2_UNIT_BYTES), "4 KiB");
  EXPECT_EQ(Format(64, A2_UNIT_BYTES), "64 B");
  EXPECT_EQ(Format(0, A2_UNIT_BYTES), "0 B");
  EXPECT_EQ(Format(256 * kKi * kKi, A2_UNIT_BYTES), "256 MiB");
  EXPECT_EQ(Format(1000, A2_UNIT_BYTES), "1 KB");
  EXPECT_EQ(Format(28000000000u, A2_UNIT_BANDWIDTH), "28 GB/s");
  EXPECT_EQ(Format(230400000000u, A2_UNIT_BANDWIDTH), "230.4 GB/s");
  EXPECT_EQ(Format(202400333824u, A2_UNIT_BANDWIDTH), "188.5 GiB/s");
  EXPECT_EQ(Format(1600000000000u, A2_UNIT_BANDWIDTH), "1.6 TB/s");
  EXPECT_EQ(Format(500000, A2_UNIT_TIME), "500 ns");
  EXPECT_EQ(Format(1500000, A2_UNIT_TIME), "1.5 us");
  EXPECT_EQ(Format(0, A2_UNIT_TIME), "0 ps");
  EXPECT_EQ(Format(1800000000u, A2_UNIT_FREQUENCY), "1.8 GHz");
  EXPECT_EQ(Format(48, A2_UNIT_COUNT), "48");
  EXPECT_EQ(Format(UINT64_MAX, A2_UNIT_BYTES), "18446744073709551615 B");
  EXPECT_EQ(Format(UINT64_MAX, A2_UNIT_COUNT), "18446744073709551615");
}

TEST(UnitsTest, FormatOutputParsesBackToTheSameValue) {
  std::vector<uint64_t> values = {0,
                                  1,
                                  7,
                                  999,
                                  1000,
                                  1023,
                                  1024,
                                  1536,
                                  1100,
                                  555555555,
                                  UINT64_MAX,
                                  UINT64_MAX - 1,
                                  uint64_t{1} << 63};
  uint64_t x = 0x9e3779b97f4a7c15u;  // xorshift: deterministic, wide spread of magnitudes
  for (int i = 0; i < 2000; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    values.push_back(x >> (x % 64));
    values.push_back((x % 100000) * 1000000);  // many values whole in a large unit
    values.push_back((x % 100000) * (uint64_t{1} << 20));
  }
  for (a2_unit_kind kind :
       {A2_UNIT_COUNT, A2_UNIT_BYTES, A2_UNIT_BANDWIDTH, A2_UNIT_TIME, A2_UNIT_FREQUENCY}) {
    for (uint64_t v : values) {
      std::string text = Format(v, kind);
      uint64_t back = 0;
      char why[256] = "";
      ASSERT_EQ(a2_parse_quantity(text.c_str(), kind, &back, why, sizeof why), 0)
          << text << ": " << why;
      ASSERT_EQ(back, v) << "kind " << kind << " text " << text;
    }
  }
}

TEST(UnitsTest, FormatTruncatesToTheBuffer) {
  char out[4];
  a2_format_quantity(196608, A2_UNIT_BYTES, out, sizeof out);
  EXPECT_EQ(std::string(out), "192");
}

}  // namespace
