// Bendy bones (B-Bones): reading `bendy_bone` settings, the joint matrices of the rest and posed
// curves, and vertices deformed by them, compared with Blender 3.4.1 (tests/golden/bbones, written
// by tools/blender/bbone_reference.py): chains with AUTO handles, the ponytail's layout, custom
// handles of each type with handle ease and scale, rest and pose B-Bone channels, and a
// non-uniformly scaled bendy bone, the end-roll-as-in-roll and scale-easing flags; linear and
// dual-quaternion skinning.
#include <cmath>
#include <filesystem>
#include <map>
#include <numbers>

#include <unistd.h>

#include <gtest/gtest.h>

#include "rigfit/bbone.hpp"
#include "rigfit/bbone_bake.hpp"
#include "rigfit/character_export.hpp"
#include "rigfit/gltf.hpp"
#include "rigfit/bone_frame.hpp"
#include "rigfit/file_io.hpp"
#include "rigfit/fit.hpp"
#include "rigfit/json.hpp"
#include "rigfit/pose.hpp"
#include "rigfit/posing.hpp"
#include "rigfit/skinning.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

Eigen::Vector3d vec3(const Json& j) { return {j.items()[0].asDouble(), j.items()[1].asDouble(), j.items()[2].asDouble()}; }

Eigen::Matrix4d mat4(const Json& j) {  // 16 numbers, row-major
  Eigen::Matrix4d m;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) m(r, c) = j.items()[static_cast<std::size_t>(4 * r + c)].asDouble();
  return m;
}

// A golden case as a skeleton, a pose and a skin.
struct Case {
  Skeleton skeleton;
  Pose pose;
  Skin skin;
  std::vector<float> positions;
};

Case buildCase(const Json& golden) {
  Case c;
  Skeleton& s = c.skeleton;
  const auto& bones = golden.find("bones")->items();
  for (const Json& b : bones) {
    s.names.push_back(b.find("name")->asString());
    const std::string parent = b.find("parent")->asString();
    s.parents.push_back(parent.empty() ? kNoParent : s.find(parent));
    s.heads.push_back(vec3(*b.find("head")));
    s.tails.push_back(vec3(*b.find("tail")));
    s.rolls.push_back(b.find("roll")->asDouble());
    s.lengths.push_back((s.tails.back() - s.heads.back()).norm());
    s.connected.push_back(b.find("use_connect")->asBool() && !parent.empty());
  }
  const std::size_t n = s.size();
  s.rest.resize(n);
  s.local_rotation.resize(n);
  s.local_head.resize(n);
  s.local_length.resize(n);
  blenderRestMatrices(s.heads.data(), s.tails.data(), s.rolls.data(), s.parents.data(), n, s.rest.data(),
                      s.local_rotation.data(), s.local_head.data(), s.local_length.data());
  s.bbones.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto bb = readBendyBone(*bones[i].find("bendy_bone"), "bendy_bone", [&](std::string_view name) { return s.find(name); });
    EXPECT_TRUE(bb.ok()) << bb.error().message;
    if (bb.ok()) s.bbones[i] = *bb;
    if (const Json* flags = bones[i].find("flags")) {  // Bone properties a rig file cannot set
      if (const Json* f = flags->find("use_endroll_as_inroll")) s.bbones[i].use_endroll_as_inroll = f->asBool();
      if (const Json* f = flags->find("use_scale_easing")) s.bbones[i].use_scale_easing = f->asBool();
    }
  }
  c.pose = Pose::rest(s);
  for (const auto& [name, p] : golden.find("pose")->members()) {
    BonePose& bp = c.pose.bones[static_cast<std::size_t>(s.find(name))];
    bp.rotation_mode = RotationMode::kQuaternion;
    if (const Json* q = p.find("rotation_quaternion"))
      for (std::size_t k = 0; k < 4; ++k) bp.quaternion[static_cast<Eigen::Index>(k)] = q->items()[k].asDouble();
    if (const Json* l = p.find("location")) bp.location = vec3(*l);
    if (const Json* sc = p.find("scale")) bp.scale = vec3(*sc);
    if (const Json* bb = p.find("bbone")) {
      BBonePose& ch = bp.bbone;
      for (const auto& [key, v] : bb->members()) {
        if (key == "scalein") ch.scalein = vec3(v);
        else if (key == "scaleout") ch.scaleout = vec3(v);
        else {
          const std::map<std::string, double*> fields{{"curveinx", &ch.curveinx}, {"curveinz", &ch.curveinz},
                                                      {"curveoutx", &ch.curveoutx}, {"curveoutz", &ch.curveoutz},
                                                      {"rollin", &ch.rollin},       {"rollout", &ch.rollout},
                                                      {"easein", &ch.easein},       {"easeout", &ch.easeout}};
          *fields.at(key) = v.asDouble();
        }
      }
    }
  }
  c.skin.vertex_count = golden.find("vertices")->items().size();
  c.skin.bone_count = n;
  c.skin.offsets.push_back(0);
  for (const Json& v : golden.find("vertices")->items())
    for (const Json& x : v.items()) c.positions.push_back(static_cast<float>(x.asDouble()));
  for (const Json& ws : golden.find("weights")->items()) {
    for (const Json& w : ws.items()) {
      c.skin.bones.push_back(static_cast<std::uint16_t>(s.find(w.items()[0].asString())));
      c.skin.weights.push_back(static_cast<float>(w.items()[1].asDouble()));
    }
    c.skin.offsets.push_back(static_cast<std::uint32_t>(c.skin.bones.size()));
  }
  return c;
}

