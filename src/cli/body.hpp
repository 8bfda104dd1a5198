#pragma once

#include "cli/common.hpp"
#include "rigfit/mesh.hpp"

namespace rigfit::cli {

struct Body {
  Mesh mesh;
  VertexGroups groups;
  std::string mesh_label;
};

/// The body mesh (--mesh or the data's base.obj) with the data's vertex groups; a mesh whose
/// vertex count differs from the base mesh's is an error.
Expected<Body> loadBody(const DataSource& data, const std::string& mesh_path);

/// The rig named by --rig (default "demo" on the built-in demo).
Expected<RigDefinition> loadRigOption(const DataSource& data, const std::string& rig_arg, std::string* name = nullptr);

}  // namespace rigfit::cli
