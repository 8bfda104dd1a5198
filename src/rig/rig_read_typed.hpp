// The typed rig reader behind RigParse::kTyped (see rig_read_typed.cpp).
#pragma once

#include <memory>
#include <string_view>

#include "rigfit/rig.hpp"

namespace rigfit::detail {

/// A copy of `text` followed by the zero padding the scanner (core/json_scan.hpp) reads past the end.
std::shared_ptr<const RigSource> makeRigSource(std::string_view text);

/// Fills `rig` from `src` and returns true, or returns false (leaving `rig` unspecified) when
/// the full reader must decide: on any error and on version 100 files with Rigify data.
bool readRigTyped(const std::shared_ptr<const RigSource>& src, std::string_view label, RigDefinition& rig);

}  // namespace rigfit::detail