double maxDiff(const Eigen::Matrix4d& a, const Eigen::Matrix4d& b) { return (a - b).cwiseAbs().maxCoeff(); }

TEST(BBone, MatchesBlenderJointsAndDeformation) {
  const std::string dir = test::sourceDir() + "/tests/golden/bbones";
  int files = 0;
  double worst_joint = 0.0, worst_lbs = 0.0, worst_dq = 0.0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    auto golden = readJsonFile(entry.path().string());
    ASSERT_TRUE(golden.ok()) << golden.error().message;
    const std::string name = entry.path().stem().string();
    Case c = buildCase(*golden);
    const Skeleton& s = c.skeleton;
    const Json& bl = *golden->find("blender");
    std::vector<Eigen::Matrix4d> pose(s.size());
    poseMatrices(s, c.pose, pose);
    for (std::size_t i = 0; i < s.size(); ++i) {
      EXPECT_LT(maxDiff(s.rest[i], mat4(*bl.find("rest_matrices")->find(s.names[i]))), 2e-6) << name << " " << s.names[i];
      EXPECT_LT(maxDiff(pose[i], mat4(*bl.find("pose_matrices")->find(s.names[i]))), 5e-6) << name << " " << s.names[i];
    }
    // Joint matrices, rest and posed (bone space).
    for (const char* kind : {"rest_segments", "pose_segments"}) {
      const bool rest = kind[0] == 'r';
      for (const auto& [bone, joints] : bl.find(kind)->members()) {
        const auto i = static_cast<std::size_t>(s.find(bone));
        ASSERT_EQ(joints.items().size(), static_cast<std::size_t>(s.bbones[i].segments) + 1) << name << " " << bone;
        std::vector<Eigen::Matrix4d> out(joints.items().size());
        bboneJointMatrices(s, c.pose, pose, i, rest, out);
        for (std::size_t a = 0; a < out.size(); ++a) {
          const double d = maxDiff(out[a], mat4(joints.items()[a]));
          worst_joint = std::max(worst_joint, d);
          EXPECT_LT(d, 2e-5) << name << " " << kind << " " << bone << " joint " << a;
        }
      }
    }
    // Deformed vertices: the plain job for every vertex, then the bendy ones again.
    std::vector<Eigen::Matrix4d> skinning(s.size());
    skinningMatrices(s, pose, skinning);
    std::vector<float> packed(12 * s.size()), rest(12 * s.size());
    packSkinningMatrices(skinning, packed);
    packSkinningMatrices(s.rest, rest);
    BBoneSkinning bb;
    bboneSkinningMatrices(s, c.pose, pose, bb);
    ASSERT_FALSE(bb.empty());
    for (const bool dq : {false, true}) {
      std::vector<float> out(c.positions.size());
      SkinningJob job;
      job.skin = &c.skin;
      job.reference = true;
      job.matrices = packed;
      job.rest_matrices = rest;
      job.dual_quaternion = dq;
      job.in_positions = c.positions;
      job.out_positions = out;
      ASSERT_TRUE(job.run());
      EXPECT_GT(skinBendyVertices(s, bb, skinning, c.skin, dq, c.positions, {}, out, {}), 0u);
      const auto& expected = bl.find(dq ? "deformed_dq" : "deformed_lbs")->items();
      ASSERT_EQ(expected.size() * 3, out.size());
      for (std::size_t v = 0; v < expected.size(); ++v) {
        const Eigen::Vector3d e = vec3(expected[v]);
        const Eigen::Vector3d r(out[3 * v], out[3 * v + 1], out[3 * v + 2]);
        const double d = (e - r).norm();
        (dq ? worst_dq : worst_lbs) = std::max(dq ? worst_dq : worst_lbs, d);
        EXPECT_LT(d, 1e-5) << name << (dq ? " dq" : " lbs") << " vertex " << v;
      }
    }
  }
  EXPECT_EQ(files, 9);
  std::printf("B-Bones vs Blender 3.4.1: joints max %.2e, LBS vertices max %.2e m, DQ vertices max %.2e m\n", worst_joint,
              worst_lbs, worst_dq);
}

