// Batch generation: a JSON Lines manifest (one character per line), run on a fixed pool of worker
// threads that share one target cache, each character written atomically; failures are recorded
// per line and the rest go on. A journal records each finished character as it is written, so
// that a re-run can skip what an interrupted run finished. See README "rigfit batch" for the
// manifest schema.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "rigfit/character.hpp"
#include "rigfit/character_export.hpp"
#include "rigfit/data.hpp"
#include "rigfit/json.hpp"
#include "rigfit/posing.hpp"

namespace rigfit {

/// One character of a manifest.
struct BatchEntry {
  std::size_t line = 0;            ///< 1-based line number in the manifest
  std::string name;                ///< output base name: DIR/NAME.FORMAT
  CharacterOptions character;      ///< rig, mesh, weights, shape, allow_fallback (assets: see below)
  std::vector<std::string> assets; ///< assets to wear, in order: any path form (resolveDataFile, kAsset), found when the line runs
  std::string proxy;               ///< body proxy, any path form (resolveDataFile, kProxy); empty: none
  PoseRequest pose;                ///< applied as the bind pose when given
  CharacterExportOptions output;   ///< format and writer options
};

/// A non-blank line of a manifest: its 1-based number, its text and its byte offset in the file.
struct ManifestLine {
  std::size_t number = 0;
  std::size_t offset = 0;
  std::string_view text;
};

/// The non-blank lines of manifest text ("\n" or "\r\n" line ends; blank = only spaces/tabs).
std::vector<ManifestLine> manifestLines(std::string_view text);

/// Parses and strictly validates one manifest line. Errors read
/// "LABEL: line N: JSON.PATH: what is wrong" (syntax errors: "LABEL: line N, column C (byte B): ...").
[[nodiscard]] Expected<BatchEntry> parseBatchEntry(const ManifestLine& line, std::string_view label);

/// Shard selection: the line with 0-based index `line_number - 1` belongs to shard
/// `index` of `count` when (line_number - 1) % count == index.
struct Shard {
  std::size_t index = 0, count = 1;
  bool contains(std::size_t line_number) const { return (line_number - 1) % count == index; }
};

/// Parses "I/N" (0 <= I < N).
[[nodiscard]] Expected<Shard> parseShard(std::string_view text);

/// A written file's size and XXH64 checksum (xxHash, seed 0).
struct FileChecksum {
  std::uint64_t bytes = 0;
  std::uint64_t xxh64 = 0;
};

/// What happened to one manifest line.
struct BatchLineResult {
  std::size_t line = 0;
  std::string name;                  ///< empty when the line did not parse
  bool ok = false;
  bool skipped = false;              ///< ok, and not made again: resumed from the journal, files checked
  std::vector<std::string> outputs;  ///< files written (main file first)
  std::vector<FileChecksum> checksums;  ///< outputs[i]'s size and checksum
  std::string error;                 ///< one-line message when !ok
  double seconds = 0.0;              ///< making the character (skipped: checking its files)
  Json report;                       ///< the export report when ok (skipped: the one recorded)
};

struct BatchProgress {
  std::size_t done = 0, failed = 0, skipped = 0, total = 0;
  double seconds = 0.0;
};

struct BatchOptions {
  std::string out_dir;   ///< created (when missing) before the first character is written
  std::string assets_dir;  ///< the assets folder: asset and proxy names and relative paths are looked up there too (resolveDataFile); empty: none
  unsigned jobs = 0;     ///< worker threads; 0: the hardware's thread count
  Shard shard;
  /// The shard's journal (batchJournalPath gives the command line's). After each line that worked, a
  /// record of it (the line's checksum, its files' names, sizes and checksums, its report) is
  /// appended, so a run killed at any moment keeps the record of every line it finished (after
  /// a machine crash the last records may be missing: those lines are made again). A run without
  /// `resume` starts the journal afresh. Empty: no journal.
  std::string journal;
  /// Read `journal` first and skip each line it records whose text is unchanged and whose files
  /// are all still there with the recorded sizes and checksums; the other lines run. Records
  /// are used only when rigfit's version, the data folder and `assets_dir` (however spelled) are
  /// those of the run that wrote them; otherwise BatchResult::resume_note says so.
  bool resume = false;
  /// Called after each line (from a worker, one call at a time), e.g. to report failures or draw progress.
  std::function<void(const BatchLineResult&, const BatchProgress&)> on_line;
};

struct BatchResult {
  std::string manifest;
  std::string out_dir;
  Shard shard;
  unsigned jobs = 0;
  std::size_t manifest_lines = 0;      ///< non-blank lines in the whole manifest
  std::vector<BatchLineResult> lines;  ///< this shard's lines, in manifest order
  std::size_t ok = 0, failed = 0;
  std::size_t skipped = 0;             ///< of the ok lines, those resumed from the journal
  /// With `resume`: why a journal that exists was not used (one line naming it), else empty.
  std::string resume_note;
  double seconds = 0.0;                ///< wall time of the whole run
};

/// The journal `rigfit batch` keeps for a shard of a manifest, in the output folder:
/// OUT_DIR/.rigfit-batch.MANIFEST_FILE_NAME.I-of-N.journal (hidden, so listings skip it).
std::string batchJournalPath(std::string_view out_dir, std::string_view manifest_path, const Shard& shard);

/// Runs every line of this shard. Targets, macro.json, target.json, base.obj, the vertex groups,
/// each weights file and each worn asset (per file and rig type) are read once and shared by all
/// workers. Two lines with the same name are an error on the later one (whichever shard runs it).
/// Problems are per line (an output folder that cannot be made fails every line); an asset that
/// cannot be found or loaded fails its line with "LABEL: line N: assets[I]: ..." (or "proxy: ...").
/// Temporary files that a killed run left for this shard's outputs (and journal) are removed
/// first; those of other shards' lines are left alone, as their processes may be writing them.
[[nodiscard]] BatchResult runBatch(const DataSource& data, std::string_view manifest_label, std::string_view manifest_text,
                                 const BatchOptions& options);

/// The JSON summary: totals, timing and one record per line (status, outputs with their sizes and
/// checksums, error, seconds).
Json batchSummaryJson(const BatchResult& result);

}  // namespace rigfit
