// Weights benchmarks: parse (simdjson On-Demand; from a string, which is copied, and in place from a
// loaded file) and write (Python-identical JSON) each shipped
// weights file, bind game_engine's weights to its fitted skeleton, and derive fixed-K influences.
// Data: $RIGFIT_DATA or the configured ../shared/data/mpfb.
// Every benchmark also reports its fastest single iteration (best_ms, best_GBps): on a shared
// machine the mean is inflated by other processes, the best much less. With repetitions, the
// "_best" rows hold the fastest repetition:
//   rigfit_weights --benchmark_repetitions=10 --benchmark_report_aggregates_only=true
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "core/file_io.hpp"
#include "rigfit/data.hpp"
#include "rigfit/fit.hpp"
#include "rigfit/weights.hpp"

namespace {

using namespace rigfit;

std::string dataDir() {
  const char* env = std::getenv("RIGFIT_DATA");
  return env && *env ? env : RIGFIT_SHARED_DATA;
}

const char* kWeights[] = {"cmu_mb", "game_engine", "game_engine_with_breast", "mixamo", "mixamo_unity", "openpose"};

// The fastest single iteration, as counters: on a shared machine other processes inflate the
// mean, never the best. best_GBps = bytes / fastest iteration.
class Fastest {
 public:
  void start() { t0_ = std::chrono::steady_clock::now(); }
  void stop() { best_ = std::min(best_, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count()); }
  void report(benchmark::State& state, double bytes) const {
    state.counters["best_ms"] = best_ * 1e3;
    if (bytes > 0) state.counters["best_GBps"] = bytes / best_ / 1e9;
  }

 private:
  std::chrono::steady_clock::time_point t0_;
  double best_ = 1e30;
};

// A "best" aggregate next to mean/median/stddev: the fastest repetition. (For time it is the
// minimum; Google Benchmark applies the same function to the counters, where bytes_per_second is
// then the smallest: compute throughput from the best time.)
benchmark::internal::Benchmark* withBest(benchmark::internal::Benchmark* b) {
  return b->ComputeStatistics("best", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); });
}

std::string weightsPath(const char* name) { return dataDir() + "/rigs/standard/weights." + name + ".json"; }

// Parsing from memory through the public string_view API (what a caller holding the text does).
void BM_ParseWeights(benchmark::State& state, const char* name) {
  auto text = readFile(weightsPath(name));
  if (!text) return state.SkipWithError("weights file missing");
  Fastest fastest;
  for (auto _ : state) {
    fastest.start();
    auto w = parseWeights(*text, name);
    fastest.stop();
    if (!w) return state.SkipWithError(w.error().message.c_str());
    benchmark::DoNotOptimize(w);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text->size()));
  fastest.report(state, static_cast<double>(text->size()));
}

// A file's bytes as loadFile holds them (padded): read in place, without the copy the string_view
// API makes (what readWeights and loadCharacter do).
void BM_ParseWeightsInPlace(benchmark::State& state, const char* name) {
  auto file = loadFile(weightsPath(name));
  if (!file) return state.SkipWithError("weights file missing");
  Fastest fastest;
  for (auto _ : state) {
    fastest.start();
    auto w = parseWeights(*file, name);
    fastest.stop();
    if (!w) return state.SkipWithError(w.error().message.c_str());
    benchmark::DoNotOptimize(w);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * file->text().size()));
  fastest.report(state, static_cast<double>(file->text().size()));
}

// The same text through the general ordered-Json parser (simdjson DOM + conversion), for scale.
void BM_ParseWeightsAsJson(benchmark::State& state, const char* name) {
  auto text = readFile(weightsPath(name));
  if (!text) return state.SkipWithError("weights file missing");
  Fastest fastest;
  for (auto _ : state) {
    fastest.start();
    auto j = parseJson(*text, name);
    fastest.stop();
    benchmark::DoNotOptimize(j);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text->size()));
  fastest.report(state, static_cast<double>(text->size()));
}

// Reading from disk (page cache): file read + parse.
void BM_ReadWeights(benchmark::State& state, const char* name) {
  const std::string path = weightsPath(name);
  auto text = readFile(path);
  if (!text) return state.SkipWithError("weights file missing");
  Fastest fastest;
  for (auto _ : state) {
    fastest.start();
    auto w = readWeights(path);
    fastest.stop();
    benchmark::DoNotOptimize(w);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text->size()));
  fastest.report(state, static_cast<double>(text->size()));
}

