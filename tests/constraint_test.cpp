// Bone constraints: parsing (typed values, errors with JSON paths), resolution when fitting,
// evaluation order, hand-computed results, and pose matrices compared with Blender 3.4.1's own
// (tests/golden/constraints, written by tools/blender/constraint_reference.py).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <Eigen/Geometry>
#include <gtest/gtest.h>

#include "rigfit/bbone.hpp"
#include "rigfit/constraint.hpp"
#include "rigfit/data.hpp"
#include "rigfit/fit.hpp"
#include "rigfit/pose.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

// A v110 bone entry placed by default_position (no mesh needed).
Json boneJson(Eigen::Vector3d head, Eigen::Vector3d tail, double roll, const std::string& parent, Json constraints = Json(),
              bool connect = false) {
  Json b = Json::object();
  auto end = [](const Eigen::Vector3d& p) {
    Json e = Json::object();
    e.set("strategy", "DEFAULT");
    e.set("default_position", Json::vec3(p.x(), p.y(), p.z()));
    return e;
  };
  b.set("head", end(head));
  b.set("tail", end(tail));
  b.set("roll", roll);
  b.set("parent", parent);
  b.set("use_connect", connect);
  b.set("use_local_location", true);
  b.set("use_inherit_rotation", true);
  b.set("inherit_scale", "FULL");
  b.set("rigify", Json::object());
  if (!constraints.isNull()) b.set("constraints", std::move(constraints));
  return b;
}

Json rigJson(Json bones) {
  Json doc = Json::object();
  doc.set("bones", std::move(bones));
  doc.set("version", 110);
  return doc;
}

Expected<Skeleton> fitDefault(const Json& rig_json, const std::string& label = "test.json") {
  auto rig = rigFromJson(rig_json, label);
  if (!rig) return rig.error();
  auto prepared = prepareRig(*rig, VertexGroups{}, 0, 0.1);
  if (!prepared) return prepared.error();
  FitResult fit;
  RIGFIT_TRY(fitSkeleton(*prepared, {}, fit));
  return std::move(fit.skeleton);
}

Json parse(const std::string& text) {
  auto j = parseJson(text, "t");
  EXPECT_TRUE(j.ok()) << (j.ok() ? "" : j.error().message);
  return j.ok() ? *j : Json();
}

// Two free bones: "tgt" and "own" (constraints on "own").
Json twoBones(const std::string& constraints_json) {
  Json bones = Json::object();
  bones.set("tgt", boneJson({0.2, 0.0, 0.0}, {0.2, 0.0, 0.5}, 0.0, ""));
  bones.set("own", boneJson({-0.3, 0.1, 0.2}, {-0.3, 0.4, 0.2}, 0.0, "", parse(constraints_json)));
  return rigJson(std::move(bones));
}

TEST(ConstraintParse, TypedValuesAndBlenderDefaults) {
  auto rig = rigFromJson(twoBones(R"([
    {"type": "COPY_LOCATION", "name": "L", "target": true, "subtarget": "tgt", "influence": 0.5,
     "owner_space": "LOCAL", "target_space": "LOCAL_OWNER_ORIENT", "head_tail": 0.25, "use_y": false, "invert_z": true},
    {"type": "TRANSFORM", "target": true, "subtarget": "tgt", "map_from": "ROTATION", "map_to": "SCALE",
     "from_rotation_mode": "SWING_TWIST_Y", "map_to_y_from": "X", "to_max_y_scale": 1.1, "mix_mode_scale": "MULTIPLY"},
    {"type": "ARMATURE", "targets": [{"subtarget": "tgt", "weight": 0.65}], "use_deform_preserve_volume": true},
    {"type": "IK", "name": "ik", "chain_count": 2}])"),
                         "r.json");
  ASSERT_TRUE(rig.ok()) << rig.error().message;
  const auto& cs = rig->find("own")->constraints;
  ASSERT_EQ(cs.size(), 4u);
  EXPECT_EQ(cs[0].type, ConstraintType::kCopyLocation);
  EXPECT_EQ(cs[0].influence, 0.5);
  EXPECT_EQ(cs[0].owner_space, ConstraintSpace::kLocal);
  EXPECT_EQ(cs[0].target_space, ConstraintSpace::kLocalOwnerOrient);
  EXPECT_EQ(cs[0].head_tail, 0.25);
  EXPECT_FALSE(cs[0].use_xyz[1]);
  EXPECT_TRUE(cs[0].invert_xyz[2]);
  ASSERT_EQ(cs[0].targets.size(), 1u);
  EXPECT_TRUE(cs[0].targets[0].has_target);
  EXPECT_EQ(cs[0].targets[0].subtarget, "tgt");
  EXPECT_EQ(cs[1].type, ConstraintType::kTransform);
  EXPECT_EQ(cs[1].map_from, TransformChannel::kRotation);
  EXPECT_EQ(cs[1].from_rotation_mode, RotationSource::kSwingTwistY);
  EXPECT_EQ(cs[1].map_to_from[1], 0);
  EXPECT_EQ(cs[1].ranges[2][3][1], 1.1);
  EXPECT_EQ(cs[1].ranges[2][2][1], 1.0);  // Blender's default to_min_y_scale
  EXPECT_EQ(cs[1].mix_mode, "ADD");       // Blender's default for a new TRANSFORM
  EXPECT_EQ(cs[2].type, ConstraintType::kArmature);
  ASSERT_EQ(cs[2].targets.size(), 1u);
  EXPECT_EQ(cs[2].targets[0].weight, 0.65);
  EXPECT_TRUE(cs[2].use_deform_preserve_volume);
  EXPECT_EQ(cs[3].type, ConstraintType::kOther);
  EXPECT_EQ(cs[3].type_name, "IK");
}

