// The fork helper of tests/model (see tests/model/fork_run.h), compiled into
// test_collectives too, for the tests that build a kernel with the C API.
#include "../model/fork_run.cc"  // NOLINT(bugprone-suspicious-include)
