// Skinning: hand-computed linear-blend and dual-quaternion cases (Blender's armature modifier),
// SIMD kernels against the double-precision reference on random meshes for every compiled SIMD
// target, threads, in-place runs, normals, and every rule validate() enforces.
#include "rigfit/skinning.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Geometry>
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include "rigfit/json.hpp"
#include "skin/skinning_kernels.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

using Influences = std::vector<std::pair<int, float>>;  // (bone, raw weight)

// A Skin as bindWeights makes it: per vertex, influences by descending weight.
Skin makeSkin(std::size_t bone_count, const std::vector<Influences>& vertices) {
  Skin s;
  s.vertex_count = vertices.size();
  s.bone_count = bone_count;
  s.offsets.push_back(0);
  for (Influences inf : vertices) {
    std::stable_sort(inf.begin(), inf.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [b, w] : inf) {
      s.bones.push_back(static_cast<std::uint16_t>(b));
      s.weights.push_back(w);
    }
    s.offsets.push_back(static_cast<std::uint32_t>(s.bones.size()));
  }
  return s;
}

std::vector<float> pack(const std::vector<Eigen::Matrix4d>& m) {
  std::vector<float> out(12 * m.size());
  packSkinningMatrices(m, out);
  return out;
}

Eigen::Matrix4d translation(double x, double y, double z) {
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  m.col(3).head<3>() = Eigen::Vector3d(x, y, z);
  return m;
}

Eigen::Matrix4d rotation(double angle, const Eigen::Vector3d& axis) {
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  m.topLeftCorner<3, 3>() = Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
  return m;
}

Eigen::Matrix4d scaling(double x, double y, double z) {
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  m.diagonal().head<3>() = Eigen::Vector3d(x, y, z);
  return m;
}

struct Result {
  std::vector<float> positions, normals;
};

enum class Path { kSimd, kSkin, kReference };
const Path kPaths[] = {Path::kSimd, Path::kSkin, Path::kReference};
const char* pathName(Path p) { return p == Path::kSimd ? "simd" : p == Path::kSkin ? "skin" : "reference"; }

struct Case {
  Skin skin;
  std::vector<float> matrices, rest;
  std::vector<float> positions, normals;
  bool dual_quaternion = false;

  // kSimd: with the kernels of `target` when given, else of the best target.
  Result run(Path path, int threads = 1, Executor* executor = nullptr,
             std::optional<detail::SkinningTarget> target = std::nullopt) const {
    Result r;
    r.positions.assign(positions.size(), -777.0f);
    r.normals.assign(normals.size(), -777.0f);
    auto layout = SkinningLayout::build(skin);
    EXPECT_TRUE(layout.ok()) << (layout.ok() ? "" : layout.error().message);
    if (!layout.ok()) return r;
    SkinningJob job;
    if (path == Path::kSimd) {
      job.layout = &*layout;
    } else {
      job.skin = &skin;
      job.reference = path == Path::kReference;
    }
    job.matrices = matrices;
    job.rest_matrices = rest;
    job.in_positions = positions;
    job.out_positions = r.positions;
    if (!normals.empty()) {
      job.in_normals = normals;
      job.out_normals = r.normals;
    }
    job.dual_quaternion = dual_quaternion;
    job.threads = threads;
    job.executor = executor;
    EXPECT_TRUE(job.validate());
    EXPECT_TRUE(target ? detail::runSkinningJob(job, *target) : job.run());
    return r;
  }
};

Eigen::Vector3f at(const std::vector<float>& v, std::size_t i) { return Eigen::Vector3f(v[3 * i], v[3 * i + 1], v[3 * i + 2]); }

#define EXPECT_VEC_NEAR(actual, ex, ey, ez, tol)                  \
  do {                                                            \
    const Eigen::Vector3f a_ = (actual);                          \
    EXPECT_NEAR(a_.x(), (ex), (tol));                             \
    EXPECT_NEAR(a_.y(), (ey), (tol));                             \
    EXPECT_NEAR(a_.z(), (ez), (tol));                             \
  } while (0)

// Runs every path (SIMD kernels, float loop over the Skin, double reference), the kernels on
// every compiled SIMD target this CPU supports.
std::vector<detail::SkinningTarget> supportedTargets() {
  std::vector<detail::SkinningTarget> out;
  for (detail::SkinningTarget t : detail::skinningCompiledTargets()) {
    if (detail::skinningTargetSupported(t)) out.push_back(t);
  }
  return out;
}

template <typename Check>
void forEveryPath(const Case& c, Check check) {
  for (Path p : kPaths) {
    if (p == Path::kSimd) {
      for (detail::SkinningTarget t : supportedTargets()) {
        SCOPED_TRACE(std::string("simd ") + detail::skinningTargetName(t));
        check(c.run(p, 1, nullptr, t));
      }
    } else {
      SCOPED_TRACE(pathName(p));
      check(c.run(p));
    }
  }
}

Case oneVertexCase(const std::vector<Eigen::Matrix4d>& mats, const Influences& inf, Eigen::Vector3f p,
                   Eigen::Vector3f n = Eigen::Vector3f(0, 0, 1)) {
  Case c;
  c.skin = makeSkin(mats.size(), {inf});
  c.matrices = pack(mats);
  c.rest = pack(std::vector<Eigen::Matrix4d>(mats.size(), Eigen::Matrix4d::Identity()));
  c.positions = {p.x(), p.y(), p.z()};
  c.normals = {n.x(), n.y(), n.z()};
  return c;
}

// ------------------------------------------------------------------------------------------------
// Hand-computed linear blend skinning.

