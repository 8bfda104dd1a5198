// XXH64 checksums of bytes and of files (xxHash, seed 0), written as 16 lowercase hex digits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "rigfit/error.hpp"

namespace rigfit {

std::uint64_t xxh64(std::string_view bytes);

/// A file's size and XXH64, read in pieces (the file is never held whole).
struct FileDigest {
  std::uint64_t bytes = 0;
  std::uint64_t xxh64 = 0;
};
/// Errors (kIo) name the file: missing, not a regular file, a failed read.
[[nodiscard]] Expected<FileDigest> fileDigest(const std::string& path);

/// "0123456789abcdef": the 16 hex digits of a checksum, most significant first.
std::string hex64(std::uint64_t value);
/// The value of exactly 16 hex digits (either case); nothing for anything else.
std::optional<std::uint64_t> parseHex64(std::string_view text);

}  // namespace rigfit