TEST(ConstraintParse, BadValuesNameTheJsonPath) {
  struct Case {
    const char* json;
    const char* message;
  } cases[] = {
      {R"([{"type": "COPY_LOCATION", "owner_space": "SIDEWAYS"}])",
       "r.json: bones.own.constraints[0].owner_space: unknown value \"SIDEWAYS\" (expected WORLD, CUSTOM, POSE, LOCAL_WITH_PARENT or LOCAL)"},
      {R"([{"type": "COPY_LOCATION"}, {"type": "COPY_SCALE", "influence": "1"}])",
       "r.json: bones.own.constraints[1].influence: expected a number, found a string"},
      {R"([{"type": "COPY_LOCATION", "target_space": 3}])", "r.json: bones.own.constraints[0].target_space: expected one of WORLD, CUSTOM, POSE, LOCAL_WITH_PARENT, LOCAL or LOCAL_OWNER_ORIENT, found an integer"},
      {R"([{"type": "WIGGLE"}])", "r.json: bones.own.constraints[0].type: unknown constraint type \"WIGGLE\""},
      {R"([{"name": "x"}])", "r.json: bones.own.constraints[0].type: missing (required)"},
      {R"([{"type": "COPY_LOCATION", "target": true, "subtarget": "nope"}])",
       "r.json: bones.own.constraints[0].subtarget: no bone \"nope\" in the rig"},
      {R"([{"type": "ARMATURE", "targets": [{"subtarget": "tgt", "weight": 1.0}, {"subtarget": "gone", "weight": 1.0}]}])",
       "r.json: bones.own.constraints[0].targets[1].subtarget: no bone \"gone\" in the rig"},
      {R"([{"type": "ARMATURE", "targets": [{"subtarget": "tgt", "weight": true}]}])",
       "r.json: bones.own.constraints[0].targets[0].weight: expected a number, found a boolean"},
      {R"([{"type": "COPY_ROTATION", "target": "yes"}])",
       "r.json: bones.own.constraints[0].target: expected true or a parent-rig reference object, found a string"},
      {R"([{"type": "COPY_LOCATION", "influence": 1.5}])", "r.json: bones.own.constraints[0].influence: outside [0, 1]"},
      {R"([{"type": "STRETCH_TO", "volume": "VOLUME_Y"}])",
       "r.json: bones.own.constraints[0].volume: unknown value \"VOLUME_Y\" (expected VOLUME_XZX, VOLUME_X, VOLUME_Z or NO_VOLUME)"},
      {R"([3])", "r.json: bones.own.constraints[0]: expected an object, found an integer"},
      {R"({"type": "COPY_LOCATION"})", "r.json: bones.own.constraints: expected an array"},
  };
  for (const Case& c : cases) {
    auto rig = rigFromJson(twoBones(c.json), "r.json");
    ASSERT_FALSE(rig.ok()) << c.json;
    EXPECT_EQ(rig.error().message, c.message) << c.json;
    EXPECT_EQ(rig.error().code, ErrorCode::kSchema);
  }
}

TEST(ConstraintParse, ParentRigReferencesStayUnresolvedWithTheReferenceKept) {
  auto s = fitDefault(twoBones(R"([{"type": "CHILD_OF", "target": {"strategy": "JOINTS", "joint_head": "joint-head",
                                  "joint_tail": "joint-head-2"}, "subtarget": "head", "owner_space": "POSE"}])"));
  ASSERT_TRUE(s.ok()) << s.error().message;
  const Constraint& c = s->constraints[static_cast<std::size_t>(s->find("own"))][0];
  ASSERT_TRUE(c.targets[0].parent_reference.has_value());
  EXPECT_EQ(c.targets[0].parent_reference->find("strategy")->asString(), "JOINTS");
  EXPECT_EQ(c.targets[0].bone, -1);
  EXPECT_EQ(c.targets[0].main_bone, -1);
  // Posing skips it (and says so).
  Pose pose = Pose::rest(*s);
  std::vector<Eigen::Matrix4d> m(s->size());
  poseMatrices(*s, pose, m);
  const auto own = static_cast<std::size_t>(s->find("own"));
  EXPECT_TRUE((m[own].isApprox(s->rest[own], 1e-12)));
  const auto warnings = constraintWarnings(*s);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].message.find("\"head\", which is not resolved"), std::string::npos) << warnings[0].message;
}

TEST(ConstraintEval, UnevaluatedTypesAndMutedConstraintsAreSkippedWithAWarningForTheFormer) {
  auto s = fitDefault(twoBones(R"([{"type": "IK", "name": "leg IK", "target": true, "subtarget": "tgt"},
                                   {"type": "COPY_LOCATION", "target": true, "subtarget": "tgt", "mute": true}])"));
  ASSERT_TRUE(s.ok()) << s.error().message;
  Pose pose = Pose::rest(*s);
  pose.bones[static_cast<std::size_t>(s->find("tgt"))].location = {0.1, 0.2, 0.3};
  std::vector<Eigen::Matrix4d> m(s->size());
  poseMatrices(*s, pose, m);
  const auto own = static_cast<std::size_t>(s->find("own"));
  EXPECT_TRUE(m[own].isApprox(s->rest[own], 1e-12));
  const auto w = constraintWarnings(*s);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].message, "bone \"own\": constraint \"leg IK\" (IK) is not evaluated by rigfit; posed without it");
}

