// G4MF files (.g4tf text, .g4b binary with raw or Zstandard chunks): the strict reader and the
// validator, as `rigfit validate` and the read-back tests use them.
#include "demo_character.hpp"
#include "rigfit/g4mf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rigfit;
  const std::string_view bytes = fuzz::asText(data, size);
  const auto issues = validateG4mf(bytes, "fuzz.g4b");
  auto document = readG4mf(bytes, "fuzz.g4b");
  // A file the validator rejects is never read (the reader may refuse more: unsupported features).
  if (document.ok() && hasG4mfErrors(issues)) std::abort();
  return 0;
}
