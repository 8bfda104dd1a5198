// Posing a character: a Pose from a pose file and/or command-line rotations, then the skinned
// mesh (positions, and the OBJ's own normals) as Blender's armature modifier deforms it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rigfit/character.hpp"
#include "rigfit/pose.hpp"

namespace rigfit {

struct PoseRequest {
  std::string pose_file;               ///< MPFB pose JSON as a user names it (resolveDataFile, kPose)
  std::vector<BoneRotation> rotations;  ///< applied in order after the file
  bool any() const { return !pose_file.empty() || !rotations.empty(); }
};

/// The rest pose of the character with the request applied (file first, then rotations).
[[nodiscard]] Status buildPose(const DataSource& data, const Character& character, const PoseRequest& request, Pose& pose,
                               std::vector<PoseWarning>* warnings);

/// One skinned mesh's posed streams.
struct PosedStreams {
  std::vector<float> positions;  ///< 3 per mesh vertex, rig frame
  std::vector<float> normals;    ///< 3 per OBJ `vn` (empty when the OBJ has none)
};

struct PosedMesh {
  std::vector<Eigen::Matrix4d> pose_matrices;  ///< armature space, per skeleton bone
  std::vector<float> positions;                ///< the body (meshes[0]): 3 per mesh vertex, rig frame
  std::vector<float> normals;                  ///< the body: 3 per OBJ `vn` (empty when the OBJ has none)
  std::vector<PosedStreams> more;              ///< meshes[1..], in order
};

/// Poses the skeleton and skins every mesh of the character (it must have a skin). Each OBJ
/// normal is deformed with the influences of the first vertex that uses it.
[[nodiscard]] Status poseCharacter(const Character& character, const Pose& pose, bool dual_quaternion, int threads,
                                   PosedMesh& out);

/// The character's meshes as one OBJ in MakeHuman's frame, posed (`posed`) or as they are (null).
/// A body that wears nothing is written as writeObj writes it: the input OBJ's vertex order, UVs,
/// normals and face groups. With worn assets or a body proxy, one object per mesh
/// (writeObjObjects), the body first, every mesh without its hidden faces unless `keep_hidden`
/// (their vertices stay, so the body keeps the input OBJ's vertex order).
std::string writeCharacterObj(const Character& character, const PosedMesh* posed, bool keep_hidden, std::string_view header_comment);

}  // namespace rigfit