// A fitted character whose rig has bendy bones (game_engine with `bendy_bone` entries added:
// AUTO, ABSOLUTE, TANGENT and RELATIVE handles, handle scale), posed by rigfit's poseCharacter and
// by Blender 3.4.1 (tools/blender/deform_reference.py --bendy), linear and dual quaternion: every
// 3rd body vertex weighted to a bendy bone.
TEST(BBone, PosedCharacterMatchesBlender) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const std::string dir = test::sourceDir() + "/tests/golden/bbones/character";
  const DataSource data = DataSource::folder(test::sharedData());
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    auto golden = readJsonFile(entry.path().string());
    ASSERT_TRUE(golden.ok()) << golden.error().message;
    // The rig file with the golden's bendy_bone entries, as a file of its own.
    const std::string rig_path = test::sharedData() + "/rigs/standard/rig." + golden->find("rig")->asString() + ".json";
    auto rig = readJsonFile(rig_path);
    ASSERT_TRUE(rig.ok()) << rig.error().message;
    for (const auto& [bone, bb] : golden->find("bendy")->members()) {
      Json* b = rig->find(bone);
      ASSERT_NE(b, nullptr) << bone;
      b->members().emplace_back("bendy_bone", bb);
    }
    const auto tmp = std::filesystem::temp_directory_path() / ("rigfit_bbone_" + std::to_string(::getpid()) + ".json");
    ASSERT_TRUE(writeFileAtomic(tmp.string(), writeJson(*rig)).ok());
    CharacterOptions o;
    o.rig = tmp.string();
    o.weights = test::sharedData() + "/rigs/standard/weights." + golden->find("rig")->asString() + ".json";
    auto c = loadCharacter(data, o);
    std::filesystem::remove(tmp);
    ASSERT_TRUE(c.ok()) << c.error().message;
    ASSERT_TRUE(hasBendyBones(c->fit.skeleton));
    PoseRequest request;
    for (const Json& r : golden->find("rotate")->items()) {
      auto rotation = parseBoneRotation(r.asString(), BoneRotation::Kind::kEulerXyzDegrees);
      ASSERT_TRUE(rotation.ok()) << rotation.error().message;
      request.rotations.push_back(std::move(*rotation));
    }
    Pose pose;
    ASSERT_TRUE(buildPose(data, *c, request, pose, nullptr).ok());
    PosedMesh posed;
    ASSERT_TRUE(poseCharacter(*c, pose, golden->find("dqs")->asBool(), 1, posed).ok());
    double worst = 0.0, bendy_effect = 0.0;
    // The same pose with the bones made plain: how much the B-Bones change these vertices.
    Character plain = *c;
    plain.fit.skeleton.bbones.clear();
    PosedMesh rigid;
    ASSERT_TRUE(poseCharacter(plain, pose, golden->find("dqs")->asBool(), 1, rigid).ok());
    for (const Json& v : golden->find("vertices")->items()) {
      const auto i = static_cast<std::size_t>(v.items()[0].asInt());
      const Eigen::Vector3d b(v.items()[1].asDouble(), v.items()[2].asDouble(), v.items()[3].asDouble());
      const Eigen::Vector3d r(posed.positions[3 * i], posed.positions[3 * i + 1], posed.positions[3 * i + 2]);
      const Eigen::Vector3d q(rigid.positions[3 * i], rigid.positions[3 * i + 1], rigid.positions[3 * i + 2]);
      worst = std::max(worst, (r - b).norm());
      bendy_effect = std::max(bendy_effect, (q - b).norm());
    }
    EXPECT_LE(worst, 1e-5) << entry.path().filename();
    EXPECT_GT(bendy_effect, 5e-3) << entry.path().filename() << ": the bendy bones should matter";
    std::printf("%s: max |rigfit - Blender| %.2e m; plain bones would be off by %.3f m\n",
                entry.path().filename().c_str(), worst, bendy_effect);
    ++files;
  }
  EXPECT_EQ(files, 2);
}

