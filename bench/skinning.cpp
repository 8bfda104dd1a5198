// Skinning benchmarks, each next to the memory bandwidth it competes with:
//  - hm08: the real base mesh size (19158 vertices) with the real game_engine weights
//    ($RIGFIT_DATA or the configured data folder: rigs/standard/weights.game_engine.json, parsed
//    here; a synthetic skin with the same influence-count histogram when it is missing);
//  - 20,000 and 1,000,000 vertices with exactly 4 influences (neighbouring vertices share bones,
//    as on a real mesh; one run with random bones shows the incoherent worst case);
//  positions + normals unless named otherwise, 1 and 2 threads (an Executor), reported as
//  vertices per second (items_per_second) and Mvert/s.
//  - Triad (a[i] = b[i] + s * c[i]) over the same footprint as the skinning run (72 bytes per
//    vertex: 24 in, 24 out, 24 for the influences; STREAM's byte count, 12 per element), with the
//    same threads, reported as GB/s and as the Mvert/s bound at 72 bytes per vertex.
//
//   ninja -C build rigfit_skinning
//   build/bench/rigfit_skinning --benchmark_repetitions=30 --benchmark_min_time=0.02 --benchmark_report_aggregates_only=true
// On a shared machine read the _median rows, and the time of the _min rows (the fastest
// repetition; their rate counters are the minimum rates, i.e. of the slowest one).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Geometry>
#include <benchmark/benchmark.h>

#include "rigfit/json.hpp"
#include "rigfit/skinning.hpp"
#include "skin/skinning_kernels.hpp"

namespace {

using namespace rigfit;

std::string dataDir() {
  const char* env = std::getenv("RIGFIT_DATA");
  return env && *env ? env : RIGFIT_SHARED_DATA;
}

constexpr std::size_t kHm08Vertices = 19158;
constexpr double kBytesPerVertex = 72.0;

// The game_engine weights as bindWeights makes them (one bone per group, summed, clamped to
// [0, 1], descending weight), or null.
std::unique_ptr<Skin> loadGameEngineSkin() {
  auto file = readJsonFile(dataDir() + "/rigs/standard/weights.game_engine.json");
  if (!file) return nullptr;
  const Json* groups = file->find("weights");
  if (groups == nullptr || !groups->isObject()) return nullptr;
  std::vector<std::map<int, double>> per(kHm08Vertices);
  int bone = 0;
  for (const auto& [name, pairs] : groups->members()) {
    for (const Json& pr : pairs.items()) {
      const auto v = static_cast<std::size_t>(pr.items()[0].asInt());
      if (v < kHm08Vertices) per[v][bone] = std::min(1.0, per[v][bone] + pr.items()[1].asDouble());
    }
    ++bone;
  }
  auto skin = std::make_unique<Skin>();
  skin->vertex_count = kHm08Vertices;
  skin->bone_count = static_cast<std::size_t>(bone);
  skin->offsets.push_back(0);
  for (const auto& m : per) {
    std::vector<std::pair<int, double>> inf(m.begin(), m.end());
    std::stable_sort(inf.begin(), inf.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [b, w] : inf) {
      skin->bones.push_back(static_cast<std::uint16_t>(b));
      skin->weights.push_back(static_cast<float>(w));
    }
    skin->offsets.push_back(static_cast<std::uint32_t>(skin->bones.size()));
  }
  return skin;
}

// Per vertex `counts[v]` influences with random weights. Coherent (as on a real mesh): vertex v
// uses consecutive bones from a start that moves slowly along the mesh (plus 0 or 1 at random),
// so 16 neighbouring vertices share about k + 1 bones. Incoherent: distinct bones at random.
Skin syntheticSkin(const std::vector<int>& counts, std::size_t bones, std::uint32_t seed, bool coherent = true) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> w(0.05f, 1.0f);
  Skin skin;
  skin.vertex_count = counts.size();
  skin.bone_count = bones;
  skin.offsets.push_back(0);
  for (std::size_t v = 0; v < counts.size(); ++v) {
    const std::size_t start = (v * (bones - 9)) / counts.size() + rng() % 2;
    std::vector<std::pair<int, float>> inf;
    for (int i = 0; i < counts[v]; ++i) {
      int b = static_cast<int>(start) + i;
      if (!coherent) {
        do {
          b = static_cast<int>(rng() % bones);
        } while (std::any_of(inf.begin(), inf.end(), [&](const auto& p) { return p.first == b; }));
      }
      inf.push_back({b, w(rng)});
    }
    std::sort(inf.begin(), inf.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [b, x] : inf) {
      skin.bones.push_back(static_cast<std::uint16_t>(b));
      skin.weights.push_back(x);
    }
    skin.offsets.push_back(static_cast<std::uint32_t>(skin.bones.size()));
  }
  return skin;
}

