// readG4mf and validateG4mf: one checking pass (g4mf_check.hpp) over the bytes; the reader then
// extracts the document when no error was found. Memory is bounded by the file's size (see
// g4mf_check.hpp); should an allocation still fail, it is an error like any other, never a throw.
#include <new>

#include "formats/g4mf/g4mf_check.hpp"

namespace rigfit {

namespace {

using g4mf::Checker;
using g4mf::readError;
using g4mf::Report;

std::span<const unsigned char> asBytes(std::string_view s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}
std::span<const unsigned char> asBytes(std::span<const std::byte> s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

constexpr const char* kOutOfMemory = "out of memory while reading the file";

Expected<G4mfDocument> read(std::span<const unsigned char> bytes, std::string_view label) {
  std::vector<G4mfIssue> issues;
  Report report(issues);
  Checker checker(bytes, report, /*strict=*/true);
  const bool parsed = checker.run();
  for (const G4mfIssue& issue : issues)
    if (issue.severity == G4mfSeverity::kError) {
      const bool syntax = issue.path.rfind("text", 0) == 0 || issue.path.rfind("g4b:", 0) == 0;
      return readError(label, issue.path, issue.message, syntax ? ErrorCode::kSyntax : ErrorCode::kSchema);
    }
  if (report.errors()) return readError(label, "", std::to_string(report.errors()) + " errors", ErrorCode::kSchema);
  if (!parsed) return readError(label, "", "not a G4MF file", ErrorCode::kSyntax);
  return g4mf::extract(checker, label);
}

std::vector<G4mfIssue> validate(std::span<const unsigned char> bytes) {
  try {
    std::vector<G4mfIssue> issues;
    Report report(issues);
    Checker checker(bytes, report);
    (void)checker.run();
    report.finish();
    return issues;
  } catch (const std::bad_alloc&) {
    return {{"", kOutOfMemory, G4mfSeverity::kError}};
  }
}

Expected<G4mfDocument> readCaught(std::span<const unsigned char> bytes, std::string_view label) {
  try {
    return read(bytes, label);
  } catch (const std::bad_alloc&) {
    return readError(label, "", kOutOfMemory, ErrorCode::kIo);
  }
}

}  // namespace

Expected<G4mfDocument> readG4mf(std::span<const std::byte> bytes, std::string_view label) { return readCaught(asBytes(bytes), label); }
Expected<G4mfDocument> readG4mf(std::string_view bytes, std::string_view label) { return readCaught(asBytes(bytes), label); }

std::vector<G4mfIssue> validateG4mf(std::span<const std::byte> bytes, std::string_view label) {
  (void)label;
  return validate(asBytes(bytes));
}
std::vector<G4mfIssue> validateG4mf(std::string_view bytes, std::string_view label) {
  (void)label;
  return validate(asBytes(bytes));
}

bool hasG4mfErrors(std::span<const G4mfIssue> issues) {
  return std::any_of(issues.begin(), issues.end(), [](const G4mfIssue& i) { return i.severity == G4mfSeverity::kError; });
}

}  // namespace rigfit
