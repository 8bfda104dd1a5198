// The batch runner: a fixed pool of worker threads taking the shard's lines in order, one shared
// target cache, base mesh, weights cache and worn asset cache, atomic outputs, a record for every
// line whether it worked or not, and a journal of the finished ones for resuming.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <thread>
#include <utility>

#include "batch/journal.hpp"
#include "core/checksum.hpp"
#include "core/file_io.hpp"
#include "rigfit/batch.hpp"

namespace rigfit {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The output folder is made when the first character is ready, so a run that writes nothing
// leaves nothing behind.
Status makeOutDir(const std::string& dir, std::mutex& mutex) {
  std::lock_guard<std::mutex> lock(mutex);
  std::error_code ec;
  if (std::filesystem::is_directory(dir, ec)) return {};
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir, ec))
    return makeError(ErrorCode::kIo, dir + ": cannot create the output folder" + (ec ? " (" + ec.message() + ")" : ""));
  return {};
}

// Asset and proxy files found once per run (a bare name walks the assets folder).
class AssetFinder {
 public:
  AssetFinder(const DataSource& data, std::string assets_dir) : data_(data), assets_dir_(std::move(assets_dir)) {}
  Expected<std::string> find(DataFileKind kind, const std::string& spec) {
    const std::pair<DataFileKind, std::string> key{kind, spec};
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto it = found_.find(key); it != found_.end()) return it->second;
    }
    auto file = resolveDataFile(data_, kind, spec, assets_dir_);
    if (!file) return file.error();
    std::lock_guard<std::mutex> lock(mutex_);
    return found_.emplace(key, std::move(file->path)).first->second;
  }

 private:
  const DataSource& data_;
  std::string assets_dir_;
  std::mutex mutex_;
  std::map<std::pair<DataFileKind, std::string>, std::string> found_;
};

struct SharedInputs {
  TargetCache& targets;
  WeightsCache& weights;
  AssetFinder& finder;
  WornAssetCache& assets;
};

// One asset of a line, found and loaded (shared); errors under the manifest key `where`.
Expected<std::shared_ptr<const WornAsset>> wornAsset(SharedInputs& shared, DataFileKind kind, const std::string& spec,
                                                     const std::string& rig_type, const std::string& where) {
  auto path = shared.finder.find(kind, spec);
  auto worn = path ? shared.assets.get(*path, rig_type) : Expected<std::shared_ptr<const WornAsset>>(path.error());
  if (!worn) return makeError(worn.error().code, where + ": " + worn.error().message);
  return worn;
}

// The line's assets and proxy into `options`, for the rig's MPFB type (its custom weights).
Status wearEntryAssets(const DataSource& data, SharedInputs& shared, const BatchEntry& entry, CharacterOptions& options) {
  if (entry.assets.empty() && entry.proxy.empty()) return {};
  auto rig = locateRig(data, options.rig);
  if (!rig) return rig.error();
  for (std::size_t i = 0; i < entry.assets.size(); ++i) {
    auto worn = wornAsset(shared, DataFileKind::kAsset, entry.assets[i], rig->name, jsonPathIndex("assets", i));
    if (!worn) return worn.error();
    options.assets.push_back(std::move(*worn));
  }
  if (!entry.proxy.empty()) {
    auto worn = wornAsset(shared, DataFileKind::kProxy, entry.proxy, rig->name, "proxy");
    if (!worn) return worn.error();
    options.proxy = std::move(*worn);
  }
  return {};
}