TEST(ConstraintEval, AConstraintWithoutTargetChangesNothingEvenInLocalSpace) {
  // A CHILD_OF is not converted back from its owner space: without a target it must not run at all.
  auto s = fitDefault(twoBones(R"([{"type": "CHILD_OF", "owner_space": "LOCAL"},
                                   {"type": "COPY_ROTATION", "owner_space": "LOCAL", "influence": 0.5}])"));
  ASSERT_TRUE(s.ok()) << s.error().message;
  Pose pose = Pose::rest(*s);
  const auto own = static_cast<std::size_t>(s->find("own"));
  pose.bones[own].location = {0.1, 0.0, 0.0};
  std::vector<Eigen::Matrix4d> m(s->size()), plain(s->size());
  poseMatrices(*s, pose, m);
  Skeleton without = *s;
  without.constraints.clear();
  poseMatrices(without, pose, plain);
  EXPECT_EQ(m[own], plain[own]);
}

TEST(ConstraintEval, CopyLocationWorldWithHalfInfluenceGoesHalfWay) {
  auto s = fitDefault(twoBones(R"([{"type": "COPY_LOCATION", "target": true, "subtarget": "tgt", "influence": 0.5}])"));
  ASSERT_TRUE(s.ok()) << s.error().message;
  Pose pose = Pose::rest(*s);
  const auto tgt = static_cast<std::size_t>(s->find("tgt")), own = static_cast<std::size_t>(s->find("own"));
  pose.bones[tgt].location = {0.0, 0.0, 0.3};  // tgt's local Z... in its bone frame
  std::vector<Eigen::Matrix4d> m(s->size());
  poseMatrices(*s, pose, m);
  const Eigen::Vector3d target_head = m[tgt].topRightCorner<3, 1>();
  const Eigen::Vector3d expected = 0.5 * (target_head + s->heads[own]);
  EXPECT_LT((m[own].topRightCorner<3, 1>() - expected).norm(), 1e-12);
  EXPECT_TRUE((m[own].topLeftCorner<3, 3>().isApprox(s->rest[own].topLeftCorner<3, 3>(), 1e-12)));
}

TEST(ConstraintEval, CopyLocationHeadTailUsesThePosedTail) {
  auto s = fitDefault(twoBones(R"([{"type": "COPY_LOCATION", "target": true, "subtarget": "tgt", "head_tail": 1.0}])"));
  ASSERT_TRUE(s.ok());
  Pose pose = Pose::rest(*s);
  const auto tgt = static_cast<std::size_t>(s->find("tgt")), own = static_cast<std::size_t>(s->find("own"));
  pose.bones[tgt].rotation_mode = RotationMode::kXYZ;
  pose.bones[tgt].euler = {0.3, 0.0, 0.0};
  pose.bones[tgt].scale = {1.0, 2.0, 1.0};
  std::vector<Eigen::Matrix4d> m(s->size());
  poseMatrices(*s, pose, m);
  const Eigen::Vector3d tail = m[tgt].topRightCorner<3, 1>() + m[tgt].col(1).head<3>() * s->lengths[tgt];
  EXPECT_LT((m[own].topRightCorner<3, 1>() - tail).norm(), 1e-12);
}

TEST(ConstraintEval, CopyRotationLocalCopiesTheLocalRotation) {
  auto s = fitDefault(twoBones(R"([{"type": "COPY_ROTATION", "target": true, "subtarget": "tgt",
                                   "owner_space": "LOCAL", "target_space": "LOCAL"}])"));
  ASSERT_TRUE(s.ok());
  Pose pose = Pose::rest(*s);
  const auto tgt = static_cast<std::size_t>(s->find("tgt")), own = static_cast<std::size_t>(s->find("own"));
  pose.bones[tgt].rotation_mode = RotationMode::kXYZ;
  pose.bones[tgt].euler = {0.2, -0.4, 0.5};
  pose.bones[own].rotation_mode = RotationMode::kXYZ;
  std::vector<Eigen::Matrix4d> m(s->size());
  poseMatrices(*s, pose, m);
  // The owner (a root) ends with the target's local rotation as its own channel.
  Eigen::Matrix4d expected = s->rest[own];
  expected.topLeftCorner<3, 3>() = s->rest[own].topLeftCorner<3, 3>() * rotationMatrix(pose.bones[tgt]);
  EXPECT_TRUE(m[own].isApprox(expected, 1e-12)) << m[own] << "\n\n" << expected;
}

TEST(ConstraintEval, ArmatureBlendsTheTargetsDeformMatrices) {
  auto s = fitDefault(twoBones(R"([{"type": "ARMATURE", "targets": [{"subtarget": "tgt", "weight": 0.25}]}])"));
  ASSERT_TRUE(s.ok());
  Pose pose = Pose::rest(*s);
  const auto tgt = static_cast<std::size_t>(s->find("tgt")), own = static_cast<std::size_t>(s->find("own"));
  pose.bones[tgt].rotation_mode = RotationMode::kXYZ;
  pose.bones[tgt].euler = {0.0, 0.0, 0.7};
  std::vector<Eigen::Matrix4d> m(s->size());
  poseMatrices(*s, pose, m);
  // One target: weights are normalised, so the owner follows the target fully.
  const Eigen::Matrix4d expected = m[tgt] * s->rest[tgt].inverse() * s->rest[own];
  EXPECT_TRUE(m[own].isApprox(expected, 1e-12));
}

TEST(ConstraintEval, LimitLocationClampsInOwnerSpace) {
  auto s = fitDefault(twoBones(R"([{"type": "LIMIT_LOCATION", "owner_space": "LOCAL", "use_max_x": true, "max_x": 0.05,
                                   "use_min_z": true, "min_z": -0.01}])"));
  ASSERT_TRUE(s.ok());
  Pose pose = Pose::rest(*s);
  const auto own = static_cast<std::size_t>(s->find("own"));
  pose.bones[own].location = {0.2, 0.3, -0.4};
  std::vector<Eigen::Matrix4d> m(s->size());
  poseMatrices(*s, pose, m);
  pose.bones[own].location = {0.05, 0.3, -0.01};
  std::vector<Eigen::Matrix4d> clamped(s->size());
  Skeleton plain = *s;
  plain.constraints.clear();
  poseMatrices(plain, pose, clamped);
  EXPECT_TRUE(m[own].isApprox(clamped[own], 1e-12));
}

