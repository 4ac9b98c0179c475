// The fork helper of tests/model (see tests/model/fork_run.h), compiled into
// test_kernel too: CMake builds each tests/<folder>/*.cc into its own binary.
#include "../model/fork_run.cc"  // NOLINT(bugprone-suspicious-include)
