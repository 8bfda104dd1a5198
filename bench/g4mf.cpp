// G4MF export benchmarks: write (.g4tf, .g4b, .g4b + Zstd at levels 3 and 19), read and validate
// on the built-in demo character and on the hm08 base mesh with MPFB's game_engine rig and
// weights. Each write reports the file size ("bytes" counter); the model build is not timed.
// Data: $RIGFIT_DATA or the configured ../shared/data/mpfb (the hm08 cases are skipped without it).
#include <cstdlib>
#include <string>

#include <benchmark/benchmark.h>

#include "rigfit/data.hpp"
#include "rigfit/export_model.hpp"
#include "rigfit/fit.hpp"
#include "rigfit/g4mf.hpp"
#include "rigfit/weights.hpp"

namespace {

using namespace rigfit;

std::string dataDir() {
  const char* env = std::getenv("RIGFIT_DATA");
  return env && *env ? env : RIGFIT_SHARED_DATA;
}

struct Model {
  ExportModel model;
  std::string error;
};

Model demoModel() {
  Model out;
  const DataSource demo = DataSource::builtinDemo();
  auto mesh = loadBaseMesh(demo);
  auto groups = loadVertexGroups(demo, mesh->vertexCount());
  auto rig = loadRig(demo, *locateRig(demo, "demo"));
  auto fit = fitRig(*rig, *mesh, *groups);
  if (!fit) return {{}, fit.error().message};
  // A hand-made skin (the demo ships no weights): vertex v follows bones v mod n and v+1 mod n.
  const Skeleton& s = fit->skeleton;
  Skin skin;
  skin.vertex_count = mesh->vertexCount();
  skin.bone_count = s.size();
  skin.offsets.push_back(0);
  for (std::size_t v = 0; v < mesh->vertexCount(); ++v) {
    skin.bones.push_back(static_cast<std::uint16_t>(v % s.size()));
    skin.weights.push_back(0.75f);
    skin.bones.push_back(static_cast<std::uint16_t>((v + 1) % s.size()));
    skin.weights.push_back(0.25f);
    skin.offsets.push_back(static_cast<std::uint32_t>(skin.bones.size()));
  }
  auto m = buildExportModel(*mesh, s, &skin, &*groups, {});
  if (!m) return {{}, m.error().message};
  out.model = std::move(*m);
  return out;
}

Model hm08Model() {
  const DataSource data = DataSource::folder(dataDir());
  auto mesh = loadBaseMesh(data);
  if (!mesh) return {{}, mesh.error().message};
  auto groups = loadVertexGroups(data, mesh->vertexCount());
  if (!groups) return {{}, groups.error().message};
  auto where = locateRig(data, "game_engine");
  if (!where) return {{}, where.error().message};
  auto rig = loadRig(data, *where);
  if (!rig) return {{}, rig.error().message};
  auto fit = fitRig(*rig, *mesh, *groups);
  if (!fit) return {{}, fit.error().message};
  auto weights = readWeights(dataDir() + "/rigs/standard/weights.game_engine.json", mesh->vertexCount());
  if (!weights) return {{}, weights.error().message};
  auto skin = bindWeights(*weights, fit->skeleton, *rig, mesh->vertexCount());
  if (!skin) return {{}, skin.error().message};
  auto m = buildExportModel(*mesh, fit->skeleton, &*skin, &*groups, {});
  if (!m) return {{}, m.error().message};
  return {std::move(*m), {}};
}

const Model& model(int which) {
  static const Model demo = demoModel();
  static const Model hm08 = hm08Model();
  return which == 0 ? demo : hm08;
}

// state.range(0): 0 demo, 1 hm08; range(1): 0 .g4tf, 1 .g4b, 2 .g4b+Zstd(3), 3 .g4b+Zstd(19).
G4mfWriteOptions options(int format) {
  G4mfWriteOptions o;
  o.container = format == 0 ? G4mfContainer::kText : G4mfContainer::kBinary;
  o.zstd = format >= 2;
  o.zstd_level = format == 3 ? 19 : 3;
  o.rig_name = "game_engine";
  return o;
}

void label(benchmark::State& state, const Model& m) {
  static const char* kFormat[] = {".g4tf", ".g4b", ".g4b+zstd3", ".g4b+zstd19"};
  state.SetLabel(std::string(state.range(0) == 0 ? "demo " : "hm08 ") + kFormat[state.range(1)] + " (" +
                 std::to_string(m.model.meshes[0].vertexCount()) + " vertices, " + std::to_string(m.model.names.size()) + " bones, " +
                 std::to_string(m.model.meshes[0].skin.bones.size()) + " influences)");
}

void BM_WriteG4mf(benchmark::State& state) {
  const Model& m = model(static_cast<int>(state.range(0)));
  if (!m.error.empty()) return state.SkipWithError(m.error.c_str());
  const G4mfWriteOptions o = options(static_cast<int>(state.range(1)));
  std::size_t size = 0;
  for (auto _ : state) {
    auto bytes = writeG4mf(m.model, o);
    if (!bytes) return state.SkipWithError(bytes.error().message.c_str());
    size = bytes->size();
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["bytes"] = static_cast<double>(size);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
  label(state, m);
}
BENCHMARK(BM_WriteG4mf)->ArgsProduct({{0, 1}, {0, 1, 2, 3}})->Unit(benchmark::kMillisecond);

void BM_ReadG4mf(benchmark::State& state) {
  const Model& m = model(static_cast<int>(state.range(0)));
  if (!m.error.empty()) return state.SkipWithError(m.error.c_str());
  auto bytes = writeG4mf(m.model, options(static_cast<int>(state.range(1))));
  if (!bytes) return state.SkipWithError(bytes.error().message.c_str());
  for (auto _ : state) {
    auto doc = readG4mf(*bytes, "bench");
    if (!doc) return state.SkipWithError(doc.error().message.c_str());
    benchmark::DoNotOptimize(doc);
  }
  state.counters["bytes"] = static_cast<double>(bytes->size());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes->size()));
  label(state, m);
}
BENCHMARK(BM_ReadG4mf)->ArgsProduct({{0, 1}, {0, 1, 2}})->Unit(benchmark::kMillisecond);

void BM_ValidateG4mf(benchmark::State& state) {
  const Model& m = model(static_cast<int>(state.range(0)));
  if (!m.error.empty()) return state.SkipWithError(m.error.c_str());
  auto bytes = writeG4mf(m.model, options(static_cast<int>(state.range(1))));
  if (!bytes) return state.SkipWithError(bytes.error().message.c_str());
  for (auto _ : state) {
    auto issues = validateG4mf(*bytes, "bench");
    if (!issues.empty()) return state.SkipWithError(issues.front().message.c_str());
    benchmark::DoNotOptimize(issues);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes->size()));
  label(state, m);
}
BENCHMARK(BM_ValidateG4mf)->ArgsProduct({{0, 1}, {0, 1}})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
