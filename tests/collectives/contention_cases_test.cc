// Reservation timing against packet timing under contention: the cases of
// docs/timing-model.md, "Reservation under contention". Simulated times are
// deterministic, so each case's ratio (reservation / packet, and ordered /
// packet) is pinned: within 5 % where the table says so, else within 2
// points of the ratio the table shows (a move either way is a change the
// table must follow).
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "tests/support/run_cli.h"

namespace a2test {
namespace {

struct Case {
  const char *name;
  std::vector<std::string> args;
  double reservation, ordered;  // the table's ratios; 1.0: within 5 %
};

std::vector<std::string> Cluster16() {
  return {"--config", std::string(A2_SOURCE_DIR) + "/configs/a2-cluster.yaml",
          "--set",    "interconnect.ranks=16",
          "--ranks",  "16"};
}

std::vector<Case> Cases() {
  const std::string src = A2_SOURCE_DIR;
  std::vector<Case> v = {
      {"HbmEightCoresLoad1MiB",
       {"--program", src + "/traces/examples/hbm_contention.a2t", "--ranks", "1", "--param",
        "tile=1MiB", "--set", "chip.ub_size=1MiB"},
       1.0,
       1.0},
      {"Mesh48Cores",
       {"--algo", "allreduce_mesh", "--cores", "48", "--ranks", "8", "--size", "1MiB"},
       1.357,
       1.0},
      {"Mesh24Cores16MiBFp16",
       {"--algo", "allreduce_mesh", "--cores", "24", "--ranks", "8", "--size", "16MiB", "--dtype",
        "fp16"},
       1.291,
       1.086},
      {"MeshRing8",
       {"--algo", "allreduce_mesh", "--size", "64KiB", "--config", src + "/configs/ring-8.yaml",
        "--ranks", "8"},
       1.0,
       1.0},
      {"MeshTorus4x4",
       {"--algo", "allreduce_mesh", "--size", "64KiB", "--config", src + "/configs/torus-4x4.yaml",
        "--ranks", "16"},
       0.920,
       0.879},
  };
  std::vector<std::string> a2 = {"--algo", "allreduce_mesh", "--size", "64KiB"};
  for (const std::string &s : Cluster16()) a2.push_back(s);
  v.push_back({"MeshA2ClusterP16", a2, 1.0, 1.0});
  const std::string gemm_ar = src + "/traces/fidelity/gemm_ar_fused.a2t";
  v.push_back({"GemmArFused", {"--program", gemm_ar, "--ranks", "8"}, 1.067, 1.0});
  v.push_back({"GemmArSequential",
               {"--program", gemm_ar, "--ranks", "8", "--param", "overlap=0"},
               1.0,
               1.0});
  return v;
}

class ContentionCase : public ::testing::TestWithParam<Case> {};

double TimePs(const Case &c, const char *timing) {
  std::vector<std::string> args = {"run"};
  for (const std::string &a : c.args) args.push_back(a);
  for (const char *a : {"--no-data", "--no-race-check", "--json", "--set"}) args.push_back(a);
  args.push_back(std::string("interconnect.timing=") + timing);
  JsonDoc d;
  CliResult r;
  if (!RunJson(args, &d, &r)) return -1;
  return (double)d["time_ps"].Int();
}

void ExpectRatio(double got, double table, const char *what) {
  if (table == 1.0) {
    EXPECT_NEAR(got, 1.0, 0.05) << what;
  } else {
    EXPECT_NEAR(got, table, 0.02) << what << ": the table of docs/timing-model.md shows " << table;
  }
}

TEST_P(ContentionCase, RatioToPacketTimingIsTheTables) {
  const Case &c = GetParam();
  const double p = TimePs(c, "packet"), r = TimePs(c, "reservation"), o = TimePs(c, "ordered");
  ASSERT_GT(p, 0);
  ASSERT_GT(r, 0);
  ASSERT_GT(o, 0);
  std::cout << c.name << ": packet " << (long long)p << " ps, reservation " << r / p << ", ordered "
            << o / p << "\n";
  ExpectRatio(r / p, c.reservation, "reservation / packet");
  ExpectRatio(o / p, c.ordered, "ordered / packet");
}

INSTANTIATE_TEST_SUITE_P(Table, ContentionCase, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case> &i) {
                           return std::string(i.param.name);
                         });

}  // namespace
}  // namespace a2test