TEST(BBone, ReadsSettings) {
  auto j = parseJson(R"({"segments": 6, "mapping_mode": "CURVED", "handle_type_start": "TANGENT",
      "handle_type_end": "RELATIVE", "custom_handle_start": "h1", "custom_handle_end": null,
      "handle_use_ease_start": true, "handle_use_scale_end": [true, false, true], "easein": 0.0,
      "easeout": 2, "rollin": 0.5, "curveoutz": -0.25, "scalein": [1, 2, 3], "x": 0.1})", "t");
  ASSERT_TRUE(j.ok());
  auto b = readBendyBone(*j, "bendy_bone", [](std::string_view n) { return n == "h1" ? 7 : -1; });
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ(b->segments, 6);
  EXPECT_EQ(b->mapping, BBoneMapping::kCurved);
  EXPECT_EQ(b->handle_type_start, BBoneHandleType::kTangent);
  EXPECT_EQ(b->handle_type_end, BBoneHandleType::kRelative);
  EXPECT_EQ(b->custom_handle_start, 7);
  EXPECT_EQ(b->custom_handle_end, -1);
  EXPECT_TRUE(b->handle_use_ease_start);
  EXPECT_FALSE(b->handle_use_ease_end);
  EXPECT_EQ(b->handle_use_scale_end, (std::array<bool, 3>{true, false, true}));
  EXPECT_EQ(b->handle_use_scale_start, (std::array<bool, 3>{false, false, false}));
  EXPECT_EQ(b->easein, 0.0);
  EXPECT_EQ(b->easeout, 2.0);
  EXPECT_EQ(b->rollin, 0.5);
  EXPECT_EQ(b->curveoutz, -0.25);
  EXPECT_EQ(b->scalein, Eigen::Vector3d(1, 2, 3));
  EXPECT_EQ(b->scaleout, Eigen::Vector3d::Ones());
  // Blender's defaults.
  auto d = readBendyBone(Json::object(), "b", [](std::string_view) { return -1; });
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->segments, 1);
  EXPECT_EQ(d->easein, 1.0);
  EXPECT_EQ(d->handle_type_start, BBoneHandleType::kAuto);
}