TEST(SkinningResult, OneBoneTranslated) {
  const Case c = oneVertexCase({translation(1, 2, 3)}, {{0, 1.0f}}, {0.5f, -1.0f, 2.0f}, {0, 1, 0});
  forEveryPath(c, [](const Result& r) {
    EXPECT_VEC_NEAR(at(r.positions, 0), 1.5f, 1.0f, 5.0f, 1e-6);
    EXPECT_VEC_NEAR(at(r.normals, 0), 0, 1, 0, 1e-6);
  });
}

TEST(SkinningResult, OneBoneRotated) {
  // 90 degrees about +Z through the point (1, 0, 0).
  const Eigen::Matrix4d m = translation(1, 0, 0) * rotation(M_PI / 2, Eigen::Vector3d::UnitZ()) * translation(-1, 0, 0);
  const Case c = oneVertexCase({m}, {{0, 1.0f}}, {2, 0, 0}, {1, 0, 0});
  forEveryPath(c, [](const Result& r) {
    EXPECT_VEC_NEAR(at(r.positions, 0), 1, 1, 0, 1e-6);
    EXPECT_VEC_NEAR(at(r.normals, 0), 0, 1, 0, 1e-6);
  });
}

TEST(SkinningResult, TwoBonesHalfHalf) {
  // Bone 1 turns 90 degrees about Z: linear blend averages the two images.
  Case c = oneVertexCase({Eigen::Matrix4d::Identity(), rotation(M_PI / 2, Eigen::Vector3d::UnitZ())},
                         {{0, 0.5f}, {1, 0.5f}}, {1, 0, 0}, {1, 0, 0});
  forEveryPath(c, [](const Result& r) {
    EXPECT_VEC_NEAR(at(r.positions, 0), 0.5f, 0.5f, 0.0f, 1e-6);
    EXPECT_VEC_NEAR(at(r.normals, 0), M_SQRT1_2, M_SQRT1_2, 0, 1e-6);  // (1,1,0) renormalised
  });
  // And with translations: halfway.
  c = oneVertexCase({translation(2, 0, 0), translation(0, 4, 0)}, {{0, 0.5f}, {1, 0.5f}}, {0, 0, 1});
  forEveryPath(c, [](const Result& r) { EXPECT_VEC_NEAR(at(r.positions, 0), 1, 2, 1, 1e-6); });
}

TEST(SkinningResult, UnnormalisedWeightsAreDividedByTheirSum) {
  // A single weight 0.5 follows its bone fully (Blender 3.4; docs/mpfb-behaviour.md §7.2).
  Case c = oneVertexCase({translation(0, 0, 2)}, {{0, 0.5f}}, {1, 1, 1});
  forEveryPath(c, [](const Result& r) { EXPECT_VEC_NEAR(at(r.positions, 0), 1, 1, 3, 1e-6); });
  // 0.2 / 0.6 is 25 % / 75 %; a sum above 1 (0.9 + 0.9) is 50 / 50.
  c = oneVertexCase({translation(4, 0, 0), translation(0, 4, 0)}, {{0, 0.2f}, {1, 0.6f}}, {0, 0, 0});
  forEveryPath(c, [](const Result& r) { EXPECT_VEC_NEAR(at(r.positions, 0), 1, 3, 0, 1e-6); });
  c = oneVertexCase({translation(4, 0, 0), translation(0, 4, 0)}, {{0, 0.9f}, {1, 0.9f}}, {0, 0, 0});
  forEveryPath(c, [](const Result& r) { EXPECT_VEC_NEAR(at(r.positions, 0), 2, 2, 0, 1e-6); });
}

TEST(SkinningResult, RestVerticesKeepPositionAndNormalExactly) {
  // Totals 1e-4 (not > 1e-4), 5e-5 + 5e-5, no influence, only zero weights: at rest, bit for bit
  // (a non-unit normal stays non-unit). 2e-4 deforms fully.
  Case c;
  c.skin = makeSkin(1, {{{0, 1e-4f}}, {{0, 5e-5f}, {0, 5e-5f}}, {}, {{0, 0.0f}}, {{0, 2e-4f}}});
  c.matrices = pack({translation(1, 0, 0) * scaling(3, 1, 1)});
  for (int v = 0; v < 5; ++v) {
    c.positions.insert(c.positions.end(), {0.1f * v, 0.2f, 0.3f});
    c.normals.insert(c.normals.end(), {0.0f, 2.0f, 0.0f});
  }
  auto layout = SkinningLayout::build(c.skin);
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->restVertexCount(), 4u);
  forEveryPath(c, [&](const Result& r) {
    for (int v = 0; v < 4; ++v) {
      for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(r.positions[3 * v + k], c.positions[3 * v + k]) << v;
        EXPECT_EQ(r.normals[3 * v + k], c.normals[3 * v + k]) << v;
      }
    }
    EXPECT_VEC_NEAR(at(r.positions, 4), 1 + 3 * 0.4f, 0.2f, 0.3f, 1e-6);
    EXPECT_VEC_NEAR(at(r.normals, 4), 0, 1, 0, 1e-6);
  });
  EXPECT_TRUE(skinningDeforms(std::vector<float>{2e-4f}));
  EXPECT_FALSE(skinningDeforms(std::vector<float>{1e-4f}));
  EXPECT_FALSE(skinningDeforms(std::vector<float>{}));
}