void BM_WriteWeights(benchmark::State& state, const char* name, bool mpfb_rounding) {
  auto w = readWeights(weightsPath(name));
  if (!w) return state.SkipWithError("weights file missing");
  std::size_t bytes = 0;
  Fastest fastest;
  for (auto _ : state) {
    fastest.start();
    std::string out = writeWeights(*w, {.mpfb_rounding = mpfb_rounding});
    fastest.stop();
    bytes = out.size();
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
  fastest.report(state, static_cast<double>(bytes));
}

struct Bound {
  RigDefinition rig;
  Skeleton skeleton;
  WeightsFile weights;
  Skin skin;
  std::size_t vertex_count = 0;
  bool ok = false;
  Bound() {
    const DataSource data = DataSource::folder(dataDir());
    auto mesh = loadBaseMesh(data);
    if (!mesh) return;
    auto groups = loadVertexGroups(data, mesh->vertexCount());
    if (!groups) return;
    auto where = locateRig(data, "game_engine");
    if (!where) return;
    auto r = loadRig(data, *where);
    if (!r) return;
    auto fit = fitRig(*r, *mesh, *groups);
    if (!fit) return;
    auto w = readWeights(weightsPath("game_engine"), mesh->vertexCount());
    if (!w) return;
    rig = std::move(*r);
    skeleton = std::move(fit->skeleton);
    weights = std::move(*w);
    vertex_count = mesh->vertexCount();
    auto s = bindWeights(weights, skeleton, rig, vertex_count);
    if (!s) return;
    skin = std::move(*s);
    ok = true;
  }
  static Bound& get() {
    static Bound b;
    return b;
  }
};

void BM_BindWeightsGameEngine(benchmark::State& state) {
  Bound& b = Bound::get();
  if (!b.ok) return state.SkipWithError("game_engine data missing");
  Fastest fastest;
  for (auto _ : state) {
    fastest.start();
    WeightsBinding binding;
    auto skin = bindWeights(b.weights, b.skeleton, b.rig, b.vertex_count, &binding);
    fastest.stop();
    benchmark::DoNotOptimize(skin);
  }
  fastest.report(state, 0);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * b.skin.bones.size()));  // pairs/s
}
BENCHMARK(BM_BindWeightsGameEngine)->Unit(benchmark::kMicrosecond)->Apply([](auto* b) { withBest(b); });

void BM_LimitInfluencesGameEngine(benchmark::State& state) {
  Bound& b = Bound::get();
  if (!b.ok) return state.SkipWithError("game_engine data missing");
  const auto k = static_cast<std::size_t>(state.range(0));
  std::vector<std::uint16_t> bones(b.vertex_count * k);
  std::vector<float> weights(b.vertex_count * k);
  std::vector<std::uint16_t> q(b.vertex_count * k);
  Fastest fastest;
  for (auto _ : state) {
    fastest.start();
    benchmark::DoNotOptimize(limitInfluences(b.skin, static_cast<int>(k), bones, weights));
    quantizeInfluences(weights, static_cast<int>(k), 8, q);
    fastest.stop();
    benchmark::DoNotOptimize(q.data());
  }
  fastest.report(state, 0);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * b.vertex_count));  // vertices/s
}
BENCHMARK(BM_LimitInfluencesGameEngine)->Arg(4)->Arg(8)->Unit(benchmark::kMicrosecond)->Apply([](auto* b) { withBest(b); });

const int kRegistered = [] {
  for (const char* name : kWeights) {
    withBest(benchmark::RegisterBenchmark((std::string("BM_ParseWeights/") + name).c_str(), BM_ParseWeights, name)->Unit(benchmark::kMillisecond));
  }
  for (const char* name : kWeights) {
    withBest(benchmark::RegisterBenchmark((std::string("BM_ParseWeightsInPlace/") + name).c_str(), BM_ParseWeightsInPlace, name)->Unit(benchmark::kMillisecond));
  }
  for (const char* name : kWeights) {
    withBest(benchmark::RegisterBenchmark((std::string("BM_ReadWeights/") + name).c_str(), BM_ReadWeights, name)->Unit(benchmark::kMillisecond));
  }
  withBest(benchmark::RegisterBenchmark("BM_ParseWeightsAsJson/game_engine", BM_ParseWeightsAsJson, "game_engine")->Unit(benchmark::kMillisecond));
  for (const char* name : kWeights) {
    withBest(benchmark::RegisterBenchmark((std::string("BM_WriteWeights/") + name).c_str(), BM_WriteWeights, name, false)->Unit(benchmark::kMillisecond));
  }
  withBest(benchmark::RegisterBenchmark("BM_WriteWeightsMpfbRounding/game_engine", BM_WriteWeights, "game_engine", true)->Unit(benchmark::kMillisecond));
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();