TEST(ConstraintEval, TargetsAfterTheirOwnerAreEvaluatedFirstAndCyclesAreErrors) {
  Json bones = Json::object();
  bones.set("own", boneJson({0, 0, 0}, {0, 0.3, 0}, 0.0, "", parse(R"([{"type": "COPY_LOCATION", "target": true, "subtarget": "late"}])")));
  bones.set("late", boneJson({0.5, 0, 0}, {0.5, 0.3, 0}, 0.0, ""));
  auto s = fitDefault(rigJson(bones));
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->eval_order.size(), 2u);
  EXPECT_EQ(s->eval_order[0], static_cast<std::uint32_t>(s->find("late")));
  Pose pose = Pose::rest(*s);
  pose.bones[static_cast<std::size_t>(s->find("late"))].location = {0.0, 0.0, 0.2};
  std::vector<Eigen::Matrix4d> m(2);
  poseMatrices(*s, pose, m);
  EXPECT_LT((m[static_cast<std::size_t>(s->find("own"))].topRightCorner<3, 1>() -
             m[static_cast<std::size_t>(s->find("late"))].topRightCorner<3, 1>()).norm(), 1e-12);

  Json cyc = Json::object();
  cyc.set("a", boneJson({0, 0, 0}, {0, 0.3, 0}, 0.0, "", parse(R"([{"type": "COPY_LOCATION", "target": true, "subtarget": "c"}])")));
  cyc.set("b", boneJson({0, 0.3, 0}, {0, 0.6, 0}, 0.0, "a"));
  cyc.set("c", boneJson({0.5, 0, 0}, {0.5, 0.3, 0}, 0.0, "", parse(R"([{"type": "COPY_ROTATION", "target": true, "subtarget": "b"}])")));
  auto bad = fitDefault(rigJson(cyc), "cyc.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "cyc.json: constraint targets and parents form a cycle: \"a\" -> \"c\" -> \"b\" -> \"a\"");
}

// A bendy target "tgt" (4 segments, roll in 0.3 and roll out -0.5, no handles: its rest curve is
// the straight bone, joints evenly spaced) and the owner "own" with `constraints`.
Json bendyTarget(const std::string& constraints_json) {
  Json doc = twoBones(constraints_json);
  Json bones = *doc.find("bones");
  Json tgt = *bones.find("tgt");
  tgt.set("bendy_bone", parse(R"({"segments": 4, "rollin": 0.3, "rollout": -0.5})"));
  bones.set("tgt", std::move(tgt));
  doc.set("bones", std::move(bones));
  return doc;
}

Eigen::Matrix4d rollAboutY(double roll, double y) {
  Eigen::Matrix4d r = Eigen::Matrix4d::Identity();
  r.topLeftCorner<3, 3>() = Eigen::AngleAxisd(roll, Eigen::Vector3d::UnitY()).toRotationMatrix();
  r(1, 3) = y;
  return r;
}

TEST(ConstraintEval, BBoneShapeCopyTransformsTakesTheCurveJointsFrame) {
  // COPY_TRANSFORMS follows the joint's whole transform, even at the head: the bone's frame
  // rolled by roll in at head_tail 0, by roll out at the tail, their mean at the middle joint.
  for (const double head_tail : {0.0, 0.5, 1.0}) {
    auto s = fitDefault(bendyTarget(R"([{"type": "COPY_TRANSFORMS", "target": true, "subtarget": "tgt", "use_bbone_shape": true,
                                        "head_tail": )" + std::to_string(head_tail) + "}]"));
    ASSERT_TRUE(s.ok()) << s.error().message;
    const auto tgt = static_cast<std::size_t>(s->find("tgt")), own = static_cast<std::size_t>(s->find("own"));
    Pose pose = Pose::rest(*s);
    pose.bones[tgt].rotation_mode = RotationMode::kXYZ;
    pose.bones[tgt].euler = {0.4, -0.2, 0.3};
    pose.bones[tgt].location = {0.01, 0.02, -0.03};
    std::vector<Eigen::Matrix4d> m(s->size());
    poseMatrices(*s, pose, m);
    const double roll = 0.3 + (-0.5 - 0.3) * head_tail;
    const Eigen::Matrix4d expected = m[tgt] * rollAboutY(roll, head_tail * s->lengths[tgt]);
    EXPECT_TRUE(m[own].isApprox(expected, 1e-9)) << "head_tail " << head_tail << "\n" << m[own] << "\n\n" << expected;
  }
  // Without use_bbone_shape the target is the straight bone's head.
  auto plain = fitDefault(bendyTarget(R"([{"type": "COPY_TRANSFORMS", "target": true, "subtarget": "tgt"}])"));
  ASSERT_TRUE(plain.ok());
  std::vector<Eigen::Matrix4d> m(plain->size());
  poseMatrices(*plain, Pose::rest(*plain), m);
  EXPECT_TRUE(m[static_cast<std::size_t>(plain->find("own"))].isApprox(plain->rest[static_cast<std::size_t>(plain->find("tgt"))], 1e-12));
}