TEST(SkinningResult, NormalsUseTheInverseTransposeUnderNonUniformScale) {
  // Scale x by 2: the plane x + y = 0 (normal (1,1,0)/sqrt 2) becomes 2y + x' = 0... its normal is
  // diag(1/2, 1, 1) n renormalised = (1, 2, 0) / sqrt 5, perpendicular to the scaled tangent.
  const float s = static_cast<float>(M_SQRT1_2);
  const Case c = oneVertexCase({scaling(2, 1, 1)}, {{0, 1.0f}}, {1, -1, 0}, {s, s, 0});
  forEveryPath(c, [](const Result& r) {
    EXPECT_VEC_NEAR(at(r.positions, 0), 2, -1, 0, 1e-6);
    const Eigen::Vector3f n = at(r.normals, 0);
    EXPECT_VEC_NEAR(n, 1 / std::sqrt(5.0f), 2 / std::sqrt(5.0f), 0, 1e-6);
    EXPECT_NEAR(n.dot(Eigen::Vector3f(2, -1, 0)), 0.0f, 1e-6);  // scaled tangent (1,-1,0) -> (2,-1,0)
  });
}

TEST(SkinningResult, NormalsFollowTheDeformedFacesEvenWhenMirrored) {
  // For a locally affine deformation the skinned normal is the normal of the deformed triangle
  // (cross product of its transformed edges), as Blender recomputes it, including det < 0.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < 20; ++trial) {
    Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
    for (int r = 0; r < 3; ++r) {
      for (int k = 0; k < 4; ++k) m(r, k) = (r == k ? 1.0 : 0.0) + 0.3 * u(rng);
    }
    if (trial % 2) m.row(0) *= -1;  // a reflection
    const Eigen::Vector3f a(0.1f, 0.2f, 0.3f), b(0.7f, -0.1f, 0.2f), cc(0.2f, 0.5f, -0.4f);
    const Eigen::Vector3f n = (b - a).cross(cc - a).normalized();
    Case c;
    c.skin = makeSkin(1, {{{0, 1.0f}}, {{0, 1.0f}}, {{0, 1.0f}}});
    c.matrices = pack({m});
    for (const Eigen::Vector3f& p : {a, b, cc}) {
      c.positions.insert(c.positions.end(), {p.x(), p.y(), p.z()});
      c.normals.insert(c.normals.end(), {n.x(), n.y(), n.z()});
    }
    forEveryPath(c, [&](const Result& r) {
      const Eigen::Vector3f pa = at(r.positions, 0), pb = at(r.positions, 1), pc = at(r.positions, 2);
      const Eigen::Vector3f face = (pb - pa).cross(pc - pa).normalized();
      for (int v = 0; v < 3; ++v) EXPECT_LT((at(r.normals, v) - face).norm(), 2e-5f) << trial;
    });
  }
}

// ------------------------------------------------------------------------------------------------
// Random meshes: SIMD == reference.

Eigen::Matrix4d randomAffine(std::mt19937& rng, bool allow_scale) {
  std::uniform_real_distribution<double> u(-1, 1), sc(0.5, 2.0);
  const Eigen::Vector3d axis(u(rng), u(rng), u(rng) + 1e-3);
  // Rotations up to ~70 degrees: blends of them stay well conditioned (as real poses are).
  Eigen::Matrix4d m = translation(u(rng), u(rng), u(rng)) * rotation(1.2 * u(rng), axis);
  if (allow_scale) m = m * scaling(sc(rng), sc(rng), sc(rng));
  return m;
}

Case randomCase(std::size_t vertices, std::size_t bones, int max_influences, std::uint32_t seed, bool scale) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> count(0, max_influences), bone(0, static_cast<int>(bones) - 1);
  std::uniform_real_distribution<float> w(0.0f, 1.0f), p(-1.0f, 1.0f);
  std::vector<Influences> inf(vertices);
  for (auto& vi : inf) {
    const int k = count(rng);
    for (int i = 0; i < k; ++i) vi.push_back({bone(rng), i == 3 ? 0.0f : w(rng)});  // some zero weights
  }
  Case c;
  c.skin = makeSkin(bones, inf);
  std::vector<Eigen::Matrix4d> mats, rest;
  for (std::size_t b = 0; b < bones; ++b) {
    mats.push_back(randomAffine(rng, scale));
    rest.push_back(randomAffine(rng, false));
  }
  c.matrices = pack(mats);
  c.rest = pack(rest);
  for (std::size_t v = 0; v < vertices; ++v) {
    c.positions.insert(c.positions.end(), {p(rng), p(rng), p(rng)});
    Eigen::Vector3f n(p(rng), p(rng), p(rng) + 0.01f);
    n.normalize();
    c.normals.insert(c.normals.end(), {n.x(), n.y(), n.z()});
  }
  return c;
}

void expectClose(const Result& a, const Result& b, double tol, const std::string& what) {
  ASSERT_EQ(a.positions.size(), b.positions.size());
  double worst_p = 0, worst_n = 0;
  for (std::size_t i = 0; i < a.positions.size(); ++i) worst_p = std::max(worst_p, double(std::abs(a.positions[i] - b.positions[i])));
  for (std::size_t i = 0; i < a.normals.size(); ++i) worst_n = std::max(worst_n, double(std::abs(a.normals[i] - b.normals[i])));
  EXPECT_LE(worst_p, tol) << what << " positions";
  EXPECT_LE(worst_n, tol) << what << " normals";
}

