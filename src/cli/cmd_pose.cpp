// rigfit pose: pose the character and write the deformed mesh (OBJ) and skeleton.
#include <memory>

#include "cli/common.hpp"
#include "rigfit/fit.hpp"
#include "rigfit/posing.hpp"
#include "rigfit/version.hpp"

namespace rigfit::cli {
namespace {

struct PoseArgs {
  CharacterArgs character;
  std::string pose_file;
  std::vector<std::string> rotate, rotate_quat;
  std::string out, skeleton_out;
  bool dqs = false;
  bool keep_hidden = false;
  int threads = 2;
};

int runPose(const PoseArgs& a) {
  PoseRequest request{.pose_file = a.pose_file};
  if (Status st = parseRotations(a.rotate, a.rotate_quat, request); !st) return reportError(st.error());
  if (!request.any()) return reportError(makeError(ErrorCode::kUsage, "pose: give --pose FILE or --rotate / --rotate-quat"));
  auto c = a.character.load(true, a.threads);
  if (!c) return reportError(c.error());
  // --weights none: the skeleton is posed, the meshes are written as they are.
  const bool skinless = a.character.weights == "none";
  if (!c->has_skin && !skinless)
    return reportError(makeError(ErrorCode::kUsage, c->rig.label + ": no weights for this rig; give --weights, or --weights none to pose the skeleton alone"));
  Pose pose;
  std::vector<PoseWarning> warnings;
  if (Status st = buildPose(a.character.data.source(), *c, request, pose, &warnings); !st) return reportError(st.error());
  for (const auto& w : warnings) warn(w.message);
  PosedMesh posed;
  if (skinless) {
    posed.pose_matrices.assign(c->fit.skeleton.size(), Eigen::Matrix4d::Identity());
    poseMatrices(c->fit.skeleton, pose, posed.pose_matrices);
  } else if (Status st = poseCharacter(*c, pose, a.dqs, a.threads, posed); !st) {
    return reportError(st.error());
  }
  const std::string obj = writeCharacterObj(*c, skinless ? nullptr : &posed, a.keep_hidden,
                                            skinless ? "skeleton posed by rigfit " RIGFIT_VERSION_STRING ", mesh not skinned (--weights none)"
                                                     : "posed by rigfit " RIGFIT_VERSION_STRING);
  // Write the skeleton first: if it fails, no posed OBJ is left behind either.
  if (!a.skeleton_out.empty())
    if (Status st = writeOutput(a.skeleton_out, writeSkeletonJson(c->fit.skeleton, posed.pose_matrices)); !st) return reportError(st.error());
  if (Status st = writeOutput(a.out, obj); !st) return reportError(st.error());
  return kExitOk;
}

}  // namespace

void addPoseCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<PoseArgs>();
  CLI::App* cmd = app.add_subcommand("pose", "Pose the character (Blender's semantics) and write the skinned mesh as OBJ");
  args->character.add(*cmd, true);
  cmd->add_option("--pose", args->pose_file, "MPFB pose file (poses/<rig>_fk/*.json format): a path, or relative to the data's poses/; extension optional");
  cmd->add_option("--rotate", args->rotate, "BONE=RX,RY,RZ: XYZ Euler rotation in degrees (repeatable)");
  cmd->add_option("--rotate-quat", args->rotate_quat, "BONE=W,X,Y,Z: quaternion rotation (repeatable)");
  cmd->add_option("--out,-o", args->out,
                  "posed mesh OBJ, in the input OBJ's frame and order; with assets, one object per mesh (the body first)")
      ->required();
  cmd->add_flag("--keep-hidden", args->keep_hidden, "keep the body faces the worn clothes hide (default: removed)");
  cmd->add_option("--skeleton", args->skeleton_out, "also write the skeleton JSON with each bone's pose_matrix");
  cmd->add_flag("--dqs", args->dqs, "dual-quaternion skinning (Blender's 'preserve volume')");
  cmd->add_option("--threads", args->threads, "threads for loading and skinning (the output does not depend on it)")->check(CLI::Range(1, 64));
  cmd->callback([args, &exit_code] { exit_code = runPose(*args); });
}

}  // namespace rigfit::cli
