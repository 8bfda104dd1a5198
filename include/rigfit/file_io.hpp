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

/// A whole file's bytes: the file's pages mapped read-only (large files), read into a buffer of
/// its own (small ones), or bytes that live elsewhere. Mapped and read texts are followed by
/// kPadding zero bytes of the object's own. The view stays valid while the object lives.
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
  ~FileText();

  std::string_view text() const { return view_; }
  /// The kPadding bytes past text() belong to this object (a file read by loadFile), so a parser
  /// that reads ahead (simdjson) can read the text in place.
  bool padded() const { return storage_ != nullptr; }

 private:
  friend Expected<FileText> loadFile(const std::string& path);
  void release() noexcept;
  char* storage_ = nullptr;  ///< owned: mapped (mapped_ bytes) or allocated with new[]
  std::size_t mapped_ = 0;
  std::string_view view_;
};

/// Reads a regular file whole. Errors (kIo) name the file (and the byte where a read failed).
/// Files of kMapBytes or more are mapped (MAP_POPULATE: the page cache's pages, no copy and no
/// fresh memory to fault in, which on virtual machines costs about 2 us per 4 KiB page); smaller
/// ones are read. As with any mapped file, a file cut short by another process while its text
/// is in use ends the process (SIGBUS); a file replaced by a rename, as editors and rigfit's own
/// writes do, is not affected.
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
