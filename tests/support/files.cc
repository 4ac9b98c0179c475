#include "tests/support/files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace a2test {

std::string ReadFile(const std::string &path, bool *ok) {
  std::ifstream f(path, std::ios::binary);
  if (ok) *ok = (bool)f;
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string ReadFileOrFail(const std::string &path) {
  bool ok = false;
  std::string s = ReadFile(path, &ok);
  if (!ok) ADD_FAILURE() << "cannot read " << path;
  return s;
}

std::vector<std::string> Lines(const std::string &text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) v.push_back(line);
  return v;
}

bool Exists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

bool OnPath(const std::string &tool) {
  const char *p = getenv("PATH");
  std::stringstream ss(p ? p : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(ss, dir, ':'))
    if (!dir.empty() && access((dir + "/" + tool).c_str(), X_OK) == 0) return true;
  return false;
}

}  // namespace a2test
