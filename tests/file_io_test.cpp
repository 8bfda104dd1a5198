#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core/file_io.hpp"
#include "rigfit/data.hpp"
#include "rigfit/file_io.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

namespace fs = std::filesystem;

// A fresh empty folder per test.
class AtomicWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rigfit-atomic-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::size_t entries() const { return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir_), fs::directory_iterator())); }
  // The names in `dir` (default: the test's folder), sorted.
  std::vector<std::string> names(const fs::path& dir = {}) const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir.empty() ? dir_ : dir)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  fs::path dir_;
};

using Names = std::vector<std::string>;

TEST_F(AtomicWrite, CreatesAFile) {
  const std::string path = (dir_ / "a.bin").string();
  ASSERT_TRUE(writeFileAtomic(path, "first").ok());
  EXPECT_EQ(test::readText(path), "first");
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all, fs::perms(0644));
  EXPECT_EQ(entries(), 1u);  // no temporary file left
}

// The existing file is replaced by the new bytes and nothing else is left in the folder (the old
// file is swapped out and removed).
TEST_F(AtomicWrite, ReplacesAnExistingFile) {
  const std::string path = (dir_ / "a.bin").string();
  ASSERT_TRUE(writeFileAtomic(path, std::string(100000, 'x')).ok());
  ASSERT_TRUE(writeFileAtomic(path, "second").ok());
  EXPECT_EQ(test::readText(path), "second");
  ASSERT_TRUE(writeFileAtomic(path, "third, longer").ok());
  EXPECT_EQ(test::readText(path), "third, longer");
  EXPECT_EQ(entries(), 1u);
}

// As with rename(2): a symbolic link at the path is replaced, the file it points to is untouched.
TEST_F(AtomicWrite, ReplacesASymlinkNotItsTarget) {
  const std::string target = (dir_ / "target.bin").string(), link = (dir_ / "link.bin").string();
  ASSERT_TRUE(writeFileAtomic(target, "target").ok());
  fs::create_symlink(target, link);
  ASSERT_TRUE(writeFileAtomic(link, "new").ok());
  EXPECT_FALSE(fs::is_symlink(link));
  EXPECT_EQ(test::readText(link), "new");
  EXPECT_EQ(test::readText(target), "target");
  EXPECT_EQ(entries(), 2u);
}

// A folder at the path is an error; the folder and its contents stay, no temporary file is left.
TEST_F(AtomicWrite, RefusesToReplaceAFolder) {
  const fs::path sub = dir_ / "out.glb";
  fs::create_directories(sub);
  { std::ofstream(sub / "keep.txt") << "keep"; }
  auto st = writeFileAtomic(sub.string(), "bytes");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, sub.string() + ": is a folder, not a file");
  EXPECT_TRUE(fs::is_directory(sub));
  EXPECT_EQ(test::readText((sub / "keep.txt").string()), "keep");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicWrite, MissingFolderIsAnError) {
  const std::string path = (dir_ / "no" / "such" / "a.bin").string();
  auto st = writeFileAtomic(path, "bytes");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, path + ": cannot write: no folder " + (dir_ / "no" / "such").string());
  EXPECT_EQ(entries(), 0u);
}

// A write that fails part-way (the file size limit reached after the first 4 KiB) leaves the file
// that was there and nothing else. In a child process: the limit is the process's.
TEST_F(AtomicWrite, AWriteThatFailsPartWayLeavesTheOldFile) {
  const std::string path = (dir_ / "a.glb").string();
  ASSERT_TRUE(writeFileAtomic(path, "old bytes").ok());
  const int code = test::exitCodeUnderFileSizeLimit(4096, [&] {
    const Status st = writeFileAtomic(path, std::string(100000, 'x'));
    if (st.ok()) return 3;
    return st.error().message == path + ": write failed: " + std::strerror(EFBIG) ? 0 : 4;
  });
  EXPECT_EQ(code, 0) << "2: no limit, 3: the write succeeded, 4: another message";
  EXPECT_EQ(test::readText(path), "old bytes");
  EXPECT_EQ(names(), Names{"a.glb"});
}

