#include "core/file_io.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <new>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rigfit/file_io.hpp"

namespace rigfit {

Expected<int> detail::openRegular(const std::string& path, std::size_t& size) {
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

namespace {

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
  auto opened = detail::openRegular(path, size);
  if (!opened) return opened.error();
  std::string out;
  try {
    out.resize(size);
  } catch (const std::bad_alloc&) {
    ::close(*opened);
    return makeError(ErrorCode::kIo, path + ": cannot hold its " + std::to_string(size) + " bytes in memory");
  }
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

void FileText::release() noexcept {
  if (storage_ && mapped_) ::munmap(storage_, mapped_);
  else delete[] storage_;
  storage_ = nullptr;
  mapped_ = 0;
  view_ = {};
}

FileText::~FileText() { release(); }

FileText::FileText(FileText&& other) noexcept : storage_(other.storage_), mapped_(other.mapped_), view_(other.view_) {
  other.storage_ = nullptr;
  other.mapped_ = 0;
  other.view_ = {};
}

FileText& FileText::operator=(FileText&& other) noexcept {
  if (this != &other) {
    release();
    std::swap(storage_, other.storage_);
    std::swap(mapped_, other.mapped_);
    std::swap(view_, other.view_);
  }
  return *this;
}

namespace {

constexpr std::size_t kMapBytes = std::size_t{256} << 10;

// Maps `size` bytes of `fd` followed by at least FileText::kPadding zero bytes: an anonymous
// read-only reservation (zero pages) with the file mapped over its start. Bytes past the end of
// the file in its last page read as zero too. nullptr (and `mapped` untouched) when the system
// will not map it.
char* mapPadded(int fd, std::size_t size, std::size_t& mapped) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t length = (size + FileText::kPadding + page - 1) / page * page;
  void* base = ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) return nullptr;
  if (::mmap(base, size, PROT_READ, MAP_PRIVATE | MAP_FIXED | MAP_POPULATE, fd, 0) == MAP_FAILED) {
    ::munmap(base, length);
    return nullptr;
  }
  mapped = length;
  return static_cast<char*>(base);
}

}  // namespace

Expected<FileText> loadFile(const std::string& path) {
  std::size_t size = 0;
  auto opened = detail::openRegular(path, size);
  if (!opened) return opened.error();
  const int fd = *opened;
  FileText out;
  if (size >= kMapBytes) {
    out.storage_ = mapPadded(fd, size, out.mapped_);
    if (out.storage_) out.view_ = std::string_view(out.storage_, size);
  }
  if (size > 0 && !out.storage_) {
    // Default-initialised (not zeroed), with zeroed padding for parsers that read ahead (simdjson).
    out.storage_ = new (std::nothrow) char[size + FileText::kPadding];
    if (!out.storage_) {
      ::close(fd);
      return makeError(ErrorCode::kIo, path + ": cannot hold its " + std::to_string(size) + " bytes in memory");
    }
    std::memset(out.storage_ + size, 0, FileText::kPadding);
    if (Status read = readAll(fd, out.storage_, size, path); !read) {
      ::close(fd);
      return read.error();
    }
    out.view_ = std::string_view(out.storage_, size);
  }
  ::close(fd);
  return out;
}

namespace {

constexpr std::string_view kTempTag = ".rigfit-tmp-";  // .NAME.rigfit-tmp-XXXXXX
constexpr std::size_t kTempRandom = 6;                  // mkstemp's XXXXXX

std::string folderOf(const std::string& path) {
  const std::filesystem::path p(path);
  return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}

Error ioError(const std::string& path, const std::string& what, int err) {
  return makeError(ErrorCode::kIo, path + ": " + what + ": " + std::strerror(err));
}

// A free name for a temporary file beside `path` (.NAME.rigfit-tmp-XXXXXX).
std::string tempName(const std::string& path, const std::string& folder) {
  return (std::filesystem::path(folder) / ("." + std::filesystem::path(path).filename().string() + std::string(kTempTag) +
                                           std::string(kTempRandom, 'X')))
      .string();
}

// One file on its way: its temporary file, and what the commit did with it.
struct Pending {
  const OutputFile* file = nullptr;
  std::string folder;
  std::string temp;        // empty once nothing is left under the temporary name
  std::string backup;      // a second name (hard link) of the target's old file, until all are placed
  bool placed = false;     // the new file is at the target
  bool had_old = false;    // a file was at the target before
};

// The step's injected error, or 0.
int injected(const detail::WriteFault& fault, detail::WriteStep step, const std::string& path) {
  return fault ? fault(step, path) : 0;
}

// Creates the temporary file beside the target and writes, flushes and closes it.
Status stage(Pending& p, const detail::WriteFault& fault) {
  const std::string& path = p.file->path;
  std::string temp = tempName(path, p.folder);
  int err = injected(fault, detail::WriteStep::kCreate, path);
  const int fd = err ? -1 : ::mkostemp(temp.data(), O_CLOEXEC);  // O_CREAT | O_EXCL, a fresh name
  if (fd < 0) {
    if (!err) err = errno;
    if (err == ENOENT) return makeError(ErrorCode::kIo, path + ": cannot write: no folder " + p.folder);
    if (err == ENOTDIR) return makeError(ErrorCode::kIo, path + ": cannot write: " + p.folder + " is not a folder");
    return ioError(path, "cannot create a file in " + p.folder, err);
  }
  p.temp = std::move(temp);
  const std::string_view bytes = p.file->bytes;
  std::size_t done = 0;
  err = 0;
  while (done < bytes.size() && !err) {
    if ((err = injected(fault, detail::WriteStep::kWrite, path))) break;
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) err = n < 0 ? errno : EIO;
    else done += static_cast<std::size_t>(n);
  }
  const char* what = "write failed";
  if (!err && ::fchmod(fd, 0644) != 0) err = errno;
  if (!err && ((err = injected(fault, detail::WriteStep::kSync, path)) || ::fsync(fd) != 0)) {
    if (!err) err = errno;
    what = "write failed (flushing to disk)";
  }
  if (::close(fd) != 0 && !err) err = errno;
  if (err) return ioError(path, what, err);
  return {};
}

// Keeps the target's old file under a second name (a hard link in the same folder), so that a
// later failure can put it back. Where links are not possible the old file is simply replaced.
void keepOld(Pending& p) {
  std::string name = tempName(p.file->path, p.folder);
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);  // reserve a fresh name...
  if (fd < 0) return;
  ::close(fd);
  ::unlink(name.c_str());  // ...and link the old file there (link never replaces a file)
  if (::link(p.file->path.c_str(), name.c_str()) == 0) p.backup = std::move(name);
}

