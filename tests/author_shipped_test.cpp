// Rig authoring on MPFB's data: round trips of every shipped rig, agreement of the automatic
// strategy choice with the shipped files on MPFB's default character (docs/mpfb-behaviour.md
// §11.2), and a third-party glTF skeleton turned into a rig that follows shaped bodies.
#include <cmath>
#include <cstdio>
#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <tuple>

#include <unistd.h>

#include <gtest/gtest.h>

#include "rigfit/author.hpp"
#include "rigfit/data.hpp"
#include "rigfit/export_model.hpp"
#include "rigfit/file_io.hpp"
#include "rigfit/fit.hpp"
#include "rigfit/gltf.hpp"
#include "rigfit/shape.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

struct Body {
  Mesh mesh;
  VertexGroups groups;
  PositionInfo info;
};

// MPFB's default character (§11.2): base.obj + the default macro targets, optionally grounded;
// or a shaped body from macro settings.
Body body(const DataSource& data, bool ground, const MacroSettings& macros = {}) {
  Body b;
  auto mesh = loadBaseMesh(data);
  EXPECT_TRUE(mesh.ok());
  b.mesh = std::move(*mesh);
  auto groups = loadVertexGroups(data, b.mesh.vertexCount());
  EXPECT_TRUE(groups.ok());
  b.groups = std::move(*groups);
  TargetCache cache(data);
  ShapeRequest r;
  r.use_macros = true;
  r.macros = macros;
  r.ground = ground;
  EXPECT_TRUE(shapeBody(cache, r, b.mesh.positions).ok());
  auto info = makePositionInfo(b.mesh.positions, b.groups, static_cast<double>(b.mesh.scale_factor));
  EXPECT_TRUE(info.ok());
  b.info = std::move(*info);
  return b;
}

RigDefinition rig(const DataSource& data, const std::string& rel) {
  auto r = parseRig(*data.read(rel), rel);
  EXPECT_TRUE(r.ok()) << rel;
  return std::move(*r);
}

Skeleton fit(const RigDefinition& r, const Body& b) {
  auto f = fitRig(r, b.mesh, b.groups);
  EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().message);
  return f.ok() ? f->skeleton : Skeleton{};
}

bool grounded(const std::string& rel) {
  // §1.4: the Rigify rigs and openpose were saved on the grounded default character.
  return rel.find("rigify/") != std::string::npos || rel.find("openpose") != std::string::npos;
}

// fit -> save (the rig's own strategies as saved ones) -> load -> fit: the same positions.
TEST(AuthorShipped, RoundTripEveryRig) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const DataSource data = DataSource::folder(test::sharedData());
  const Body b = body(data, true);
  for (const char* rel : test::kShippedRigs) {
    SCOPED_TRACE(rel);
    const RigDefinition original = rig(data, rel);
    const Skeleton s = fit(original, b);
    SaveReport rep;
    auto saved = saveRig(original, placementsFromSkeleton(s), b.info, {}, &rep);
    ASSERT_TRUE(saved.ok()) << saved.error().message;
    EXPECT_EQ(rep.saved_replaced, 0u);  // a strategy that reproduces the position exactly is never beaten
    EXPECT_EQ(rep.ends_by_strategy[static_cast<int>(Strategy::kDefault)], 0u);
    auto reloaded = parseRig(writeRig(*saved), "saved");
    ASSERT_TRUE(reloaded.ok()) << reloaded.error().message;
    const Skeleton r = fit(*reloaded, b);
    ASSERT_EQ(r.size(), s.size());
    double worst = 0.0, worst_offset = 0.0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const int k = r.find(s.names[i]);
      ASSERT_GE(k, 0);
      const BoneDef* bone = reloaded->find(s.names[i]);
      const BoneDef* orig = original.find(s.names[i]);
      EXPECT_TRUE(sameStrategy(bone->head, orig->head) || orig->head.offset) << s.names[i];
      EXPECT_TRUE(sameStrategy(bone->tail, orig->tail) || orig->tail.offset) << s.names[i];
      const double dh = (r.heads[static_cast<std::size_t>(k)] - s.heads[i]).norm();
      const double dt = (r.tails[static_cast<std::size_t>(k)] - s.tails[i]).norm();
      // Offsets are rounded to 5 decimals on save (§6.6): exact elsewhere. A connected head is
      // where its parent's tail is.
      const BoneDef* parent = orig->use_connect ? original.find(orig->parent) : nullptr;
      const bool head_rounded = orig->head.offset || (parent && parent->tail.offset);
      double& head_worst = head_rounded ? worst_offset : worst;
      double& tail_worst = orig->tail.offset ? worst_offset : worst;
      head_worst = std::max(head_worst, dh);
      tail_worst = std::max(tail_worst, dt);
    }
    EXPECT_LE(worst, 1e-6);
    EXPECT_LE(worst_offset, 1e-5);
  }
}

