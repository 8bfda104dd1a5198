#include "rigfit/character_export.hpp"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>

#include <Eigen/LU>

#include "rigfit/export_model.hpp"
#include "rigfit/file_io.hpp"
#include "rigfit/g4mf.hpp"
#include "rigfit/gltf.hpp"
#include "rigfit/shape.hpp"
#include "rigfit/skinning.hpp"

namespace rigfit {

namespace {

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

// The --morph targets onto the export model. `body` is the bind-pose body (posed when `bind` is
// not empty); normal deltas are computed where the export computes the normals (no OBJ normals).
Status addMorphs(const DataSource& data, const Character& c, const Mesh& body, std::span<const Eigen::Matrix4d> bind,
                 const CharacterExportOptions& o, ExportMesh& body_export) {
  std::unique_ptr<TargetCache> own;
  TargetCache* targets = o.targets;
  if (!targets) {
    own = std::make_unique<TargetCache>(data);
    targets = own.get();
  }
  const std::size_t n = c.mesh.vertexCount();
  std::vector<Eigen::Matrix3d> linear;  // per bone: the linear part of pose * rest^-1
  for (std::size_t b = 0; b < bind.size(); ++b) linear.push_back((bind[b] * c.fit.skeleton.rest[b].inverse()).topLeftCorner<3, 3>());
  std::optional<MorphNormals> normals;
  if (c.mesh.normals.empty()) normals.emplace(c.mesh, body.positions, o.threads);
  std::vector<double> posed;
  std::vector<float> normal_deltas;
  // A whole folder stands for every target directly in it, in name order.
  std::vector<MorphSpec> specs;
  for (const MorphSpec& spec : o.morphs) {
    if (!spec.whole_folder) {
      specs.push_back(spec);
      continue;
    }
    std::vector<std::string> names = data.list("targets/" + spec.path, "", ".target.gz");
    for (std::string& plain : data.list("targets/" + spec.path, "", ".target")) names.push_back(std::move(plain));
    if (names.empty()) return makeError(ErrorCode::kIo, data.label("targets/" + spec.path) + ": no targets in this folder");
    std::sort(names.begin(), names.end());
    for (const std::string& file : names) {
      const std::string stem = file.substr(0, file.find(".target"));
      specs.push_back({.path = spec.path + "/" + stem, .name = stem});
    }
  }
  for (MorphSpec& spec : specs) {
    const std::string& path = spec.path;
    std::string name = std::move(spec.name);
    auto target = targets->get(path, n);
    if (!target) return target.error();
    const Target& t = **target;
    std::span<const double> offsets = t.offsets;
    if (!linear.empty()) {
      posedOffsets(c.skin, linear, t, n, posed);
      offsets = posed;
    }
    if (normals) normals->deltas(t.vertices, offsets, normal_deltas);
    RIGFIT_TRY(addExportMorph(body_export, std::move(name), n, t.vertices, offsets, normal_deltas));
  }
  return {};
}

}  // namespace

Expected<CharacterExport> exportCharacter(const DataSource& data, const Character& c, const PoseRequest& pose_request,
                                          const CharacterExportOptions& o) {
  const ExportFormat format = o.format;
  if (!c.has_skin) return makeError(ErrorCode::kUsage, c.rig.label + ": no weights for this rig");
  CharacterExport out;

  // The bind pose: rest, or a pose applied as rest (body, normals and skeleton together).
  const Mesh* mesh = &c.mesh;
  Mesh posed_mesh;
  std::vector<Eigen::Matrix4d> bind;  // empty: the rest pose (no copy)
  if (pose_request.any()) {
    Pose pose;
    std::vector<PoseWarning> pw;
    RIGFIT_TRY(buildPose(data, c, pose_request, pose, &pw));
    for (const auto& w : pw) out.warnings.push_back(w.message);
    PosedMesh posed;
    RIGFIT_TRY(poseCharacter(c, pose, false, 1, posed));
    posed_mesh = c.mesh;
    posed_mesh.positions = std::move(posed.positions);
    if (!posed.normals.empty()) posed_mesh.normals = std::move(posed.normals);
    bind = std::move(posed.pose_matrices);
    mesh = &posed_mesh;
  }
  auto model = buildExportModel(*mesh, c.fit.skeleton, &c.skin, &c.groups, {.keep_helpers = o.keep_helpers, .deform_only = o.deform_only, .threads = o.threads}, mesh->positions, bind);
  if (!model) return model.error();
  ExportMesh& body = model->meshes[0];
  if (!o.morphs.empty()) RIGFIT_TRY(addMorphs(data, c, *mesh, bind, o, body));

  // Provenance: the weights file by name (not path: the bytes do not depend on where the data
  // is) with what it says of its licence and copyright.
  Json provenance = Json::object();
  {
    Json weights = Json::object();
    weights.set("file", std::filesystem::path(c.weights_label).filename().string());
    for (const auto& [key, value] : c.weights_statements.members()) weights.set(key, value);
    provenance.set("weights", std::move(weights));
  }
  Json& report = out.report = Json::object();
  report.set("format", std::string(exportFormatName(format)));
  report.set("rig", c.rig_name);
  report.set("joints", static_cast<std::int64_t>(model->names.size()));
  if (o.deform_only) {
    Json removed = Json::array();
    std::vector<std::uint8_t> kept(c.fit.skeleton.size(), 0);
    for (int b : model->source_bones) kept[static_cast<std::size_t>(b)] = 1;
    for (std::size_t b = 0; b < kept.size(); ++b)
      if (!kept[b]) removed.push(c.fit.skeleton.names[b]);
    report.set("removed_bones", std::move(removed));
  }
  report.set("weights", *provenance.find("weights"));
  report.set("vertices", static_cast<std::int64_t>(body.vertexCount()));
  if (!body.morphs.empty()) {
    Json morphs = Json::array();
    for (const ExportMorph& m : body.morphs) {
      Json e = Json::object();
      e.set("name", m.name);
      e.set("vertices", static_cast<std::int64_t>(m.vertices.size()));
      morphs.push(std::move(e));
    }
    report.set("morphs", std::move(morphs));
  }
  report.set("triangles", static_cast<std::int64_t>(body.triangles.size() / 3));
  std::size_t unweighted = 0;
  for (std::size_t v = 0; v < body.vertexCount(); ++v) unweighted += body.skin.influenceCount(v) == 0;
  report.set("unweighted_vertices", static_cast<std::int64_t>(unweighted));
  Json unmapped = Json::array();
  for (const auto& g : c.binding.unmapped) unmapped.push(g);
  report.set("unmapped_groups", std::move(unmapped));

  if (isGltf(format)) {
    if (o.influences != 4 && o.influences != 8) return makeError(ErrorCode::kUsage, "export: influences must be 4 or 8");
    if (o.quantize && o.weight_bits != 8 && o.weight_bits != 16) return makeError(ErrorCode::kUsage, "export: weight bits must be 8 or 16");
    const GltfSkins skins = gltfSkins(*model, o.influences, o.quantize ? o.weight_bits : 0);
    report.set("influences", o.influences);
    report.set("vertices_limited", static_cast<std::int64_t>(skins.vertices_limited));
    report.set("max_dropped_weight", skins.max_dropped_weight);
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
  Json warn_list = Json::array();
  for (const auto& w : out.warnings) warn_list.push(w);
  report.set("warnings", std::move(warn_list));
  report.set("bytes", static_cast<std::int64_t>(out.main.size() + out.bin.size()));
  return out;
}

Status writeCharacterExport(const CharacterExport& files, const std::string& path, const std::string& bin_path) {
  if (bin_path.empty()) return writeFileAtomic(path, files.main);
  const OutputFile both[] = {{bin_path, files.bin}, {path, files.main}};
  return writeFilesAtomic(both);
}

}  // namespace rigfit
