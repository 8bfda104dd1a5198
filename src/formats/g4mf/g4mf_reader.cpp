// readG4mf and validateG4mf: one checking pass (g4mf_check.hpp) over the bytes; the reader then
// extracts the document when no error was found.
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

Expected<G4mfDocument> read(std::span<const unsigned char> bytes, std::string_view label) {
  std::vector<G4mfIssue> issues;
  Report report(issues);
  Checker checker(bytes, report);
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
  std::vector<G4mfIssue> issues;
  Report report(issues);
  Checker checker(bytes, report);
  (void)checker.run();
  report.finish();
  return issues;
}

}  // namespace

Expected<G4mfDocument> readG4mf(std::span<const std::byte> bytes, std::string_view label) { return read(asBytes(bytes), label); }
Expected<G4mfDocument> readG4mf(std::string_view bytes, std::string_view label) { return read(asBytes(bytes), label); }

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
