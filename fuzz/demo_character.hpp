// The built-in demo character, loaded once per fuzzing process: the body, its vertex groups and
// its fitted rig, so each target can use what it reads the way the rigfit command does.
#pragma once

#include <cstdlib>

#include "rigfit/data.hpp"
#include "rigfit/fit.hpp"

namespace rigfit::fuzz {

struct DemoCharacter {
  Mesh mesh;
  VertexGroups groups;
  RigDefinition rig;
  FitResult fit;
};

inline const DemoCharacter& demoCharacter() {
  static const DemoCharacter demo = [] {
    const DataSource data = DataSource::builtinDemo();
    auto mesh = loadBaseMesh(data);
    if (!mesh) std::abort();
    auto groups = loadVertexGroups(data, mesh->vertexCount());
    auto where = locateRig(data, "demo");
    if (!groups || !where) std::abort();
    auto rig = loadRig(data, *where);
    if (!rig) std::abort();
    auto fit = fitRig(*rig, *mesh, *groups);
    if (!fit) std::abort();
    return DemoCharacter{std::move(*mesh), std::move(*groups), std::move(*rig), std::move(*fit)};
  }();
  return demo;
}

inline std::string_view asText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace rigfit::fuzz
