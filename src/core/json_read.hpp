// What rigfit's JSON readers (all on simdjson) share: text with the padding simdjson reads past
// its end, and error messages.
#pragma once

#include <optional>
#include <string_view>

#include <simdjson.h>

#include "rigfit/error.hpp"
#include "rigfit/file_io.hpp"
#include "rigfit/json.hpp"

namespace rigfit::detail {

static_assert(FileText::kPadding >= simdjson::SIMDJSON_PADDING, "loaded files are padded for simdjson");

/// JSON text as simdjson reads it: simdjson reads up to SIMDJSON_PADDING bytes past the end of a
/// text, so those bytes must belong to the buffer it is given. A file read by loadFile has them
/// (FileText keeps kPadding zero bytes after its text) and is read in place; any other text is
/// copied into a padded buffer of this object's own.
class PaddedJson {
 public:
  explicit PaddedJson(std::string_view text) : copy_(text.data(), text.size()), view_(copy_) {}
  explicit PaddedJson(const FileText& file) {
    const std::string_view t = file.text();
    if (file.padded()) {
      view_ = simdjson::padded_string_view(t.data(), t.size(), t.size() + FileText::kPadding);
    } else {
      copy_ = simdjson::padded_string(t.data(), t.size());
      view_ = copy_;
    }
  }
  PaddedJson(const PaddedJson&) = delete;
  PaddedJson& operator=(const PaddedJson&) = delete;

  simdjson::padded_string_view view() const { return view_; }
  std::string_view text() const { return view_; }

 private:
  simdjson::padded_string copy_;
  simdjson::padded_string_view view_;
};

/// parseJson on padded text.
Expected<Json> parseJson(const PaddedJson& text, std::string_view label);

/// The error parseJson gives for `text` when it is not JSON (kSyntax: line, column, byte and
/// what), or nothing. Not syntax errors here: duplicate keys and numbers beyond double's or
/// 64-bit range in well-formed text, which a reader names with their JSON path. Readers that
/// read lazily (simdjson On-Demand) call it on any error, so that a syntax error anywhere wins,
/// as in Python, where such a file does not load at all.
std::optional<Error> jsonSyntaxError(const PaddedJson& text, std::string_view label);

/// The messages of a reader on simdjson On-Demand, "LABEL: PATH: what", with a syntax error
/// anywhere in the text first (jsonSyntaxError).
class JsonErrors {
 public:
  JsonErrors(const PaddedJson& text, std::string_view label) : text_(text), label_(label) {}
  /// An error simdjson reported at `path`: the text's syntax error, or else simdjson's message.
  Error syntax(const std::string& path, simdjson::error_code e) const;
  /// A value error at `path`, unless the text has a syntax error.
  Error value(const std::string& path, const std::string& what, ErrorCode code = ErrorCode::kSchema) const;
  /// Anything but whitespace after the root value (On-Demand stops at the root's end).
  std::optional<Error> trailing(simdjson::ondemand::document& doc) const;

  const PaddedJson& text() const { return text_; }
  std::string_view label() const { return label_; }

 private:
  const PaddedJson& text_;
  std::string_view label_;
};

}  // namespace rigfit::detail