// Influence blending decomposes both matrices into rotation and stretch. An owner scaled to zero
// along Y has no unique rotation factor: it takes the SVD's, as Blender does, whose reflection
// Blender then turns into a rotation by negating both factors. Blended halfway towards a target of
// the same orientation and unit scale, the owner's X and Z axes cancel and its Y axis is halved;
// Blender 3.4 gives the same matrix (checked with the same two bones in Blender).
TEST(ConstraintEval, InfluenceBlendFromAZeroScaledOwner) {
  Json bones = Json::object();
  bones.set("tgt", boneJson({0.2, 0.0, 0.0}, {0.2, 0.0, 0.5}, 0.0, ""));
  bones.set("own", boneJson({-0.3, 0.1, 0.2}, {-0.3, 0.1, 0.6}, 0.0, "",
                            parse(R"([{"type": "COPY_TRANSFORMS", "target": true, "subtarget": "tgt", "influence": 0.5}])")));
  auto s = fitDefault(rigJson(std::move(bones)));
  ASSERT_TRUE(s.ok()) << s.error().message;
  const auto own = static_cast<std::size_t>(s->find("own"));
  Pose pose = Pose::rest(*s);
  pose.bones[own].scale = {1.0, 0.0, 1.0};
  std::vector<Eigen::Matrix4d> m(s->size());
  poseMatrices(*s, pose, m);
  Eigen::Matrix4d want;  // Blender 3.4's pose_bone.matrix
  want << 0, 0, 0, -0.05,
          0, 0, 0, 0.05,
          0, 0.5, 0, 0.1,
          0, 0, 0, 1;
  EXPECT_LT((m[own] - want).cwiseAbs().maxCoeff(), 1e-12) << m[own] << "\n\n" << want;
}

TEST(ConstraintEval, BBoneShapeCopyLocationTakesThePointOnTheCurve) {
  // 4 segments: head_tail 0.375 is halfway between joints 1 and 2 of the posed (curved) B-Bone.
  auto s = fitDefault(bendyTarget(R"([{"type": "COPY_LOCATION", "target": true, "subtarget": "tgt", "use_bbone_shape": true,
                                      "head_tail": 0.375}])"));
  ASSERT_TRUE(s.ok()) << s.error().message;
  const auto tgt = static_cast<std::size_t>(s->find("tgt")), own = static_cast<std::size_t>(s->find("own"));
  Pose pose = Pose::rest(*s);
  pose.bones[tgt].rotation_mode = RotationMode::kXYZ;
  pose.bones[tgt].euler = {0.2, 0.1, -0.3};
  pose.bones[tgt].bbone.curveinx = 0.08;
  pose.bones[tgt].bbone.curveoutz = -0.05;
  std::vector<Eigen::Matrix4d> m(s->size());
  poseMatrices(*s, pose, m);
  std::vector<Eigen::Matrix4d> joints(5);
  bboneJointMatrices(*s, pose, m, tgt, false, joints);
  const Eigen::Vector4d point = 0.5 * (joints[1].col(3) + joints[2].col(3));
  const Eigen::Vector3d expected = (m[tgt] * point).head<3>();
  EXPECT_LT((m[own].topRightCorner<3, 1>() - expected).norm(), 1e-12);
  // The curve bends away from the straight bone there.
  const Eigen::Vector3d straight = m[tgt].topRightCorner<3, 1>() + m[tgt].col(1).head<3>() * (0.375 * s->lengths[tgt]);
  EXPECT_GT((expected - straight).norm(), 0.005);
  EXPECT_TRUE((m[own].topLeftCorner<3, 3>().isApprox(s->rest[own].topLeftCorner<3, 3>(), 1e-12)));
}


// A bendy bone "bb" from (0, 0, 0) to (0, 0.3, 0) of `segments` segments and its connected child
// "kid", the curve's end handle.
void addBendyWithHandle(Json& bones, int segments) {
  Json bb = boneJson({0, 0, 0}, {0, 0.3, 0}, 0.0, "");
  bb.set("bendy_bone", parse(R"({"segments": )" + std::to_string(segments) + "}"));
  bones.set("bb", std::move(bb));
  bones.set("kid", boneJson({0, 0.3, 0}, {0.2, 0.5, 0}, 0.0, "bb", Json(), true));
}

// `pose` with the handle `kid` turned 1.2 rad about Z (bending the curve), evaluated.
std::vector<Eigen::Matrix4d> poseHandleTurned(const Skeleton& s, std::size_t kid, Pose& pose) {
  pose.bones[kid].rotation_mode = RotationMode::kXYZ;
  pose.bones[kid].euler = {0.0, 0.0, 1.2};
  std::vector<Eigen::Matrix4d> m(s.size());
  poseMatrices(s, pose, m);
  return m;
}

TEST(ConstraintEval, BBoneShapeWaitsForTheCurvesHandlesAndTheOwnerCannotBeOne) {
  // "own" comes first and follows the curve of "bb", whose end handle is its connected child "kid".
  Json bones = Json::object();
  bones.set("own", boneJson({0.5, 0, 0}, {0.5, 0.3, 0}, 0.0, "",
                            parse(R"([{"type": "COPY_LOCATION", "target": true, "subtarget": "bb", "use_bbone_shape": true,
                                       "head_tail": 0.5}])")));
  addBendyWithHandle(bones, 6);
  auto s = fitDefault(rigJson(bones));
  ASSERT_TRUE(s.ok()) << s.error().message;
  const auto own = static_cast<std::size_t>(s->find("own")), bbi = static_cast<std::size_t>(s->find("bb")),
             kid = static_cast<std::size_t>(s->find("kid"));
  ASSERT_EQ(s->eval_order.size(), 3u);
  EXPECT_EQ(s->eval_order.back(), own);
  // Turning the handle bends the curve, and the owner follows the bent curve.
  Pose pose = Pose::rest(*s);
  const std::vector<Eigen::Matrix4d> m = poseHandleTurned(*s, kid, pose);
  std::vector<Eigen::Matrix4d> joints(7);
  bboneJointMatrices(*s, pose, m, bbi, false, joints);
  const Eigen::Vector3d expected = (m[bbi] * joints[3].col(3)).head<3>();
  EXPECT_LT((m[own].topRightCorner<3, 1>() - expected).norm(), 1e-12);
  EXPECT_GT(std::abs(expected.x()), 0.005);

  // The handle itself following the curve it shapes: an error (Blender: a dependency cycle).
  Json cyc = Json::object();
  Json bb2 = boneJson({0, 0, 0}, {0, 0.3, 0}, 0.0, "");
  bb2.set("bendy_bone", parse(R"({"segments": 6})"));
  cyc.set("bb", std::move(bb2));
  const std::string follow = R"([{"name": "Follow", "type": "DAMPED_TRACK", "target": true, "subtarget": "bb", "use_bbone_shape": true,
                                  "head_tail": 0.5)";
  cyc.set("kid", boneJson({0, 0.3, 0}, {0.2, 0.5, 0}, 0.0, "bb", parse(follow + "}]"), true));
  auto bad = fitDefault(rigJson(cyc), "cyc.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "cyc.json: bones.kid: constraint \"Follow\" follows the B-Bone shape of \"bb\", which this bone shapes as its handle");
  // Muted, it is no dependency at all.
  cyc.set("kid", boneJson({0, 0.3, 0}, {0.2, 0.5, 0}, 0.0, "bb", parse(follow + R"(, "mute": true}])"), true));
  EXPECT_TRUE(fitDefault(rigJson(cyc)).ok());
}