// Automatic strategies only: refitting on the same body reproduces every end within its
// strategy's residual, exactly where the residual is 0.
TEST(AuthorShipped, AutomaticRoundTripWithinResiduals) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const DataSource data = DataSource::folder(test::sharedData());
  const Body b = body(data, true);
  for (const char* rel : {"rigs/standard/rig.game_engine.json", "rigs/rigify/rig.human_toes.json"}) {
    SCOPED_TRACE(rel);
    const RigDefinition original = rig(data, rel);
    const Skeleton s = fit(original, b);
    SaveOptions o;
    o.use_saved = false;
    auto saved = saveRig(original, placementsFromSkeleton(s), b.info, o);
    ASSERT_TRUE(saved.ok());
    const Skeleton r = fit(*saved, b);
    std::size_t exact = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const BoneDef* bone = saved->find(s.names[i]);
      const int k = r.find(s.names[i]);
      ASSERT_GE(k, 0);
      auto residual = [&](const EndDef& e, const Eigen::Vector3d& at) { return (*evaluateStrategy(b.info, e) - at).norm(); };
      double head_bound = residual(bone->head, s.heads[i]);
      if (bone->use_connect && !bone->parent.empty()) {
        // The head snaps to the parent's tail: its residual bounds the head too.
        const int p = s.find(bone->parent);
        head_bound = std::max(head_bound, residual(saved->find(bone->parent)->tail, s.tails[static_cast<std::size_t>(p)]));
      }
      const double tail_bound = residual(bone->tail, s.tails[i]);
      EXPECT_LE((r.heads[static_cast<std::size_t>(k)] - s.heads[i]).norm(), head_bound + 1e-9) << s.names[i];
      EXPECT_LE((r.tails[static_cast<std::size_t>(k)] - s.tails[i]).norm(), tail_bound + 1e-9) << s.names[i];
      exact += (head_bound == 0.0) + (tail_bound == 0.0);
    }
    EXPECT_GT(exact, s.size());  // most ends sit exactly on a cube centre or a vertex
  }
}

// §11.2: the automatic choice at every end's default_position on MPFB's default character.
struct Agreement {
  std::size_t in_file[5] = {}, same[5] = {};
};

bool sameChoice(const EndDef& file, const EndDef& chosen) {
  if (file.strategy != chosen.strategy) return false;
  switch (file.strategy) {
    case Strategy::kCube: return file.cube_name == chosen.cube_name;
    case Strategy::kVertex: return file.vertex_index == chosen.vertex_index;
    case Strategy::kMean: return file.vertex_indices == chosen.vertex_indices;
    default: return false;  // XYZ and DEFAULT are never chosen automatically
  }
}

std::string row(const std::string& name, const Agreement& a) {
  char buf[256];
  std::string s = "| " + name + " |";
  for (int k = 0; k < 4; ++k) {
    if (a.in_file[k] == 0) std::snprintf(buf, sizeof buf, " - |");
    else std::snprintf(buf, sizeof buf, " %zu/%zu |", a.same[k], a.in_file[k]);
    s += buf;
  }
  std::size_t all = 0, same = 0;
  for (int k = 0; k < 5; ++k) all += a.in_file[k], same += a.same[k];
  std::snprintf(buf, sizeof buf, " %zu/%zu |", same, all);
  return s + buf;
}

