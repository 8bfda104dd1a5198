// Hints for errors about unknown names (rigs, bones, macros, modifiers): the closest known names.
#pragma once

#include <cstddef>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rigfit::detail {

/// Edit distance between two names: insertions, deletions, substitutions and swaps of two
/// neighbouring characters count one each (optimal string alignment); letters compare without case.
std::size_t nameDistance(std::string_view a, std::string_view b);

/// What to append to "no X named NAME": " (did you mean "A"?)" or " (did you mean "A" or "B"?)"
/// with the known names closest to `name` (at most three, at the smallest distance, which must be
/// at most a third of the name's length, or 1); otherwise " (available: A, B, ..., and N more)"
/// with as many of the known names, in order, as fit in 100 characters; empty when nothing is known.
std::string unknownNameHint(std::string_view name, std::span<const std::string_view> known);

/// The same for any range of names (strings, string views, C strings).
template <class Names>
std::string unknownNameHint(std::string_view name, const Names& known) {
  const std::vector<std::string_view> names(std::begin(known), std::end(known));
  return unknownNameHint(name, std::span<const std::string_view>(names));
}

}  // namespace rigfit::detail
