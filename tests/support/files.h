// Files and text for the tests: reading a whole file (quietly, or as a test
// failure), splitting text into lines, whether a path exists, whether a
// tool is on PATH.
#ifndef A2_TESTS_SUPPORT_FILES_H
#define A2_TESTS_SUPPORT_FILES_H

#include <string>
#include <vector>

namespace a2test {

// The whole file, or "" when it cannot be read (then *ok = false; *ok is
// set either way when given).
std::string ReadFile(const std::string &path, bool *ok = nullptr);

// The whole file; a test failure (and "") when it cannot be read.
std::string ReadFileOrFail(const std::string &path);

// The lines of `text`, without their '\n' (a last line without one counts).
std::vector<std::string> Lines(const std::string &text);

bool Exists(const std::string &path);

// Is an executable `tool` in a directory of $PATH (/usr/bin:/bin when
// unset)?
bool OnPath(const std::string &tool);

}  // namespace a2test

#endif