// A skin, its layout, a pose and the vertex streams (64-byte aligned, as SkinningJob advises).
struct Mesh {
  Skin skin;
  SkinningLayout layout;
  std::vector<float> matrices, rest;
  AlignedFloats in_p, in_n, out_p, out_n;
  std::string source;

  Mesh(Skin s, std::string src) : skin(std::move(s)), source(std::move(src)) {
    layout = *SkinningLayout::build(skin);
    std::mt19937 rng(1234);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<Eigen::Matrix4d> mats, rests;
    for (std::size_t b = 0; b < skin.bone_count; ++b) {
      Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
      m.topLeftCorner<3, 3>() =
          Eigen::AngleAxisd(0.8 * u(rng), Eigen::Vector3d(u(rng), u(rng), u(rng) + 1.5).normalized()).toRotationMatrix() *
          (Eigen::Vector3d(1, 1, 1) + 0.1 * Eigen::Vector3d(u(rng), u(rng), u(rng))).asDiagonal();
      m.col(3).head<3>() = 0.2 * Eigen::Vector3d(u(rng), u(rng), u(rng));
      mats.push_back(m);
      rests.push_back(Eigen::Matrix4d::Identity());
    }
    matrices.resize(12 * mats.size());
    rest.resize(12 * rests.size());
    packSkinningMatrices(mats, matrices);
    packSkinningMatrices(rests, rest);
    const std::size_t n = skin.vertex_count;
    in_p.resize(3 * n);
    in_n.resize(3 * n);
    out_p.assign(3 * n, 0.0f);
    out_n.assign(3 * n, 0.0f);
    for (std::size_t v = 0; v < n; ++v) {
      Eigen::Vector3f p(u(rng), u(rng), u(rng)), q(u(rng), u(rng), u(rng) + 0.01);
      q.normalize();
      for (int c = 0; c < 3; ++c) {
        in_p[3 * v + c] = p[c];
        in_n[3 * v + c] = q[c];
      }
    }
  }

  SkinningJob job(bool normals, bool dq, int threads, Executor* executor) {
    SkinningJob j;
    j.layout = &layout;
    j.matrices = matrices;
    j.rest_matrices = rest;
    j.in_positions = in_p;
    j.out_positions = out_p;
    if (normals) {
      j.in_normals = in_n;
      j.out_normals = out_n;
    }
    j.dual_quaternion = dq;
    j.threads = threads;
    j.executor = executor;
    return j;
  }
};

Mesh& hm08() {
  static Mesh m = [] {
    if (auto real = loadGameEngineSkin()) return Mesh(std::move(*real), "game_engine weights");
    // Same influence-count histogram as the real file (1..7 influences).
    const std::pair<int, int> hist[] = {{1, 9369}, {2, 5586}, {3, 1941}, {4, 1281}, {5, 962}, {6, 15}, {7, 4}};
    std::vector<int> counts;
    for (const auto& [k, c] : hist) counts.insert(counts.end(), static_cast<std::size_t>(c), k);
    std::shuffle(counts.begin(), counts.end(), std::mt19937(3));
    return Mesh(syntheticSkin(counts, 53, 7, false), "synthetic (game_engine histogram, random bones)");
  }();
  return m;
}

