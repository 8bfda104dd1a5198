// rigfit export: the rigged, skinned character as glTF 2.0 (.glb / .gltf) or G4MF (.g4tf / .g4b).
#include <filesystem>
#include <memory>

#include "cli/common.hpp"
#include "rigfit/character_export.hpp"

namespace rigfit::cli {
namespace {

struct ExportArgs {
  CharacterArgs character;
  std::string pose_file;
  std::vector<std::string> rotate, rotate_quat;
  bool apply_pose_as_rest = false;
  std::string out, format, report;
  bool embed = false, quantize = false, keep_helpers = false, keep_hidden = false, compress = false, deform_only = false, no_bake = false;
  int influences = 4;
  int weight_bits = 8;
  int threads = 2;
  std::vector<std::string> morphs;
  std::string base_color;
};

int runExport(const ExportArgs& a) {
  CharacterExportOptions options{.embed = a.embed,
                                 .influences = a.influences,
                                 .quantize = a.quantize,
                                 .weight_bits = a.weight_bits,
                                 .keep_helpers = a.keep_helpers,
                                 .keep_hidden = a.keep_hidden,
                                 .deform_only = a.deform_only,
                                 .keep_bendy_bones = a.no_bake,
                                 .compress = a.compress,
                                 .threads = a.threads};
  for (const auto& text : a.morphs) {
    auto morph = parseMorphSpec(text);
    if (!morph) return reportError(replaceSubject(morph.error(), "--morph"));
    options.morphs.push_back(std::move(*morph));
  }
  if (!a.base_color.empty()) {
    auto color = parseBaseColor(a.base_color);
    if (!color) return reportError(replaceSubject(color.error(), "--base-color"));
    options.base_color = *color;
  }
  const auto format = a.format.empty() ? exportFormatFromExtension(a.out) : exportFormatFromName(a.format);
  if (!format)
    return reportError(makeError(ErrorCode::kUsage, a.out + ": cannot tell the format from the extension; use .glb, .gltf, .g4tf or .g4b, or --format"));
  options.format = *format;
  PoseRequest pose{.pose_file = a.pose_file};
  if (Status st = parseRotations(a.rotate, a.rotate_quat, pose); !st) return reportError(st.error());
  if (pose.any() && !a.apply_pose_as_rest)
    return reportError(makeError(ErrorCode::kUsage, "export: a pose is exported as the bind pose: add --apply-pose-as-rest"));
  auto c = a.character.load(true, a.threads);
  if (!c) return reportError(c.error());
  if (!c->has_skin) return reportError(makeError(ErrorCode::kUsage, c->rig.label + ": no weights for this rig; give --weights"));
  std::string bin_path;
  if (options.format == ExportFormat::kGltf && !a.embed) {
    const std::filesystem::path p(a.out);
    options.bin_name = p.stem().string() + ".bin";
    bin_path = (p.parent_path() / options.bin_name).string();
  }
  auto files = exportCharacter(a.character.data.source(), *c, pose, options);
  if (!files) return reportError(files.error());
  for (const auto& w : files->warnings) warn(w);
  if (Status st = writeCharacterExport(*files, a.out, bin_path); !st) return reportError(st.error());
  if (!a.report.empty())
    if (Status st = writeOutput(a.report, writeJson(exportReportJson(files->report), {.indent = 2, .sort_keys = false, .final_newline = true})); !st)
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
  cmd->add_option("--pose", args->pose_file, "MPFB pose file (a path, or relative to the data's poses/) to use as the bind pose (with --apply-pose-as-rest)");
  cmd->add_option("--rotate", args->rotate, "BONE=RX,RY,RZ degrees (repeatable; with --apply-pose-as-rest)");
  cmd->add_option("--rotate-quat", args->rotate_quat, "BONE=W,X,Y,Z (repeatable; with --apply-pose-as-rest)");
  cmd->add_flag("--apply-pose-as-rest", args->apply_pose_as_rest, "make the pose the bind pose: skeleton, body and normals together");
  cmd->add_flag("--embed", args->embed, ".gltf: embed the buffer as a data URI instead of writing a .bin beside it");
  cmd->add_option("--influences", args->influences, "glTF influences per vertex")->check(CLI::IsMember({4, 8}));
  cmd->add_flag("--quantize", args->quantize, "glTF: weights as normalised unsigned integers that sum exactly to 1");
  cmd->add_option("--weight-bits", args->weight_bits, "bits of quantised weights")->check(CLI::IsMember({8, 16}));
  cmd->add_flag("--deform-only", args->deform_only, "keep only bones that carry weight, re-parented across removed ones, one root");
  cmd->add_flag("--no-bake", args->no_bake, "keep bendy bones as single joints (default: a chain of joints per bendy bone)");
  cmd->add_flag("--keep-hidden", args->keep_hidden, "keep the body faces the worn clothes hide (default: removed)");
  cmd->add_flag("--keep-helpers", args->keep_helpers, "keep helper geometry and joint cubes");
  cmd->add_flag("--compress", args->compress, ".g4b: Zstandard-compress the JSON and buffer chunks");
  cmd->add_option("--morph", args->morphs,
                  "target PATH[=NAME]: a target file, or relative to the data's targets/ (e.g. expression/units/caucasian/mouth-open=jawOpen), "
                  "exported as a morph target / blend shape with weight 0 (repeatable; DIR/ adds every target in the folder DIR)");
  cmd->add_option("--base-color", args->base_color, "glTF: the body material's linear base colour R,G,B[,A], each 0..1 (default 0.8,0.8,0.8)");
  cmd->add_option("--threads", args->threads, "threads for loading and the normals (the output does not depend on it)")->check(CLI::Range(1, 64));
  cmd->add_option("--report", args->report, "write a JSON report: joints, vertices, influences dropped, warnings");
  cmd->callback([args, &exit_code] { exit_code = runExport(*args); });
}

}  // namespace rigfit::cli