// Loads, fits, binds and exports one character; the files are written atomically.
Status runEntry(const DataSource& data, SharedInputs& shared, const CharacterBase& base, const BatchEntry& entry,
                const std::string& out_dir, unsigned jobs, std::mutex& dir_mutex, BatchLineResult& result) {
  TargetCache& cache = shared.targets;
  CharacterOptions options = entry.character;
  options.targets = &cache;
  options.weights_cache = &shared.weights;
  options.base = &base;
  RIGFIT_TRY(wearEntryAssets(data, shared, entry, options));
  auto character = loadCharacter(data, options);
  if (!character) return character.error();
  CharacterExportOptions output = entry.output;
  output.targets = &cache;
  output.threads = jobs > 1 ? 1 : 2;  // several jobs already keep every CPU busy
  auto files = exportCharacter(data, *character, entry.pose, output);
  if (!files) return files.error();
  RIGFIT_TRY(makeOutDir(out_dir, dir_mutex));
  const std::filesystem::path dir(out_dir);
  const std::string main_path = (dir / (entry.name + "." + std::string(exportFormatName(entry.output.format)))).string();
  const std::string bin_path = entry.output.bin_name.empty() ? std::string() : (dir / entry.output.bin_name).string();
  RIGFIT_TRY(writeCharacterExport(*files, main_path, bin_path));
  const auto add = [&](std::string path, std::string_view bytes) {
    result.outputs.push_back(std::move(path));
    result.checksums.push_back({bytes.size(), xxh64(bytes)});
  };
  add(main_path, files->main);
  if (!bin_path.empty()) add(bin_path, files->bin);
  for (const auto& image : files->images) add((dir / image.first).string(), *image.second);
  result.report = exportReportJson(files->report);
  return {};
}

// The files of a finished line for the journal: names in the output folder, sizes, checksums.
journal::Record journalRecord(const BatchLineResult& r, std::uint64_t line_xxh64) {
  journal::Record record{.line = r.line, .name = r.name, .line_xxh64 = line_xxh64, .report = r.report};
  for (std::size_t i = 0; i < r.outputs.size(); ++i)
    record.files.push_back({std::filesystem::path(r.outputs[i]).filename().string(), r.checksums[i].bytes, r.checksums[i].xxh64});
  return record;
}

// A line the journal records as finished, if every file it wrote is still there, whole: the
// recorded size and checksum. Then `result` takes the recorded files and report.
bool resumeLine(const journal::Record& record, const std::string& out_dir, BatchLineResult& result) {
  const std::filesystem::path dir(out_dir);
  std::vector<std::string> outputs;
  std::vector<FileChecksum> checksums;
  for (const journal::File& f : record.files) {
    std::string path = (dir / f.name).string();
    auto digest = fileDigest(path);
    if (!digest || digest->bytes != f.bytes || digest->xxh64 != f.xxh64) return false;
    outputs.push_back(std::move(path));
    checksums.push_back({f.bytes, f.xxh64});
  }
  result.ok = result.skipped = true;
  result.outputs = std::move(outputs);
  result.checksums = std::move(checksums);
  result.report = record.report;
  return true;
}

// A folder as the journal names it: however it was spelled (relative, through links).
std::string canonicalPath(const std::string& path) {
  if (path.empty()) return path;
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : p.string();
}

// The output files a line owns (its main file and buffer; images may be shared by lines).
void addOwnedNames(const BatchEntry& entry, std::set<std::string, std::less<>>& names) {
  names.insert(entry.name + "." + std::string(exportFormatName(entry.output.format)));
  if (!entry.output.bin_name.empty()) names.insert(entry.output.bin_name);
}

}  // namespace

std::string batchJournalPath(std::string_view out_dir, std::string_view manifest_path, const Shard& shard) {
  const std::string manifest = std::filesystem::path(manifest_path).filename().string();
  const std::string name = ".rigfit-batch." + manifest + "." + std::to_string(shard.index) + "-of-" + std::to_string(shard.count) + ".journal";
  return (std::filesystem::path(out_dir) / name).string();
}

