#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

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
  fs::path dir_;
};

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
  EXPECT_NE(st.error().message.find(sub.string() + ": write failed"), std::string::npos) << st.error().message;
  EXPECT_TRUE(fs::is_directory(sub));
  EXPECT_EQ(test::readText((sub / "keep.txt").string()), "keep");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicWrite, MissingFolderIsAnError) {
  const std::string path = (dir_ / "no" / "such" / "a.bin").string();
  auto st = writeFileAtomic(path, "bytes");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find(path + ": cannot create a temporary file"), std::string::npos) << st.error().message;
}

// loadFile: every byte (binary, any length), followed by kPadding zero bytes; errors name the file.
TEST_F(AtomicWrite, LoadFileReadsEveryByteAndPadsWithZeros) {
  std::string bytes;
  for (int i = 0; i < 70000; ++i) bytes.push_back(static_cast<char>((i * 7919) % 256));
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{4095}, std::size_t{4096}, bytes.size()}) {
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
