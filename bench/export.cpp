// Export benchmarks on hm08 with MPFB's game_engine rig and weights: the stages of
// `rigfit export` (load + fit + bind weights, the export model, the writers) and each format's
// write time and file size side by side: .glb (float / 8-bit weights, 4 / 8 influences),
// .g4tf, .g4b, .g4b + Zstd. The "bytes" counter is the file size.
// Data: $RIGFIT_DATA or the configured ../shared/data/mpfb.
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "rigfit/character.hpp"
#include "rigfit/export_model.hpp"
#include "rigfit/g4mf.hpp"
#include "rigfit/gltf.hpp"
#include "rigfit/shape.hpp"

namespace {

using namespace rigfit;

std::string dataDir() {
  const char* env = std::getenv("RIGFIT_DATA");
  return env && *env ? env : RIGFIT_SHARED_DATA;
}

Expected<Character> loadHm08() {
  CharacterOptions o;
  o.rig = "game_engine";
  o.threads = 2;  // as `rigfit export` by default
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
    auto m = buildExportModel(out.character.body().mesh, out.character.fit.skeleton, &out.character.body().skin, &out.character.body().groups, {});
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
    auto m = buildExportModel(c.body().mesh, c.fit.skeleton, &c.body().skin, &c.body().groups, {.threads = 2, .polygons = false});  // as `rigfit export` to .glb
    benchmark::DoNotOptimize(m);
  }
  state.SetLabel(std::to_string(p.model.meshes[0].vertexCount()) + " vertices, " + std::to_string(p.model.names.size()) + " bones");
}
BENCHMARK(BM_BuildExportModel)->Unit(benchmark::kMillisecond);

// range(0): influences 4 or 8; range(1): weight bits (0 = float, 8).
void BM_WriteGlb(benchmark::State& state) {
  const Prepared& p = prepared();
  if (!p.error.empty()) return state.SkipWithError(p.error.c_str());
  const int k = static_cast<int>(state.range(0)), bits = static_cast<int>(state.range(1));
  std::size_t size = 0;
  for (auto _ : state) {
    // As rigfit export: limit (and quantise) the influences, then write.
    const GltfSkins skins = gltfSkins(p.model, k, bits);
    auto files = writeGltf(p.model, skins.streams, {.container = GltfContainer::kGlb, .rig_name = "game_engine"});
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

// The caucasian expression units (34 MakeHuman targets) as morph targets: reading them is left
// out (a batch reads each once); what is measured is their normal deltas (MorphNormals) and their
// mapping onto the export vertices (addExportMorph). The label gives the moved vertices.
void BM_MorphTargets(benchmark::State& state) {
  const Prepared& p = prepared();
  if (!p.error.empty()) return state.SkipWithError(p.error.c_str());
  const Character& c = p.character;
  const char* units[] = {"eye-left-closure", "eye-left-opened-up", "eye-left-slit", "eye-right-closure", "eye-right-opened-up",
                         "eye-right-slit", "eyebrows-left-down", "eyebrows-left-extern-up", "eyebrows-left-inner-up",
                         "eyebrows-left-up", "eyebrows-right-down", "eyebrows-right-extern-up", "eyebrows-right-inner-up",
                         "eyebrows-right-up", "mouth-compression", "mouth-corner-puller", "mouth-depression-retraction",
                         "mouth-depression", "mouth-elevation", "mouth-eversion", "mouth-open", "mouth-parling",
                         "mouth-part-later", "mouth-protusion", "mouth-pursing", "mouth-retraction", "mouth-upward-retraction",
                         "neck-platysma", "nose-compression", "nose-depression", "nose-left-dilatation", "nose-left-elevation",
                         "nose-right-dilatation", "nose-right-elevation"};
  TargetCache cache(DataSource::folder(dataDir()));
  std::vector<std::shared_ptr<const Target>> targets;
  std::size_t listed = 0;
  for (const char* u : units) {
    auto t = cache.get(std::string("expression/units/caucasian/") + u, c.body().mesh.vertexCount());
    if (!t) return state.SkipWithError(t.error().message.c_str());
    listed += (*t)->vertices.size();
    targets.push_back(*t);
  }
  std::vector<float> deltas;
  for (auto _ : state) {
    ExportModel model = p.model;
    MorphNormals normals(c.body().mesh, c.body().mesh.positions, 1);
    for (std::size_t k = 0; k < targets.size(); ++k) {
      normals.deltas(targets[k]->vertices, targets[k]->offsets, deltas);
      if (!addExportMorph(model.meshes[0], units[k], c.body().mesh.vertexCount(), targets[k]->vertices, targets[k]->offsets, deltas))
        return state.SkipWithError("addExportMorph failed");
    }
    benchmark::DoNotOptimize(model.meshes[0].morphs.data());
  }
  state.SetLabel(std::to_string(targets.size()) + " targets, " + std::to_string(listed) + " target vertices");
}
BENCHMARK(BM_MorphTargets)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