// Bendy bone `b`'s deform matrix at joint a (pose * joint_pose * joint_rest^-1 * rest^-1), from
// its joints as PoseBone.bbone_segment_matrix gives them.
Eigen::Matrix4d bboneJointDeform(const Skeleton& s, const Pose& pose, std::span<const Eigen::Matrix4d> m, std::size_t b, std::size_t a) {
  std::vector<Eigen::Matrix4d> posed(static_cast<std::size_t>(s.bbones[b].segments) + 1), rest(posed.size());
  bboneJointMatrices(s, pose, m, b, false, posed);
  bboneJointMatrices(s, pose, m, b, true, rest);
  return m[b] * posed[a] * rest[a].inverse() * s.rest[b].inverse();
}

TEST(ConstraintEval, ArmatureOnABendyTargetBlendsTheTwoJointsAroundTheOwnersRestHead) {
  // "own"'s rest head is 0.4 of the way along "tgt" (4 segments): joints 1 and 2, blend 0.6.
  auto s = fitDefault(bendyTarget(R"([{"type": "ARMATURE", "targets": [{"subtarget": "tgt", "weight": 0.8}]}])"));
  ASSERT_TRUE(s.ok()) << s.error().message;
  const auto tgt = static_cast<std::size_t>(s->find("tgt")), own = static_cast<std::size_t>(s->find("own"));
  Pose pose = Pose::rest(*s);
  pose.bones[tgt].rotation_mode = RotationMode::kXYZ;
  pose.bones[tgt].euler = {0.3, -0.2, 0.5};
  pose.bones[tgt].bbone.curveinx = 0.1;
  pose.bones[tgt].bbone.curveoutz = -0.08;
  pose.bones[tgt].bbone.rollout = 0.4;
  pose.bones[own].location = {0.0, 0.0, 0.25};  // moves the owner, not the point that picks the joints
  std::vector<Eigen::Matrix4d> m(s->size());
  poseMatrices(*s, pose, m);
  Skeleton plain = *s;
  plain.constraints.clear();
  std::vector<Eigen::Matrix4d> unconstrained(s->size());
  poseMatrices(plain, pose, unconstrained);
  const Eigen::Matrix4d blended = 0.4 * bboneJointDeform(*s, pose, m, tgt, 1) + 0.6 * bboneJointDeform(*s, pose, m, tgt, 2);
  const Eigen::Matrix4d expected = blended * unconstrained[own];
  EXPECT_TRUE(m[own].isApprox(expected, 1e-12)) << m[own] << "\n\n" << expected;
  // The curve moves the owner away from where the straight bone would take it.
  const Eigen::Matrix4d straight = m[tgt] * s->rest[tgt].inverse() * unconstrained[own];
  EXPECT_GT((m[own].topRightCorner<3, 1>() - straight.topRightCorner<3, 1>()).norm(), 0.005);

  // use_current_location: the owner's head before the constraint (0.45 along the target's axis,
  // 0.9 of its length) picks joints 3 and 4, blend 0.6.
  auto cur = fitDefault(bendyTarget(R"([{"type": "ARMATURE", "targets": [{"subtarget": "tgt", "weight": 1.0}],
                                         "use_current_location": true}])"));
  ASSERT_TRUE(cur.ok());
  poseMatrices(*cur, pose, m);
  const Eigen::Matrix4d moved = 0.4 * bboneJointDeform(*cur, pose, m, tgt, 3) + 0.6 * bboneJointDeform(*cur, pose, m, tgt, 4);
  EXPECT_TRUE(m[own].isApprox(moved * unconstrained[own], 1e-12)) << m[own] << "\n\n" << moved * unconstrained[own];
}

