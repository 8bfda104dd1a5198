// The asset stage of loadCharacter (character_assets.cpp).
#pragma once

#include "rigfit/character.hpp"

namespace rigfit::detail {

/// Fits, weights and adds options.assets to the character (after its fit and weights), hides the
/// body under them, and puts options.proxy in the body's place.
[[nodiscard]] Status wearAssets(Character& c, const CharacterOptions& options);

}  // namespace rigfit::detail