TEST(BBone, RejectsBadSettingsNamingThePath) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"segments": 0})", "W.segments: 0 is outside 1..32"},
      {R"({"segments": 33})", "W.segments: 33 is outside 1..32"},
      {R"({"segments": 2.5})", "W.segments: expected an integer"},
      {R"({"handle_type_start": "SIDEWAYS"})", "W.handle_type_start: expected AUTO, ABSOLUTE, RELATIVE or TANGENT"},
      {R"({"mapping_mode": "BENT"})", "W.mapping_mode: expected STRAIGHT or CURVED"},
      {R"({"custom_handle_end": "nope"})", "W.custom_handle_end: no bone \"nope\" in the rig"},
      {R"({"custom_handle_start": 3})", "W.custom_handle_start: expected a bone name or null"},
      {R"({"easein": "x"})", "W.easein: expected a number"},
      {R"({"handle_use_scale_start": [true, false]})", "W.handle_use_scale_start: expected 3 booleans"},
      {R"({"scaleout": [1, 2]})", "W.scaleout: expected 3 numbers"},
      {R"({"handle_use_ease_end": 1})", "W.handle_use_ease_end: expected a boolean"},
      {R"({"flavour": 1})", "W.flavour: unknown B-Bone setting"},
  };
  for (const auto& [text, message] : cases) {
    auto j = parseJson(text, "t");
    ASSERT_TRUE(j.ok());
    auto b = readBendyBone(*j, "W", [](std::string_view) { return -1; });
    ASSERT_FALSE(b.ok()) << text;
    EXPECT_EQ(b.error().code, ErrorCode::kSchema) << text;
    EXPECT_EQ(b.error().message.rfind(message, 0), 0u) << text << " -> " << b.error().message;
  }
}

TEST(BBone, FittingResolvesHandlesAndReportsBadEntries) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const DataSource data = DataSource::folder(test::sharedData());
  const std::string rig_path = test::sharedData() + "/rigs/standard/rig.game_engine.json";
  const auto load = [&](const char* bone, const char* entry) {
    auto rig = readJsonFile(rig_path);
    EXPECT_TRUE(rig.ok());
    auto bb = parseJson(entry, "t");
    EXPECT_TRUE(bb.ok());
    rig->find(bone)->members().emplace_back("bendy_bone", *bb);
    const auto tmp = std::filesystem::temp_directory_path() / ("rig.bbone_" + std::to_string(::getpid()) + ".json");
    EXPECT_TRUE(writeFileAtomic(tmp.string(), writeJson(*rig)).ok());
    CharacterOptions o;
    o.rig = tmp.string();
    o.weights = "none";
    auto c = loadCharacter(data, o);
    std::filesystem::remove(tmp);
    return std::make_pair(std::move(c), tmp.filename().string());
  };
  {
    auto [c, file] = load("spine_02", R"({"segments": 4, "handle_type_end": "ABSOLUTE", "custom_handle_end": "neck_01"})");
    ASSERT_TRUE(c.ok()) << c.error().message;
    const Skeleton& s = c->fit.skeleton;
    ASSERT_EQ(s.bbones.size(), s.size());
    const BBone& b = s.bbones[static_cast<std::size_t>(s.find("spine_02"))];
    EXPECT_EQ(b.segments, 4);
    EXPECT_EQ(b.custom_handle_end, s.find("neck_01"));  // a skeleton index, not the rig's
    EXPECT_EQ(s.bbones[static_cast<std::size_t>(s.find("spine_01"))].segments, 1);
  }
  {
    auto [c, file] = load("spine_02", R"({"segments": 40})");
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.error().message.find(file + ": bones.spine_02.bendy_bone.segments: 40 is outside 1..32"), std::string::npos)
        << c.error().message;
  }
  {
    auto [c, file] = load("upperarm_l", R"({"custom_handle_start": "no_such_bone"})");
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.error().message.find("bones.upperarm_l.bendy_bone.custom_handle_start: no bone \"no_such_bone\""),
              std::string::npos)
        << c.error().message;
  }
}

