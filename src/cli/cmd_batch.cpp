// rigfit batch: many characters from a JSON Lines manifest (see README "rigfit batch").
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "cli/common.hpp"
#include "core/file_io.hpp"
#include "rigfit/batch.hpp"

namespace rigfit::cli {
namespace {

struct BatchArgs {
  std::string data, manifest, out_dir, shard = "0/1", summary, assets;
  unsigned jobs = 0;
  bool resume = false;
};

// A one-line bar redrawn in place; only drawn when stderr is a terminal.
void drawProgress(const BatchProgress& p) {
  constexpr int kWidth = 30;
  const int filled = p.total ? static_cast<int>(kWidth * p.done / p.total) : kWidth;
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.resize(kWidth, '-');
  std::fprintf(stderr, "\r\033[K[%s] %zu/%zu", bar.c_str(), p.done, p.total);
  if (p.skipped) std::fprintf(stderr, ", %zu skipped", p.skipped);
  if (p.failed) std::fprintf(stderr, ", %zu failed", p.failed);
  if (p.seconds > 0) std::fprintf(stderr, ", %.2f/s", static_cast<double>(p.done) / p.seconds);
  std::fflush(stderr);
}

int runBatchCommand(const BatchArgs& a) {
  auto shard = parseShard(a.shard);
  if (!shard) return reportError(replaceSubject(shard.error(), "--shard"));
  auto text = readFile(a.manifest);
  if (!text) return reportError(text.error());
  DataOptions data;
  data.data = a.data;
  const bool tty = isatty(STDERR_FILENO) == 1;
  BatchOptions options{.out_dir = a.out_dir, .assets_dir = assetsFolder(a.assets), .jobs = a.jobs, .shard = *shard,
                       .journal = batchJournalPath(a.out_dir, a.manifest, *shard), .resume = a.resume};
  if (!a.summary.empty() && a.summary != "-") {
    // What a killed run left of this shard's summary.
    const std::filesystem::path summary(a.summary);
    const std::string name = summary.filename().string();
    removeTemporaryOutputs(summary.has_parent_path() ? summary.parent_path().string() : ".",
                           [&](std::string_view target) { return target == name; });
  }
  options.on_line = [tty](const BatchLineResult& r, const BatchProgress& p) {
    if (!r.ok) {
      if (tty) std::fputs("\r\033[K", stderr);
      reportError(makeError(ErrorCode::kSchema, r.error));
    }
    if (tty) drawProgress(p);
  };
  const BatchResult result = runBatch(data.source(), a.manifest, *text, options);
  if (!result.resume_note.empty()) warn(result.resume_note);
  if (tty && !result.lines.empty()) std::fputc('\n', stderr);
  if (!a.summary.empty())
    if (Status st = writeOutput(a.summary, writeJson(batchSummaryJson(result), {.indent = 2, .sort_keys = false, .final_newline = true})); !st)
      return reportError(st.error());
  return result.failed ? kExitBadInput : kExitOk;
}

}  // namespace

void addBatchCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<BatchArgs>();
  CLI::App* cmd = app.add_subcommand("batch", "Export many rigged characters from a JSON Lines manifest, in parallel");
  cmd->add_option("manifest", args->manifest, "manifest: one character per line (JSON object; see the README)")->required();
  cmd->add_option("--out-dir", args->out_dir, "folder for the outputs (created if missing)")->required();
  cmd->add_option("--data", args->data, "MPFB data folder (default: $RIGFIT_DATA, else the built-in demo)");
  cmd->add_option("--assets", args->assets, "folder the lines' asset names and relative asset paths are looked up in (default: $RIGFIT_ASSETS)");
  cmd->add_option("--jobs,-j", args->jobs, "worker threads (default: the hardware's thread count)")->check(CLI::Range(1u, 1024u));
  cmd->add_option("--shard", args->shard, "I/N: process only lines whose 0-based index % N == I (default 0/1)");
  cmd->add_option("--summary", args->summary, "write a JSON summary: per line status, outputs, errors; totals; timing ('-' for stdout)");
  cmd->add_flag("--resume", args->resume,
                "skip the lines an earlier run of this manifest and shard finished (recorded in DIR/.rigfit-batch.*.journal), "
                "when their files are still whole; run the rest");
  cmd->callback([args, &exit_code] { exit_code = runBatchCommand(*args); });
}

}  // namespace rigfit::cli