TEST(AuthorShipped, AgreementWithShippedRigsOnTheDefaultCharacter) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const DataSource data = DataSource::folder(test::sharedData());
  const Body ground = body(data, true), plain = body(data, false);
  std::map<std::string, Agreement> by_default, by_fit;
  std::string table = "| rig | CUBE | VERTEX | MEAN | XYZ | all ends |\n|---|---|---|---|---|---|\n";
  std::string fit_table = table;
  for (const char* rel : test::kShippedRigs) {
    const RigDefinition r = rig(data, rel);
    const Body& b = grounded(rel) ? ground : plain;
    Agreement a, f;
    const Skeleton s = fit(r, b);
    for (const BoneDef& bone : r.bones) {
      const int k = s.find(bone.name);
      for (int h = 0; h < 2; ++h) {
        const EndDef& e = h == 0 ? bone.head : bone.tail;
        const int t = static_cast<int>(e.strategy);
        ++a.in_file[t];
        ++f.in_file[t];
        if (e.default_position) {
          const Eigen::Vector3d p((*e.default_position)[0], (*e.default_position)[1], (*e.default_position)[2]);
          a.same[t] += sameChoice(e, chooseStrategy(b.info, p));
        }
        if (k >= 0) {
          const Eigen::Vector3d p = h == 0 ? s.heads[static_cast<std::size_t>(k)] : s.tails[static_cast<std::size_t>(k)];
          f.same[t] += sameChoice(e, chooseStrategy(b.info, p));
        }
      }
    }
    std::string name = rel;
    name = name.substr(name.rfind('/') + 1);
    by_default[name] = a;
    by_fit[name] = f;
    table += row(name, a) + "\n";
    fit_table += row(name, f) + "\n";
  }
  std::printf("Automatic choice at default_position (default character; grounded for rigify/openpose):\n%s\n", table.c_str());
  std::printf("Automatic choice at the fitted positions (same bodies):\n%s\n", fit_table.c_str());
  const Agreement& op = by_default["rig.openpose.json"];
  EXPECT_EQ(op.same[0] + op.same[2], 48u);
  EXPECT_EQ(op.in_file[0] + op.in_file[2], 48u);
  const Agreement& hu = by_default["rig.human.json"];
  EXPECT_EQ(hu.in_file[0], 141u);
  EXPECT_GE(hu.same[0], 140u);
  EXPECT_EQ(hu.in_file[1], 169u);
  EXPECT_GE(hu.same[1], 166u);
  // At the fitted positions too.
  const Agreement& fop = by_fit["rig.openpose.json"];
  EXPECT_EQ(fop.same[0] + fop.same[2], 48u);
  const Agreement& fhu = by_fit["rig.human.json"];
  EXPECT_GE(fhu.same[0], 140u);
  EXPECT_GE(fhu.same[1], 166u);
}

Json withoutDefaultPositions(Json doc) {
  for (auto& [name, bone] : doc.find("bones")->members())
    for (const char* end : {"head", "tail"})
      if (Json* e = bone.find(end)) e->erase("default_position");
  return doc;
}