TEST(SkinningResult, SimdMatchesReferenceOnRandomMeshes) {
  const auto targets = supportedTargets();
  ASSERT_FALSE(targets.empty());
  struct Shape {
    std::size_t vertices, bones;
    int max_influences;
  };
  // Vertex counts around the SIMD width and the 256-vertex block; 0..12 influences.
  const Shape shapes[] = {{1, 3, 1},    {5, 4, 3},     {17, 8, 8},    {255, 20, 5},
                          {256, 53, 4}, {257, 53, 12}, {1003, 163, 9}, {4099, 31, 12}};
  std::uint32_t seed = 1;
  for (const Shape& s : shapes) {
    for (bool dq : {false, true}) {
      for (bool scale : {false, true}) {
        Case c = randomCase(s.vertices, s.bones, s.max_influences, seed++, scale);
        c.dual_quaternion = dq;
        const Result ref = c.run(Path::kReference);
        const std::string what = std::to_string(s.vertices) + " vertices, <= " + std::to_string(s.max_influences) +
                                 " influences" + (dq ? ", dual quaternion" : "") + (scale ? ", scaled" : "");
        expectClose(c.run(Path::kSkin), ref, 1e-5, what + ", float loop");
        for (detail::SkinningTarget t : targets) {
          expectClose(c.run(Path::kSimd, 1, nullptr, t), ref, 1e-5, what + ", " + detail::skinningTargetName(t));
        }
      }
    }
  }
}

TEST(SkinningResult, EveryInfluenceCountAndZeroVertices) {
  // Exactly k influences for k = 1..12, vertex count not a multiple of any SIMD width.
  for (int k = 1; k <= 12; ++k) {
    std::mt19937 rng(100 + k);
    std::uniform_real_distribution<float> w(0.05f, 1.0f), p(-1, 1);
    std::vector<Influences> inf(37);
    for (auto& vi : inf) {
      for (int i = 0; i < k; ++i) vi.push_back({(i * 5 + static_cast<int>(rng() % 7)) % 16, w(rng)});
    }
    Case c = randomCase(37, 16, 1, 500 + k, true);
    c.skin = makeSkin(16, inf);
    expectClose(c.run(Path::kSimd), c.run(Path::kReference), 1e-5, std::to_string(k) + " influences");
  }
  Case empty;
  empty.skin = makeSkin(2, {});
  empty.matrices = pack({Eigen::Matrix4d::Identity(), Eigen::Matrix4d::Identity()});
  for (Path p : kPaths) EXPECT_TRUE(empty.run(p).positions.empty());
}

TEST(SkinningResult, ThreadsGiveIdenticalResults) {
  Case c = randomCase(20011, 53, 7, 42, true);
  const Result one = c.run(Path::kSimd, 1);
  Executor executor(2);
  for (int threads : {2, 3}) {
    for (Executor* e : {static_cast<Executor*>(nullptr), &executor}) {
      const Result many = c.run(Path::kSimd, threads, e);
      EXPECT_EQ(one.positions, many.positions) << threads;
      EXPECT_EQ(one.normals, many.normals) << threads;
    }
  }
  // Reused executor, many runs; and the scalar paths split too.
  for (int i = 0; i < 20; ++i) EXPECT_EQ(c.run(Path::kSimd, 2, &executor).positions, one.positions);
  EXPECT_EQ(c.run(Path::kReference, 1).positions, c.run(Path::kReference, 2, &executor).positions);
  c.dual_quaternion = true;
  EXPECT_EQ(c.run(Path::kSimd, 1).normals, c.run(Path::kSimd, 2, &executor).normals);
}

// Non-temporal stores (Stores::kStream) write the same bits as ordinary ones, on every target,
// with and without normals, for both blends, in place, and over threads; unaligned outputs fall
// back to ordinary stores.
TEST(SkinningResult, StreamedStoresWriteTheSameBits) {
  using Floats = AlignedFloats;
  Case c = randomCase(4099, 53, 7, 77, true);
  auto layout = SkinningLayout::build(c.skin);
  ASSERT_TRUE(layout.ok());
  Executor executor(2);
  const auto run = [&](detail::SkinningTarget target, SkinningJob::Stores stores, bool normals, bool dq, int threads,
                       std::size_t skew, bool in_place, bool expect_stream) {
    Floats p(c.positions.size() + skew, -777.0f), n(c.normals.size() + skew, -777.0f);
    Floats ip(c.positions.begin(), c.positions.end()), in(c.normals.begin(), c.normals.end());
    const std::span<float> out_p(p.data() + skew, c.positions.size()), out_n(n.data() + skew, c.normals.size());
    if (in_place) {
      std::copy(c.positions.begin(), c.positions.end(), out_p.begin());
      std::copy(c.normals.begin(), c.normals.end(), out_n.begin());
    }
    SkinningJob job;
    job.layout = &*layout;
    job.matrices = c.matrices;
    job.rest_matrices = c.rest;
    job.in_positions = in_place ? std::span<const float>(out_p) : std::span<const float>(ip);
    job.out_positions = out_p;
    if (normals) {
      job.in_normals = in_place ? std::span<const float>(out_n) : std::span<const float>(in);
      job.out_normals = out_n;
    }
    job.dual_quaternion = dq;
    job.stores = stores;
    job.threads = threads;
    job.executor = threads > 1 ? &executor : nullptr;
    EXPECT_EQ(job.streams(), expect_stream);
    EXPECT_TRUE(detail::runSkinningJob(job, target));
    Result r;
    r.positions.assign(out_p.begin(), out_p.end());
    if (normals) r.normals.assign(out_n.begin(), out_n.end());
    return r;
  };
  for (detail::SkinningTarget t : supportedTargets()) {
    for (bool normals : {true, false}) {
      for (bool dq : {false, true}) {
        SCOPED_TRACE(std::string(detail::skinningTargetName(t)) + (normals ? ", normals" : ", positions only") +
                     (dq ? ", dual quaternion" : ""));
        const Result cached = run(t, SkinningJob::Stores::kCache, normals, dq, 1, 0, false, false);
        Result ref = c.run(Path::kReference);
        if (!normals) ref.normals.clear();
        if (!dq) expectClose(cached, ref, 1e-5, "cached stores");
        struct Variant {
          const char* what;
          SkinningJob::Stores stores;
          int threads;
          std::size_t skew;
          bool in_place, streams;
        };
        const Variant variants[] = {{"streamed", SkinningJob::Stores::kStream, 1, 0, false, true},
                                    {"streamed in place", SkinningJob::Stores::kStream, 1, 0, true, true},
                                    {"streamed on 2 threads", SkinningJob::Stores::kStream, 2, 0, false, true},
                                    {"unaligned: cached", SkinningJob::Stores::kStream, 1, 1, false, false}};
        for (const Variant& v : variants) {
          const Result r = run(t, v.stores, normals, dq, v.threads, v.skew, v.in_place, v.streams);
          EXPECT_EQ(r.positions, cached.positions) << v.what;
          EXPECT_EQ(r.normals, cached.normals) << v.what;
        }
        // kAuto: this mesh's arrays are far below kSkinningStreamBytes.
        EXPECT_EQ(run(t, SkinningJob::Stores::kAuto, normals, dq, 1, 0, false, false).positions, cached.positions);
      }
    }
  }
}