// A folder where no file can be created is a one-line error naming the path; the file there
// stays. Permissions do not stop root, so for root the folder is also made immutable.
TEST_F(AtomicWrite, AReadOnlyFolderIsAnError) {
  const fs::path ro = dir_ / "ro";
  fs::create_directories(ro);
  const std::string path = (ro / "a.glb").string();
  ASSERT_TRUE(writeFileAtomic(path, "old").ok());
  struct ReadOnly {  // undone however the test ends, so that the folder can be removed
    fs::path dir;
    bool immutable = false;
    explicit ReadOnly(fs::path d) : dir(std::move(d)) {
      fs::permissions(dir, fs::perms(0555));
      if (::geteuid() == 0) immutable = setImmutable(true);
    }
    ~ReadOnly() {
      if (immutable) setImmutable(false);
      fs::permissions(dir, fs::perms(0755));
    }
    bool setImmutable(bool on) const {
      const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
      int flags = 0;
      bool ok = fd >= 0 && ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
      flags = on ? (flags | FS_IMMUTABLE_FL) : (flags & ~FS_IMMUTABLE_FL);
      ok = ok && ::ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
      if (fd >= 0) ::close(fd);
      return ok;
    }
  } read_only(ro);
  const int probe = ::open((ro / "probe").c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (probe >= 0) {
    ::close(probe);
    fs::remove(ro / "probe");
    GTEST_SKIP() << "no way to make a folder read-only here";
  }
  const int refused = errno;
  const Status st = writeFileAtomic(path, "new");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, path + ": cannot create a file in " + ro.string() + ": " + std::strerror(refused));
  EXPECT_EQ(test::readText(path), "old");
  EXPECT_EQ(names(ro), Names{"a.glb"});
}

// Several files (a .gltf and its .bin) are written all or nothing: whichever step fails for
// whichever file, the files there before are left as they were (or stay absent), and no
// temporary file is left.
TEST_F(AtomicWrite, SeveralFilesAreWrittenAllOrNothing) {
  const std::string bin = (dir_ / "a.bin").string(), gltf = (dir_ / "a.gltf").string();
  const OutputFile files[] = {{bin, "new bin"}, {gltf, "new gltf"}};
  using detail::WriteStep;
  for (const bool before : {false, true}) {
    if (before) {
      ASSERT_TRUE(writeFileAtomic(bin, "old bin").ok());
      ASSERT_TRUE(writeFileAtomic(gltf, "old gltf").ok());
    }
    for (const WriteStep step : {WriteStep::kCreate, WriteStep::kWrite, WriteStep::kSync, WriteStep::kRename})
      for (const std::string& failing : {bin, gltf}) {
        SCOPED_TRACE(std::string(before ? "old files, " : "no files, ") + "step " + std::to_string(static_cast<int>(step)) + ", " + failing);
        const Status st = detail::writeFilesAtomic(files, [&](WriteStep s, const std::string& p) { return s == step && p == failing ? EIO : 0; });
        ASSERT_FALSE(st.ok());
        EXPECT_EQ(st.error().message.rfind(failing + ": ", 0), 0u) << st.error().message;
        EXPECT_NE(st.error().message.find(std::strerror(EIO)), std::string::npos) << st.error().message;
        if (before) {
          EXPECT_EQ(names(), (Names{"a.bin", "a.gltf"}));
          EXPECT_EQ(test::readText(bin), "old bin");
          EXPECT_EQ(test::readText(gltf), "old gltf");
        } else {
          EXPECT_EQ(names(), Names{});
        }
      }
  }
  ASSERT_TRUE(writeFilesAtomic(files).ok());
  EXPECT_EQ(names(), (Names{"a.bin", "a.gltf"}));
  EXPECT_EQ(test::readText(bin), "new bin");
  EXPECT_EQ(test::readText(gltf), "new gltf");
}