// Saving a shipped v110 rig from its own fit on the grounded default character gives MPFB's file
// back: every key, strategy, roll, collection and Rigify value identical. Default positions: in
// the Rigify files to 1e-5 m at CUBE and XYZ ends (§11.2) and to 5 mm at VERTEX and MEAN ends (the
// breast); openpose's file keeps its bones' own positions, up to 2 mm from the cube centres.
TEST(AuthorShipped, SavingReproducesTheShippedFiles) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const DataSource data = DataSource::folder(test::sharedData());
  const Body b = body(data, true);
  struct Case {
    const char* rel;
    double exact, loose;
  };
  for (const Case c : {Case{"rigs/standard/rig.openpose.json", 0.002, 0.002}, Case{"rigs/rigify/rig.human.json", 1.1e-5, 0.005},
                       Case{"rigs/rigify/rig.human_toes.json", 1.1e-5, 0.005}}) {
    const char* rel = c.rel;
    SCOPED_TRACE(rel);
    const RigDefinition original = rig(data, rel);
    SaveOptions o;
    o.rigify_ui = original.header.find("rigify_ui") != nullptr;
    auto saved = saveRig(original, placementsFromSkeleton(fit(original, b)), b.info, o);
    ASSERT_TRUE(saved.ok());
    auto file = parseJson(*data.read(rel), rel);
    ASSERT_TRUE(file.ok());
    EXPECT_EQ(writeJson(withoutDefaultPositions(rigToJson(*saved))), writeJson(withoutDefaultPositions(*file)));
    double exact_worst = 0.0, loose_worst = 0.0;
    std::size_t loose = 0;
    for (const BoneDef& bone : original.bones) {
      const BoneDef* mine = saved->find(bone.name);
      ASSERT_NE(mine, nullptr);
      for (int h = 0; h < 2; ++h) {
        const EndDef& f = h == 0 ? bone.head : bone.tail;
        const EndDef& m = h == 0 ? mine->head : mine->tail;
        double d = 0.0;
        for (int k = 0; k < 3; ++k) d = std::max(d, std::abs((*f.default_position)[k] - (*m.default_position)[k]));
        if (f.strategy == Strategy::kVertex || f.strategy == Strategy::kMean) {
          loose_worst = std::max(loose_worst, d);
          loose += d > 1.1e-5;
        } else {
          exact_worst = std::max(exact_worst, d);
        }
      }
    }
    EXPECT_LE(exact_worst, c.exact);
    EXPECT_LE(loose_worst, c.loose);
    std::printf("%s: CUBE/XYZ default positions within %.6f m; %zu VERTEX/MEAN ends beyond 1e-5 m, worst %.5f m\n", rel, exact_worst, loose,
                loose_worst);
  }
}

// The pair search, written straight from §6.3.1 (linear scans, no pruning), against meanSearch at
// points around the body and at both search radii.
TEST(AuthorShipped, MeanSearchMatchesTheDefinition) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const DataSource data = DataSource::folder(test::sharedData());
  const Body b = body(data, true);
  const auto& v = b.info.vertices;
  std::vector<double> xyz;
  for (const auto& p : v) xyz.insert(xyz.end(), {p.x(), p.y(), p.z()});
  auto reference = [&](const Eigen::Vector3d& pos, double max_dist, double radius) {
    const double box = 0.15 * b.info.height, penalty = max_dist / (2.0 * box);
    double best_w = max_dist + penalty * 2.0 * box, best_d = max_dist;
    std::pair<std::uint32_t, std::uint32_t> best{0, 0};
    std::vector<std::pair<double, std::uint32_t>> cand;
    for (std::uint32_t i = 0; i < v.size(); ++i)
      if ((v[i] - pos).norm() <= radius * std::sqrt(3.0)) cand.emplace_back((v[i] - pos).squaredNorm(), i);
    std::sort(cand.begin(), cand.end());
    for (const auto& [d1, i1] : cand) {
      if ((v[i1] - pos).cwiseAbs().maxCoeff() >= radius) continue;
      const Eigen::Vector3d mirror = 2.0 * pos - v[i1];
      // The vertex nearest the mirror point, the first of equals (plain loop: this brute force is
      // most of the test's time, and it runs in sanitized builds too).
      std::uint32_t i2 = 0;
      const double mx = mirror.x(), my = mirror.y(), mz = mirror.z();
      double nearest = (v[0] - mirror).squaredNorm();
      for (std::uint32_t j = 1; j < v.size(); ++j) {
        const double dx = xyz[3 * j] - mx, dy = xyz[3 * j + 1] - my, dz = xyz[3 * j + 2] - mz;
        const double d2 = dx * dx + dy * dy + dz * dz;
        if (d2 < nearest) nearest = d2, i2 = j;
      }
      if (i2 <= i1) continue;
      const double d = ((v[i1] + v[i2]) * 0.5 - pos).norm();
      if (!(d < max_dist)) continue;
      const double w = d + (v[i2] - v[i1]).norm() * penalty;
      if (w < best_w) best_w = w, best = {i1, i2}, best_d = d;
    }
    return std::make_tuple(best, best_d);
  };
  std::mt19937 rng(11);
  std::uniform_int_distribution<std::size_t> pick(0, v.size() - 1);
  std::uniform_real_distribution<double> jitter(-0.01, 0.01);
  for (int q = 0; q < 40; ++q) {
    const Eigen::Vector3d pos = v[pick(rng)] + Eigen::Vector3d(jitter(rng), jitter(rng), jitter(rng));
    for (const double radius : {0.02, q % 8 == 0 ? 0.15 * b.info.height : 0.005}) {
      const auto [pair, d] = reference(pos, 0.02, radius);
      const MeanPair m = meanSearch(b.info, pos, 0.02, radius);
      EXPECT_EQ(m.found, pair.second != 0);
      if (m.found) {
        EXPECT_EQ(m.first, pair.first);
        EXPECT_EQ(m.second, pair.second);
        EXPECT_EQ(m.distance, d);
      }
    }
  }
}

