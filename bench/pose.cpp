// Pose evaluation benchmarks: poseMatrices for a fitted rig in a random pose, with the rig's
// constraints (the Rigify meta-rig: 27 ARMATURE / TRANSFORM / COPY_TRANSFORMS constraints on 11
// bones) and, for comparison, without them. The worst case turns every bone by XYZ Euler angles
// (three sincos per bone); "own modes" keeps each bone's rotation mode from the rig (the meta-rig:
// 138 quaternion bones, 47 Euler ones), as a pose made for the rig sets it. Data: $RIGFIT_DATA or
// the configured ../shared/data/mpfb.
#include <cstdlib>
#include <random>
#include <string>

#include <benchmark/benchmark.h>
#include <Eigen/Geometry>

#include "rigfit/data.hpp"
#include "rigfit/fit.hpp"
#include "rigfit/pose.hpp"

namespace {

using namespace rigfit;

std::string dataDir() {
  const char* env = std::getenv("RIGFIT_DATA");
  return env && *env ? env : RIGFIT_SHARED_DATA;
}

// The fitted skeleton of a rig on the base mesh and a random pose (rotations up to 0.5 rad).
struct Posed {
  Skeleton skeleton;
  Pose pose;
  bool ok = false;
  explicit Posed(const char* rig_name, bool own_modes = false) {
    const DataSource data = DataSource::folder(dataDir());
    auto mesh = loadBaseMesh(data);
    if (!mesh) return;
    auto groups = loadVertexGroups(data, mesh->vertexCount());
    auto where = locateRig(data, rig_name);
    if (!groups || !where) return;
    auto rig = loadRig(data, *where);
    if (!rig) return;
    auto fit = fitRig(*rig, *mesh, *groups);
    if (!fit) return;
    skeleton = std::move(fit->skeleton);
    pose = Pose::rest(skeleton);
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> angle(-0.5, 0.5);
    for (BonePose& b : pose.bones) {
      if (!own_modes) b.rotation_mode = RotationMode::kXYZ;
      b.euler = {angle(rng), angle(rng), angle(rng)};
      // The same turn as a quaternion (w, x, y, z) for bones in QUATERNION mode.
      const Eigen::Quaterniond q(Eigen::AngleAxisd(b.euler.z(), Eigen::Vector3d::UnitZ()) *
                                 Eigen::AngleAxisd(b.euler.y(), Eigen::Vector3d::UnitY()) *
                                 Eigen::AngleAxisd(b.euler.x(), Eigen::Vector3d::UnitX()));
      b.quaternion = {q.w(), q.x(), q.y(), q.z()};
    }
    ok = true;
  }
};

void BM_PoseMatrices(benchmark::State& state, const char* rig_name, bool constraints, bool own_modes = false) {
  static Posed human("rigify.human");
  static Posed human_own("rigify.human", true);
  static Posed game("game_engine");
  Posed& p = std::string(rig_name) == "rigify.human" ? (own_modes ? human_own : human) : game;
  if (!p.ok) return state.SkipWithError("rig or data missing");
  Skeleton s = p.skeleton;
  if (!constraints) {
    s.constraints.clear();
    s.eval_order.clear();
  }
  std::vector<Eigen::Matrix4d> out(s.size());
  for (auto _ : state) {
    poseMatrices(s, p.pose, out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.counters["bones"] = static_cast<double>(s.size());
  state.SetItemsProcessed(state.iterations());  // items = whole poses
}

BENCHMARK_CAPTURE(BM_PoseMatrices, rigify_human_constraints, "rigify.human", true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_PoseMatrices, rigify_human_no_constraints, "rigify.human", false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_PoseMatrices, rigify_human_constraints_own_modes, "rigify.human", true, true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_PoseMatrices, game_engine, "game_engine", false)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
