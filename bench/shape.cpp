// Body shapes and batch generation: applying MPFB's new human's targets (with the targets already
// loaded, and with loading them), and batch throughput in characters per second (each shaped,
// fitted, weighted, skinned into the export model and written as .glb).
// Data: $RIGFIT_DATA or the configured ../shared/data/mpfb.
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

#include <benchmark/benchmark.h>

#include "rigfit/batch.hpp"
#include "rigfit/data.hpp"
#include "rigfit/shape.hpp"

namespace {

using namespace rigfit;

std::string dataDir() {
  const char* env = std::getenv("RIGFIT_DATA");
  return env && *env ? env : RIGFIT_SHARED_DATA;
}

// Targets loaded once (as a batch shares them): the macro interpolation and the float mix.
void BM_ApplyDefaultHuman_TargetsLoaded(benchmark::State& state) {
  const DataSource data = DataSource::folder(dataDir());
  auto mesh = loadBaseMesh(data);
  if (!mesh) return state.SkipWithError(mesh.error().message.c_str());
  TargetCache cache(data);
  const ShapeRequest request{.use_macros = true, .ground = true};
  std::vector<float> p = mesh->positions;
  if (!shapeBody(cache, request, p).ok()) return state.SkipWithError("shapeBody failed");
  for (auto _ : state) {
    p = mesh->positions;
    Status st = shapeBody(cache, request, p);
    benchmark::DoNotOptimize(st);
    benchmark::DoNotOptimize(p.data());
  }
}
BENCHMARK(BM_ApplyDefaultHuman_TargetsLoaded)->Unit(benchmark::kMicrosecond);

// A fresh cache every time: macro.json and the 8 targets read, gunzipped and parsed, then mixed.
void BM_ApplyDefaultHuman_WithLoading(benchmark::State& state) {
  const DataSource data = DataSource::folder(dataDir());
  auto mesh = loadBaseMesh(data);
  if (!mesh) return state.SkipWithError(mesh.error().message.c_str());
  const ShapeRequest request{.use_macros = true, .ground = true};
  std::vector<float> p;
  for (auto _ : state) {
    TargetCache cache(data);
    p = mesh->positions;
    Status st = shapeBody(cache, request, p);
    if (!st) return state.SkipWithError(st.error().message.c_str());
    benchmark::DoNotOptimize(p.data());
  }
}
BENCHMARK(BM_ApplyDefaultHuman_WithLoading)->Unit(benchmark::kMillisecond);

// rigfit batch on `jobs` threads: 16 game_engine characters with different macros, written as .glb.
// Each iteration is a whole run (its target cache starts empty). items/s = characters per second.
void BM_BatchGlb(benchmark::State& state) {
  const unsigned jobs = static_cast<unsigned>(state.range(0));
  std::string manifest;
  for (int i = 0; i < 16; ++i) {
    const double g = (i % 4) / 3.0, a = 0.1 + 0.8 * ((i / 4) % 4) / 3.0, m = (i % 3) / 2.0, w = ((i + 1) % 5) / 4.0;
    manifest += "{\"name\": \"c" + std::to_string(i) + "\", \"rig\": \"game_engine\", \"shape\": {\"macros\": {\"gender\": " +
                std::to_string(g) + ", \"age\": " + std::to_string(a) + ", \"muscle\": " + std::to_string(m) +
                ", \"weight\": " + std::to_string(w) + "}, \"ground\": true}}\n";
  }
  const auto dir = std::filesystem::temp_directory_path() / ("rigfit_bench_batch_" + std::to_string(::getpid()));
  const DataSource data = DataSource::folder(dataDir());
  std::size_t characters = 0;
  for (auto _ : state) {
    const BatchResult r = runBatch(data, "bench.jsonl", manifest, {.out_dir = dir.string(), .jobs = jobs});
    for (const auto& line : r.lines)
      if (!line.ok) return state.SkipWithError(line.error.c_str());
    characters += r.ok;
  }
  std::filesystem::remove_all(dir);
  state.SetItemsProcessed(static_cast<std::int64_t>(characters));
  state.counters["characters_per_second"] = benchmark::Counter(static_cast<double>(characters), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_BatchGlb)->ArgName("jobs")->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
