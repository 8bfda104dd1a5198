// The batch runner: a fixed pool of worker threads taking the shard's lines in order, one shared
// target cache, base mesh, weights cache and worn asset cache, atomic outputs, and a record for
// every line whether it worked or not.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <new>
#include <optional>
#include <thread>

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

// Asset paths and names found once per run (findAsset walks the assets folder for a name).
class AssetFinder {
 public:
  explicit AssetFinder(std::string assets_dir) : assets_dir_(std::move(assets_dir)) {}
  Expected<std::string> find(const std::string& spec) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto it = found_.find(spec); it != found_.end()) return it->second;
    }
    auto path = findAsset(spec, assets_dir_);
    if (!path) return path;
    std::lock_guard<std::mutex> lock(mutex_);
    return found_.emplace(spec, std::move(*path)).first->second;
  }

 private:
  std::string assets_dir_;
  std::mutex mutex_;
  std::map<std::string, std::string> found_;
};

struct SharedInputs {
  TargetCache& targets;
  WeightsCache& weights;
  AssetFinder& finder;
  WornAssetCache& assets;
};

// One asset of a line, found and loaded (shared); errors under the manifest key `where`.
Expected<std::shared_ptr<const WornAsset>> wornAsset(SharedInputs& shared, const std::string& spec, const std::string& rig_type,
                                                     const std::string& where) {
  auto path = shared.finder.find(spec);
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
    auto worn = wornAsset(shared, entry.assets[i], rig->name, jsonPathIndex("assets", i));
    if (!worn) return worn.error();
    options.assets.push_back(std::move(*worn));
  }
  if (!entry.proxy.empty()) {
    auto worn = wornAsset(shared, entry.proxy, rig->name, "proxy");
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
  result.outputs.push_back(main_path);
  if (!bin_path.empty()) result.outputs.push_back(bin_path);
  for (const auto& image : files->images) result.outputs.push_back((dir / image.first).string());
  result.report = exportReportJson(files->report);
  return {};
}

}  // namespace

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
    result.lines.push_back(std::move(r));
    entries.emplace_back(std::move(entry));
  }

  unsigned jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, std::max<std::size_t>(1, entries.size())));
  result.jobs = jobs;
  TargetCache cache(data);
  WeightsCache weights;
  AssetFinder finder(options.assets_dir);
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
      Status st = !entry ? Status(entry.error()) : !characterBase() ? Status(characterBase().error()) : run();
      r.ok = st.ok();
      if (!st) {
        r.error = st.error().message;
        // Every error names the manifest line, also those from the files the line refers to.
        const std::string where = std::string(manifest_label) + ": line " + std::to_string(r.line);
        if (r.error.rfind(where, 0) != 0) r.error = where + ": " + r.error;
        r.outputs.clear();
      }
      r.seconds = secondsSince(t_line);
      std::lock_guard<std::mutex> lock(report_mutex);
      ++progress.done;
      progress.failed += !r.ok;
      progress.seconds = secondsSince(t0);
      if (options.on_line) options.on_line(r, progress);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < jobs; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();

  for (const auto& r : result.lines) (r.ok ? result.ok : result.failed) += 1;
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
  s.set("totals", std::move(totals));
  Json timing = Json::object();
  timing.set("seconds", result.seconds);
  timing.set("characters_per_second", result.seconds > 0 ? static_cast<double>(result.ok) / result.seconds : 0.0);
  s.set("timing", std::move(timing));
  Json lines = Json::array();
  for (const auto& r : result.lines) {
    Json l = Json::object();
    l.set("line", static_cast<std::int64_t>(r.line));
    l.set("name", r.name.empty() ? Json() : Json(r.name));
    l.set("status", r.ok ? "ok" : "failed");
    if (r.ok) {
      l.set("output", r.outputs.front());
      Json files = Json::array();
      for (const auto& f : r.outputs) files.push(f);
      l.set("files", std::move(files));
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