// Editing a real rig: forearm.L's head (connected to upper_arm.L's tail, both on joint-l-elbow)
// becomes VERTEX with Keep Connected, then an offset brings it back onto the elbow; the edited
// rig, written and read back, fits exactly where the original does (to the offset's rounding).
TEST(AuthorShipped, EditRigifyKeepConnectedAndOffset) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const DataSource data = DataSource::folder(test::sharedData());
  const Body b = body(data, true);
  const RigDefinition original = rig(data, "rigs/rigify/rig.human.json");
  auto ed = RigEditor::fromFit(original, b.info, b.mesh.positions, b.groups);
  ASSERT_TRUE(ed.ok()) << ed.error().message;
  auto end = ed->find("forearm.L", "head");
  ASSERT_TRUE(end.ok());
  const auto linked = ed->linked(*end, true, true);
  std::vector<std::string> names;
  for (const auto& e : linked) names.push_back(ed->rig().bones[e.bone].name + (e.head ? ".head" : ".tail"));
  EXPECT_NE(std::find(names.begin(), names.end(), "upper_arm.L.tail"), names.end());
  ASSERT_TRUE(ed->setStrategy(*end, Strategy::kVertex).ok());
  ASSERT_TRUE(ed->setOffset(*end).ok());
  std::size_t changed = 0;
  for (std::size_t i = 0; i < original.bones.size(); ++i) {
    changed += !sameStrategy(original.bones[i].head, ed->rig().bones[i].head);
    changed += !sameStrategy(original.bones[i].tail, ed->rig().bones[i].tail);
  }
  EXPECT_EQ(changed, linked.size());  // exactly the linked ends
  for (const auto& e : linked) {
    const EndDef& d = e.head ? ed->rig().bones[e.bone].head : ed->rig().bones[e.bone].tail;
    EXPECT_EQ(d.strategy, Strategy::kVertex);
    EXPECT_TRUE(d.offset);
  }
  auto back = parseRig(writeRig(ed->result()), "edited");
  ASSERT_TRUE(back.ok());
  const Skeleton want = fit(original, b), got = fit(*back, b);
  ASSERT_EQ(got.size(), want.size());
  double worst = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i) worst = std::max({worst, (got.heads[i] - want.heads[i]).norm(), (got.tails[i] - want.tails[i]).norm()});
  EXPECT_LE(worst, 1e-5);
  EXPECT_GT(worst, 0.0);  // the ends really are on a different strategy now (offset rounded)
}

