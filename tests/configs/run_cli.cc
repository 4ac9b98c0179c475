// The CLI runner of tests/cli (see tests/cli/run_cli.h), compiled into
// test_configs too: each simulation must run in its own OS process.
#include "../cli/run_cli.cc"  // NOLINT(bugprone-suspicious-include)