TEST(ConstraintEval, ArmatureOnABendyTargetWaitsForItsHandles) {
  // "own" comes first and is deformed by "bb", whose end handle is its connected child "kid".
  Json bones = Json::object();
  bones.set("own", boneJson({0.1, 0.2, 0}, {0.1, 0.4, 0}, 0.0, "",
                            parse(R"([{"type": "ARMATURE", "targets": [{"subtarget": "root", "weight": 0.5},
                                                                        {"subtarget": "bb", "weight": 0.5}]}])")));
  bones.set("root", boneJson({0.5, 0, 0}, {0.5, 0.3, 0}, 0.0, ""));
  addBendyWithHandle(bones, 3);
  auto s = fitDefault(rigJson(bones));
  ASSERT_TRUE(s.ok()) << s.error().message;
  const auto own = static_cast<std::size_t>(s->find("own")), kid = static_cast<std::size_t>(s->find("kid"));
  ASSERT_EQ(s->eval_order.size(), 4u);
  EXPECT_EQ(s->eval_order.back(), own);
  // Turning the handle bends the curve, which moves the owner.
  Pose pose = Pose::rest(*s);
  const std::vector<Eigen::Matrix4d> m = poseHandleTurned(*s, kid, pose);
  EXPECT_GT((m[own].topRightCorner<3, 1>() - s->rest[own].topRightCorner<3, 1>()).norm(), 0.001);

  // The handle itself deformed by the bone it shapes: an error (Blender: a dependency cycle).
  bones.set("kid", boneJson({0, 0.3, 0}, {0.2, 0.5, 0}, 0.0, "bb",
                            parse(R"([{"name": "Deform", "type": "ARMATURE", "targets": [{"subtarget": "bb", "weight": 1.0}]}])"), true));
  auto bad = fitDefault(rigJson(bones), "cyc.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "cyc.json: bones.kid: constraint \"Deform\" follows the B-Bone shape of \"bb\", which this bone shapes as its handle");
}

TEST(ConstraintEval, ChildOfIsBoundAtRestAndStretchToMeasuresItsRestLength) {
  auto s = fitDefault(twoBones(R"([{"type": "CHILD_OF", "target": true, "subtarget": "tgt", "set_inverse_pending": false},
                                   {"type": "STRETCH_TO", "target": true, "subtarget": "tgt"}])"));
  ASSERT_TRUE(s.ok());
  const auto tgt = static_cast<std::size_t>(s->find("tgt")), own = static_cast<std::size_t>(s->find("own"));
  const auto& cs = s->constraints[own];
  EXPECT_EQ(cs[0].owner_space, ConstraintSpace::kPose);  // Blender's default for a bone's CHILD_OF
  EXPECT_FALSE(cs[0].set_inverse_pending);
  EXPECT_TRUE(cs[0].inverse_matrix.isApprox(s->rest[tgt].inverse(), 1e-12));
  EXPECT_NEAR(cs[1].rest_length, (s->heads[tgt] - s->heads[own]).norm(), 1e-12);
  // At rest the owner keeps its head and points at the target's head.
  std::vector<Eigen::Matrix4d> m(s->size());
  poseMatrices(*s, Pose::rest(*s), m);
  EXPECT_LT((m[own].topRightCorner<3, 1>() - s->heads[own]).norm(), 1e-12);
  const Eigen::Vector3d y = m[own].col(1).head<3>();
  EXPECT_NEAR(y.norm(), 1.0, 1e-12);
  EXPECT_LT((y - (s->heads[tgt] - s->heads[own]).normalized()).norm(), 1e-12);
  // The target moved twice as far: the owner twice as long, thinner by sqrt(2) (VOLUME_XZX).
  Pose pose = Pose::rest(*s);
  const Eigen::Vector3d away = s->heads[tgt] - s->heads[own];
  pose.bones[tgt].location = s->rest[tgt].topLeftCorner<3, 3>().transpose() * away;
  Skeleton stretch = *s;
  stretch.constraints[own].erase(stretch.constraints[own].begin());
  poseMatrices(stretch, pose, m);
  EXPECT_NEAR(m[own].col(1).head<3>().norm(), 2.0, 1e-12);
  EXPECT_NEAR(m[own].col(0).head<3>().norm(), std::sqrt(0.5), 1e-12);
  // CHILD_OF alone at rest leaves the owner where it is; then it follows the target.
  Skeleton child = *s;
  child.constraints[own].resize(1);
  poseMatrices(child, Pose::rest(child), m);
  EXPECT_TRUE(m[own].isApprox(s->rest[own], 1e-12));
  poseMatrices(child, pose, m);
  EXPECT_TRUE((m[own].isApprox(m[tgt] * s->rest[tgt].inverse() * s->rest[own], 1e-12)));
}