BatchResult runBatch(const DataSource& data, std::string_view manifest_label, std::string_view manifest_text,
                               const BatchOptions& options) {
  const auto t0 = Clock::now();
  BatchResult result;
  result.manifest = std::string(manifest_label);
  result.out_dir = options.out_dir;
  result.shard = options.shard;
  // Every line is parsed (cheap) so that a name used twice is caught the same way in every shard.
  const std::vector<ManifestLine> lines = manifestLines(manifest_text);
  result.manifest_lines = lines.size();
  std::vector<Expected<BatchEntry>> entries;
  std::vector<std::uint64_t> line_sums;  // of each entry's line text: the journal's key with the name
  std::set<std::string, std::less<>> owned;  // the output file names of this shard's lines
  std::map<std::string, std::size_t> first_use;
  for (const ManifestLine& line : lines) {
    auto entry = parseBatchEntry(line, manifest_label);
    if (entry) {
      auto [it, fresh] = first_use.emplace(entry->name, line.number);
      if (!fresh)
        entry = makeError(ErrorCode::kSchema, std::string(manifest_label) + ": line " + std::to_string(line.number) +
                                                  ": name: \"" + entry->name + "\" is already the name of line " +
                                                  std::to_string(it->second));
    }
    if (!options.shard.contains(line.number)) continue;
    BatchLineResult r;
    r.line = line.number;
    if (entry) r.name = entry->name;
    if (entry) addOwnedNames(*entry, owned);
    result.lines.push_back(std::move(r));
    entries.emplace_back(std::move(entry));
    line_sums.push_back(xxh64(line.text));
  }

  // The journal: what an earlier run finished (with `resume`), kept in the new journal for the
  // lines of this shard whose text is unchanged.
  const journal::Header header{.manifest = std::string(manifest_label), .shard = options.shard,
                               .data = data.isBuiltin() ? data.describe() : canonicalPath(data.describe()),
                               .assets = canonicalPath(options.assets_dir)};
  journal::Contents previous;
  if (options.resume && !options.journal.empty()) previous = journal::read(options.journal, header);
  result.resume_note = previous.note;
  std::vector<const journal::Record*> recorded(entries.size(), nullptr);
  std::string journal_start = journal::headerLine(header) + "\n";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (!entries[i]) continue;
    auto it = previous.records.find(entries[i]->name);
    if (it == previous.records.end() || it->second.line_xxh64 != line_sums[i]) continue;
    recorded[i] = &it->second;
    journal_start += journal::recordLine(it->second) + "\n";
  }
  std::optional<journal::Writer> journal;
  if (!options.journal.empty()) {
    journal.emplace(options.journal, std::move(journal_start));
    const std::filesystem::path jpath(options.journal);
    const std::string jname = jpath.filename().string();
    removeTemporaryOutputs(jpath.has_parent_path() ? jpath.parent_path().string() : ".",
                           [&](std::string_view target) { return target == jname; });
  }
  // What a killed run left of this shard's outputs (other shards may be writing theirs).
  if (!owned.empty()) removeTemporaryOutputs(options.out_dir, [&](std::string_view target) { return owned.contains(target); });

  unsigned jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, std::max<std::size_t>(1, entries.size())));
  result.jobs = jobs;
  TargetCache cache(data);
  WeightsCache weights;
  AssetFinder finder(data, options.assets_dir);
  WornAssetCache assets;
  SharedInputs shared{cache, weights, finder, assets};
  // base.obj and the vertex groups: read once, when the first character needs them.
  std::once_flag base_once;
  std::optional<Expected<CharacterBase>> base;
  auto characterBase = [&]() -> const Expected<CharacterBase>& {
    std::call_once(base_once, [&] { base.emplace(loadCharacterBase(data)); });
    return *base;
  };
  std::atomic<std::size_t> next{0};
  std::mutex report_mutex, dir_mutex;
  BatchProgress progress{.total = entries.size()};
  auto worker = [&] {
    for (std::size_t i = next++; i < entries.size(); i = next++) {
      const auto t_line = Clock::now();
      BatchLineResult& r = result.lines[i];
      const Expected<BatchEntry>& entry = entries[i];
      // A line that runs out of memory fails alone; the other lines go on.
      const auto run = [&]() -> Status {
        try {
          return runEntry(data, shared, *characterBase(), *entry, options.out_dir, jobs, dir_mutex, r);
        } catch (const std::bad_alloc&) {
          return makeError(ErrorCode::kIo, "out of memory");
        }
      };
      const bool skip = recorded[i] && resumeLine(*recorded[i], options.out_dir, r);
      Status st = skip ? Status() : !entry ? Status(entry.error()) : !characterBase() ? Status(characterBase().error()) : run();
      const std::string record = st && !skip && journal ? journal::recordLine(journalRecord(r, line_sums[i])) : std::string();
      std::lock_guard<std::mutex> lock(report_mutex);
      if (!record.empty()) st = journal->append(record);
      r.ok = st.ok();
      if (!st) {
        r.error = st.error().message;
        // Every error names the manifest line, also those from the files the line refers to.
        const std::string where = std::string(manifest_label) + ": line " + std::to_string(r.line);
        if (r.error.rfind(where, 0) != 0) r.error = where + ": " + r.error;
        r.outputs.clear();
        r.checksums.clear();
      }
      r.seconds = secondsSince(t_line);
      ++progress.done;
      progress.failed += !r.ok;
      progress.skipped += r.skipped;
      progress.seconds = secondsSince(t0);
      if (options.on_line) options.on_line(r, progress);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < jobs; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();

  for (const auto& r : result.lines) {
    (r.ok ? result.ok : result.failed) += 1;
    result.skipped += r.skipped;
  }
  result.seconds = secondsSince(t0);
  return result;
}

Json batchSummaryJson(const BatchResult& result) {
  Json s = Json::object();
  s.set("format", "rigfit-batch-summary/1");
  s.set("manifest", result.manifest);
  s.set("out_dir", result.out_dir);
  Json shard = Json::object();
  shard.set("index", static_cast<std::int64_t>(result.shard.index));
  shard.set("count", static_cast<std::int64_t>(result.shard.count));
  s.set("shard", std::move(shard));
  s.set("jobs", static_cast<std::int64_t>(result.jobs));
  Json totals = Json::object();
  totals.set("manifest_lines", static_cast<std::int64_t>(result.manifest_lines));
  totals.set("lines", static_cast<std::int64_t>(result.lines.size()));
  totals.set("ok", static_cast<std::int64_t>(result.ok));
  totals.set("failed", static_cast<std::int64_t>(result.failed));
  totals.set("skipped", static_cast<std::int64_t>(result.skipped));
  s.set("totals", std::move(totals));
  Json timing = Json::object();
  timing.set("seconds", result.seconds);
  // Characters made, not those resumed.
  const double made = static_cast<double>(result.ok - result.skipped);
  timing.set("characters_per_second", result.seconds > 0 ? made / result.seconds : 0.0);
  s.set("timing", std::move(timing));
  Json lines = Json::array();
  for (const auto& r : result.lines) {
    Json l = Json::object();
    l.set("line", static_cast<std::int64_t>(r.line));
    l.set("name", r.name.empty() ? Json() : Json(r.name));
    l.set("status", r.ok ? "ok" : "failed");
    if (r.ok) {
      l.set("skipped", r.skipped);
      l.set("output", r.outputs.front());
      Json files = Json::array(), checksums = Json::array();
      for (std::size_t i = 0; i < r.outputs.size(); ++i) {
        files.push(r.outputs[i]);
        Json c = Json::object();
        c.set("file", r.outputs[i]);
        c.set("bytes", static_cast<std::int64_t>(r.checksums[i].bytes));
        c.set("xxh64", hex64(r.checksums[i].xxh64));
        checksums.push(std::move(c));
      }
      l.set("files", std::move(files));
      l.set("checksums", std::move(checksums));
      l.set("report", r.report);
    } else {
      l.set("error", r.error);
    }
    l.set("seconds", r.seconds);
    lines.push(std::move(l));
  }
  s.set("lines", std::move(lines));
  return s;
}

}  // namespace rigfit