Mesh& fourInfluences(std::size_t n, bool coherent = true) {
  static std::map<std::pair<std::size_t, bool>, std::unique_ptr<Mesh>> cache;
  auto& m = cache[{n, coherent}];
  if (!m) {
    m = std::make_unique<Mesh>(syntheticSkin(std::vector<int>(n, 4), 53, 11, coherent),
                               coherent ? "4 influences" : "4 influences, random bones");
  }
  return *m;
}

Executor& executor() {
  static Executor e(2);
  return e;
}

void report(benchmark::State& state, std::size_t vertices) {
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * vertices));
  state.counters["Mvert/s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * vertices) * 1e-6, benchmark::Counter::kIsRate);
}

// With the kernels of `target`, or (nullopt) as SkinningJob::run chooses them.
void runSkin(benchmark::State& state, Mesh& m, bool normals, bool dq, std::optional<detail::SkinningTarget> target,
             SkinningJob::Stores stores = SkinningJob::Stores::kAuto) {
  const int threads = static_cast<int>(state.range(0));
  if (target && !detail::skinningTargetSupported(*target)) return state.SkipWithError("target not supported");
  SkinningJob job = m.job(normals, dq, threads, threads > 1 ? &executor() : nullptr);
  job.stores = stores;
  const auto run = [&] { return target ? detail::runSkinningJob(job, *target) : job.run(); };
  if (!run()) return state.SkipWithError("invalid job");
  for (auto _ : state) {
    run();
    benchmark::ClobberMemory();
  }
  report(state, m.skin.vertex_count);
  state.SetLabel(m.source + ", " + detail::skinningTargetName(target ? *target : detail::skinningBestTarget()));
}

void BM_SkinHm08(benchmark::State& state) { runSkin(state, hm08(), true, false, std::nullopt); }
void BM_SkinHm08_AVX2(benchmark::State& state) { runSkin(state, hm08(), true, false, detail::SkinningTarget::kAvx2); }
void BM_SkinHm08_PositionsOnly(benchmark::State& state) { runSkin(state, hm08(), false, false, std::nullopt); }
void BM_SkinHm08_DualQuat(benchmark::State& state) { runSkin(state, hm08(), true, true, std::nullopt); }
void BM_SkinHm08_Reference(benchmark::State& state) {
  Mesh& m = hm08();
  SkinningJob job = m.job(true, false, 1, nullptr);
  job.layout = nullptr;
  job.skin = &m.skin;
  job.reference = state.range(0) != 0;
  for (auto _ : state) job.run();
  report(state, m.skin.vertex_count);
  state.SetLabel(job.reference ? "double reference over the Skin" : "float loop over the Skin");
}
void BM_Skin4(benchmark::State& state) {
  runSkin(state, fourInfluences(static_cast<std::size_t>(state.range(1))), true, false, std::nullopt);
}
void BM_Skin4_CacheStores(benchmark::State& state) {
  runSkin(state, fourInfluences(static_cast<std::size_t>(state.range(1))), true, false, std::nullopt,
          SkinningJob::Stores::kCache);
}
void BM_Skin4_RandomBones(benchmark::State& state) {
  runSkin(state, fourInfluences(static_cast<std::size_t>(state.range(1)), false), true, false, std::nullopt);
}
void BM_Skin4_PositionsOnly(benchmark::State& state) {
  runSkin(state, fourInfluences(static_cast<std::size_t>(state.range(1))), false, false, std::nullopt);
}
void BM_Skin4_AVX2(benchmark::State& state) {
  runSkin(state, fourInfluences(static_cast<std::size_t>(state.range(1))), true, false, detail::SkinningTarget::kAvx2);
}