// Hand-computed: a lone bendy bone with no handles and default settings stays straight, its
// joints evenly spaced along Y with the bone's own frame; with curveinx/curveoutx the rest curve
// bends in X and both ends keep the bone's head and tail.
TEST(BBone, StraightAndCurvedLoneBone) {
  Skeleton s;
  s.names = {"b"};
  s.parents = {kNoParent};
  s.heads = {Eigen::Vector3d(0, 0, 0)};
  s.tails = {Eigen::Vector3d(0, 2, 0)};
  s.rolls = {0.0};
  s.lengths = {2.0};
  s.connected = {0};
  s.rest.resize(1);
  s.local_rotation.resize(1);
  s.local_head.resize(1);
  s.local_length.resize(1);
  blenderRestMatrices(s.heads.data(), s.tails.data(), s.rolls.data(), s.parents.data(), 1, s.rest.data(),
                      s.local_rotation.data(), s.local_head.data(), s.local_length.data());
  s.bbones.resize(1);
  s.bbones[0].segments = 4;
  const Pose pose = Pose::rest(s);
  std::vector<Eigen::Matrix4d> pm(1);
  poseMatrices(s, pose, pm);
  std::vector<Eigen::Matrix4d> joints(5);
  bboneJointMatrices(s, pose, pm, 0, true, joints);
  for (int a = 0; a <= 4; ++a) {
    Eigen::Matrix4d expected = Eigen::Matrix4d::Identity();
    expected(1, 3) = 0.5 * a;
    EXPECT_LT((joints[static_cast<std::size_t>(a)] - expected).cwiseAbs().maxCoeff(), 1e-12) << a;
  }
  s.bbones[0].curveinx = 0.3;
  s.bbones[0].curveoutx = 0.3;
  bboneJointMatrices(s, pose, pm, 0, true, joints);
  EXPECT_LT(joints[0].col(3).head<3>().norm(), 1e-12);
  EXPECT_LT((joints[4].col(3).head<3>() - Eigen::Vector3d(0, 2, 0)).norm(), 1e-12);
  EXPECT_GT(joints[2].col(3).x(), 0.1);                                   // bulges towards +X
  EXPECT_NEAR(joints[2].col(3).y(), 1.0, 1e-9);                           // symmetric curve: middle joint at half length
  EXPECT_GT(joints[0].col(1).x(), 0.0);                                   // leaves the head towards +X
  EXPECT_LT(joints[4].col(1).x(), 0.0);                                   // and comes back
  // At rest the deformation is the identity, curved or not.
  BBoneSkinning bb;
  bboneSkinningMatrices(s, pose, pm, bb);
  ASSERT_EQ(bb.matrices.size(), 5u);
  for (const auto& m : bb.matrices) EXPECT_LT((m - Eigen::Matrix4d::Identity()).cwiseAbs().maxCoeff(), 1e-12);
  // Segment mapping: a point at 30% of the bone is in segment 1, 20% of the way to joint 2.
  int index = 0;
  double blend = 0.0;
  bboneSegment(s, bb, 0, Eigen::Vector3d(0.1, 0.6, 0.0), index, blend);
  EXPECT_EQ(index, 1);
  EXPECT_NEAR(blend, 0.2, 1e-12);
  bboneSegment(s, bb, 0, Eigen::Vector3d(0.0, -1.0, 0.0), index, blend);  // before the head: joint 0
  EXPECT_EQ(index, 0);
  EXPECT_EQ(blend, 0.0);
  bboneSegment(s, bb, 0, Eigen::Vector3d(0.0, 3.0, 0.0), index, blend);  // past the tail: the last joint
  EXPECT_EQ(index, 3);
  EXPECT_EQ(blend, 1.0);
  // CURVED mapping (Blender 4.0) on the straight bone: the joint planes are y = 0, 0.5, ... so a
  // point maps as with STRAIGHT.
  s.bbones[0].curveinx = s.bbones[0].curveoutx = 0.0;
  s.bbones[0].mapping = BBoneMapping::kCurved;
  bboneSkinningMatrices(s, pose, pm, bb);
  bboneSegment(s, bb, 0, Eigen::Vector3d(0.1, 0.6, 0.0), index, blend);
  EXPECT_EQ(index, 1);
  EXPECT_NEAR(blend, 0.2, 1e-12);
  bboneSegment(s, bb, 0, Eigen::Vector3d(0.0, 1.9, 0.3), index, blend);
  EXPECT_EQ(index, 3);
  EXPECT_NEAR(blend, 0.8, 1e-12);
}