// Compares rigfit's pose matrices with a golden's (each entry within `tolerance`); returns the
// largest difference over all bones and over the bones with constraints.
std::pair<double, double> compareGolden(const Json& golden, const Skeleton& s, const std::string& what, double tolerance) {
  const auto& names = golden.find("bones")->items();
  double worst = 0.0, worst_constrained = 0.0;
  std::string worst_where;
  for (const Json& p : golden.find("poses")->items()) {
    Pose pose = Pose::rest(s);
    for (const auto& [bone, ch] : p.find("channels")->members()) {
      const int b = s.find(bone);
      EXPECT_GE(b, 0) << bone;
      if (b < 0) continue;
      BonePose& bp = pose.bones[static_cast<std::size_t>(b)];
      const std::string mode = ch.find("mode")->asString();
      const auto& r = ch.find("rotation")->items();
      if (mode == "QUATERNION") {
        bp.rotation_mode = RotationMode::kQuaternion;
        bp.quaternion = {r[0].asDouble(), r[1].asDouble(), r[2].asDouble(), r[3].asDouble()};
      } else {
        for (RotationMode m : {RotationMode::kXYZ, RotationMode::kXZY, RotationMode::kYXZ, RotationMode::kYZX,
                               RotationMode::kZXY, RotationMode::kZYX})
          if (mode == rotationModeName(m)) bp.rotation_mode = m;
        bp.euler = {r[0].asDouble(), r[1].asDouble(), r[2].asDouble()};
      }
      if (const Json* l = ch.find("location")) bp.location = {l->items()[0].asDouble(), l->items()[1].asDouble(), l->items()[2].asDouble()};
      if (const Json* sc = ch.find("scale")) bp.scale = {sc->items()[0].asDouble(), sc->items()[1].asDouble(), sc->items()[2].asDouble()};
      if (const Json* bb = ch.find("bbone")) {
        const auto num = [bb](const char* key) { return bb->find(key)->asDouble(); };
        const auto vec = [bb](const char* key) {
          const auto& v = bb->find(key)->items();
          return Eigen::Vector3d(v[0].asDouble(), v[1].asDouble(), v[2].asDouble());
        };
        bp.bbone.curveinx = num("curveinx");
        bp.bbone.curveinz = num("curveinz");
        bp.bbone.curveoutx = num("curveoutx");
        bp.bbone.curveoutz = num("curveoutz");
        bp.bbone.rollin = num("rollin");
        bp.bbone.rollout = num("rollout");
        bp.bbone.easein = num("easein");
        bp.bbone.easeout = num("easeout");
        bp.bbone.scalein = vec("scalein");
        bp.bbone.scaleout = vec("scaleout");
      }
    }
    std::vector<Eigen::Matrix4d> m(s.size());
    poseMatrices(s, pose, m);
    const auto& mats = p.find("matrices")->items();
    EXPECT_EQ(mats.size(), names.size());
    for (std::size_t k = 0; k < names.size() && k < mats.size(); ++k) {
      const int b = s.find(names[k].asString());
      EXPECT_GE(b, 0);
      if (b < 0) continue;
      const auto& v = mats[k].items();
      double err = 0.0;
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c)
          err = std::max(err, std::abs(m[static_cast<std::size_t>(b)](r, c) - v[static_cast<std::size_t>(4 * r + c)].asDouble()));
      if (const char* dbg = std::getenv("RIGFIT_DEBUG_BONE"); dbg && names[k].asString() == dbg) {
        std::printf("%s rigfit:\n", p.find("name")->asString().c_str());
        for (int r = 0; r < 3; ++r) std::printf("  %.6f %.6f %.6f %.6f\n", m[static_cast<std::size_t>(b)](r, 0), m[static_cast<std::size_t>(b)](r, 1), m[static_cast<std::size_t>(b)](r, 2), m[static_cast<std::size_t>(b)](r, 3));
        std::printf("blender:\n");
        for (int r = 0; r < 3; ++r) std::printf("  %.6f %.6f %.6f %.6f\n", v[static_cast<std::size_t>(4 * r)].asDouble(), v[static_cast<std::size_t>(4 * r + 1)].asDouble(), v[static_cast<std::size_t>(4 * r + 2)].asDouble(), v[static_cast<std::size_t>(4 * r + 3)].asDouble());
      }
      EXPECT_LT(err, tolerance) << what << ": pose " << p.find("name")->asString() << ", bone " << names[k].asString();
      if (err > 1e-5 && std::getenv("RIGFIT_DEBUG_BONE")) std::printf("  %s / %s: %.3g\n", p.find("name")->asString().c_str(), names[k].asString().c_str(), err);
      if (static_cast<std::size_t>(b) < s.constraints.size() && !s.constraints[static_cast<std::size_t>(b)].empty())
        worst_constrained = std::max(worst_constrained, err);
      if (err > worst) {
        worst = err;
        worst_where = p.find("name")->asString() + " / " + names[k].asString();
      }
    }
  }
  std::printf("[ %s ] largest difference from Blender: %.3g (%s); on bones with constraints: %.3g\n", what.c_str(), worst,
              worst_where.c_str(), worst_constrained);
  return {worst, worst_constrained};
}

// A golden of tests/golden/constraints/ (its rig fitted to the default body) against Blender:
// every bone with a constraint within `limit` (Blender computes in float32).
void expectGoldenWithin(const std::string& file, const std::string& what, double limit) {
  auto golden = readJsonFile(test::sourceDir() + "/tests/golden/constraints/" + file);
  ASSERT_TRUE(golden.ok()) << golden.error().message;
  auto s = fitDefault(*golden->find("rig"), file);
  ASSERT_TRUE(s.ok()) << s.error().message;
  const auto [all, constrained] = compareGolden(*golden, *s, what, limit);
  EXPECT_LT(constrained, limit);
}

TEST(ConstraintGolden, SyntheticArmaturesMatchBlender) { expectGoldenWithin("synthetic.json", "synthetic", 1e-5); }

TEST(ConstraintGolden, BBoneShapeFollowsBlendersCurves) { expectGoldenWithin("bbone_shape.json", "bbone shape", 5e-5); }

TEST(ConstraintGolden, ArmatureOnBendyTargetsFollowsBlendersSegments) {
  expectGoldenWithin("armature_bbone.json", "armature bbone", 5e-5);
}

TEST(ConstraintGolden, RigifyHumanMatchesBlender) {
  RIGFIT_REQUIRE_SHARED_DATA();
  auto golden = readJsonFile(test::sourceDir() + "/tests/golden/constraints/rigify_human.json");
  ASSERT_TRUE(golden.ok()) << golden.error().message;
  const DataSource data = DataSource::folder(test::sharedData());
  auto base = loadBaseMesh(data);
  ASSERT_TRUE(base.ok());
  auto groups = loadVertexGroups(data, base->vertexCount());
  ASSERT_TRUE(groups.ok());
  auto rig = loadRig(data, *locateRig(data, golden->find("rig_file")->asString()));
  ASSERT_TRUE(rig.ok()) << rig.error().message;
  auto fit = fitRig(*rig, *base, *groups);
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  EXPECT_FALSE(fit->skeleton.constraints.empty());
  // Bones pointing near -Y carry Blender's float32 rest-frame noise (up to 2e-5; the issue's bound
  // for pose matrices is 5e-5); the constrained bones are within 1e-5.
  const auto [all, constrained] = compareGolden(*golden, fit->skeleton, "rigify human", 5e-5);
  EXPECT_LT(constrained, 1e-5);
}

}  // namespace
}  // namespace rigfit
