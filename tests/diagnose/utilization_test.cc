// Link and HBM utilisation in --json (`links`, `hbm`) and in the text
// summary ("busiest:", "busiest HBM:", "critical path ends on rank"), and
// their consistency: utilisation = busy / time, data read from peers
// crosses links, the busiest link is the one with the most busy time and
// the critical path ends on the last rank to finish.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "diag_util.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace {

const std::vector<std::string> kMesh = {"run", "--algo", "allreduce_mesh", "--ranks",
                                        "4",   "--size", "64KiB"};

// utilisation is printed with 6 decimals
constexpr double kUtilTol = 1e-6;

TEST(Utilisation, JsonListsEveryMeshLinkAndHbmWithUtilisationOfBusyOverTime) {
  JsonDoc doc;
  ASSERT_TRUE(RunJson(kMesh, &doc));
  const double time_ps = (double)doc["time_ps"].Int();
  ASSERT_GT(time_ps, 0);

  JsonView links = doc["links"];
  ASSERT_EQ(links.Size(), 12u) << "every port of the 4-NPU full mesh moved data";
  std::set<std::pair<long long, long long>> seen;
  long long link_bytes = 0;
  for (size_t i = 0; i < links.Size(); i++) {
    JsonView l = links[i];
    SCOPED_TRACE(l.path());
    long long from = l["from"].Int(), to = l["to"].Int();
    EXPECT_GE(from, 0);
    EXPECT_LT(from, 4);
    EXPECT_GE(to, 0);
    EXPECT_LT(to, 4);
    EXPECT_NE(from, to);
    EXPECT_TRUE(seen.insert({from, to}).second) << "link listed twice";
    EXPECT_GT(l["bytes"].Int(), 0);
    link_bytes += l["bytes"].Int();
    const double busy = (double)l["busy_ps"].Int(), u = l["utilization"].Num();
    EXPECT_GT(busy, 0);
    EXPECT_GE(u, 0.0);
    EXPECT_LE(u, 1.0);
    EXPECT_NEAR(u, busy / time_ps, kUtilTol);
  }

  long long remote_read = 0;
  for (size_t r = 0; r < doc["per_rank"].Size(); r++)
    remote_read += doc["per_rank"][r]["remote_read_bytes"].Int();
  EXPECT_GT(remote_read, 0);
  EXPECT_GE(link_bytes, remote_read) << "data read from peers crosses the links";

  JsonView hbm = doc["hbm"];
  ASSERT_EQ(hbm.Size(), 4u);
  for (size_t i = 0; i < hbm.Size(); i++) {
    JsonView h = hbm[i];
    SCOPED_TRACE(h.path());
    EXPECT_EQ(h["rank"].Int(), (long long)i);
    EXPECT_GT(h["bytes"].Int(), 0);
    const double busy = (double)h["busy_ps"].Int(), u = h["utilization"].Num();
    EXPECT_GE(busy, 0);
    EXPECT_GE(u, 0.0);
    EXPECT_LE(u, 1.0);
    EXPECT_NEAR(u, busy / time_ps, kUtilTol);
  }
}

// The text summary's busiest link and critical-path rank agree with --json.
void ExpectSummaryAgreesWithJson(const std::vector<std::string> &args) {
  JsonDoc doc;
  ASSERT_TRUE(RunJson(args, &doc));
  CliResult text = RunCli(args);
  ASSERT_EQ(text.exit_code, 0) << text;

  std::smatch m;
  static const std::regex busiest(R"(\nbusiest: link npu(\d+)->npu(\d+): (\d+) B, busy )");
  ASSERT_TRUE(std::regex_search(text.out, m, busiest)) << "no 'busiest: link' line" << text;
  const long long from = std::stoll(m[1]), to = std::stoll(m[2]), bytes = std::stoll(m[3]);
  long long max_busy = -1, named_busy = -1, named_bytes = -1;
  JsonView links = doc["links"];
  for (size_t i = 0; i < links.Size(); i++) {
    long long b = links[i]["busy_ps"].Int();
    max_busy = std::max(max_busy, b);
    if (links[i]["from"].Int() == from && links[i]["to"].Int() == to) {
      named_busy = b;
      named_bytes = links[i]["bytes"].Int();
    }
  }
  EXPECT_EQ(named_bytes, bytes) << "busiest link's bytes differ from --json" << text;
  EXPECT_EQ(named_busy, max_busy) << "the busiest link is not the one with most busy time" << text;

  static const std::regex hbm(R"(\nbusiest HBM: rank (\d+): (\d+) B, busy )");
  ASSERT_TRUE(std::regex_search(text.out, m, hbm)) << "no 'busiest HBM' line" << text;
  EXPECT_EQ(std::stoll(m[2]), doc["hbm"][(size_t)std::stoul(m[1])]["bytes"].Int()) << text;

  static const std::regex critical(R"(\ncritical path ends on rank (\d+)\n)");
  ASSERT_TRUE(std::regex_search(text.out, m, critical)) << "no critical path line" << text;
  const size_t rank = std::stoul(m[1]);
  long long latest = -1;
  for (size_t r = 0; r < doc["per_rank"].Size(); r++)
    latest = std::max(latest, doc["per_rank"][r]["time_ps"].Int());
  ASSERT_LT(rank, doc["per_rank"].Size()) << text;
  EXPECT_EQ(doc["per_rank"][rank]["time_ps"].Int(), latest)
      << "the critical path ends on a rank that is not the last to finish" << text;
  EXPECT_EQ(latest, doc["time_ps"].Int());
}

TEST(Utilisation, TextSummaryOfMeshNamesBusiestLinkAndLastRank) {
  ExpectSummaryAgreesWithJson(kMesh);
}

// On a ring the middle links carry more traffic than the ends: the busiest
// line must pick one of those.
TEST(Utilisation, TextSummaryOnRingTopologyNamesTheMostLoadedLink) {
  ExpectSummaryAgreesWithJson(Args(kMesh, {"--set", "interconnect.topology=ring"}));
}

TEST(Utilisation, LinksAreNamedByNpuWhenDevicesAreChosen) {
  JsonDoc doc;
  ASSERT_TRUE(RunJson({"run", "--algo", "allreduce_mesh", "-d", "1,5,6", "--size", "4KiB"}, &doc));
  std::set<std::pair<long long, long long>> got,
      want = {{1, 5}, {1, 6}, {5, 1}, {5, 6}, {6, 1}, {6, 5}};
  for (size_t i = 0; i < doc["links"].Size(); i++)
    got.insert({doc["links"][i]["from"].Int(), doc["links"][i]["to"].Int()});
  EXPECT_EQ(got, want);
  ASSERT_EQ(doc["hbm"].Size(), 3u);
  for (size_t i = 0; i < 3; i++) EXPECT_EQ(doc["hbm"][i]["rank"].Int(), (long long)i);
}

}  // namespace
}  // namespace a2test
