// Resuming a batch: checksums, the journal (records, torn lines, headers of another run), and
// runBatch skipping what an earlier run finished while redoing what changed or is damaged.
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "batch/journal.hpp"
#include "core/checksum.hpp"
#include "rigfit/batch.hpp"
#include "test_util.hpp"

namespace rigfit {
namespace {

namespace fs = std::filesystem;

// A fresh folder for one test, removed afterwards.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) : path(fs::temp_directory_path() / (name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

void writeText(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& f : fs::directory_iterator(dir)) names.insert(f.path().filename().string());
  return names;
}

TEST(Checksum, Xxh64KnownValues) {
  // The reference values of xxHash's own test suite (seed 0).
  EXPECT_EQ(xxh64(""), 0xEF46DB3751D8E999ull);
  EXPECT_EQ(xxh64("abc"), 0x44BC2CF5AD770999ull);
  EXPECT_EQ(hex64(0xEF46DB3751D8E999ull), "ef46db3751d8e999");
  EXPECT_EQ(hex64(1), "0000000000000001");
  EXPECT_EQ(parseHex64("ef46db3751d8e999"), 0xEF46DB3751D8E999ull);
  EXPECT_EQ(parseHex64("EF46DB3751D8E999"), 0xEF46DB3751D8E999ull);
  EXPECT_FALSE(parseHex64("ef46db3751d8e99"));    // 15 digits
  EXPECT_FALSE(parseHex64("ef46db3751d8e9999"));  // 17
  EXPECT_FALSE(parseHex64("ef46db3751d8e99g"));
  EXPECT_FALSE(parseHex64("+f46db3751d8e999"));
}

TEST(Checksum, FileDigestReadsInPieces) {
  TempDir dir("rigfit_checksum_test");
  std::string bytes(1'000'003, '\0');  // more than one read
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7919 % 251);
  writeText(dir / "f", bytes);
  auto d = fileDigest(dir / "f");
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->bytes, bytes.size());
  EXPECT_EQ(d->xxh64, xxh64(bytes));
  auto missing = fileDigest(dir / "none");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, (dir / "none") + ": cannot open: No such file or directory");
  EXPECT_EQ(fileDigest(dir.path.string()).error().message, dir.path.string() + ": not a regular file");
}

TEST(TemporaryOutputs, TargetAndRemoval) {
  EXPECT_EQ(temporaryOutputTarget(".a.glb.rigfit-tmp-Ab12Cd"), "a.glb");
  EXPECT_EQ(temporaryOutputTarget(".x.rigfit-tmp-Ab12Cd.rigfit-tmp-000000"), "x.rigfit-tmp-Ab12Cd");
  EXPECT_EQ(temporaryOutputTarget("a.glb"), "");
  EXPECT_EQ(temporaryOutputTarget(".a.glb.rigfit-tmp-Ab12C"), "");  // not mkstemp's six characters
  EXPECT_EQ(temporaryOutputTarget("a.glb.rigfit-tmp-Ab12Cd"), "");  // not hidden
  TempDir dir("rigfit_tmpfiles_test");
  for (const char* name : {".a.glb.rigfit-tmp-Ab12Cd", ".a.glb.rigfit-tmp-zzzzzz", ".b.glb.rigfit-tmp-Ab12Cd", "a.glb", ".a.glb"})
    writeText(dir / name, "x");
  EXPECT_EQ(removeTemporaryOutputs(dir.path.string(), [](std::string_view t) { return t == "a.glb"; }), 2u);
  EXPECT_EQ(listing(dir.path), (std::set<std::string>{".b.glb.rigfit-tmp-Ab12Cd", "a.glb", ".a.glb"}));
  EXPECT_EQ(removeTemporaryOutputs(dir / "missing", [](std::string_view) { return true; }), 0u);
}

journal::Header header() { return {.manifest = "m.jsonl", .shard = {1, 4}, .data = "/data", .assets = "/assets"}; }

