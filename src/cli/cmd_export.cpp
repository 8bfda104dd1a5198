// rigfit export: the rigged, skinned character as glTF 2.0 (.glb / .gltf) or G4MF (.g4tf / .g4b).
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "cli/common.hpp"
#include "rigfit/export_model.hpp"
#include "rigfit/file_io.hpp"
#include "rigfit/g4mf.hpp"
#include "rigfit/gltf.hpp"
#include "rigfit/posing.hpp"

namespace rigfit::cli {
namespace {

struct ExportArgs {
  CharacterArgs character;
  PoseRequest pose;
  bool apply_pose_as_rest = false;
  std::string out, format, report;
  bool embed = false, quantize = false, keep_helpers = false, compress = false, deform_only = false;
  int influences = 4;
  int weight_bits = 8;
};

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string formatOf(const ExportArgs& a) {
  if (!a.format.empty()) return a.format;
  for (const char* ext : {"glb", "gltf", "g4tf", "g4b"})
    if (endsWith(a.out, std::string(".") + ext)) return ext;
  return {};
}

int runExport(const ExportArgs& a) {
  const std::string format = formatOf(a);
  if (format != "glb" && format != "gltf" && format != "g4tf" && format != "g4b")
    return reportError(makeError(ErrorCode::kUsage, a.out + ": cannot tell the format from the extension; use .glb, .gltf, .g4tf or .g4b, or --format"));
  if (a.pose.any() && !a.apply_pose_as_rest)
    return reportError(makeError(ErrorCode::kUsage, "export: a pose is exported as the bind pose: add --apply-pose-as-rest"));
  auto c = a.character.load(true);
  if (!c) return reportError(c.error());
  if (!c->has_skin) return reportError(makeError(ErrorCode::kUsage, c->rig.label + ": no weights for this rig; give --weights"));

  // The bind pose: rest, or a pose applied as rest (body, normals and skeleton together).
  // (Copies only when posed: the unposed export reads the character's own body and rest.)
  std::optional<Mesh> posed_mesh;
  std::vector<Eigen::Matrix4d> bind;
  std::vector<std::string> warnings;
  if (a.pose.any()) {
    Pose pose;
    std::vector<PoseWarning> pw;
    if (Status st = buildPose(a.character.data.source(), *c, a.pose, pose, &pw); !st) return reportError(st.error());
    for (const auto& w : pw) {
      warn(w.message);
      warnings.push_back(w.message);
    }
    PosedMesh posed;
    if (Status st = poseCharacter(*c, pose, false, 1, posed); !st) return reportError(st.error());
    posed_mesh = c->mesh;
    posed_mesh->positions = std::move(posed.positions);
    if (!posed.normals.empty()) posed_mesh->normals = std::move(posed.normals);
    bind = std::move(posed.pose_matrices);
  }
  const Mesh& mesh = posed_mesh ? *posed_mesh : c->mesh;
  auto model = buildExportModel(mesh, c->fit.skeleton, &c->skin, &c->groups, {.keep_helpers = a.keep_helpers, .deform_only = a.deform_only}, mesh.positions, bind);
  if (!model) return reportError(model.error());

  Json report = Json::object();
  report.set("format", format);
  report.set("rig", c->rig_name);
  report.set("joints", static_cast<std::int64_t>(model->names.size()));
  if (a.deform_only) {
    Json removed = Json::array();
    std::vector<std::uint8_t> kept(c->fit.skeleton.size(), 0);
    for (int b : model->source_bones) kept[static_cast<std::size_t>(b)] = 1;
    for (std::size_t b = 0; b < kept.size(); ++b)
      if (!kept[b]) removed.push(c->fit.skeleton.names[b]);
    report.set("removed_bones", std::move(removed));
  }
  report.set("vertices", static_cast<std::int64_t>(model->vertexCount()));
  report.set("triangles", static_cast<std::int64_t>(model->triangles.size() / 3));
  std::size_t unweighted = 0;
  for (std::size_t v = 0; v < model->vertexCount(); ++v) unweighted += model->skin.influenceCount(v) == 0;
  report.set("unweighted_vertices", static_cast<std::int64_t>(unweighted));
  Json unmapped = Json::array();
  for (const auto& g : c->binding.unmapped) unmapped.push(g);
  report.set("unmapped_groups", std::move(unmapped));

  std::string main_bytes, bin_bytes, bin_path;
  if (format == "glb" || format == "gltf") {
    const std::size_t n = model->vertexCount(), k = static_cast<std::size_t>(a.influences);
    std::vector<std::uint16_t> joints(n * k), quantized;
    std::vector<float> weights(n * k);
    double dropped = 0.0;
    const std::size_t limited = limitInfluences(model->skin, a.influences, joints, weights, &dropped);
    GltfSkinStreams streams{.influences = a.influences, .joints = joints, .weights = weights};
    if (a.quantize) {
      quantized.resize(n * k);
      quantizeInfluences(weights, a.influences, a.weight_bits, quantized);
      streams.weight_bits = a.weight_bits;
      streams.quantized_weights = quantized;
    }
    report.set("influences", a.influences);
    report.set("vertices_limited", static_cast<std::int64_t>(limited));
    report.set("max_dropped_weight", dropped);
    GltfOptions options;
    options.rig_name = c->rig_name;
    options.container = format == "glb" ? GltfContainer::kGlb : a.embed ? GltfContainer::kGltfEmbedded : GltfContainer::kGltf;
    if (options.container == GltfContainer::kGltf) {
      const std::filesystem::path p(a.out);
      options.bin_name = p.stem().string() + ".bin";
      bin_path = (p.parent_path() / options.bin_name).string();
    }
    auto files = writeGltf(*model, streams, options);
    if (!files) return reportError(files.error());
    main_bytes = std::move(files->main);
    bin_bytes = std::move(files->bin);
  } else {
    G4mfWriteOptions options;
    options.container = format == "g4b" ? G4mfContainer::kBinary : G4mfContainer::kText;
    options.zstd = a.compress;
    options.rig_name = c->rig_name;
    auto bytes = writeG4mf(*model, options);
    if (!bytes) return reportError(bytes.error());
    main_bytes = std::move(*bytes);
  }
  Json warn_list = Json::array();
  for (const auto& w : warnings) warn_list.push(w);
  report.set("warnings", std::move(warn_list));
  report.set("bytes", static_cast<std::int64_t>(main_bytes.size() + bin_bytes.size()));

  // Outputs are complete or absent: the .bin goes first and is removed if the main file fails.
  if (!bin_path.empty())
    if (Status st = writeFileAtomic(bin_path, bin_bytes); !st) return reportError(st.error());
  if (Status st = writeFileAtomic(a.out, main_bytes); !st) {
    if (!bin_path.empty()) std::filesystem::remove(bin_path);
    return reportError(st.error());
  }
  if (!a.report.empty())
    if (Status st = writeOutput(a.report, writeJson(report, {.indent = 2, .sort_keys = false, .final_newline = true})); !st)
      return reportError(st.error());
  return kExitOk;
}

}  // namespace

void addExportCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = app.add_subcommand("export", "Export the rigged, skinned character as glTF (.glb/.gltf) or G4MF (.g4tf/.g4b)");
  args->character.add(*cmd, true);
  cmd->add_option("--out,-o", args->out, "output file; the extension chooses the format")->required();
  cmd->add_option("--format", args->format, "force the format")->check(CLI::IsMember({"glb", "gltf", "g4tf", "g4b"}));
  cmd->add_option("--pose", args->pose.pose_file, "MPFB pose file to use as the bind pose (with --apply-pose-as-rest)");
  cmd->add_option("--rotate", args->pose.rotate, "BONE=RX,RY,RZ degrees (repeatable; with --apply-pose-as-rest)");
  cmd->add_option("--rotate-quat", args->pose.rotate_quat, "BONE=W,X,Y,Z (repeatable; with --apply-pose-as-rest)");
  cmd->add_flag("--apply-pose-as-rest", args->apply_pose_as_rest, "make the pose the bind pose: skeleton, body and normals together");
  cmd->add_flag("--embed", args->embed, ".gltf: embed the buffer as a data URI instead of writing a .bin beside it");
  cmd->add_option("--influences", args->influences, "glTF influences per vertex")->check(CLI::IsMember({4, 8}));
  cmd->add_flag("--quantize", args->quantize, "glTF: weights as normalised unsigned integers that sum exactly to 1");
  cmd->add_option("--weight-bits", args->weight_bits, "bits of quantised weights")->check(CLI::IsMember({8, 16}));
  cmd->add_flag("--deform-only", args->deform_only, "keep only bones that carry weight, re-parented across removed ones, one root");
  cmd->add_flag("--keep-helpers", args->keep_helpers, "keep helper geometry and joint cubes");
  cmd->add_flag("--compress", args->compress, ".g4b: Zstandard-compress the JSON and buffer chunks");
  cmd->add_option("--report", args->report, "write a JSON report: joints, vertices, influences dropped, warnings");
  cmd->callback([args, &exit_code] { exit_code = runExport(*args); });
}

}  // namespace rigfit::cli
