// Posing with bendy bones: poseCharacter on hm08 with the game_engine rig as shipped (no B-Bones)
// and with B-Bone settings added to three bones (spine_01, spine_02 and upperarm_l, as in
// tests/golden/bbones/character), linear and dual quaternion, 1 thread; and the B-Bone part
// alone (joint deform matrices for the pose, then the vertices weighted to a bendy bone).
//
//   ninja -C build rigfit_bbone
//   build/bench/rigfit_bbone --benchmark_repetitions=10 --benchmark_report_aggregates_only=true
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include <unistd.h>

#include <benchmark/benchmark.h>

#include "rigfit/bbone.hpp"
#include "rigfit/file_io.hpp"
#include "rigfit/json.hpp"
#include "rigfit/posing.hpp"

namespace {

using namespace rigfit;

std::string dataDir() {
  const char* env = std::getenv("RIGFIT_DATA");
  return env && *env ? env : RIGFIT_SHARED_DATA;
}

constexpr const char* kBendy = R"({
  "spine_01": {"segments": 3, "easeout": 0.6},
  "spine_02": {"segments": 4, "handle_type_start": "ABSOLUTE", "custom_handle_start": "spine_01",
               "handle_type_end": "ABSOLUTE", "custom_handle_end": "spine_03"},
  "upperarm_l": {"segments": 5, "handle_type_start": "TANGENT", "custom_handle_start": "clavicle_l",
                 "handle_type_end": "RELATIVE", "custom_handle_end": "lowerarm_l", "handle_use_scale_end": [true, false, true]}})";

struct Posed {
  Character character;
  Pose pose;
};

std::unique_ptr<Posed> load(bool bendy) {
  const DataSource data = DataSource::folder(dataDir());
  CharacterOptions o;
  o.rig = "game_engine";
  std::filesystem::path tmp;
  if (bendy) {
    auto rig = readJsonFile(dataDir() + "/rigs/standard/rig.game_engine.json");
    auto entries = parseJson(kBendy, "bench");
    if (!rig || !entries) return nullptr;
    for (const auto& [bone, bb] : entries->members()) rig->find(bone)->members().emplace_back("bendy_bone", bb);
    tmp = std::filesystem::temp_directory_path() / ("rigfit_bench_bbone_" + std::to_string(::getpid()) + ".json");
    if (!writeFileAtomic(tmp.string(), writeJson(*rig)).ok()) return nullptr;
    o.rig = tmp.string();
    o.weights = dataDir() + "/rigs/standard/weights.game_engine.json";
  }
  auto c = loadCharacter(data, o);
  if (!tmp.empty()) std::filesystem::remove(tmp);
  if (!c) {
    std::fprintf(stderr, "%s\n", c.error().message.c_str());
    return nullptr;
  }
  auto p = std::make_unique<Posed>(Posed{std::move(*c), {}});
  PoseRequest request;
  for (const char* r : {"spine_01=10,0,5", "spine_02=15,0,0", "spine_03=0,20,10", "clavicle_l=0,0,10",
                        "upperarm_l=0,30,40", "lowerarm_l=50,0,0"})
    request.rotations.push_back(*parseBoneRotation(r, BoneRotation::Kind::kEulerXyzDegrees));
  if (!buildPose(data, p->character, request, p->pose, nullptr).ok()) return nullptr;
  return p;
}

const Posed* cached(bool bendy) {
  static std::unique_ptr<Posed> plain = load(false), with = load(true);
  return bendy ? with.get() : plain.get();
}

void BM_PoseCharacter(benchmark::State& state) {
  const Posed* p = cached(state.range(0) != 0);
  if (!p) {
    state.SkipWithError("no data");
    return;
  }
  const bool dq = state.range(1) != 0;
  PosedMesh out;
  for (auto _ : state) {
    if (!poseCharacter(p->character, p->pose, dq, 1, out).ok()) state.SkipWithError("pose failed");
    benchmark::DoNotOptimize(out.positions.data());
  }
}
BENCHMARK(BM_PoseCharacter)->ArgNames({"bendy", "dq"})->Args({0, 0})->Args({1, 0})->Args({0, 1})->Args({1, 1})->Unit(benchmark::kMicrosecond);

void BM_BendyPart(benchmark::State& state) {
  const Posed* p = cached(true);
  if (!p) {
    state.SkipWithError("no data");
    return;
  }
  const Skeleton& s = p->character.fit.skeleton;
  const Mesh& mesh = p->character.body().mesh;
  const Skin& skin = p->character.body().skin;
  std::vector<Eigen::Matrix4d> pm(s.size()), sk(s.size());
  poseMatrices(s, p->pose, pm);
  skinningMatrices(s, pm, sk);
  std::vector<float> out(mesh.positions.begin(), mesh.positions.end());
  BBoneSkinning bb;
  std::size_t n = 0;
  for (auto _ : state) {
    bboneSkinningMatrices(s, p->pose, pm, bb);
    n = skinBendyVertices(s, bb, sk, skin, state.range(0) != 0, mesh.positions, {}, out, {});
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["vertices"] = static_cast<double>(n);
}
BENCHMARK(BM_BendyPart)->ArgName("dq")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
