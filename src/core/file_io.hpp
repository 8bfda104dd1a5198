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

namespace detail {

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
