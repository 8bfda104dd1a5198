// Complete characters: the asset stage alone (fitting, weighting and masking the assets of a
// dressed character on a loaded, fitted, weighted body), and `rigfit batch` throughput of complete
// characters written as .glb. The assets are MPFB's in ../shared/data/assets ($RIGFIT_ASSETS).
// Data: $RIGFIT_DATA or the configured ../shared/data/mpfb.
#include <unistd.h>

#include <ctime>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "pipeline/character_assets.hpp"
#include "rigfit/batch.hpp"
#include "rigfit/character.hpp"

namespace {

using namespace rigfit;

std::string dataDir() {
  const char* env = std::getenv("RIGFIT_DATA");
  return env && *env ? env : RIGFIT_SHARED_DATA;
}

std::string assetsDir() {
  const char* env = std::getenv("RIGFIT_ASSETS");
  return env && *env ? env : dataDir() + "/../assets";
}

// A complete character: high-poly eyes, eyebrows, eyelashes, teeth, tongue, hair, suit, shoes.
const char* const kOutfit[] = {"high-poly", "eyebrow001", "eyelashes01", "teeth_base", "tongue01",
                               "ponytail01", "female_casualsuit01", "shoes01"};

struct Dressed {
  Character body;              // loaded, fitted, weighted; no assets yet
  CharacterOptions options;    // the worn assets
  std::size_t asset_vertices = 0;
  std::string error;
};

const Dressed& dressed() {
  static const Dressed d = [] {
    Dressed out;
    out.options.rig = "game_engine";
    auto c = loadCharacter(DataSource::folder(dataDir()), out.options);
    if (!c) {
      out.error = c.error().message;
      return out;
    }
    out.body = std::move(*c);
    for (const char* name : kOutfit) {
      auto file = resolveDataFile(DataSource::folder(dataDir()), DataFileKind::kAsset, name, assetsDir());
      auto worn = file ? loadWornAsset(file->path, "game_engine") : Expected<WornAsset>(file.error());
      if (!worn) {
        out.error = worn.error().message;
        return out;
      }
      out.asset_vertices += worn->asset.mesh.vertexCount();
      out.options.assets.push_back(std::make_shared<const WornAsset>(std::move(*worn)));
    }
    return out;
  }();
  return d;
}

// The asset stage of loadCharacter (detail::wearAssets): every asset fitted to the body, its
// weights interpolated from the body's skin, its custom weights applied, bound to the skeleton;
// the body mask. The body is copied before each run, outside the timing.
void BM_WearAssets(benchmark::State& state) {
  const Dressed& d = dressed();
  if (!d.error.empty()) return state.SkipWithError(d.error.c_str());
  const DataSource data = DataSource::folder(dataDir());
  for (auto _ : state) {
    state.PauseTiming();
    Character c = d.body;
    state.ResumeTiming();
    Status st = detail::wearAssets(data, c, d.options);
    if (!st) return state.SkipWithError(st.error().message.c_str());
    benchmark::DoNotOptimize(c.meshes.data());
    state.PauseTiming();
    c = Character();  // freed outside the timing
    state.ResumeTiming();
  }
  state.SetLabel(std::to_string(d.options.assets.size()) + " assets, " + std::to_string(d.asset_vertices) + " vertices");
}
BENCHMARK(BM_WearAssets)->Unit(benchmark::kMillisecond);

double processCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// rigfit batch on `jobs` threads: 16 complete characters (the outfit above) of different macros,
// written as .glb. Each iteration is a whole run (its caches start empty: targets, weights and
// assets are read once per run). items/s = characters per second of wall time;
// characters_per_cpu_second = per second of the process's CPU time (all threads): per core.
// The outputs go to $RIGFIT_BENCH_OUT (default: the temporary folder), flushed to disk.
void BM_BatchCompleteGlb(benchmark::State& state) {
  const unsigned jobs = static_cast<unsigned>(state.range(0));
  std::string outfit;
  for (const char* name : kOutfit) outfit += std::string(outfit.empty() ? "" : ", ") + "\"" + name + "\"";
  std::string manifest;
  for (int i = 0; i < 16; ++i) {
    const double g = (i % 4) / 3.0, a = 0.1 + 0.8 * ((i / 4) % 4) / 3.0, m = (i % 3) / 2.0, w = ((i + 1) % 5) / 4.0;
    manifest += "{\"name\": \"c" + std::to_string(i) + "\", \"rig\": \"game_engine\", \"assets\": [" + outfit +
                "], \"shape\": {\"macros\": {\"gender\": " + std::to_string(g) + ", \"age\": " + std::to_string(a) +
                ", \"muscle\": " + std::to_string(m) + ", \"weight\": " + std::to_string(w) + "}, \"ground\": true}}\n";
  }
  const char* out = std::getenv("RIGFIT_BENCH_OUT");
  const auto dir = std::filesystem::path(out && *out ? out : std::filesystem::temp_directory_path().string()) /
                   ("rigfit_bench_assets_" + std::to_string(::getpid()));
  const DataSource data = DataSource::folder(dataDir());
  std::size_t characters = 0;
  const double cpu0 = processCpuSeconds();
  for (auto _ : state) {
    const BatchResult r = runBatch(data, "bench.jsonl", manifest, {.out_dir = dir.string(), .assets_dir = assetsDir(), .jobs = jobs});
    for (const auto& line : r.lines)
      if (!line.ok) return state.SkipWithError(line.error.c_str());
    characters += r.ok;
  }
  const double cpu = processCpuSeconds() - cpu0;
  std::filesystem::remove_all(dir);
  state.SetItemsProcessed(static_cast<std::int64_t>(characters));
  state.counters["characters_per_second"] = benchmark::Counter(static_cast<double>(characters), benchmark::Counter::kIsRate);
  state.counters["characters_per_cpu_second"] = cpu > 0 ? static_cast<double>(characters) / cpu : 0.0;
}
BENCHMARK(BM_BatchCompleteGlb)->ArgName("jobs")->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime();

}  // namespace

BENCHMARK_MAIN();
