// Whole-file reads and all-or-nothing writes.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "rigfit/error.hpp"
#include "rigfit/file_io.hpp"

namespace rigfit {

/// Reads a whole file. (For parsers that read past the end of their text, loadFile pads it.)
Expected<std::string> readFile(const std::string& path);

/// The target's file name of a temporary file of writeFileAtomic (".NAME.rigfit-tmp-XXXXXX" ->
/// "NAME"); empty for any other name.
std::string_view temporaryOutputTarget(std::string_view name);

/// Removes from `folder` the temporary files that writeFileAtomic leaves when its process is
/// killed mid-write, for the targets `owned` accepts (file names in `folder`). Others are left
/// alone: another process may be writing them. Returns how many were removed; a folder that
/// cannot be listed removes nothing.
std::size_t removeTemporaryOutputs(const std::string& folder, const std::function<bool(std::string_view target)>& owned);

namespace detail {

/// Opens `path` for reading (the descriptor is the caller's to close); it must be a regular file.
/// `size` receives its length. Errors (kIo) name the file.
Expected<int> openRegular(const std::string& path, std::size_t& size);

/// The steps of an atomic write where a system call can fail.
enum class WriteStep { kCreate, kWrite, kSync, kRename };

/// Called before each step with the target's path: a nonzero errno value makes the step fail as
/// if its system call had returned that error (tests use it to fail what cannot be made to fail
/// for real, e.g. a rename).
using WriteFault = std::function<int(WriteStep step, const std::string& path)>;

/// writeFilesAtomic with failures injected by `fault`.
Status writeFilesAtomic(std::span<const OutputFile> files, const WriteFault& fault);

}  // namespace detail
}  // namespace rigfit