// kAuto streams from kSkinningStreamBytes of vertex arrays on (aligned outputs only).
TEST(SkinningResult, AutoStreamsOnlyMeshesBiggerThanTheCaches) {
  const std::size_t big = kSkinningStreamBytes / (4 * 3 * sizeof(float)) + 16;  // with normals
  std::vector<Influences> inf(big, Influences{{0, 1.0f}});
  const Skin skin = makeSkin(1, inf);
  auto layout = SkinningLayout::build(skin);
  ASSERT_TRUE(layout.ok());
  AlignedFloats a(3 * big, 0.5f), b(3 * big), n(3 * big, 0.0f), m(3 * big);
  const std::vector<float> mats = pack({Eigen::Matrix4d::Identity()});
  SkinningJob job;
  job.layout = &*layout;
  job.matrices = mats;
  job.in_positions = a;
  job.out_positions = b;
  EXPECT_FALSE(job.streams()) << "positions only: half the bytes";
  job.in_normals = n;
  job.out_normals = m;
  EXPECT_TRUE(job.streams());
  job.stores = SkinningJob::Stores::kCache;
  EXPECT_FALSE(job.streams());
  job.stores = SkinningJob::Stores::kAuto;
  ASSERT_TRUE(job.run());
  EXPECT_EQ(b[3 * big - 1], 0.5f);
  job.out_positions = std::span<float>(b.data() + 1, 3 * big - 1);  // no longer 64-byte aligned
  EXPECT_FALSE(job.streams());
}

TEST(SkinningResult, InPlace) {
  Case c = randomCase(777, 20, 6, 9, true);
  auto layout = SkinningLayout::build(c.skin);
  ASSERT_TRUE(layout.ok());
  for (Path path : kPaths) {
    const Result expected = c.run(path);
    std::vector<float> p = c.positions, n = c.normals;
    SkinningJob job;
    if (path == Path::kSimd) {
      job.layout = &*layout;
    } else {
      job.skin = &c.skin;
      job.reference = path == Path::kReference;
    }
    job.matrices = c.matrices;
    job.in_positions = p;
    job.out_positions = p;
    job.in_normals = n;
    job.out_normals = n;
    ASSERT_TRUE(job.run()) << pathName(path);
    EXPECT_EQ(p, expected.positions) << pathName(path);
    EXPECT_EQ(n, expected.normals) << pathName(path);
  }
}

TEST(SkinningResult, PositionsOnly) {
  Case c = randomCase(300, 10, 5, 11, true);
  const Result full = c.run(Path::kSimd);
  c.normals.clear();
  for (Path p : kPaths) {
    const Result r = c.run(p);
    for (std::size_t i = 0; i < r.positions.size(); ++i) EXPECT_NEAR(r.positions[i], full.positions[i], 1e-5);
  }
}

TEST(SkinningResult, RealGameEngineWeightsMatchReference) {
  RIGFIT_REQUIRE_SHARED_DATA();
  auto file = readJsonFile(test::sharedData() + "/rigs/standard/weights.game_engine.json");
  ASSERT_TRUE(file.ok());
  const Json* groups = file->find("weights");
  ASSERT_NE(groups, nullptr);
  const std::size_t n = 19158;
  std::vector<std::vector<std::pair<int, double>>> per(n);
  int bone = 0;
  for (const auto& [name, pairs] : groups->members()) {
    for (const Json& pr : pairs.items()) per[static_cast<std::size_t>(pr.items()[0].asInt())].push_back({bone, pr.items()[1].asDouble()});
    ++bone;
  }
  std::vector<Influences> inf(n);
  for (std::size_t v = 0; v < n; ++v) {
    for (const auto& [b, w] : per[v]) inf[v].push_back({b, static_cast<float>(std::min(1.0, w))});
  }
  Case c = randomCase(n, static_cast<std::size_t>(bone), 1, 3, true);
  c.skin = makeSkin(static_cast<std::size_t>(bone), inf);
  auto layout = SkinningLayout::build(c.skin);
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->maxInfluences(), 7);
  EXPECT_EQ(layout->influenceHistogram()[1], 9369u);
  const Result ref = c.run(Path::kReference);
  expectClose(c.run(Path::kSimd), ref, 1e-5, "game_engine");
  Executor executor(2);
  expectClose(c.run(Path::kSimd, 2, &executor), ref, 1e-5, "game_engine, 2 threads");
  c.dual_quaternion = true;
  expectClose(c.run(Path::kSimd), c.run(Path::kReference), 1e-5, "game_engine, dual quaternion");
}

// ------------------------------------------------------------------------------------------------
// Dual quaternions ("preserve volume").

