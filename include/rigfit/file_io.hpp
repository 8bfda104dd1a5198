// Reading whole files, and writing files so that a failure never leaves a partial output behind.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "rigfit/error.hpp"

namespace rigfit {

/// A whole file's bytes: read into a buffer of its own (not zeroed first; kPadding zero bytes
/// follow the text), or bytes that live elsewhere. The view stays valid while the object lives.
class FileText {
 public:
  static constexpr std::size_t kPadding = 64;  ///< simdjson::SIMDJSON_PADDING
  FileText() = default;
  /// Bytes that live elsewhere for as long as this object (e.g. compiled into the program).
  static FileText borrowed(std::string_view bytes);
  FileText(FileText&& other) noexcept;
  FileText& operator=(FileText&& other) noexcept;
  FileText(const FileText&) = delete;
  FileText& operator=(const FileText&) = delete;
  ~FileText() = default;

  std::string_view text() const { return view_; }
  /// The kPadding bytes past text() belong to this object (a file read by loadFile), so a parser
  /// that reads ahead (simdjson) can read the text in place.
  bool padded() const { return owned_ != nullptr; }

 private:
  friend Expected<FileText> loadFile(const std::string& path);
  std::unique_ptr<char[]> owned_;
  std::string_view view_;
};

/// Reads a regular file whole. Errors (kIo) name the file (and the byte where a read failed).
/// Read, not memory-mapped: a parser then walks the bytes in the heap (on rigfit's command
/// line, 2 MiB pages) instead of 4 KiB page-cache pages, each a TLB miss, which on virtual
/// machines made parsing the weights and the body twice as slow.
[[nodiscard]] Expected<FileText> loadFile(const std::string& path);

/// Writes `bytes` to a temporary file beside `path`, then moves it to `path` in one step (an
/// existing file there is exchanged with it and removed; a folder there is an error). On any
/// failure the temporary file is removed and `path` is left as it was.
Status writeFileAtomic(const std::string& path, std::string_view bytes);

}  // namespace rigfit