// Moves the temporary file to the target. Every file but the last keeps the old target (keepOld).
Status place(Pending& p, bool last, const detail::WriteFault& fault) {
  const std::string& path = p.file->path;
  if (int err = injected(fault, detail::WriteStep::kRename, path)) return ioError(path, "cannot replace", err);
  struct stat st{};
  p.had_old = ::lstat(path.c_str(), &st) == 0;
  if (!last && p.had_old && S_ISREG(st.st_mode)) keepOld(p);
  if (::rename(p.temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    if (!p.backup.empty()) ::unlink(p.backup.c_str());
    p.backup.clear();
    if (err == EISDIR) return makeError(ErrorCode::kIo, path + ": is a folder, not a file");
    return ioError(path, "cannot replace", err);
  }
  p.temp.clear();
  p.placed = true;
  return {};
}

// The folders written to, each opened once before anything is written (so that a missing folder
// is reported first) and flushed to disk once the files are in place.
class Folders {
 public:
  Folders() = default;
  Folders(const Folders&) = delete;
  Folders& operator=(const Folders&) = delete;
  ~Folders() {
    for (const auto& f : open_)
      if (f.fd >= 0) ::close(f.fd);
  }

  Status add(const std::string& folder, const std::string& path) {
    for (const auto& f : open_)
      if (f.name == folder) return {};
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) return makeError(ErrorCode::kIo, path + ": cannot write: no folder " + folder);
    if (fd < 0 && errno == ENOTDIR) return makeError(ErrorCode::kIo, path + ": cannot write: " + folder + " is not a folder");
    open_.push_back({folder, path, fd});  // fd < 0 (e.g. a folder that can be written, not read): not flushed
    return {};
  }

  // Flushes every folder's entries (the renames) to disk; filesystems that cannot are no error.
  Status sync() const {
    for (const auto& f : open_) {
      if (f.fd < 0 || ::fsync(f.fd) == 0 || errno == EINVAL || errno == ENOTSUP) continue;
      return ioError(f.path, "written, but its folder could not be flushed to disk", errno);
    }
    return {};
  }

 private:
  struct Folder {
    std::string name, path;  // path: the first file written there, for messages
    int fd = -1;
  };
  std::vector<Folder> open_;
};

}  // namespace