TEST(SkinningDualQuaternion, SingleInfluenceEqualsLinearBlend) {
  // One influence: DQS reproduces S exactly, for rigid bones and (through Blender's scale
  // matrix) for scaled ones.
  for (bool scale : {false, true}) {
    Case c = randomCase(200, 12, 1, scale ? 21 : 20, scale);
    const Result lbs = c.run(Path::kReference);
    c.dual_quaternion = true;
    expectClose(c.run(Path::kReference), lbs, 1e-5, scale ? "scaled, reference" : "rigid, reference");
    expectClose(c.run(Path::kSimd), lbs, 1e-5, scale ? "scaled, simd" : "rigid, simd");
  }
}

TEST(SkinningDualQuaternion, TwistPreservesLength) {
  // Two bones along X, the second twisted 90 degrees about X. A vertex at radius 1 weighted
  // 50/50: linear blend cuts the corner to radius sqrt(1/2); DQS turns it by 45 degrees.
  const Eigen::Matrix4d twist = rotation(M_PI / 2, Eigen::Vector3d::UnitX());
  Case c = oneVertexCase({Eigen::Matrix4d::Identity(), twist}, {{0, 0.5f}, {1, 0.5f}}, {0.5f, 1, 0}, {0, 1, 0});
  const float h = static_cast<float>(M_SQRT1_2);
  forEveryPath(c, [&](const Result& r) {
    EXPECT_VEC_NEAR(at(r.positions, 0), 0.5f, 0.5f, 0.5f, 1e-6);
    EXPECT_NEAR(at(r.positions, 0).tail<2>().norm(), h, 1e-6);
  });
  c.dual_quaternion = true;
  forEveryPath(c, [&](const Result& r) {
    EXPECT_VEC_NEAR(at(r.positions, 0), 0.5f, h, h, 1e-6);
    EXPECT_NEAR(at(r.positions, 0).tail<2>().norm(), 1.0f, 1e-6);
    EXPECT_VEC_NEAR(at(r.normals, 0), 0, h, h, 1e-6);
  });
  // The same about an axis through (0, 0, 2): rotation and translation blend together.
  const Eigen::Matrix4d about = translation(0, 0, 2) * twist * translation(0, 0, -2);
  c = oneVertexCase({Eigen::Matrix4d::Identity(), about}, {{0, 0.25f}, {1, 0.25f}}, {0, 1, 2});
  c.dual_quaternion = true;
  forEveryPath(c, [&](const Result& r) { EXPECT_VEC_NEAR(at(r.positions, 0), 0, h, 2 + h, 1e-6); });
}

TEST(SkinningDualQuaternion, BlenderScaleHandling) {
  // Bone 1 scales by 2 about the origin (rest = identity): its dual quaternion is the identity
  // rotation plus a scale matrix diag(2); the 50/50 blend scales by 1.5.
  const detail::SkinningDualQuat q = detail::skinningDualQuat(Eigen::Matrix4d::Identity(), scaling(2, 2, 2));
  EXPECT_TRUE(q.has_scale);
  EXPECT_TRUE(q.quat.isApprox(Eigen::Vector4d(1, 0, 0, 0)));
  EXPECT_TRUE(q.scale.isApprox(scaling(2, 2, 2)));
  Case c = oneVertexCase({Eigen::Matrix4d::Identity(), scaling(2, 2, 2)}, {{0, 0.5f}, {1, 0.5f}}, {1, 0, 0});
  c.dual_quaternion = true;
  forEveryPath(c, [](const Result& r) { EXPECT_VEC_NEAR(at(r.positions, 0), 1.5f, 0, 0, 1e-6); });

  // Stretching a bone along its own axis (Y of its rest frame): the scale is taken in that frame,
  // so the rest matrix matters. Rest: the bone points along world X from (1, 0, 0).
  Eigen::Matrix4d rest = translation(1, 0, 0) * rotation(-M_PI / 2, Eigen::Vector3d::UnitZ());  // local Y = world X
  const Eigen::Matrix4d pose = rest * scaling(1, 3, 1);  // stretched 3x along the bone
  const Eigen::Matrix4d s = pose * rest.inverse();
  const detail::SkinningDualQuat qs = detail::skinningDualQuat(rest, s);
  EXPECT_TRUE(qs.has_scale);
  // Rotation part: none; the split reproduces S.
  Eigen::Matrix4d r4 = Eigen::Matrix4d::Identity();
  r4.topLeftCorner<3, 3>() = Eigen::Quaterniond(qs.quat[0], qs.quat[1], qs.quat[2], qs.quat[3]).toRotationMatrix();
  const Eigen::Matrix3d r3 = r4.topLeftCorner<3, 3>();
  EXPECT_TRUE(r3.isApprox(Eigen::Matrix3d::Identity(), 1e-12));
  EXPECT_TRUE(qs.scale.isApprox(s, 1e-12));
  c = oneVertexCase({Eigen::Matrix4d::Identity(), s}, {{0, 0.5f}, {1, 0.5f}}, {2, 0, 0});
  c.rest = pack({Eigen::Matrix4d::Identity(), rest});
  c.dual_quaternion = true;
  // S maps (2,0,0) to (4,0,0); half of the scale matrix: (3,0,0).
  forEveryPath(c, [](const Result& r) { EXPECT_VEC_NEAR(at(r.positions, 0), 3, 0, 0, 1e-6); });
}

