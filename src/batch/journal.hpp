// The batch journal: one JSON line per character a run finished (its files with size and XXH64),
// appended as each character is written, so that a run killed at any moment keeps the record of
// every character it finished, and `--resume` can skip them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "rigfit/batch.hpp"

namespace rigfit::journal {

/// What a journal's records are valid for: the same rigfit, data and assets folder.
struct Header {
  std::string manifest;  ///< informative: the journal's file name already says it
  Shard shard;
  std::string data;      ///< the data folder, canonical ("built-in demo" for the demo)
  std::string assets;    ///< BatchOptions::assets_dir, canonical
};

/// A file a finished line wrote: its name in the output folder, size and checksum.
struct File {
  std::string name;
  std::uint64_t bytes = 0;
  std::uint64_t xxh64 = 0;
};

/// One finished line.
struct Record {
  std::size_t line = 0;
  std::string name;
  std::uint64_t line_xxh64 = 0;  ///< of the manifest line's text: a changed line is run again
  std::vector<File> files;
  Json report;
};

/// The header line and a record's line (one line of JSON each, without the line end).
std::string headerLine(const Header& header);
std::string recordLine(const Record& record);

/// A journal read back: the last record of each name, and, when the file exists but its records
/// cannot be used, why (one line naming the file; nothing is resumed then).
struct Contents {
  std::map<std::string, Record> records;
  std::string note;
};

/// Reads the journal at `path` (missing: empty). Lines that do not parse as records (the last
/// one, torn by a killed process) are skipped; a header unlike `expected` uses no record.
Contents read(const std::string& path, const Header& expected);

/// Appends lines to a journal. The first append replaces the file with `start` (the header and
/// the records kept from before) written atomically; each append is then one write of the line.
/// A failed append cuts the file back to its last whole line.
class Writer {
 public:
  Writer(std::string path, std::string start) : path_(std::move(path)), start_(std::move(start)) {}
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  ~Writer();

  [[nodiscard]] Status append(const std::string& line);

 private:
  std::string path_, start_;
  int fd_ = -1;
  std::uint64_t size_ = 0;  // bytes of whole lines in the file
  bool broken_ = false;     // a failed append could not be cut back: no more appends
};

}  // namespace rigfit::journal
