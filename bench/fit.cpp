// Fitting-core benchmarks: load base.obj, parse rig files, prepare and fit every shipped rig.
// Data: $RIGFIT_DATA or the configured ../shared/data/mpfb.
#include <cstdlib>
#include <string>

#include <benchmark/benchmark.h>

#include "core/file_io.hpp"
#include "rigfit/data.hpp"
#include "rigfit/fit.hpp"

namespace {

using namespace rigfit;

std::string dataDir() {
  const char* env = std::getenv("RIGFIT_DATA");
  return env && *env ? env : RIGFIT_SHARED_DATA;
}

const char* kRigs[] = {"cmu_mb", "default", "default_no_toes", "game_engine", "game_engine_with_breast",
                       "mixamo", "mixamo_unity", "openpose", "rigify.human", "rigify.human_toes"};

struct Fixture {
  DataSource data = DataSource::folder(dataDir());
  Mesh mesh;
  VertexGroups groups;
  bool ok = false;
  Fixture() {
    auto m = loadBaseMesh(data);
    if (!m) return;
    mesh = std::move(*m);
    auto g = loadVertexGroups(data, mesh.vertexCount());
    if (!g) return;
    groups = std::move(*g);
    ok = true;
  }
  static Fixture& get() {
    static Fixture f;
    return f;
  }
};

void BM_LoadBaseObj(benchmark::State& state) {
  const std::string path = dataDir() + "/3dobjs/base.obj";
  auto bytes = readFile(path);
  if (!bytes) return state.SkipWithError("base.obj missing");
  for (auto _ : state) {
    auto m = readObj(path);
    benchmark::DoNotOptimize(m);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes->size()));
}
BENCHMARK(BM_LoadBaseObj)->Unit(benchmark::kMillisecond);

void BM_ParseObjInMemory(benchmark::State& state) {
  auto bytes = readFile(dataDir() + "/3dobjs/base.obj");
  if (!bytes) return state.SkipWithError("base.obj missing");
  for (auto _ : state) {
    auto m = parseObj(*bytes, "base.obj");
    benchmark::DoNotOptimize(m);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes->size()));
}
BENCHMARK(BM_ParseObjInMemory)->Unit(benchmark::kMillisecond);

// A rig's text read into a RigDefinition (every key kept as Json, typed fields).
void BM_ParseRig(benchmark::State& state, const char* name) {
  Fixture& f = Fixture::get();
  auto where = locateRig(f.data, name);
  if (!where) return state.SkipWithError("rig missing");
  auto text = f.data.read(where->path);
  if (!text) return state.SkipWithError("rig missing");
  for (auto _ : state) {
    auto rig = parseRig(*text, name);
    benchmark::DoNotOptimize(rig);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text->size()));
}

void BM_PrepareRig(benchmark::State& state, const char* name) {
  Fixture& f = Fixture::get();
  if (!f.ok) return state.SkipWithError("data missing");
  auto rig = loadRig(f.data, *locateRig(f.data, name));
  if (!rig) return state.SkipWithError("rig missing");
  for (auto _ : state) {
    auto p = prepareRig(*rig, f.groups, f.mesh.vertexCount(), 0.1);
    benchmark::DoNotOptimize(p);
  }
}

// The fit itself: mesh loaded and rig prepared, as when refitting many bodies.
void BM_Fit(benchmark::State& state, const char* name) {
  Fixture& f = Fixture::get();
  if (!f.ok) return state.SkipWithError("data missing");
  auto rig = loadRig(f.data, *locateRig(f.data, name));
  if (!rig) return state.SkipWithError("rig missing");
  auto prepared = prepareRig(*rig, f.groups, f.mesh.vertexCount(), 0.1);
  if (!prepared) return state.SkipWithError(prepared.error().message.c_str());
  FitResult out;
  for (auto _ : state) {
    Status s = fitSkeleton(*prepared, f.mesh.positions, out);
    benchmark::DoNotOptimize(s);
    benchmark::DoNotOptimize(out.skeleton.rest.data());
  }
  state.counters["bones"] = static_cast<double>(out.skeleton.size());
}

[[maybe_unused]] const bool kRegistered = [] {
  for (const char* r : kRigs) {
    benchmark::RegisterBenchmark((std::string("BM_ParseRig/") + r).c_str(), BM_ParseRig, r)->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark((std::string("BM_PrepareRig/") + r).c_str(), BM_PrepareRig, r)->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark((std::string("BM_Fit/") + r).c_str(), BM_Fit, r)->Unit(benchmark::kMicrosecond);
  }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