bool isTemporaryOutputName(std::string_view name) {
  const std::size_t tag = name.rfind(kTempTag);
  return name.size() > 1 && name.front() == '.' && tag != std::string_view::npos && tag > 1 &&
         name.size() == tag + kTempTag.size() + kTempRandom;
}

std::string_view temporaryOutputTarget(std::string_view name) {
  if (!isTemporaryOutputName(name)) return {};
  return name.substr(1, name.rfind(kTempTag) - 1);
}

std::size_t removeTemporaryOutputs(const std::string& folder, const std::function<bool(std::string_view target)>& owned) {
  std::error_code ec;
  std::filesystem::directory_iterator it(folder, ec), end;
  std::size_t removed = 0;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const std::string_view target = temporaryOutputTarget(name);
    if (!target.empty() && owned(target) && ::unlink(it->path().c_str()) == 0) ++removed;
  }
  return removed;
}

Status detail::writeFilesAtomic(std::span<const OutputFile> files, const WriteFault& fault) {
  std::vector<Pending> pending(files.size());
  Folders folders;
  for (std::size_t i = 0; i < files.size(); ++i) {
    pending[i].file = &files[i];
    pending[i].folder = folderOf(files[i].path);
    struct stat st{};
    if (::lstat(files[i].path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      return makeError(ErrorCode::kIo, files[i].path + ": is a folder, not a file");
    RIGFIT_TRY(folders.add(pending[i].folder, files[i].path));
  }
  Status status;
  for (std::size_t i = 0; i < pending.size() && status; ++i) status = stage(pending[i], fault);
  for (std::size_t i = 0; i < pending.size() && status; ++i) status = place(pending[i], i + 1 == pending.size(), fault);
  if (!status) {
    // Put back what was placed (in reverse order), then remove every temporary file.
    for (std::size_t i = pending.size(); i-- > 0;) {
      Pending& p = pending[i];
      if (!p.placed) continue;
      if (!p.backup.empty()) {
        ::rename(p.backup.c_str(), p.file->path.c_str());
      } else if (!p.had_old) {
        ::unlink(p.file->path.c_str());
      }  // (else the old file could not be kept: it is gone, the new one stays whole)
    }
    for (const Pending& p : pending)
      if (!p.temp.empty()) ::unlink(p.temp.c_str());
    return status;
  }
  for (const Pending& p : pending)
    if (!p.backup.empty()) ::unlink(p.backup.c_str());  // the old file's second name
  return folders.sync();
}

Status writeFilesAtomic(std::span<const OutputFile> files) { return detail::writeFilesAtomic(files, nullptr); }

Status writeFileAtomic(const std::string& path, std::string_view bytes) {
  const OutputFile file{path, bytes};
  return detail::writeFilesAtomic({&file, 1}, nullptr);
}

}  // namespace rigfit
