// Base64 (RFC 4648: standard alphabet, '=' padding), for the data URIs of .gltf and .g4tf files.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace rigfit {

/// Appends the base64 encoding of `bytes` to `out` (padded to a multiple of 4 characters).
void appendBase64(std::string_view bytes, std::string& out);

/// The base64 encoding of `bytes`.
std::string base64Encode(std::string_view bytes);

/// The data URI prefix of glTF and G4MF buffers embedded in the JSON.
inline constexpr std::string_view kOctetStreamDataUri = "data:application/octet-stream;base64,";

/// kOctetStreamDataUri followed by the base64 encoding of `bytes`.
std::string octetStreamDataUri(std::string_view bytes);

/// Strict decoding into `out` (cleared first): the standard alphabet only, the length a multiple
/// of 4, '=' only as the last one or two characters. On failure returns false with `bad_at` the
/// offset of the first offending character (the length when it is not a multiple of 4).
bool base64Decode(std::string_view text, std::string& out, std::size_t& bad_at);

}  // namespace rigfit
