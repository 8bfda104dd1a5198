// Reading whole files, and writing files durably so that a failure never leaves a partial output
// behind.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
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
/// Read, not memory-mapped: a parser then walks the bytes in the heap instead of page-cache
/// pages, each a TLB miss, which on virtual machines made parsing the weights and the body
/// slower.
[[nodiscard]] Expected<FileText> loadFile(const std::string& path);

/// Writes `bytes` to `path` durably and in one step: into a new temporary file in `path`'s folder
/// (see isTemporaryOutputName), flushed to disk (fsync), renamed over `path`, and the folder
/// flushed. Readers of `path` see the old bytes or the new, never a mix; on any failure `path` is
/// left as it was and the temporary file is removed. Errors (kIo, one line, naming `path`): a
/// folder at `path`, a missing or unwritable folder, a failed write (e.g. a full disk).
[[nodiscard]] Status writeFileAtomic(const std::string& path, std::string_view bytes);

/// One file of writeFilesAtomic.
struct OutputFile {
  std::string path;
  std::string_view bytes;
};

/// Writes several files all or nothing (e.g. a .gltf and its .bin): every file is written and
/// flushed to a temporary file first, then each is renamed into place in order, then the folders
/// are flushed. If any step fails, every file is left as it was (files already renamed are put
/// back) and no temporary file is left. Errors as writeFileAtomic's.
[[nodiscard]] Status writeFilesAtomic(std::span<const OutputFile> files);

/// Whether `name` (a file name without folder) is that of a temporary file of writeFileAtomic:
/// ".NAME.rigfit-tmp-XXXXXX". Such a file is left behind only when the process dies mid-write;
/// it is hidden and does not end in NAME's extension, so listings by extension skip it.
bool isTemporaryOutputName(std::string_view name);

}  // namespace rigfit