// The bytes go to a hidden temporary file beside the target, flushed to disk before it takes
// the target's name. Its name is recognisable, and does not end in the target's extension, so a
// leftover (from a process killed mid-write) is not taken for an output: listings skip it.
TEST_F(AtomicWrite, TheTemporaryFileIsHiddenAndRecognisable) {
  Names during;
  int syncs = 0;
  const OutputFile file{(dir_ / "rig.x.json").string(), "{}"};
  ASSERT_TRUE(detail::writeFilesAtomic({&file, 1}, [&](detail::WriteStep s, const std::string&) {
                if (s == detail::WriteStep::kSync) {
                  ++syncs;
                  during = names();
                }
                return 0;
              }).ok());
  EXPECT_EQ(syncs, 1);
  ASSERT_EQ(during.size(), 1u);
  EXPECT_EQ(during[0].rfind(".rig.x.json.rigfit-tmp-", 0), 0u) << during[0];
  EXPECT_TRUE(isTemporaryOutputName(during[0])) << during[0];
  EXPECT_EQ(names(), Names{"rig.x.json"});
  EXPECT_TRUE(isTemporaryOutputName(".a.glb.rigfit-tmp-Ab3xZ9"));
  EXPECT_FALSE(isTemporaryOutputName("a.glb"));
  EXPECT_FALSE(isTemporaryOutputName(".a.glb"));
  EXPECT_FALSE(isTemporaryOutputName("a.glb.rigfit-tmp-Ab3xZ9"));   // not hidden
  EXPECT_FALSE(isTemporaryOutputName(".a.glb.rigfit-tmp-Ab3xZ"));   // not mkstemp's six characters
  EXPECT_FALSE(isTemporaryOutputName(".rigfit-tmp-Ab3xZ9"));        // no target name
  // A leftover among a data folder's rigs is not a rig.
  fs::create_directories(dir_ / "rigs" / "standard");
  ASSERT_TRUE(writeFileAtomic((dir_ / "rigs" / "standard" / "rig.x.json").string(), "{}").ok());
  { std::ofstream(dir_ / "rigs" / "standard" / during[0]) << "{}"; }
  EXPECT_EQ(listRigs(DataSource::folder(dir_.string())), Names{"x"});
}

// loadFile: every byte (binary, any length), followed by kPadding zero bytes; errors name the file.
// Files from 256 KiB are mapped: their sizes include one a page long exactly, and one whose last
// page has fewer than kPadding bytes to spare (the padding then lies in the next page).
TEST_F(AtomicWrite, LoadFileReadsEveryByteAndPadsWithZeros) {
  std::string bytes;
  for (unsigned i = 0; i < 300000; ++i) bytes.push_back(static_cast<char>((i * 7919u) % 256));
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{4095}, std::size_t{4096}, std::size_t{70000}, 64 * page,
                        64 * page + 1, 65 * page - 10, bytes.size()}) {
    const std::string path = (dir_ / ("f" + std::to_string(n))).string();
    ASSERT_TRUE(writeFileAtomic(path, std::string_view(bytes).substr(0, n)).ok());
    auto f = loadFile(path);
    ASSERT_TRUE(f.ok()) << f.error().message;
    EXPECT_EQ(f->text(), std::string_view(bytes).substr(0, n));
    if (n > 0) {
      for (std::size_t i = 0; i < FileText::kPadding; ++i) EXPECT_EQ(f->text().data()[n + i], '\0') << n << " +" << i;
    }
    EXPECT_EQ(f->padded(), n > 0);  // the padding is the object's own (no bytes: no buffer)
    FileText moved = std::move(*f);  // the bytes move with the object
    EXPECT_EQ(moved.text(), std::string_view(bytes).substr(0, n));
    EXPECT_EQ(moved.padded(), n > 0);
  }
  EXPECT_FALSE(FileText::borrowed("{}").padded());
  auto missing = loadFile((dir_ / "missing").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find((dir_ / "missing").string() + ": cannot open"), std::string::npos);
  auto folder = loadFile(dir_.string());
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(folder.error().message.find(dir_.string() + ": not a regular file"), std::string::npos);
}

}  // namespace
}  // namespace rigfit