journal::Record record(const std::string& name, std::uint64_t line_sum) {
  Json report = Json::object();
  report.set("rig", "demo");
  report.set("bytes", std::int64_t{123});
  return {.line = 3, .name = name, .line_xxh64 = line_sum, .files = {{name + ".gltf", 123, 0xABCDEFull}, {name + ".bin", 0, 7}}, .report = report};
}

TEST(BatchJournal, RecordsReadBackLastOneWinsTornLinesSkipped) {
  TempDir dir("rigfit_journal_test");
  const std::string path = dir / "j";
  writeText(path, journal::headerLine(header()) + "\n" + journal::recordLine(record("a", 1)) + "\n" +
                      journal::recordLine(record("b", 2)) + "\n" + "not json\n" +
                      R"({"line": 5, "name": "c", "line_xxh64": "0000000000000001", "files": [{"name": "../c.glb", "bytes": 1, "xxh64": "0000000000000001"}], "report": {}})" +
                      "\n" + journal::recordLine(record("a", 5)) + "\n" + journal::recordLine(record("d", 4)).substr(0, 40));
  const journal::Contents c = journal::read(path, header());
  EXPECT_EQ(c.note, "");
  ASSERT_EQ(c.records.size(), 2u);  // c names a file outside the folder; d is cut short
  const journal::Record& a = c.records.at("a");
  EXPECT_EQ(a.line_xxh64, 5u);  // the later record of "a"
  EXPECT_EQ(a.line, 3u);
  ASSERT_EQ(a.files.size(), 2u);
  EXPECT_EQ(a.files[0].name, "a.gltf");
  EXPECT_EQ(a.files[0].bytes, 123u);
  EXPECT_EQ(a.files[0].xxh64, 0xABCDEFu);
  EXPECT_EQ(a.report, record("a", 5).report);
  EXPECT_EQ(c.records.at("b").line_xxh64, 2u);

  EXPECT_TRUE(journal::read(dir / "missing", header()).records.empty());
  EXPECT_EQ(journal::read(dir / "missing", header()).note, "");
  journal::Header other = header();
  other.data = "/elsewhere";
  const journal::Contents o = journal::read(path, other);
  EXPECT_TRUE(o.records.empty());
  EXPECT_EQ(o.note, path + ": written with the data \"/data\", this run with the data \"/elsewhere\"; nothing resumed");
  writeText(path, "{\"format\": \"something else\"}\n" + journal::recordLine(record("a", 1)) + "\n");
  EXPECT_EQ(journal::read(path, header()).note, path + ": not a rigfit batch journal; nothing resumed");
}

TEST(BatchJournal, WriterStartsTheFileOnTheFirstAppend) {
  TempDir dir("rigfit_journal_writer_test");
  const std::string path = dir / "j";
  writeText(path, "old, torn");
  {
    journal::Writer w(path, "start\n");
    EXPECT_EQ(test::readText(path), "old, torn");  // nothing is written before the first record
    ASSERT_TRUE(w.append("one").ok());
    ASSERT_TRUE(w.append("two").ok());
  }
  EXPECT_EQ(test::readText(path), "start\none\ntwo\n");
  journal::Writer bad((dir / "no/such/folder") + "/j", "start\n");
  const Status st = bad.append("one");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, (dir / "no/such/folder") + "/j: cannot write: no folder " + (dir / "no/such/folder"));
}

// A record that does not fit (the file size limit reached part-way) is an error naming the journal,
// and the journal is cut back to its last whole line, so the next record starts a line of its
// own. In a child process: the limit is the process's.
TEST(BatchJournal, AFailedAppendIsCutBack) {
  TempDir dir("rigfit_journal_full_test");
  const std::string path = dir / "j";
  const int code = test::exitCodeUnderFileSizeLimit(4096, [&] {
    journal::Writer w(path, "start\n");
    if (!w.append("one").ok()) return 3;
    const Status st = w.append(std::string(10000, 'x'));
    if (st.ok()) return 4;
    if (st.error().message != path + ": cannot record the line: " + std::strerror(EFBIG)) return 5;
    return w.append("two").ok() ? 0 : 6;
  });
  EXPECT_EQ(code, 0) << "2: no limit, 3: the first append failed, 4: the long one worked, 5: another message, 6: the last failed";
  EXPECT_EQ(test::readText(path), "start\none\ntwo\n");
}

