// Export benchmarks on hm08 with MPFB's game_engine rig and weights: the stages of
// `rigfit export` (load + fit + bind weights, the export model, the writers) and each format's
// write time and file size side by side: .glb (float / 8-bit weights, 4 / 8 influences),
// .g4tf, .g4b, .g4b + Zstd. The "bytes" counter is the file size.
// Data: $RIGFIT_DATA or the configured ../shared/data/mpfb.
#include <cstdlib>
#include <string>

#include <benchmark/benchmark.h>

#include "rigfit/character.hpp"
#include "rigfit/export_model.hpp"
#include "rigfit/g4mf.hpp"
#include "rigfit/gltf.hpp"

namespace {

using namespace rigfit;

std::string dataDir() {
  const char* env = std::getenv("RIGFIT_DATA");
  return env && *env ? env : RIGFIT_SHARED_DATA;
}

Expected<Character> loadHm08() {
  CharacterOptions o;
  o.rig = "game_engine";
  return loadCharacter(DataSource::folder(dataDir()), o);
}

struct Prepared {
  Character character;
  ExportModel model;
  std::string error;
};

const Prepared& prepared() {
  static const Prepared p = [] {
    Prepared out;
    auto c = loadHm08();
    if (!c) {
      out.error = c.error().message;
      return out;
    }
    out.character = std::move(*c);
    auto m = buildExportModel(out.character.mesh, out.character.fit.skeleton, &out.character.skin, &out.character.groups, {});
    if (!m) {
      out.error = m.error().message;
      return out;
    }
    out.model = std::move(*m);
    return out;
  }();
  return p;
}

// Load the body, vertex groups, rig and weights, fit and bind: everything before the export model.
void BM_LoadCharacter(benchmark::State& state) {
  for (auto _ : state) {
    auto c = loadHm08();
    if (!c) return state.SkipWithError(c.error().message.c_str());
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_LoadCharacter)->Unit(benchmark::kMillisecond);

void BM_BuildExportModel(benchmark::State& state) {
  const Prepared& p = prepared();
  if (!p.error.empty()) return state.SkipWithError(p.error.c_str());
  const Character& c = p.character;
  for (auto _ : state) {
    auto m = buildExportModel(c.mesh, c.fit.skeleton, &c.skin, &c.groups, {});
    benchmark::DoNotOptimize(m);
  }
  state.SetLabel(std::to_string(p.model.vertexCount()) + " vertices, " + std::to_string(p.model.names.size()) + " bones");
}
BENCHMARK(BM_BuildExportModel)->Unit(benchmark::kMillisecond);

// range(0): influences 4 or 8; range(1): weight bits (0 = float, 8).
void BM_WriteGlb(benchmark::State& state) {
  const Prepared& p = prepared();
  if (!p.error.empty()) return state.SkipWithError(p.error.c_str());
  const int k = static_cast<int>(state.range(0)), bits = static_cast<int>(state.range(1));
  const std::size_t n = p.model.vertexCount() * static_cast<std::size_t>(k);
  std::size_t size = 0;
  for (auto _ : state) {
    // As rigfit export: limit (and quantise) the influences, then write.
    std::vector<std::uint16_t> joints(n), quantized;
    std::vector<float> weights(n);
    limitInfluences(p.model.skin, k, joints, weights);
    GltfSkinStreams streams{.influences = k, .joints = joints, .weights = weights};
    if (bits) {
      quantized.resize(n);
      quantizeInfluences(weights, k, bits, quantized);
      streams.weight_bits = bits;
      streams.quantized_weights = quantized;
    }
    auto files = writeGltf(p.model, streams, {.container = GltfContainer::kGlb, .rig_name = "game_engine"});
    if (!files) return state.SkipWithError(files.error().message.c_str());
    size = files->main.size();
    benchmark::DoNotOptimize(files);
  }
  state.counters["bytes"] = static_cast<double>(size);
  state.SetLabel(std::string(".glb ") + std::to_string(k) + " influences, " + (bits ? "8-bit" : "float") + " weights");
}
BENCHMARK(BM_WriteGlb)->Args({4, 0})->Args({8, 0})->Args({4, 8})->Unit(benchmark::kMillisecond);

// range(0): 0 .g4tf, 1 .g4b, 2 .g4b + Zstd (level 3).
void BM_WriteG4mf(benchmark::State& state) {
  const Prepared& p = prepared();
  if (!p.error.empty()) return state.SkipWithError(p.error.c_str());
  G4mfWriteOptions o;
  o.container = state.range(0) == 0 ? G4mfContainer::kText : G4mfContainer::kBinary;
  o.zstd = state.range(0) == 2;
  o.rig_name = "game_engine";
  std::size_t size = 0;
  for (auto _ : state) {
    auto bytes = writeG4mf(p.model, o);
    if (!bytes) return state.SkipWithError(bytes.error().message.c_str());
    size = bytes->size();
    benchmark::DoNotOptimize(bytes);
  }
  static const char* kFormat[] = {".g4tf", ".g4b", ".g4b+zstd"};
  state.counters["bytes"] = static_cast<double>(size);
  state.SetLabel(kFormat[state.range(0)]);
}
BENCHMARK(BM_WriteG4mf)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