// A skeleton from elsewhere: game_engine exported as glTF by rigfit, bones renamed, the whole
// armature moved 2 mm; saved on the default body with automatic strategies; refitted on shaped
// bodies it follows them as the original rig does.
TEST(AuthorShipped, ThirdPartyGltfSkeletonFollowsShapedBodies) {
  RIGFIT_REQUIRE_SHARED_DATA();
  const DataSource data = DataSource::folder(test::sharedData());
  const Body b = body(data, true);
  const RigDefinition original = rig(data, "rigs/standard/rig.game_engine.json");
  const Skeleton s = fit(original, b);
  auto model = buildExportModel(b.mesh, s, nullptr, &b.groups, {});
  ASSERT_TRUE(model.ok()) << model.error().message;
  const std::size_t nv = model->meshes[0].vertexCount();
  std::vector<std::uint16_t> joints(4 * nv, 0);
  std::vector<float> weights(4 * nv, 0.0f);
  GltfSkinStreams streams;
  streams.joints = joints;
  streams.weights = weights;
  GltfOptions go;
  go.container = GltfContainer::kGltfEmbedded;
  auto files = writeGltf(*model, streams, go);
  ASSERT_TRUE(files.ok()) << files.error().message;

  // As exported: the skeleton reads back exactly (extras keep names, tails, rolls).
  auto direct = parseGltfSkeleton(files->main, "exported.gltf");
  ASSERT_TRUE(direct.ok()) << direct.error().message;
  ASSERT_EQ(direct->bones.size(), s.size());
  for (const BonePlacement& p : direct->bones) {
    const int k = s.find(p.name);
    ASSERT_GE(k, 0) << p.name;
    EXPECT_LE((p.head - s.heads[static_cast<std::size_t>(k)]).norm(), 1e-9) << p.name;
    EXPECT_LE((p.tail - s.tails[static_cast<std::size_t>(k)]).norm(), 1e-9) << p.name;
    EXPECT_EQ(p.roll, s.rolls[static_cast<std::size_t>(k)]);
  }

  // The .glb of the same export, saved with game_engine as the base rig: the same bytes as saving
  // the fitted rig directly.
  go.container = GltfContainer::kGlb;
  auto glb = writeGltf(*model, streams, go);
  ASSERT_TRUE(glb.ok());
  auto from_glb = parseGltfSkeleton(glb->main, "exported.glb");
  ASSERT_TRUE(from_glb.ok()) << from_glb.error().message;
  auto via_glb = saveRig(original, from_glb->bones, b.info);
  auto via_fit = saveRig(original, placementsFromSkeleton(s), b.info);
  ASSERT_TRUE(via_glb.ok() && via_fit.ok());
  EXPECT_EQ(writeRig(*via_glb), writeRig(*via_fit));

  // The .gltf with its .bin beside it (`rigfit export --out x.gltf`), read from disk as
  // `save-rig --from x.gltf` does, and the .glb file: the same skeleton and the same rig.
  const auto dir = std::filesystem::temp_directory_path() / ("rigfit_third_party_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  go.container = GltfContainer::kGltf;
  go.bin_name = "exported.bin";
  auto separate = writeGltf(*model, streams, go);
  ASSERT_TRUE(separate.ok()) << separate.error().message;
  const std::string gltf_path = (dir / "exported.gltf").string(), glb_path = (dir / "exported.glb").string();
  ASSERT_TRUE(writeFileAtomic(gltf_path, separate->main).ok());
  ASSERT_TRUE(writeFileAtomic((dir / "exported.bin").string(), separate->bin).ok());
  ASSERT_TRUE(writeFileAtomic(glb_path, glb->main).ok());
  EXPECT_FALSE(parseGltfSkeleton(separate->main, gltf_path).ok());  // from memory the .bin is not read
  auto from_gltf_file = readGltfSkeleton(gltf_path);
  auto from_glb_file = readGltfSkeleton(glb_path);
  ASSERT_TRUE(from_gltf_file.ok()) << from_gltf_file.error().message;
  ASSERT_TRUE(from_glb_file.ok()) << from_glb_file.error().message;
  for (const SkeletonSource* read : {&*from_gltf_file, &*from_glb_file}) {
    ASSERT_EQ(read->bones.size(), from_glb->bones.size());
    for (std::size_t i = 0; i < read->bones.size(); ++i) {
      const BonePlacement &p = read->bones[i], &q = from_glb->bones[i];
      EXPECT_EQ(std::tie(p.name, p.parent, p.roll), std::tie(q.name, q.parent, q.roll));
      EXPECT_EQ(p.head, q.head) << p.name;
      EXPECT_EQ(p.tail, q.tail) << p.name;
    }
    auto via_file = saveRig(original, read->bones, b.info);
    ASSERT_TRUE(via_file.ok());
    EXPECT_EQ(writeRig(*via_file), writeRig(*via_fit));
  }
  // Without its .bin, one line naming it.
  std::filesystem::remove(dir / "exported.bin");
  auto no_bin = readGltfSkeleton(gltf_path);
  ASSERT_FALSE(no_bin.ok());
  EXPECT_EQ(no_bin.error().message,
            gltf_path + ": buffers[0].uri: cannot open \"" + (dir / "exported.bin").string() + "\": No such file or directory");
  std::filesystem::remove_all(dir);

  // Rename every bone and move the armature by 2 mm; with extras kept (length, roll: a rigfit
  // export) and dropped (a DCC tool's export: tails guessed from the children).
  for (const bool keep_extras : {true, false}) {
    SCOPED_TRACE(keep_extras ? "extras kept" : "extras dropped");
    auto doc = parseJson(files->main, "exported.gltf");
    ASSERT_TRUE(doc.ok());
    std::map<std::string, std::string> renamed;  // new -> MakeHuman name
    int counter = 0;
    for (Json& n : doc->find("nodes")->items()) {
      if (n.find("name")->asString() == "Armature") {
        n.set("translation", Json::vec3(0.002, 0.0, -0.001));
        continue;
      }
      Json* ex = n.find("extras");
      if (!ex) continue;
      const std::string fresh = "joint_" + std::to_string(counter++);
      renamed[fresh] = ex->find("name")->asString();
      n.set("name", fresh);
      if (keep_extras) {
        ex->erase("name");
        ex->erase("tail");  // scene-space: it would not follow the moved armature
      } else {
        n.erase("extras");
      }
    }
    auto src = parseGltfSkeleton(writeJson(*doc), "third_party.gltf");
    ASSERT_TRUE(src.ok()) << src.error().message;
    SaveReport rep;
    auto made = saveRig(RigDefinition{}, src->bones, b.info, {}, &rep);
    ASSERT_TRUE(made.ok()) << made.error().message;
    auto loaded = parseRig(writeRig(*made), "rig.third_party.json");
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;

    MacroSettings tall_heavy;
    tall_heavy.gender = 1.0, tall_heavy.height = 1.0, tall_heavy.weight = 1.0, tall_heavy.muscle = 1.0;
    MacroSettings small_young;
    small_young.gender = 0.0, small_young.age = 0.0, small_young.height = 0.0, small_young.proportions = 0.0;
    for (const MacroSettings& m : {tall_heavy, small_young}) {
      const Body shaped = body(data, true, m);
      const Skeleton want = fit(original, shaped);
      const Skeleton got = fit(*loaded, shaped);
      ASSERT_EQ(got.size(), want.size());
      double worst_head = 0.0, worst = 0.0, moved_most = 0.0;
      std::size_t exact = 0;
      for (std::size_t i = 0; i < got.size(); ++i) {
        const int k = want.find(renamed.at(got.names[i]));
        ASSERT_GE(k, 0);
        const std::size_t w = static_cast<std::size_t>(k);
        const double dh = (got.heads[i] - want.heads[w]).norm(), dt = (got.tails[i] - want.tails[w]).norm();
        worst_head = std::max(worst_head, dh);
        worst = std::max({worst, dh, dt});
        exact += (dh <= 1e-6) + (dt <= 1e-6);
        moved_most = std::max(moved_most, (want.heads[w] - s.heads[static_cast<std::size_t>(s.find(want.names[w]))]).norm());
        if (dh > 1e-6 || dt > 1e-6)
          std::printf("  %s: head %.6f m (%s), tail %.6f m (%s)\n", want.names[w].c_str(), dh,
                      strategyName(loaded->find(got.names[i])->head.strategy), dt, strategyName(loaded->find(got.names[i])->tail.strategy));
      }
      std::printf("third-party rig (%s) on a shaped body: %zu/%zu ends exactly where the original rig puts them, worst head %.6f m, worst end %.6f m; "
                  "the shape moved heads up to %.3f m\n",
                  keep_extras ? "extras kept" : "extras dropped", exact, 2 * got.size(), worst_head, worst, moved_most);
      EXPECT_GT(moved_most, 0.05);  // the shape really moves the skeleton...
      EXPECT_EQ(worst_head, 0.0);   // ...and every joint of the new rig follows it as the original's does
      if (keep_extras) {
        EXPECT_TRUE(rep.default_bones.empty());
        EXPECT_LE(worst, 0.01);
        EXPECT_GE(exact, 2 * got.size() * 9 / 10);
      }
    }
  }
}

}  // namespace
}  // namespace rigfit