struct FileState {
  std::string bytes;
  std::int64_t mtime_ns = 0;
  ino_t inode = 0;
  bool operator==(const FileState&) const = default;
};

template <typename Map>
std::set<std::string> keys(const Map& m) {
  std::set<std::string> out;
  for (const auto& [k, _] : m) out.insert(k);
  return out;
}

std::map<std::string, FileState> snapshot(const fs::path& dir) {
  std::map<std::string, FileState> out;
  for (const auto& f : fs::directory_iterator(dir)) {
    struct stat st{};
    ::stat(f.path().c_str(), &st);
    out[f.path().filename().string()] = {test::readText(f.path().string()),
                                         std::int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec, st.st_ino};
  }
  return out;
}

// The built-in demo: a finished run is skipped whole; damaged or changed characters are made again.
TEST(BatchRun, ResumeSkipsFinishedLinesAndRedoesTheRest) {
  TempDir tmp("rigfit_batch_resume_test");
  const fs::path dir = tmp.path / "out";
  std::string manifest =
      "{\"name\": \"a\", \"rig\": \"demo\"}\n"
      "{\"name\": \"b\", \"rig\": \"demo\", \"format\": \"g4b\", \"export\": {\"compress\": true}}\n"
      "{\"name\": \"c\", \"rig\": \"nope\"}\n"
      "{\"name\": \"d\", \"rig\": \"demo\", \"format\": \"gltf\", \"pose\": {\"rotate\": {\"head\": [0, 0, 10]}}}\n"
      "{\"name\": \"a\", \"rig\": \"demo\"}\n";
  const std::string journal_path = batchJournalPath(dir.string(), "some/where/m.jsonl", {0, 1});
  EXPECT_EQ(journal_path, (dir / ".rigfit-batch.m.jsonl.0-of-1.journal").string());
  BatchOptions options{.out_dir = dir.string(), .jobs = 2, .journal = journal_path};
  const BatchResult first = runBatch(DataSource::builtinDemo(), "m.jsonl", manifest, options);
  ASSERT_EQ(first.ok, 3u);
  EXPECT_EQ(first.skipped, 0u);
  for (const auto& l : first.lines) {
    EXPECT_FALSE(l.skipped);
    ASSERT_EQ(l.outputs.size(), l.checksums.size());
    for (std::size_t i = 0; i < l.outputs.size(); ++i) {
      const std::string bytes = test::readText(l.outputs[i]);
      EXPECT_EQ(l.checksums[i].bytes, bytes.size());
      EXPECT_EQ(l.checksums[i].xxh64, xxh64(bytes));
    }
  }
  const auto made = snapshot(dir);
  EXPECT_EQ(keys(made),
            (std::set<std::string>{"a.glb", "b.g4b", "d.gltf", "d.bin", ".rigfit-batch.m.jsonl.0-of-1.journal"}));

  // 1. Everything finished: skipped, nothing written (not even the journal), the same records.
  options.resume = true;
  std::size_t reported_skips = 0;
  options.on_line = [&](const BatchLineResult&, const BatchProgress& p) { reported_skips = p.skipped; };
  const BatchResult again = runBatch(DataSource::builtinDemo(), "m.jsonl", manifest, options);
  EXPECT_EQ(again.resume_note, "");
  EXPECT_EQ(again.ok, 3u);
  EXPECT_EQ(again.skipped, 3u);
  EXPECT_EQ(reported_skips, 3u);
  EXPECT_EQ(again.failed, 2u);  // the bad rig and the repeated name fail again, never skipped
  EXPECT_EQ(snapshot(dir), made);
  for (std::size_t i = 0; i < again.lines.size(); ++i) {
    EXPECT_EQ(again.lines[i].skipped, first.lines[i].ok);
    EXPECT_EQ(again.lines[i].outputs, first.lines[i].outputs);
    EXPECT_EQ(again.lines[i].report, first.lines[i].report);
    ASSERT_EQ(again.lines[i].checksums.size(), first.lines[i].checksums.size());
    for (std::size_t k = 0; k < again.lines[i].checksums.size(); ++k) {
      EXPECT_EQ(again.lines[i].checksums[k].bytes, first.lines[i].checksums[k].bytes);
      EXPECT_EQ(again.lines[i].checksums[k].xxh64, first.lines[i].checksums[k].xxh64);
    }
  }
  const Json summary = batchSummaryJson(again);
  EXPECT_EQ(summary.find("totals")->find("skipped")->asInt(), 3);
  const Json& d = summary.find("lines")->items()[3];
  EXPECT_TRUE(d.find("skipped")->asBool());
  const Json& sums = *d.find("checksums");
  ASSERT_EQ(sums.size(), 2u);
  EXPECT_EQ(sums.items()[1].find("file")->asString(), (dir / "d.bin").string());
  EXPECT_EQ(sums.items()[1].find("bytes")->asInt(), static_cast<std::int64_t>(first.lines[3].checksums[1].bytes));
  EXPECT_EQ(sums.items()[1].find("xxh64")->asString(), hex64(first.lines[3].checksums[1].xxh64));

  // 2. A byte changed in a.glb (same size), d.bin gone, b's line edited, leftovers of a killed
  // run for b and for a name of no line: a, b and d are made again, identical for a and d.
  std::string a = made.at("a.glb").bytes;
  a[a.size() / 2] ^= 1;
  writeText((dir / "a.glb").string(), a);
  fs::remove(dir / "d.bin");
  writeText((dir / ".b.g4b.rigfit-tmp-AAAAAA").string(), "partial");
  writeText((dir / ".zz.glb.rigfit-tmp-AAAAAA").string(), "another shard's");
  writeText((dir / "..rigfit-batch.m.jsonl.0-of-1.journal.rigfit-tmp-AAAAAA").string(), "partial");  // the journal's
  const std::string b_line = "{\"name\": \"b\", \"rig\": \"demo\", \"format\": \"g4b\", \"export\": {\"compress\": true}}";
  manifest.replace(manifest.find(b_line), b_line.size(), "{\"name\": \"b\", \"rig\": \"demo\", \"format\": \"g4b\"}");
  const BatchResult redo = runBatch(DataSource::builtinDemo(), "m.jsonl", manifest, options);
  EXPECT_EQ(redo.ok, 3u);
  EXPECT_EQ(redo.skipped, 0u);
  const auto now = snapshot(dir);
  EXPECT_EQ(now.at("a.glb").bytes, made.at("a.glb").bytes);
  EXPECT_EQ(now.at("d.bin").bytes, made.at("d.bin").bytes);
  EXPECT_EQ(now.at("d.gltf").bytes, made.at("d.gltf").bytes);
  EXPECT_NE(now.at("b.g4b").bytes, made.at("b.g4b").bytes);  // not compressed now
  EXPECT_EQ(keys(now),
            (std::set<std::string>{"a.glb", "b.g4b", "d.gltf", "d.bin", ".rigfit-batch.m.jsonl.0-of-1.journal", ".zz.glb.rigfit-tmp-AAAAAA"}));

  // 3. The journal now records the new b: a third run skips everything again.
  const BatchResult third = runBatch(DataSource::builtinDemo(), "m.jsonl", manifest, options);
  EXPECT_EQ(third.skipped, 3u);
  EXPECT_EQ(snapshot(dir), now);

  // 4. A journal from another data folder, or no --resume: everything is made again.
  const BatchResult other = runBatch(DataSource::folder(tmp / "data"), "m.jsonl", manifest, options);
  EXPECT_EQ(other.resume_note, journal_path + ": written with the data \"built-in demo\", this run with the data \"" + (tmp / "data") +
                                   "\"; nothing resumed");
  EXPECT_EQ(other.skipped, 0u);
  options.resume = false;
  const BatchResult fresh = runBatch(DataSource::builtinDemo(), "m.jsonl", manifest, options);
  EXPECT_EQ(fresh.skipped, 0u);
  EXPECT_EQ(fresh.ok, 3u);
}

}  // namespace
}  // namespace rigfit
