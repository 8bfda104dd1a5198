#include "rigfit/character_export.hpp"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>

#include <Eigen/LU>

#include "rigfit/bbone_bake.hpp"
#include "rigfit/constraint.hpp"
#include "rigfit/export_model.hpp"
#include "rigfit/file_io.hpp"
#include "rigfit/g4mf.hpp"
#include "rigfit/gltf.hpp"
#include "rigfit/shape.hpp"
#include "rigfit/skinning.hpp"

namespace rigfit {

namespace {

Json weightsJson(const WeightsProvenance& w) {
  Json out = Json::object();
  out.set("file", w.file);
  for (const auto& [key, value] : w.statements) out.set(key, value);
  return out;
}
Json stringArray(const std::vector<std::string>& items) {
  Json out = Json::array();
  for (const auto& s : items) out.push(s);
  return out;
}

// A target's offsets carried through the skinning to a pose used as the bind pose: linear blend
// skinning is affine per vertex, so the posed body of the shaped mesh minus the posed body is the
// vertex's blended linear part (weights renormalised as Blender does) times the offset.
void posedOffsets(const Skin& skin, std::span<const Eigen::Matrix3d> linear, const Target& t, std::size_t n, std::vector<double>& out) {
  out.resize(t.offsets.size());
  for (std::size_t k = 0; k < t.vertices.size(); ++k) {
    const std::size_t v = t.vertices[k];
    const Eigen::Vector3d d(t.offsets[3 * k], t.offsets[3 * k + 1], t.offsets[3 * k + 2]);
    Eigen::Vector3d moved = d;  // a vertex that does not deform keeps the offset
    if (v < n) {
      const std::span<const float> w(skin.weights.data() + skin.offsets[v], skin.influenceCount(v));
      if (skinningDeforms(w)) {
        Eigen::Vector3d sum = Eigen::Vector3d::Zero();
        double total = 0.0;
        for (std::size_t i = 0; i < w.size(); ++i) {
          sum += double(w[i]) * (linear[skin.bones[skin.offsets[v] + i]] * d);
          total += double(w[i]);
        }
        moved = sum / total;
      }
    }
    for (Eigen::Index j = 0; j < 3; ++j) out[3 * k + static_cast<std::size_t>(j)] = moved[j];
  }
}

// The --morph targets onto every exported mesh they move: the base body directly, an asset or a
// body proxy through its binding (transferTarget, docs/mpfb-assets.md §7; a mesh the target does
// not move gets no morph). `at_bind[m]` is mesh m as exported (posed when `bind` is not empty);
// normal deltas are computed where the export computes the normals (no OBJ normals).
Status addMorphs(const DataSource& data, const Character& c, std::span<const Mesh* const> at_bind, std::span<const Eigen::Matrix4d> bind,
                 const CharacterExportOptions& o, ExportModel& model) {
  std::unique_ptr<TargetCache> own;
  TargetCache* targets = o.targets;
  if (!targets) {
    own = std::make_unique<TargetCache>(data);
    targets = own.get();
  }
  const std::size_t n = c.body_vertex_count ? c.body_vertex_count : c.body().mesh.vertexCount();
  std::vector<Eigen::Matrix3d> linear;  // per bone: the linear part of pose * rest^-1
  for (std::size_t b = 0; b < bind.size(); ++b) linear.push_back((bind[b] * c.fit.skeleton.rest[b].inverse()).topLeftCorner<3, 3>());
  std::vector<std::optional<MorphNormals>> normals(c.meshes.size());
  for (std::size_t m = 0; m < c.meshes.size(); ++m)
    if (at_bind[m]->normals.empty()) normals[m].emplace(*at_bind[m], at_bind[m]->positions, o.threads);  // the faces exported
  std::vector<double> posed;
  std::vector<float> normal_deltas;
  Target moved;
  // A whole folder stands for every target directly in it, in name order.
  struct Morph {
    DataFile file;
    std::string name;
  };
  std::vector<Morph> morphs;
  for (const MorphSpec& spec : o.morphs) {
    if (!spec.whole_folder) {
      auto file = resolveDataFile(data, DataFileKind::kTarget, spec.path);
      if (!file) return file.error();
      morphs.push_back({std::move(*file), spec.name});
      continue;
    }
    auto folder = resolveDataFile(data, DataFileKind::kTargetFolder, spec.path);
    if (!folder) return folder.error();
    std::vector<std::string> names = listDataFolder(data, *folder, ".target.gz");
    for (std::string& plain : listDataFolder(data, *folder, ".target")) names.push_back(std::move(plain));
    if (names.empty()) return makeError(ErrorCode::kIo, folder->label + ": no targets in this folder");
    std::sort(names.begin(), names.end());
    for (const std::string& file : names) {
      const std::string path = folder->path + "/" + file;
      morphs.push_back({DataFile{folder->in_source, path, folder->in_source ? data.label(path) : path}, file.substr(0, file.find(".target"))});
    }
  }
  for (const Morph& spec : morphs) {
    auto target = targets->load(spec.file, n);
    if (!target) return target.error();
    for (std::size_t m = 0; m < c.meshes.size(); ++m) {
      const CharacterMesh& mesh = c.meshes[m];
      const Target* t = target->get();
      if (mesh.asset) {
        transferTarget(mesh.asset->asset.file.bindings, *t, n, moved);
        if (moved.vertices.empty()) continue;
        t = &moved;
      }
      const std::size_t nm = mesh.mesh.vertexCount();
      std::span<const double> offsets = t->offsets;
      if (!linear.empty()) {
        posedOffsets(mesh.skin, linear, *t, nm, posed);
        offsets = posed;
      }
      if (normals[m]) normals[m]->deltas(t->vertices, offsets, normal_deltas);
      else normal_deltas.clear();
      RIGFIT_TRY(addExportMorph(model.meshes[m], spec.name, nm, t->vertices, offsets, normal_deltas));
    }
  }
  return {};
}

}  // namespace

Expected<CharacterExport> exportCharacter(const DataSource& data, const Character& c, const PoseRequest& pose_request,
                                          const CharacterExportOptions& o) {
  const ExportFormat format = o.format;
  if (!c.has_skin) return makeError(ErrorCode::kUsage, c.rig.label + ": no weights for this rig");
  CharacterExport out;

  // The bind pose: rest, or a pose applied as rest (meshes, normals and skeleton together).
  const Mesh* mesh = &c.body().mesh;
  Mesh posed_mesh;
  std::vector<Mesh> posed_more;  // meshes[1..] posed (empty at rest)
  std::vector<Eigen::Matrix4d> bind;  // empty: the rest pose (no copy)
  Pose pose;
  if (pose_request.any()) {
    std::vector<PoseWarning> pw;
    RIGFIT_TRY(buildPose(data, c, pose_request, pose, &pw));
    for (const auto& w : pw) out.warnings.push_back(w.message);
    PosedMesh posed;
    RIGFIT_TRY(poseCharacter(c, pose, false, 1, posed));
    posed_mesh = c.body().mesh;
    posed_mesh.positions = std::move(posed.positions);
    if (!posed.normals.empty()) posed_mesh.normals = std::move(posed.normals);
    for (std::size_t m = 1; m < c.meshes.size(); ++m) {
      Mesh& p = posed_more.emplace_back(c.meshes[m].mesh);
      p.positions = std::move(posed.more[m - 1].positions);
      if (!posed.more[m - 1].normals.empty()) p.normals = std::move(posed.more[m - 1].normals);
    }
    bind = std::move(posed.pose_matrices);
    mesh = &posed_mesh;
  }
  // Hidden faces (the body under clothes) go, unless kept: their vertices stay in the mesh (the
  // skin and morphs still index them) but are not exported when no face uses them.
  std::vector<Mesh> shown(c.meshes.size());
  const auto visible = [&](std::size_t m, const Mesh& at_bind) -> const Mesh& {
    if (o.keep_hidden || c.meshes[m].hidden_faces.empty()) return at_bind;
    shown[m] = withoutFaces(at_bind, c.meshes[m].hidden_faces);
    return shown[m];
  };
  mesh = &visible(0, *mesh);
  std::vector<const Mesh*> bind_meshes{mesh};  // each mesh as exported
  // Bendy bones become joint chains with their weights split over them (unless kept as joints).
  const Skeleton* skeleton = &c.fit.skeleton;
  Skeleton baked;
  std::vector<Skin> baked_skins;
  std::vector<Eigen::Matrix4d> baked_bind;
  const bool bake = !o.keep_bendy_bones && hasBendyBones(c.fit.skeleton);
  if (bake) {
    baked = bakeBendySkeleton(c.fit.skeleton);
    skeleton = &baked;
    for (const CharacterMesh& cm : c.meshes) baked_skins.push_back(bakeBendySkin(c.fit.skeleton, cm.skin, cm.mesh.positions));
    if (!bind.empty()) {
      baked_bind.resize(baked.size());
      bakedPoseMatrices(c.fit.skeleton, pose, bind, baked_bind);
    }
  }
  const auto skinOf = [&](std::size_t m) -> const Skin& { return bake ? baked_skins[m] : c.meshes[m].skin; };
  const std::span<const Eigen::Matrix4d> model_bind = bake ? std::span<const Eigen::Matrix4d>(baked_bind) : bind;
  const ExportOptions model_options{.keep_helpers = o.keep_helpers, .deform_only = o.deform_only, .threads = o.threads, .polygons = !isGltf(format)};
  auto model = buildExportModel(*mesh, *skeleton, &skinOf(0), &c.body().groups, model_options, mesh->positions, model_bind);
  if (!model) return model.error();
  model->meshes[0].name = c.body().name;
  model->meshes[0].material = c.body().material;
  for (std::size_t m = 1; m < c.meshes.size(); ++m) {
    const CharacterMesh& extra = c.meshes[m];
    const Mesh& at_bind = visible(m, posed_more.empty() ? extra.mesh : posed_more[m - 1]);
    bind_meshes.push_back(&at_bind);
    const VertexGroups* groups = extra.groups.ranges.empty() ? nullptr : &extra.groups;
    RIGFIT_TRY(addExportMesh(*model, *skeleton, at_bind, skinOf(m), extra.name, extra.material, model_options, groups,
                             at_bind.positions, model_bind));
  }
  ExportMesh& body = model->meshes[0];
  if (!o.morphs.empty()) RIGFIT_TRY(addMorphs(data, c, bind_meshes, bind, o, *model));

  ExportReport& report = out.report;
  report.format = format;
  report.rig = c.rig_name;
  report.joints = model->names.size();
  if (o.deform_only) {
    std::vector<std::uint8_t> kept(skeleton->size(), 0);
    for (int b : model->source_bones) kept[static_cast<std::size_t>(b)] = 1;
    report.removed_bones.emplace();
    for (std::size_t b = 0; b < kept.size(); ++b)
      if (!kept[b]) report.removed_bones->push_back(skeleton->names[b]);
  }
  report.weights.file = std::filesystem::path(c.weights_label).filename().string();
  for (const auto& [key, value] : c.weights_statements.members()) report.weights.statements.emplace_back(key, value.asString());
  report.vertices = body.vertexCount();
  report.triangles = body.triangles.size() / 3;
  for (std::size_t m = 0; m < model->meshes.size(); ++m) {
    const ExportMesh& em = model->meshes[m];
    ExportReport::Mesh& r = report.meshes.emplace_back();
    r.name = em.name;
    r.vertices = em.vertexCount();
    r.triangles = em.triangles.size() / 3;
    r.material = em.material.name;
    if (em.material.base_color_texture) r.texture = em.material.base_color_texture->file_name;
    if (c.meshes[m].asset) r.warnings = c.meshes[m].asset->warnings;
  }
  for (const ExportMorph& m : body.morphs) report.morphs.push_back({m.name, m.vertices.size()});
  for (std::size_t v = 0; v < body.vertexCount(); ++v) report.unweighted_vertices += body.skin.influenceCount(v) == 0;
  report.unmapped_groups = c.binding.unmapped;
  for (std::size_t b = 0; b < c.fit.skeleton.constraints.size(); ++b)
    for (const Constraint& con : c.fit.skeleton.constraints[b])
      report.constraints.push_back(c.fit.skeleton.names[b] + ": " + con.name + " (" +
                                   (con.type == ConstraintType::kOther ? con.type_name : constraintTypeName(con.type)) + ")");
  // The same provenance goes into the file's asset extras.
  Json provenance = Json::object();
  provenance.set("weights", weightsJson(report.weights));

  if (isGltf(format)) {
    if (o.influences != 4 && o.influences != 8) return makeError(ErrorCode::kUsage, "export: influences must be 4 or 8");
    if (o.quantize && o.weight_bits != 8 && o.weight_bits != 16) return makeError(ErrorCode::kUsage, "export: weight bits must be 8 or 16");
    const GltfSkins skins = gltfSkins(*model, o.influences, o.quantize ? o.weight_bits : 0);
    report.influences = ExportReport::Influences{o.influences, skins.vertices_limited, skins.max_dropped_weight};
    for (std::size_t m = 0; m < report.meshes.size(); ++m) report.meshes[m].vertices_limited = skins.mesh_vertices_limited[m];
    body.material.base_color = o.base_color;
    if (o.base_color[3] < 1.0f) body.material.alpha_mode = AlphaMode::kBlend;  // alpha below 1 blends
    GltfOptions options;
    options.rig_name = c.rig_name;
    options.asset_extras = provenance;
    options.container = format == ExportFormat::kGlb ? GltfContainer::kGlb : o.embed ? GltfContainer::kGltfEmbedded : GltfContainer::kGltf;
    if (options.container == GltfContainer::kGltf) {
      if (o.bin_name.empty()) return makeError(ErrorCode::kUsage, "export: a .gltf with a separate buffer needs the .bin's name");
      options.bin_name = o.bin_name;
    }
    auto files = writeGltf(*model, skins.streams, options);
    if (!files) return files.error();
    out.main = std::move(files->main);
    out.bin = std::move(files->bin);
    out.images = std::move(files->images);
  } else {
    G4mfWriteOptions options;
    options.container = format == ExportFormat::kG4b ? G4mfContainer::kBinary : G4mfContainer::kText;
    options.zstd = o.compress;
    options.rig_name = c.rig_name;
    options.asset_extras = provenance;
    auto bytes = writeG4mf(*model, options);
    if (!bytes) return bytes.error();
    out.main = std::move(*bytes);
  }
  report.warnings = c.warnings;  // the assets' (missing images, ...), then the pose's
  report.warnings.insert(report.warnings.end(), out.warnings.begin(), out.warnings.end());
  report.bytes = out.main.size() + out.bin.size();
  for (const auto& image : out.images) report.bytes += image.second->size();
  return out;
}


Json exportReportJson(const ExportReport& r) {
  const auto count = [](std::size_t n) { return static_cast<std::int64_t>(n); };
  Json out = Json::object();
  out.set("format", std::string(exportFormatName(r.format)));
  out.set("rig", r.rig);
  out.set("joints", count(r.joints));
  if (r.removed_bones) out.set("removed_bones", stringArray(*r.removed_bones));
  out.set("weights", weightsJson(r.weights));
  out.set("vertices", count(r.vertices));
  if (!r.morphs.empty()) {
    Json morphs = Json::array();
    for (const auto& m : r.morphs) {
      Json e = Json::object();
      e.set("name", m.name);
      e.set("vertices", count(m.vertices));
      morphs.push(std::move(e));
    }
    out.set("morphs", std::move(morphs));
  }
  out.set("triangles", count(r.triangles));
  if (r.meshes.size() > 1) {
    Json meshes = Json::array();
    for (const auto& m : r.meshes) {
      Json e = Json::object();
      e.set("name", m.name);
      e.set("vertices", count(m.vertices));
      e.set("triangles", count(m.triangles));
      e.set("material", m.material);
      e.set("texture", m.texture.empty() ? Json(nullptr) : Json(m.texture));
      if (m.vertices_limited) e.set("vertices_limited", count(*m.vertices_limited));
      e.set("warnings", stringArray(m.warnings));
      meshes.push(std::move(e));
    }
    out.set("meshes", std::move(meshes));
  }
  out.set("unweighted_vertices", count(r.unweighted_vertices));
  out.set("unmapped_groups", stringArray(r.unmapped_groups));
  if (!r.constraints.empty()) out.set("constraints", stringArray(r.constraints));
  if (r.influences) {
    out.set("influences", r.influences->per_vertex);
    out.set("vertices_limited", count(r.influences->vertices_limited));
    out.set("max_dropped_weight", r.influences->max_dropped_weight);
  }
  out.set("warnings", stringArray(r.warnings));
  out.set("bytes", count(r.bytes));
  return out;
}

Status writeCharacterExport(const CharacterExport& files, const std::string& path, const std::string& bin_path) {
  if (bin_path.empty() && files.images.empty()) return writeFileAtomic(path, files.main);
  // The files the main one refers to first (buffer, images beside it), the main file last.
  std::vector<OutputFile> all;
  if (!bin_path.empty()) all.push_back({bin_path, files.bin});
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  for (const auto& [name, bytes] : files.images) all.push_back({(folder / name).string(), *bytes});
  all.push_back({path, files.main});
  return writeFilesAtomic(all);
}

}  // namespace rigfit