// Baked joints posed as an engine poses them (each joint at its posed curve frame, plain linear
// skinning with the split weights) against Blender's B-Bone deformation: exact (float noise) when
// no joint's thickness changes in the pose; otherwise the lost X/Z scale shows.
TEST(BBone, BakedJointsReproduceBlenderWithPlainSkinning) {
  const std::string dir = test::sourceDir() + "/tests/golden/bbones";
  std::map<std::string, double> worst;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    auto golden = readJsonFile(entry.path().string());
    ASSERT_TRUE(golden.ok());
    const std::string name = entry.path().stem().string();
    Case c = buildCase(*golden);
    const Skeleton& s = c.skeleton;
    const Skeleton baked = bakeBendySkeleton(s);
    ASSERT_FALSE(hasBendyBones(baked));
    std::size_t joints = s.size();
    for (const BBone& b : s.bbones) joints += b.segments > 1 ? static_cast<std::size_t>(b.segments) + 1 : 0;
    ASSERT_EQ(baked.size(), joints) << name;
    // The baked rest frames are Blender rest frames of their heads, tails and rolls.
    for (std::size_t j = s.size(); j < baked.size(); ++j) {
      EXPECT_LT((boneMatrix(baked.heads[j], baked.tails[j], baked.rolls[j]) - baked.rest[j]).cwiseAbs().maxCoeff(), 1e-9);
      const auto p = static_cast<std::size_t>(baked.parents[j]);
      Eigen::Matrix4d local = Eigen::Matrix4d::Identity();
      local.topLeftCorner<3, 3>() = baked.local_rotation[j];
      local.col(3).head<3>() = baked.local_head[j] + Eigen::Vector3d(0, baked.local_length[p], 0);
      EXPECT_LT((baked.rest[p] * local - baked.rest[j]).cwiseAbs().maxCoeff(), 1e-12);
    }
    const Skin skin = bakeBendySkin(s, c.skin, c.positions);
    ASSERT_EQ(skin.bone_count, baked.size());
    for (std::size_t v = 0; v < skin.vertex_count; ++v) {
      float before = 0.0f, after = 0.0f;
      for (std::uint32_t i = c.skin.offsets[v]; i < c.skin.offsets[v + 1]; ++i) before += c.skin.weights[i];
      for (std::uint32_t i = skin.offsets[v]; i < skin.offsets[v + 1]; ++i) {
        after += skin.weights[i];
        EXPECT_TRUE(skin.bones[i] >= s.size() || s.bbones[skin.bones[i]].segments == 1) << "weight left on a bendy bone";
        if (i > skin.offsets[v]) {
          EXPECT_GE(skin.weights[i - 1], skin.weights[i]);
        }
      }
      EXPECT_NEAR(before, after, 1e-6);
    }
    std::vector<Eigen::Matrix4d> pose(s.size()), baked_pose(baked.size()), skinning(baked.size());
    poseMatrices(s, c.pose, pose);
    bakedPoseMatrices(s, c.pose, pose, baked_pose);
    skinningMatrices(baked, baked_pose, skinning);
    std::vector<float> packed(12 * baked.size()), out(c.positions.size());
    packSkinningMatrices(skinning, packed);
    SkinningJob job;
    job.skin = &skin;
    job.reference = true;
    job.matrices = packed;
    job.in_positions = c.positions;
    job.out_positions = out;
    ASSERT_TRUE(job.run());
    const auto& expected = golden->find("blender")->find("deformed_lbs")->items();
    double w = 0.0;
    for (std::size_t v = 0; v < expected.size(); ++v)
      w = std::max(w, (vec3(expected[v]) - Eigen::Vector3d(out[3 * v], out[3 * v + 1], out[3 * v + 2])).norm());
    worst[name] = w;
    std::printf("baked %-18s max |engine LBS - Blender B-Bones| %.2e m\n", name.c_str(), w);
  }
  ASSERT_EQ(worst.size(), 9u);
  // Bends and twists (the ponytail bent up to 45 degrees per bone, and 60 degrees at every bone;
  // pose-time roll, ease and segment spacing): exact.
  EXPECT_LT(worst["ponytail"], 1e-5);
  EXPECT_LT(worst["ponytail_bent60"], 1e-5);
  EXPECT_LT(worst["flags"], 1e-5);
  // A bone stretched 1.3 times along Y (non-uniform pose scale): approximated.
  EXPECT_LT(worst["chain"], 3e-3);
  // Joints whose X/Z scale changes in the pose (handle scale, scale in/out channels): the
  // thickness is lost.
  for (const char* lost : {"handles_absolute", "handles_relative", "handles_tangent", "channels", "scaled"}) EXPECT_LT(worst[lost], 2e-2) << lost;
}

