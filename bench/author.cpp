// Rig authoring benchmarks: position info (joint cube centres + KD-trees) on hm08, and saving the
// 213-bone Rigify rig with automatic strategies (MPFB's "Save rig"; MPFB needed KD-trees for it),
// beside a brute-force nearest search to show what the index buys.
// Data: $RIGFIT_DATA or the configured ../shared/data/mpfb.
#include <cstdlib>
#include <string>

#include <benchmark/benchmark.h>

#include "rigfit/author.hpp"
#include "rigfit/data.hpp"
#include "rigfit/fit.hpp"

namespace {

using namespace rigfit;

std::string dataDir() {
  const char* env = std::getenv("RIGFIT_DATA");
  return env && *env ? env : RIGFIT_SHARED_DATA;
}

struct Fixture {
  DataSource data = DataSource::folder(dataDir());
  Mesh mesh;
  VertexGroups groups;
  PositionInfo info;
  RigDefinition rig;
  std::vector<BonePlacement> placements;
  bool ok = false;
  Fixture() {
    auto m = loadBaseMesh(data);
    if (!m) return;
    mesh = std::move(*m);
    auto g = loadVertexGroups(data, mesh.vertexCount());
    if (!g) return;
    groups = std::move(*g);
    auto i = makePositionInfo(mesh.positions, groups, static_cast<double>(mesh.scale_factor));
    if (!i) return;
    info = std::move(*i);
    auto where = locateRig(data, "rigify.human_toes");
    if (!where) return;
    auto r = loadRig(data, *where);
    if (!r) return;
    rig = std::move(*r);
    auto f = fitRig(rig, mesh, groups);
    if (!f) return;
    placements = placementsFromSkeleton(f->skeleton);
    ok = true;
  }
  static Fixture& get() {
    static Fixture f;
    return f;
  }
};

void BM_PositionInfo(benchmark::State& state) {
  Fixture& f = Fixture::get();
  if (!f.ok) return state.SkipWithError("MPFB data missing");
  for (auto _ : state) {
    auto i = makePositionInfo(f.mesh.positions, f.groups);
    benchmark::DoNotOptimize(i);
  }
}
BENCHMARK(BM_PositionInfo)->Unit(benchmark::kMillisecond);

// The whole save of rigify.human_toes (213 bones, 426 ends): automatic choice for every end,
// saved strategies checked (docs/mpfb-behaviour.md §6.4), rounding, bone entries.
void BM_SaveRigify213(benchmark::State& state) {
  Fixture& f = Fixture::get();
  if (!f.ok) return state.SkipWithError("MPFB data missing");
  SaveOptions o;
  o.use_saved = state.range(0) != 0;
  for (auto _ : state) {
    auto r = saveRig(f.rig, f.placements, f.info, o);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * 2 * f.placements.size()));
  state.SetLabel(o.use_saved ? "with saved strategies" : "automatic only");
}
BENCHMARK(BM_SaveRigify213)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

// Save + write the JSON text (what `rigfit save-rig` does after loading).
void BM_SaveAndWriteRigify213(benchmark::State& state) {
  Fixture& f = Fixture::get();
  if (!f.ok) return state.SkipWithError("MPFB data missing");
  for (auto _ : state) {
    auto r = saveRig(f.rig, f.placements, f.info);
    std::string text = writeRig(*r);
    benchmark::DoNotOptimize(text);
  }
}
BENCHMARK(BM_SaveAndWriteRigify213)->Unit(benchmark::kMillisecond);

// One nearest-vertex query per bone end: KD-tree vs a linear scan over the 19158 vertices.
void BM_NearestVertex(benchmark::State& state) {
  Fixture& f = Fixture::get();
  if (!f.ok) return state.SkipWithError("MPFB data missing");
  const bool tree = state.range(0) != 0;
  for (auto _ : state) {
    for (const BonePlacement& p : f.placements) {
      if (tree) {
        benchmark::DoNotOptimize(f.info.vertex_tree.nearest(p.head));
      } else {
        std::size_t best = 0;
        double bd = 1e300;
        for (std::size_t v = 0; v < f.info.vertices.size(); ++v) {
          const double d = (f.info.vertices[v] - p.head).squaredNorm();
          if (d < bd) bd = d, best = v;
        }
        benchmark::DoNotOptimize(best);
      }
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * f.placements.size()));
  state.SetLabel(tree ? "KD-tree" : "linear scan");
}
BENCHMARK(BM_NearestVertex)->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