TEST(SkinningDualQuaternion, RigidBonesHaveNoScaleMatrix) {
  std::mt19937 rng(5);
  for (int i = 0; i < 10; ++i) {
    const Eigen::Matrix4d m = randomAffine(rng, false), rest = randomAffine(rng, false);
    const detail::SkinningDualQuat q = detail::skinningDualQuat(rest, m);
    EXPECT_FALSE(q.has_scale);
    EXPECT_GE(q.quat[0], 0.0);  // Blender's canonical quaternion
    EXPECT_NEAR(q.quat.norm(), 1.0, 1e-12);
    // Rotation of the quaternion = the 3x3 of m; translation from the dual part.
    const Eigen::Matrix3d r = Eigen::Quaterniond(q.quat[0], q.quat[1], q.quat[2], q.quat[3]).toRotationMatrix();
    EXPECT_TRUE(r.isApprox(m.topLeftCorner<3, 3>(), 1e-9));
    const Eigen::Vector4d& t = q.trans;
    const double w = q.quat[0], x = q.quat[1], y = q.quat[2], z = q.quat[3];
    const Eigen::Vector3d tr(2 * (-t[0] * x + w * t[1] - t[2] * z + y * t[3]), 2 * (-t[0] * y + t[1] * z - x * t[3] + w * t[2]),
                             2 * (-t[0] * z + x * t[2] + w * t[3] - t[1] * y));
    EXPECT_TRUE(tr.isApprox(m.col(3).head<3>(), 1e-9));
  }
}

// ------------------------------------------------------------------------------------------------
// Validity (one test per rule) and the layout.

struct ValidFixture {
  Skin skin = makeSkin(2, {{{0, 1.0f}}, {{1, 0.5f}, {0, 0.5f}}});
  SkinningLayout layout = *SkinningLayout::build(skin);
  std::vector<float> mats = pack({Eigen::Matrix4d::Identity(), translation(1, 0, 0)});
  std::vector<float> in_p = std::vector<float>(6, 1.0f), in_n = std::vector<float>(6, 1.0f);
  std::vector<float> out_p = std::vector<float>(6, -9.0f), out_n = std::vector<float>(6, -9.0f);
  SkinningJob job() {
    SkinningJob j;
    j.layout = &layout;
    j.matrices = mats;
    j.rest_matrices = mats;
    j.in_positions = in_p;
    j.out_positions = out_p;
    j.in_normals = in_n;
    j.out_normals = out_n;
    return j;
  }
};

#define EXPECT_INVALID(job_expr)                                              \
  do {                                                                        \
    ValidFixture f_;                                                          \
    SkinningJob j_ = f_.job();                                                \
    ASSERT_TRUE(j_.validate());                                               \
    job_expr;                                                                 \
    EXPECT_FALSE(j_.validate());                                              \
    EXPECT_FALSE(j_.run());                                                   \
    EXPECT_EQ(f_.out_p, std::vector<float>(6, -9.0f)) << "wrote on failure"; \
  } while (0)

TEST(SkinningValidity, DefaultJobIsInvalid) {
  EXPECT_FALSE(SkinningJob().validate());
  EXPECT_FALSE(SkinningJob().run());
}

TEST(SkinningValidity, Rules) {
  EXPECT_INVALID(j_.layout = nullptr);  // neither layout nor skin
  EXPECT_INVALID(j_.reference = true);  // reference needs the skin
  {
    ValidFixture f;
    SkinningJob j = f.job();
    const Skin other = makeSkin(2, {{{0, 1.0f}}});
    j.skin = &other;  // layout and skin disagree
    EXPECT_FALSE(j.validate());
    j.skin = &f.skin;
    EXPECT_TRUE(j.validate());
    j.layout = nullptr;  // skin alone is enough
    EXPECT_TRUE(j.validate());
    j.reference = true;
    EXPECT_TRUE(j.validate());
  }
  EXPECT_INVALID(j_.matrices = std::span<const float>(f_.mats).first(23));
  EXPECT_INVALID(j_.dual_quaternion = true; j_.rest_matrices = std::span<const float>(f_.mats).first(12));
  EXPECT_INVALID(j_.in_positions = std::span<const float>(f_.in_p).first(5));
  EXPECT_INVALID(j_.out_positions = std::span<float>(f_.out_p).first(3));
  EXPECT_INVALID(j_.in_normals = {});  // normals on one side only
  EXPECT_INVALID(j_.out_normals = {});
  EXPECT_INVALID(j_.in_normals = std::span<const float>(f_.in_n).first(3); j_.out_normals = std::span<float>(f_.out_n).first(3));
  EXPECT_INVALID(j_.threads = 0);
  EXPECT_INVALID(j_.threads = 5000);
  // Partial overlap of an input and an output; outputs overlapping each other.
  std::vector<float> big(12, 0.0f);
  EXPECT_INVALID(j_.in_positions = std::span<const float>(big).subspan(0, 6); j_.out_positions = std::span<float>(big).subspan(3, 6));
  EXPECT_INVALID(j_.out_normals = std::span<float>(f_.out_p));
  EXPECT_INVALID(j_.in_normals = std::span<const float>(f_.out_p));
  // Valid variants: positions only; exact aliasing (in place); dual quaternions with rest.
  ValidFixture f;
  SkinningJob j = f.job();
  j.in_normals = {};
  j.out_normals = {};
  EXPECT_TRUE(j.validate());
  j.out_positions = f.in_p;
  EXPECT_TRUE(j.validate());
  j.dual_quaternion = true;
  EXPECT_TRUE(j.validate());
}