// `rigfit export` bakes bendy bones: the glTF has each bendy bone's joint chain, and the bind
// pose of the export skins the body as the bendy bones do at rest (no movement).
TEST(BBone, ExportBakesJointChains) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const DataSource data = DataSource::folder(test::sharedData());
  const std::string dir = test::sourceDir() + "/tests/golden/bbones/character";
  auto golden = readJsonFile(dir + "/game_engine.bendy.json");
  ASSERT_TRUE(golden.ok());
  auto rig = readJsonFile(test::sharedData() + "/rigs/standard/rig.game_engine.json");
  ASSERT_TRUE(rig.ok());
  for (const auto& [bone, bb] : golden->find("bendy")->members()) rig->find(bone)->members().emplace_back("bendy_bone", bb);
  const auto tmp = std::filesystem::temp_directory_path() / ("rigfit_bbone_export_" + std::to_string(::getpid()) + ".json");
  ASSERT_TRUE(writeFileAtomic(tmp.string(), writeJson(*rig)).ok());
  CharacterOptions o;
  o.rig = tmp.string();
  o.weights = test::sharedData() + "/rigs/standard/weights.game_engine.json";
  auto c = loadCharacter(data, o);
  std::filesystem::remove(tmp);
  ASSERT_TRUE(c.ok()) << c.error().message;
  const std::size_t plain = c->fit.skeleton.size();
  auto baked = exportCharacter(data, *c, {}, {});
  ASSERT_TRUE(baked.ok()) << baked.error().message;
  EXPECT_EQ(baked->report.joints, plain + 4 + 5 + 6);  // 3, 4 and 5 segments: segments + 1 joints each
  EXPECT_NE(baked->main.find("spine_02_bbone4"), std::string::npos);
  auto kept = exportCharacter(data, *c, {}, {.keep_bendy_bones = true});
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  EXPECT_EQ(kept->report.joints, plain);
  // Posed as the bind pose: the joint chains follow the posed curves.
  PoseRequest request;
  request.rotations.push_back(*parseBoneRotation("spine_02=15,0,0", BoneRotation::Kind::kEulerXyzDegrees));
  auto posed = exportCharacter(data, *c, request, {});
  ASSERT_TRUE(posed.ok()) << posed.error().message;
  EXPECT_EQ(posed->report.joints, plain + 15);
}

}  // namespace
}  // namespace rigfit
