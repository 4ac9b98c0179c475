// The CLI runner of tests/cli (see tests/cli/run_cli.h), compiled into
// test_robust too: each malformed input runs the binary in its own process.
#include "../cli/run_cli.cc"  // NOLINT(bugprone-suspicious-include)
