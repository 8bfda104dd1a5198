#include "core/file_io.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <new>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rigfit/file_io.hpp"

namespace rigfit {

namespace {

// Opens `path` for reading; it must be a regular file. `size` receives its length.
Expected<int> openRegular(const std::string& path, std::size_t& size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return makeError(ErrorCode::kIo, path + ": cannot open: " + std::strerror(errno));
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return makeError(ErrorCode::kIo, path + ": not a regular file");
  }
  size = static_cast<std::size_t>(st.st_size);
  return fd;
}

// Moves the file at `from` to `to` in one step. An existing file at `to` is swapped with it
// (RENAME_EXCHANGE) and then removed: readers of `to` see the old bytes or the new, as with a
// plain rename, but ext4 does not write the new file's data to disk before returning, which it
// does when a file is renamed over another (auto_da_alloc: 5 ms for a 1 MB .glb).
bool replaceWith(const std::string& from, const std::string& to) {
  struct stat st{};
  if (::lstat(to.c_str(), &st) == 0 && !S_ISDIR(st.st_mode) &&
      ::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_EXCHANGE) == 0) {
    ::unlink(from.c_str());  // the old file, now under the temporary name
    return true;
  }
  return std::rename(from.c_str(), to.c_str()) == 0;
}

// Reads exactly `size` bytes from `fd` into `dst`.
Status readAll(int fd, char* dst, std::size_t size, const std::string& path) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd, dst + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return makeError(ErrorCode::kIo, path + ": read failed at byte " + std::to_string(done));  // or it shrank
    done += static_cast<std::size_t>(n);
  }
  return {};
}

}  // namespace

Expected<std::string> readFile(const std::string& path) {
  std::size_t size = 0;
  auto opened = openRegular(path, size);
  if (!opened) return opened.error();
  std::string out;
  out.resize(size);
  const Status read = readAll(*opened, out.data(), size, path);
  ::close(*opened);
  if (!read) return read.error();
  return out;
}

FileText FileText::borrowed(std::string_view bytes) {
  FileText f;
  f.view_ = bytes;
  return f;
}

FileText::FileText(FileText&& other) noexcept : owned_(std::move(other.owned_)), view_(other.view_) { other.view_ = {}; }

FileText& FileText::operator=(FileText&& other) noexcept {
  if (this != &other) {
    owned_ = std::move(other.owned_);
    view_ = other.view_;
    other.view_ = {};
  }
  return *this;
}

Expected<FileText> loadFile(const std::string& path) {
  std::size_t size = 0;
  auto opened = openRegular(path, size);
  if (!opened) return opened.error();
  const int fd = *opened;
  FileText out;
  if (size > 0) {
    // Default-initialised (not zeroed), with zeroed padding for parsers that read ahead (simdjson).
    out.owned_.reset(new (std::nothrow) char[size + FileText::kPadding]);
    if (!out.owned_) {
      ::close(fd);
      return makeError(ErrorCode::kIo, path + ": cannot hold its " + std::to_string(size) + " bytes in memory");
    }
    std::memset(out.owned_.get() + size, 0, FileText::kPadding);
    if (Status read = readAll(fd, out.owned_.get(), size, path); !read) {
      ::close(fd);
      return read.error();
    }
    out.view_ = std::string_view(out.owned_.get(), size);
  }
  ::close(fd);
  return out;
}

Status writeFileAtomic(const std::string& path, std::string_view bytes) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string tmpl = (dir / ("." + target.filename().string() + ".rigfit-XXXXXX")).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return makeError(ErrorCode::kIo, path + ": cannot create a temporary file: " + std::strerror(errno));
  std::size_t done = 0;
  bool ok = true;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) { ok = false; break; }
    done += static_cast<std::size_t>(n);
  }
  const int saved = errno;
  if (ok && ::fchmod(fd, 0644) != 0) ok = false;
  if (::close(fd) != 0) ok = false;
  if (ok && !replaceWith(tmpl, path)) ok = false;
  if (!ok) {
    ::unlink(tmpl.c_str());
    return makeError(ErrorCode::kIo, path + ": write failed: " + std::strerror(saved ? saved : errno));
  }
  return {};
}

}  // namespace rigfit
