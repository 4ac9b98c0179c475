// End-to-end: every class of bad flag or bad config is refused with exit
// status 2, nothing on stdout, and one stderr message that says what is
// wrong and where (the flag, or FILE:LINE:COL for a config file, or --set).
// Also the top-level commands: no arguments, help, run --help, unknown.
#include <string>
#include <vector>

#include "tests/support/run_cli.h"

namespace a2test {
namespace {

// `run --algo allreduce_mesh` followed by `more`.
std::vector<std::string> Mesh(const std::vector<std::string> &more) {
  return Args({"run", "--algo", "allreduce_mesh"}, more);
}

// ---- flags ----

TEST(CliFlagErrors, UnknownFlagIsNamed) {
  EXPECT_TRUE(RunFailsWithUsage(Mesh({"--ranks", "4", "--frobnicate"}),
                                {"error: --frobnicate: unknown flag"}));
}

TEST(CliFlagErrors, FlagMissingItsValueIsNamed) {
  EXPECT_TRUE(RunFailsWithUsage(Mesh({"--ranks", "4", "--size"}), {"--size: missing value"}));
}

TEST(CliFlagErrors, StrayArgumentIsNamed) {
  EXPECT_TRUE(RunFailsWithUsage(Mesh({"--ranks", "4", "extra"}), {"extra: unexpected argument"}));
}

TEST(CliFlagErrors, MissingAlgoIsRequired) {
  EXPECT_TRUE(RunFailsWithUsage({"run", "--ranks", "4"}, {"error: --algo: required"}));
}

TEST(CliFlagErrors, UnknownAlgoIsNamed) {
  EXPECT_TRUE(
      RunFailsWithUsage({"run", "--algo", "no_such_collective", "--ranks", "4"},
                        {"--algo:", "unknown algorithm 'no_such_collective'", "a2a3sim list"}));
}

TEST(CliFlagErrors, MissingRanksAndDevicesIsRequired) {
  EXPECT_TRUE(RunFailsWithUsage(Mesh({}), {"--ranks: required", "-d"}));
}

TEST(CliFlagErrors, DevicesAndRanksTogetherAreRefused) {
  EXPECT_TRUE(RunFailsWithUsage(Mesh({"-d", "0,1", "--ranks", "2"}),
                                {"error: --ranks:", "use -d or --ranks, not both"}));
}

TEST(CliFlagErrors, DeviceListWithEmptyEntryIsRefused) {
  EXPECT_TRUE(
      RunFailsWithUsage(Mesh({"-d", "0,,1"}), {"error: -d:", "comma-separated list", "'0,,1'"}));
}

TEST(CliFlagErrors, DeviceListWithTrailingCommaIsRefused) {
  EXPECT_TRUE(RunFailsWithUsage(Mesh({"-d", "0,1,"}), {"error: -d:", "'0,1,'"}));
}

TEST(CliFlagErrors, SizeWithUnknownUnitIsRefused) {
  EXPECT_TRUE(RunFailsWithUsage(Mesh({"--ranks", "4", "--size", "12XB"}),
                                {"error: --size:", "unknown unit 'XB'", "'12XB'"}));
}

TEST(CliFlagErrors, NegativeSizeIsRefused) {
  EXPECT_TRUE(RunFailsWithUsage(Mesh({"--ranks", "4", "--size", "-4"}),
                                {"error: --size:", "negative", "'-4'"}));
}

TEST(CliFlagErrors, ZeroRanksIsRefused) {
  EXPECT_TRUE(RunFailsWithUsage(Mesh({"--ranks", "0"}), {"error: --ranks:", "got '0'"}));
}

TEST(CliFlagErrors, MoreRanksThanTheConfigHasIsRefused) {
  EXPECT_TRUE(RunFailsWithUsage(Mesh({"--ranks", "9"}), {"9 ranks", "8", "interconnect.ranks"}));
}

TEST(CliFlagErrors, RanksAboveASetInterconnectSizeIsRefused) {
  EXPECT_TRUE(RunFailsWithUsage(Mesh({"--ranks", "4", "--set", "interconnect.ranks=2"}),
                                {"4 ranks", "has 2", "interconnect.ranks"}));
}

TEST(CliFlagErrors, DeviceListedTwiceIsRefused) {
  EXPECT_TRUE(RunFailsWithUsage(Mesh({"-d", "0,0"}), {"device 0 listed twice"}));
}

TEST(CliFlagErrors, DeviceOutsideTheConfigIsRefused) {
  EXPECT_TRUE(RunFailsWithUsage(Mesh({"-d", "0,8"}), {"device 8", "0..7"}));
}

TEST(CliFlagErrors, MeshSizeNotMultipleOfElementIsRefused) {
  EXPECT_TRUE(RunFailsWithUsage(Mesh({"--ranks", "4", "--size", "6"}),
                                {"--size", "6 bytes", "multiple of 4 bytes"}));
}

TEST(CliFlagErrors, ZeroSizeIsRefused) {
  EXPECT_TRUE(RunFailsWithUsage(Mesh({"--ranks", "4", "--size", "0"}),
                                {"--size", "0 bytes", "positive multiple"}));
}

// ---- config file ----

TEST(CliConfigErrors, MissingConfigFileIsNamed) {
  TempDir dir;
  const std::string path = dir.path() + "/no-such.yaml";
  EXPECT_TRUE(
      RunFailsWithUsage(Mesh({"--ranks", "4", "--config", path}), {path + ": error: cannot open"}));
}

TEST(CliConfigErrors, UnknownKeyHasFileLineColumn) {
  TempDir dir;
  const std::string path = dir.Write("unknown.yaml", "chip:\n  clok: 1GHz\n");
  EXPECT_TRUE(RunFailsWithUsage(
      Mesh({"--ranks", "4", "--config", path}),
      {path + ":2:3: error: unknown key 'clok' in chip", "did you mean 'clock'?"}));
}

TEST(CliConfigErrors, YamlSyntaxErrorHasFileLineColumn) {
  TempDir dir;
  const std::string path = dir.Write("tab.yaml", "chip:\n\tclock: 1GHz\n");
  EXPECT_TRUE(RunFailsWithUsage(Mesh({"--ranks", "4", "--config", path}),
                                {path + ":2:1: error: invalid YAML"}));
}

TEST(CliConfigErrors, WrongTypeValueHasFileLineColumn) {
  TempDir dir;
  const std::string path = dir.Write("type.yaml", "chip:\n  vector_cores: many\n");
  EXPECT_TRUE(
      RunFailsWithUsage(Mesh({"--ranks", "4", "--config", path}),
                        {path + ":2:17: error: chip.vector_cores: 'many'", "whole number"}));
}

TEST(CliConfigErrors, SectionWhereValueExpectedHasFileLineColumn) {
  TempDir dir;
  const std::string path = dir.Write("section.yaml", "chip:\n  clock:\n    a: 1\n");
  EXPECT_TRUE(RunFailsWithUsage(Mesh({"--ranks", "4", "--config", path}),
                                {path + ":3:5: error: chip.clock:", "found a mapping"}));
}

TEST(CliConfigErrors, ZeroBandwidthInFileHasFileLineColumn) {
  TempDir dir;
  const std::string path = dir.Write("bw.yaml", "interconnect:\n  link: { bandwidth: 0GB/s }\n");
  EXPECT_TRUE(RunFailsWithUsage(
      Mesh({"--ranks", "4", "--config", path}),
      {path + ":2:22: error: interconnect.link.bandwidth: '0GB/s': out of range"}));
}

TEST(CliConfigErrors, EmptyConfigFileIsTheDefault) {
  TempDir dir;
  const std::string path = dir.Write("empty.yaml", "");
  JsonDoc from_file, builtin;
  ASSERT_TRUE(RunJson(Mesh({"--ranks", "4", "--config", path}), &from_file));
  ASSERT_TRUE(RunJson(Mesh({"--ranks", "4"}), &builtin));
  EXPECT_EQ(from_file["config"].Str(), path);
  EXPECT_EQ(from_file["time_ps"].Int(), builtin["time_ps"].Int());
}

// ---- --set ----

TEST(CliSetErrors, NonPositiveBandwidthIsRefused) {
  EXPECT_TRUE(
      RunFailsWithUsage(Mesh({"--ranks", "4", "--set", "interconnect.link.bandwidth=0GB/s"}),
                        {"error: --set: interconnect.link.bandwidth=0GB/s", "out of range"}));
}

TEST(CliSetErrors, UnknownKeyIsNamedWithSuggestion) {
  EXPECT_TRUE(
      RunFailsWithUsage(Mesh({"--ranks", "4", "--set", "interconnect.link.bandwith=56GB/s"}),
                        {"error: --set: unknown key 'interconnect.link.bandwith'",
                         "did you mean 'interconnect.link.bandwidth'?"}));
}

TEST(CliSetErrors, BadValueIsNamed) {
  EXPECT_TRUE(
      RunFailsWithUsage(Mesh({"--ranks", "4", "--set", "interconnect.link.bandwidth=abc"}),
                        {"error: --set: interconnect.link.bandwidth=abc", "expected a bandwidth"}));
}

TEST(CliSetErrors, SectionIsNotAKey) {
  EXPECT_TRUE(RunFailsWithUsage(Mesh({"--ranks", "4", "--set", "chip.mte=5"}),
                                {"error: --set: 'chip.mte' is a section"}));
}

TEST(CliSetErrors, SetWithoutEqualsIsRefused) {
  EXPECT_TRUE(RunFailsWithUsage(Mesh({"--ranks", "4", "--set", "interconnect.link.bandwidth"}),
                                {"--set:", "expected KEY=VALUE", "'interconnect.link.bandwidth'"}));
}

TEST(CliSetErrors, SetWithEmptyKeyIsRefused) {
  EXPECT_TRUE(RunFailsWithUsage(Mesh({"--ranks", "4", "--set", "=5"}),
                                {"--set:", "expected KEY=VALUE", "'=5'"}));
}

// ---- commands ----

TEST(CliCommands, NoArgumentsPrintsUsageAndExits2) {
  CliResult r = RunCli({});
  EXPECT_EQ(r.exit_code, 2) << r;
  EXPECT_TRUE(r.out.empty()) << r;
  EXPECT_NE(r.err.find("usage: a2a3sim <command>"), std::string::npos) << r;
}

TEST(CliCommands, HelpPrintsUsageToStdoutAndExits0) {
  CliResult r = RunCli({"help"});
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(r.err.empty()) << r;
  EXPECT_NE(r.out.find("usage: a2a3sim <command>"), std::string::npos) << r;
  EXPECT_NE(r.out.find("run"), std::string::npos) << r;
  EXPECT_NE(r.out.find("list"), std::string::npos) << r;
}

TEST(CliCommands, RunHelpMentionsAlgoAndExits0) {
  CliResult r = RunCli({"run", "--help"});
  EXPECT_EQ(r.exit_code, 0) << r;
  EXPECT_TRUE(r.err.empty()) << r;
  EXPECT_NE(r.out.find("usage: a2a3sim run"), std::string::npos) << r;
  EXPECT_NE(r.out.find("--algo"), std::string::npos) << r;
}

TEST(CliCommands, UnknownCommandIsNamedAndExits2) {
  EXPECT_TRUE(RunFailsWithUsage({"frobnicate"}, {"unknown command 'frobnicate'"}));
}

TEST(CliCommands, ListRefusesFlags) {
  EXPECT_TRUE(RunFailsWithUsage({"list", "--json"}, {"--json", "unexpected argument"}));
}

}  // namespace
}  // namespace a2test
