// Reading whole files without copying them, and writing files so that a failure never leaves a
// partial output behind.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "rigfit/error.hpp"

namespace rigfit {

/// A whole file's bytes: memory-mapped read-only (the page cache itself, no copy, no zeroed
/// buffer), or bytes held in memory. The view stays valid while the object lives. A mapped file
/// must not be truncated while it is in use (the system would signal the reader).
class FileText {
 public:
  FileText() = default;
  /// Bytes that live elsewhere for as long as this object (e.g. compiled into the program).
  static FileText borrowed(std::string_view bytes);
  FileText(FileText&& other) noexcept;
  FileText& operator=(FileText&& other) noexcept;
  FileText(const FileText&) = delete;
  FileText& operator=(const FileText&) = delete;
  ~FileText();

  std::string_view text() const { return view_; }

 private:
  friend Expected<FileText> mapFile(const std::string& path);
  void* map_ = nullptr;
  std::size_t map_size_ = 0;
  std::string_view view_;
};

/// Maps a regular file read-only. Errors (kIo) name the file.
[[nodiscard]] Expected<FileText> mapFile(const std::string& path);

/// Writes `bytes` to a temporary file beside `path`, then moves it to `path` in one step (an
/// existing file there is exchanged with it and removed; a folder there is an error). On any
/// failure the temporary file is removed and `path` is left as it was.
Status writeFileAtomic(const std::string& path, std::string_view bytes);

}  // namespace rigfit
