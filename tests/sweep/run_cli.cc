// The CLI runner of tests/cli (see tests/cli/run_cli.h), compiled into
// test_sweep too: the sweep runs as a subprocess, as a user runs it.
#include "../cli/run_cli.cc"  // NOLINT(bugprone-suspicious-include)
