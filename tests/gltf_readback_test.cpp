// Real exports (shipped rigs + weights on hm08, as `rigfit export --out x.glb` writes them) read
// back with an independent reader, tinygltf: joints (names, parents, order, count), inverse bind
// matrices against the world bind matrices composed from the node TRS, and the JOINTS/WEIGHTS
// attributes against rigfit's skin (top K by weight, heaviest first, summing to 1) — float and
// quantised, 4 and 8 influences, full and deform-only skeletons.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include <Eigen/LU>
#include <gtest/gtest.h>

#include "export_test_util.hpp"
#include "rigfit/character.hpp"
#include "rigfit/skinning.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

struct Form {
  int influences;
  int bits;  // 0: float weights
  bool deform_only;
};

class GltfReadBack : public ::testing::TestWithParam<const char*> {};

TEST_P(GltfReadBack, JointsIbmsAndWeights) {
  RIGFIT_REQUIRE_SHARED_DATA();
  CharacterOptions o;
  o.rig = GetParam();
  auto c = loadCharacter(DataSource::folder(test::sharedData()), o);
  ASSERT_TRUE(c.ok()) << c.error().message;
  const Skeleton& sk = c->fit.skeleton;
  const Eigen::Matrix4d C = rigToExportFrame();

  for (const Form f : {Form{4, 0, false}, Form{8, 0, false}, Form{4, 8, false}, Form{8, 16, false}, Form{4, 0, true}, Form{8, 8, true}}) {
    SCOPED_TRACE(std::to_string(f.influences) + " influences, " + (f.bits ? std::to_string(f.bits) + "-bit" : std::string("float")) +
                 (f.deform_only ? ", deform-only" : ""));
    auto model = buildExportModel(c->body().mesh, sk, &c->body().skin, &c->body().groups, {.deform_only = f.deform_only});
    ASSERT_TRUE(model.ok()) << model.error().message;
    std::vector<std::uint16_t> joints, quantized;
    std::vector<float> weights;
    const tinygltf::Model g = test::loadGlb(test::exportGlb(*model, f.influences, f.bits, joints, weights, quantized));
    ASSERT_EQ(g.skins.size(), 1u);
    const tinygltf::Skin& skin = g.skins[0];
    const std::size_t nb = model->names.size();

    // Joints: one per exported bone, in order, with the bone's names; parents before children,
    // the parent joint being the bone's parent; one root joint, under the "Armature" node.
    ASSERT_EQ(skin.joints.size(), nb);
    ASSERT_EQ(nb, f.deform_only ? model->source_bones.size() : sk.size());
    const std::vector<int> node_parent = test::nodeParents(g);
    std::vector<int> joint_of_node(g.nodes.size(), -1);
    for (std::size_t j = 0; j < nb; ++j) joint_of_node[static_cast<std::size_t>(skin.joints[j])] = static_cast<int>(j);
    int roots = 0;
    for (std::size_t j = 0; j < nb; ++j) {
      const tinygltf::Node& n = g.nodes[static_cast<std::size_t>(skin.joints[j])];
      EXPECT_EQ(n.name, model->names[j]);
      EXPECT_EQ(n.extras.Get("name").Get<std::string>(), sk.names[static_cast<std::size_t>(model->source_bones[j])]);
      const int pn = node_parent[static_cast<std::size_t>(skin.joints[j])];
      ASSERT_GE(pn, 0);
      const int pj = joint_of_node[static_cast<std::size_t>(pn)];
      EXPECT_EQ(pj, model->parents[j]);
      EXPECT_LT(pj, static_cast<int>(j));
      if (pj < 0) {
        ++roots;
        EXPECT_EQ(g.nodes[static_cast<std::size_t>(pn)].name, "Armature");
      }
      if (!f.deform_only) {
        EXPECT_EQ(pj, sk.parents[j]);
      }
    }
    if (f.deform_only) {
      EXPECT_EQ(roots, 1);
    }

    // Inverse bind matrices: the inverse of each joint's world matrix composed from the node TRS,
    // and that world matrix is the bone's rest matrix in the Y-up frame.
    const std::vector<Eigen::Matrix4d> global = test::nodeGlobals(g), ibm = test::inverseBindMatrices(g);
    double ibm_err = 0.0, bind_err = 0.0, head_err = 0.0;
    for (std::size_t j = 0; j < nb; ++j) {
      const Eigen::Matrix4d& w = global[static_cast<std::size_t>(skin.joints[j])];
      ibm_err = std::max(ibm_err, (ibm[j] - w.inverse()).cwiseAbs().maxCoeff());
      const Eigen::Matrix4d want = C * sk.rest[static_cast<std::size_t>(model->source_bones[j])];
      head_err = std::max(head_err, (w.topRightCorner<3, 1>() - want.topRightCorner<3, 1>()).norm());
      bind_err = std::max(bind_err, (w - want).cwiseAbs().maxCoeff());
    }
    EXPECT_LT(ibm_err, 5e-7);   // float32 storage of entries up to ~2
    EXPECT_LT(head_err, 1e-12);  // translations are written with full double precision
    // Rotations: the nearest rotation to the rest frame; these rigs have no bone near -Y, where
    // Blender's frame is orthonormal only to float32 (README, "Checked against Blender").
    // Measured: up to 3.3e-15.
    EXPECT_LT(bind_err, 1e-12);
    std::printf("[ glTF read ] %s: max |IBM - (TRS world)^-1| = %.3g, max |TRS world - rest| = %.3g (heads %.3g)\n", GetParam(), ibm_err,
                bind_err, head_err);

    // Weights: per vertex the top K of rigfit's skin by weight, heaviest first, normalised; the
    // stored values sum to exactly 1 (float, in slot order) or to 2^bits - 1 (quantised).
    const tinygltf::Primitive& prim = g.meshes[0].primitives[0];
    const std::size_t nv = model->meshes[0].vertexCount();
    ASSERT_EQ(g.accessors[static_cast<std::size_t>(prim.attributes.at("POSITION"))].count, nv);
    const int sets = f.influences / 4;
    ASSERT_EQ(prim.attributes.count("JOINTS_1"), static_cast<std::size_t>(sets == 2));
    const tinygltf::Accessor& wa = g.accessors[static_cast<std::size_t>(prim.attributes.at("WEIGHTS_0"))];
    EXPECT_EQ(wa.componentType, f.bits == 0 ? TINYGLTF_COMPONENT_TYPE_FLOAT
                                : f.bits == 8 ? TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE : TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT);
    const double unit = f.bits ? double((1 << f.bits) - 1) : 1.0;
    std::size_t limited = 0;
    double worst_vs_skin = 0.0;
    for (std::size_t v = 0; v < nv; ++v) {
      std::vector<int> jv;
      std::vector<double> wv;
      for (int s = 0; s < sets; ++s)
        for (int k = 0; k < 4; ++k) {
          jv.push_back(static_cast<int>(test::accessorValue(g, prim.attributes.at("JOINTS_" + std::to_string(s)), v, k)));
          wv.push_back(test::accessorValue(g, prim.attributes.at("WEIGHTS_" + std::to_string(s)), v, k));
        }
      // Stored sums.
      if (f.bits) {
        long total = 0;
        for (double w : wv) total += std::lround(w * unit);
        ASSERT_EQ(total, std::lround(unit)) << "vertex " << v;
      } else {
        float total = 0.0f;
        for (double w : wv) total += static_cast<float>(w);
        ASSERT_EQ(total, 1.0f) << "vertex " << v;
      }
      for (std::size_t k = 1; k < wv.size(); ++k) ASSERT_LE(wv[k], wv[k - 1]) << "vertex " << v << " is not heaviest first";
      // Against rigfit's own limited influences (what the writer was given).
      const std::size_t base = v * static_cast<std::size_t>(f.influences);
      for (std::size_t k = 0; k < wv.size(); ++k) {
        const bool used = f.bits ? quantized[base + k] != 0 : weights[base + k] != 0.0f;
        if (!used) continue;
        ASSERT_EQ(jv[k], joints[base + k]) << "vertex " << v;
        ASSERT_EQ(wv[k], f.bits ? quantized[base + k] / unit : static_cast<double>(weights[base + k])) << "vertex " << v;
      }
      // Against the sparse skin itself: the first min(K, n) influences, renormalised.
      const std::uint32_t a = model->meshes[0].skin.offsets[v], n = model->meshes[0].skin.offsets[v + 1] - a;
      float raw_total = 0.0f;
      for (std::uint32_t k = 0; k < n; ++k) raw_total += model->meshes[0].skin.weights[a + k];
      if (n == 0 || raw_total <= kSkinningRestWeight) {  // Blender leaves these at rest
        ASSERT_EQ(jv[0], 0);
        ASSERT_EQ(wv[0], 1.0);  // unweighted vertices follow the first joint
        continue;
      }
      const std::uint32_t kept = std::min<std::uint32_t>(n, static_cast<std::uint32_t>(f.influences));
      limited += kept < n;
      double sum = 0.0;
      for (std::uint32_t k = 0; k < kept; ++k) sum += model->meshes[0].skin.weights[a + k];
      for (std::uint32_t k = 0; k < kept; ++k) {
        const double want = model->meshes[0].skin.weights[a + k] / sum;
        worst_vs_skin = std::max(worst_vs_skin, std::abs(wv[k] - want));
        if (wv[k] == 0.0) continue;  // quantised to 0: the slot points at joint 0
        ASSERT_EQ(jv[k], model->meshes[0].skin.bones[a + k]) << "vertex " << v << " slot " << k;
      }
    }
    // Float weights: float rounding (measured up to 1.2e-7); quantised: each weight is rounded
    // down or up, less than one step (measured 0.0029 of 1/255, 1.2e-5 of 1/65535).
    EXPECT_LT(worst_vs_skin, f.bits ? 1.0 / unit : 3e-7);
    std::printf("[ glTF read ] %s K=%d %s%s: %zu joints, %zu vertices, %zu limited, max |weight - skin| = %.3g\n", GetParam(),
                f.influences, f.bits ? (std::to_string(f.bits) + "-bit").c_str() : "float", f.deform_only ? " deform-only" : "", nb, nv,
                limited, worst_vs_skin);
  }
}

INSTANTIATE_TEST_SUITE_P(ShippedRigs, GltfReadBack,
                         ::testing::Values("game_engine", "game_engine_with_breast", "cmu_mb", "mixamo", "mixamo_unity", "openpose"));

}  // namespace
}  // namespace rigfit
