#include "batch/journal.hpp"

#include <cerrno>
#include <cstring>
#include <optional>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/checksum.hpp"
#include "core/file_io.hpp"
#include "rigfit/version.hpp"

namespace rigfit::journal {
namespace {

constexpr const char* kFormat = "rigfit-batch-journal/1";

std::string shardText(const Shard& s) { return std::to_string(s.index) + "/" + std::to_string(s.count); }

std::string oneLine(const Json& value) { return writeJson(value, {.indent = -1, .sort_keys = false}); }

const std::string* stringAt(const Json& v, std::string_view key) {
  const Json* x = v.find(key);
  return x && x->isString() ? &x->asString() : nullptr;
}

std::optional<std::uint64_t> hexAt(const Json& v, std::string_view key) {
  const std::string* s = stringAt(v, key);
  return s ? parseHex64(*s) : std::nullopt;
}

// A file name in the output folder, as the writer makes them: no folder part, no "." or "..".
bool plainName(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos && name.find('\0') == std::string::npos;
}

// One record line; nothing when it is not one (e.g. cut short by a killed process).
std::optional<Record> parseRecord(std::string_view text) {
  auto json = parseJson(text, "");
  if (!json || !json->isObject()) return std::nullopt;
  const Json& v = *json;
  Record r;
  const Json* line = v.find("line");
  const std::string* name = stringAt(v, "name");
  const auto key = hexAt(v, "line_xxh64");
  const Json* files = v.find("files");
  const Json* report = v.find("report");
  if (!line || !line->isInt() || line->asInt() < 1 || !name || name->empty() || !key || !files || !files->isArray() ||
      files->size() == 0 || !report || !report->isObject())
    return std::nullopt;
  r.line = static_cast<std::size_t>(line->asInt());
  r.name = *name;
  r.line_xxh64 = *key;
  for (const Json& f : files->items()) {
    const std::string* file_name = f.isObject() ? stringAt(f, "name") : nullptr;
    const Json* bytes = f.isObject() ? f.find("bytes") : nullptr;
    const auto sum = f.isObject() ? hexAt(f, "xxh64") : std::nullopt;
    if (!file_name || !plainName(*file_name) || !bytes || !bytes->isInt() || bytes->asInt() < 0 || !sum) return std::nullopt;
    r.files.push_back({*file_name, static_cast<std::uint64_t>(bytes->asInt()), *sum});
  }
  r.report = *report;
  return r;
}

}  // namespace

std::string headerLine(const Header& header) {
  Json h = Json::object();
  h.set("format", kFormat);
  h.set("rigfit", RIGFIT_VERSION_STRING);
  h.set("manifest", header.manifest);
  h.set("shard", shardText(header.shard));
  h.set("data", header.data);
  h.set("assets", header.assets);
  return oneLine(h);
}

std::string recordLine(const Record& record) {
  Json r = Json::object();
  r.set("line", static_cast<std::int64_t>(record.line));
  r.set("name", record.name);
  r.set("line_xxh64", hex64(record.line_xxh64));
  Json files = Json::array();
  for (const File& f : record.files) {
    Json file = Json::object();
    file.set("name", f.name);
    file.set("bytes", static_cast<std::int64_t>(f.bytes));
    file.set("xxh64", hex64(f.xxh64));
    files.push(std::move(file));
  }
  r.set("files", std::move(files));
  r.set("report", record.report);
  return oneLine(r);
}

Contents read(const std::string& path, const Header& expected) {
  Contents out;
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0 && errno == ENOENT) return out;
  auto text = readFile(path);
  if (!text) {
    out.note = text.error().message + "; nothing resumed";
    return out;
  }
  std::string_view rest = *text;
  const std::size_t first_end = rest.find('\n');
  auto header = parseJson(rest.substr(0, first_end), "");
  const std::string* format = header && header->isObject() ? stringAt(*header, "format") : nullptr;
  if (!format || *format != kFormat) {
    out.note = path + ": not a rigfit batch journal; nothing resumed";
    return out;
  }
  // Records are valid only for the rigfit, data and assets that made them.
  const auto differs = [&](const char* key, const std::string& now, const char* what) {
    const std::string* then = stringAt(*header, key);
    if (then && *then == now) return false;
    out.note = path + ": written " + what + " \"" + (then ? *then : std::string()) + "\", this run " + what + " \"" + now +
               "\"; nothing resumed";
    return true;
  };
  if (differs("rigfit", RIGFIT_VERSION_STRING, "by rigfit") || differs("data", expected.data, "with the data") ||
      differs("assets", expected.assets, "with the assets folder"))
    return out;
  rest = first_end == std::string_view::npos ? std::string_view() : rest.substr(first_end + 1);
  while (!rest.empty()) {
    const std::size_t end = rest.find('\n');
    const std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (auto record = parseRecord(line)) {
      std::string name = record->name;
      out.records.insert_or_assign(std::move(name), std::move(*record));
    }
  }
  return out;
}

Writer::~Writer() {
  if (fd_ >= 0) ::close(fd_);
}

Status Writer::append(const std::string& line) {
  const auto failed = [&](int err) { return makeError(ErrorCode::kIo, path_ + ": cannot record the line: " + std::strerror(err)); };
  if (broken_) return makeError(ErrorCode::kIo, path_ + ": cannot record the line: an earlier write to the journal failed");
  if (fd_ < 0) {
    RIGFIT_TRY(writeFileAtomic(path_, start_));
    fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd_ < 0) return failed(errno);
    size_ = start_.size();
    std::string().swap(start_);
  }
  // One write, not flushed to disk: a killed process loses nothing (the kernel holds the bytes),
  // and a machine that crashes may lose the last records, which only means making those
  // characters again, since a record counts only when its files' checksums match. (An
  // fdatasync per record cost a batch of small characters over 10% of its speed.)
  const std::string text = line + "\n";
  std::size_t done = 0;
  int err = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : EIO;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  if (err) {
    // Cut back to the last whole line, so that the next record starts a line of its own.
    if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0) broken_ = true;
    return failed(err);
  }
  size_ += text.size();
  return {};
}

}  // namespace rigfit::journal