// a[i] = b[i] + s * c[i] over 72 bytes per vertex (three arrays of 6 floats per vertex).
__attribute__((target_clones("avx512f", "avx2", "default"))) void triad(float* __restrict a, const float* __restrict b,
                                                                         const float* __restrict c, float s,
                                                                         std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

void BM_Triad(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const auto vertices = static_cast<std::size_t>(state.range(1));
  const std::size_t n = static_cast<std::size_t>(kBytesPerVertex / 12.0) * vertices;
  static std::map<std::size_t, std::vector<float>> arrays;
  auto& buf = arrays[n];
  if (buf.empty()) buf.assign(3 * n + 64, 1.0f);
  float* a = buf.data();
  const float* b = buf.data() + n + 16;
  const float* c = buf.data() + 2 * n + 32;
  const std::function<void(int)> part = [&](int i) {
    const std::size_t lo = n * static_cast<std::size_t>(i) / static_cast<std::size_t>(threads);
    const std::size_t hi = n * static_cast<std::size_t>(i + 1) / static_cast<std::size_t>(threads);
    triad(a + lo, b + lo, c + lo, 0.5f, hi - lo);
  };
  for (auto _ : state) {
    if (threads > 1) {
      executor().parallelFor(threads, part);
    } else {
      part(0);
    }
    benchmark::ClobberMemory();
  }
  const double bytes = 12.0 * static_cast<double>(n) * static_cast<double>(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
  state.counters["bound_Mvert/s"] = benchmark::Counter(bytes / kBytesPerVertex * 1e-6, benchmark::Counter::kIsRate);
}

// With --benchmark_repetitions: the fastest repetition, next to the median (the VM is shared).
double minOf(const std::vector<double>& v) { return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end()); }

BENCHMARK(BM_SkinHm08)->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime()->ComputeStatistics("min", minOf);
BENCHMARK(BM_Triad)->ArgNames({"threads", "vertices"})->Args({1, 19158})->Args({2, 19158})->UseRealTime()->ComputeStatistics("min", minOf);
BENCHMARK(BM_SkinHm08_AVX2)->ArgName("threads")->Arg(1)->UseRealTime()->ComputeStatistics("min", minOf);
BENCHMARK(BM_SkinHm08_PositionsOnly)->ArgName("threads")->Arg(1)->UseRealTime()->ComputeStatistics("min", minOf);
BENCHMARK(BM_SkinHm08_DualQuat)->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime()->ComputeStatistics("min", minOf);
BENCHMARK(BM_SkinHm08_Reference)->ArgName("reference")->Arg(0)->Arg(1)->UseRealTime()->ComputeStatistics("min", minOf);
BENCHMARK(BM_Skin4)->ArgNames({"threads", "vertices"})->Args({1, 20000})->Args({2, 20000})->UseRealTime()->ComputeStatistics("min", minOf);
BENCHMARK(BM_Skin4_RandomBones)->ArgNames({"threads", "vertices"})->Args({1, 20000})->UseRealTime()->ComputeStatistics("min", minOf);
BENCHMARK(BM_Skin4_PositionsOnly)->ArgNames({"threads", "vertices"})->Args({1, 20000})->UseRealTime()->ComputeStatistics("min", minOf);
BENCHMARK(BM_Skin4_AVX2)->ArgNames({"threads", "vertices"})->Args({1, 20000})->UseRealTime()->ComputeStatistics("min", minOf);
BENCHMARK(BM_Triad)->ArgNames({"threads", "vertices"})->Args({1, 20000})->Args({2, 20000})->UseRealTime()->ComputeStatistics("min", minOf);
BENCHMARK(BM_Skin4)->ArgNames({"threads", "vertices"})->Args({1, 1000000})->Args({2, 1000000})->UseRealTime()->ComputeStatistics("min", minOf);
// 1,000,000 vertices stream their outputs (Stores::kAuto); the same with ordinary stores.
BENCHMARK(BM_Skin4_CacheStores)->ArgNames({"threads", "vertices"})->Args({1, 1000000})->UseRealTime()->ComputeStatistics("min", minOf);
BENCHMARK(BM_Triad)->ArgNames({"threads", "vertices"})->Args({1, 1000000})->Args({2, 1000000})->UseRealTime()->ComputeStatistics("min", minOf);

}  // namespace

BENCHMARK_MAIN();
