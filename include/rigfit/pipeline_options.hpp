// Typed options of the character pipeline, and the one parser of each string form the command
// line and the batch manifest share. Parse errors name what was parsed ("macro", "morph", ...)
// and the quoted text, never a command-line flag: a caller puts its own flag or manifest key in
// front (see replaceSubject).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "rigfit/error.hpp"

namespace rigfit {

enum class ExportFormat { kGlb, kGltf, kG4tf, kG4b };

/// "glb", "gltf", "g4tf" or "g4b".
std::string_view exportFormatName(ExportFormat format);
/// The format named "glb", "gltf", "g4tf" or "g4b"; nullopt for any other name.
std::optional<ExportFormat> exportFormatFromName(std::string_view name);
/// The format of a file name's extension (.glb, .gltf, .g4tf, .g4b); nullopt for any other.
std::optional<ExportFormat> exportFormatFromExtension(std::string_view path);
inline bool isGltf(ExportFormat f) { return f == ExportFormat::kGlb || f == ExportFormat::kGltf; }

/// One bone's rotation of a pose request.
struct BoneRotation {
  enum class Kind { kEulerXyzDegrees, kQuaternion };
  std::string bone;
  Kind kind = Kind::kEulerXyzDegrees;
  std::array<double, 4> values{};  ///< RX, RY, RZ degrees (XYZ Euler), or W, X, Y, Z
  bool operator==(const BoneRotation&) const = default;
};

/// A MakeHuman target exported as a morph target: `path` as a user names a target
/// (resolveDataFile, kTarget); with `whole_folder`, every target directly in the folder `path`
/// (kTargetFolder), in name order, each named by its file name without the extension.
struct MorphSpec {
  std::string path;
  std::string name;  ///< the morph's name (empty with whole_folder)
  bool whole_folder = false;
  bool operator==(const MorphSpec&) const = default;
};

/// "BONE=RX,RY,RZ" (degrees, XYZ Euler) or "BONE=W,X,Y,Z" (a quaternion, not of length 0).
/// Numbers may carry a sign and spaces around them; BONE is everything before the last '='.
/// Errors (kUsage): `rotation "TEXT": what`.
[[nodiscard]] Expected<BoneRotation> parseBoneRotation(std::string_view text, BoneRotation::Kind kind);

/// "PATH", "PATH=NAME" (NAME by default PATH's last part without .target / .target.gz) or "DIR/"
/// (a whole folder).
/// Errors (kUsage): `morph "TEXT": what`.
[[nodiscard]] Expected<MorphSpec> parseMorphSpec(std::string_view text);

/// "R,G,B" or "R,G,B,A", each from 0 to 1 (alpha 1 when not given). Errors: `colour "TEXT": what`.
[[nodiscard]] Expected<std::array<float, 4>> parseBaseColor(std::string_view text);

/// An error whose message starts with a subject word ("macro \"x\": ...") with that word replaced
/// by `subject` (e.g. a flag: "--macro \"x\": ..."); the code is kept.
Error replaceSubject(const Error& error, std::string_view subject);

}  // namespace rigfit
