// What a2_config_print writes for a config, as a string (tests of configs/).
#ifndef A2_TESTS_CONFIGS_CONFIG_PRINT_H
#define A2_TESTS_CONFIGS_CONFIG_PRINT_H

#include <cstdio>
#include <string>

#include "configs/config.h"

inline std::string Print(const a2_config &c) {
  FILE *f = std::tmpfile();
  a2_config_print(&c, f);
  std::rewind(f);
  std::string out;
  char buf[512];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  std::fclose(f);
  return out;
}

#endif