TEST(SkinningValidity, LayoutRejectsBadSkins) {
  const Skin good = makeSkin(2, {{{0, 1.0f}}, {{1, 0.5f}, {0, 0.5f}}});
  ASSERT_TRUE(SkinningLayout::build(good).ok());
  auto bad = [&](auto mutate, ErrorCode code) {
    Skin s = good;
    mutate(s);
    auto r = SkinningLayout::build(s);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, code) << r.error().message;
  };
  bad([](Skin& s) { s.offsets.pop_back(); }, ErrorCode::kSchema);
  bad([](Skin& s) { s.offsets[0] = 1; }, ErrorCode::kSchema);
  bad([](Skin& s) { s.offsets = {0, 2, 1}; }, ErrorCode::kSchema);
  bad([](Skin& s) { s.weights.pop_back(); }, ErrorCode::kSchema);
  bad([](Skin& s) { s.bones[1] = 2; }, ErrorCode::kRange);
  bad([](Skin& s) { s.weights[0] = -0.1f; }, ErrorCode::kRange);
  bad([](Skin& s) { s.weights[0] = std::numeric_limits<float>::quiet_NaN(); }, ErrorCode::kRange);
  bad([](Skin& s) { s.weights[0] = std::numeric_limits<float>::infinity(); }, ErrorCode::kRange);
}

TEST(SkinningValidity, LayoutStatistics) {
  const Skin s = makeSkin(3, {{{0, 1.0f}}, {{1, 0.5f}, {0, 0.0f}}, {{0, 0.2f}, {1, 0.3f}, {2, 0.5f}}, {}});
  auto layout = SkinningLayout::build(s);
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->vertexCount(), 4u);
  EXPECT_EQ(layout->boneCount(), 3u);
  EXPECT_EQ(layout->maxInfluences(), 3);  // zero weights dropped
  EXPECT_EQ(layout->restVertexCount(), 1u);
  EXPECT_EQ(layout->influenceHistogram(), (std::vector<std::size_t>{1, 2, 0, 1}));
  EXPECT_GT(layout->memoryBytes(), 0u);
  EXPECT_EQ(detail::SkinningLayoutAccess::split(*layout, 4).front(), 0u);
  EXPECT_EQ(detail::SkinningLayoutAccess::split(*layout, 4).back(), 1u);
}

TEST(SkinningValidity, LayoutChoosesTheCheaperChunkForm) {
  // 32 vertices on bones 0 and 1 only: both chunks per bone (2 bones). 32 vertices with 8 random
  // bones of 163: per vertex (8 slots).
  std::vector<Influences> few(32, Influences{{0, 0.7f}, {1, 0.3f}});
  auto a = SkinningLayout::build(makeSkin(2, few));
  ASSERT_TRUE(a.ok());
  for (std::size_t c = 0; c < 2; ++c) {
    EXPECT_EQ(detail::SkinningLayoutAccess::view(*a).chunk_u[c], 2u);
    EXPECT_EQ(detail::SkinningLayoutAccess::view(*a).chunk_k[c], 0u);
  }
  const Case many = randomCase(32, 163, 8, 77, false);
  auto b = SkinningLayout::build(many.skin);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(detail::SkinningLayoutAccess::view(*b).chunk_u[0], 0u);
  EXPECT_GT(detail::SkinningLayoutAccess::view(*b).chunk_k[0], 0u);
}

TEST(SkinningValidity, Targets) {
  using detail::SkinningTarget;
  const auto compiled = detail::skinningCompiledTargets();
  ASSERT_FALSE(compiled.empty());
  const SkinningTarget best = detail::skinningBestTarget();
  // The best target is the first compiled one this CPU supports; the last one runs everywhere.
  const auto supported = supportedTargets();
  ASSERT_FALSE(supported.empty());
  EXPECT_EQ(best, supported.front());
  EXPECT_TRUE(detail::skinningTargetSupported(compiled.back()));
  // The dispatch really switches: the kernels run for each target are the ones compiled for it.
  for (SkinningTarget t : compiled) EXPECT_STREQ(detail::skinningKernelTargetName(t), detail::skinningTargetName(t));
  // A target not compiled in: no kernels, and a job on it fails.
  Case c = randomCase(40, 5, 3, 9, false);
  for (int i = 0; i <= static_cast<int>(SkinningTarget::kBaseline); ++i) {
    const auto t = static_cast<SkinningTarget>(i);
    if (std::find(compiled.begin(), compiled.end(), t) != compiled.end()) continue;
    EXPECT_FALSE(detail::skinningTargetSupported(t)) << detail::skinningTargetName(t);
    EXPECT_EQ(detail::skinningKernelTargetName(t), nullptr);
    auto layout = SkinningLayout::build(c.skin);
    ASSERT_TRUE(layout.ok());
    std::vector<float> out(c.positions.size());
    SkinningJob job;
    job.layout = &*layout;
    job.matrices = c.matrices;
    job.in_positions = c.positions;
    job.out_positions = out;
    EXPECT_TRUE(job.run());
    EXPECT_FALSE(detail::runSkinningJob(job, t));
  }
  std::string list;
  for (SkinningTarget t : compiled) list += std::string(detail::skinningTargetName(t)) + " ";
  std::printf("[ skinning ] compiled targets: %sbest here: %s\n", list.c_str(), detail::skinningTargetName(best));
}

// The CPU features the kernels require of each target are Highway's: on this CPU, they support the
// compiled targets that Highway (libhwy's own detection) does.
TEST(SkinningValidity, SupportedTargetsAreHighways) {
  const std::int64_t highway = hwy::SupportedTargets();
  for (detail::SkinningTarget t : detail::skinningCompiledTargets()) {
    bool by_highway = false;
    for (std::int64_t bits = highway; bits != 0; bits &= bits - 1) {
      if (std::string(hwy::TargetName(bits & -bits)) == detail::skinningTargetName(t)) by_highway = true;
    }
    EXPECT_EQ(detail::skinningTargetSupported(t), by_highway) << detail::skinningTargetName(t);
  }
}

}  // namespace
}  // namespace rigfit
