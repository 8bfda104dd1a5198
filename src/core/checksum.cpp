#include "core/checksum.hpp"

#include <cerrno>
#include <charconv>
#include <vector>

#include <unistd.h>

#include "core/file_io.hpp"

// xxHash from its header alone (Debian's libxxhash-dev): nothing to link.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace rigfit {

std::uint64_t xxh64(std::string_view bytes) { return XXH64(bytes.data(), bytes.size(), 0); }

Expected<FileDigest> fileDigest(const std::string& path) {
  std::size_t size = 0;
  auto opened = detail::openRegular(path, size);
  if (!opened) return opened.error();
  const int fd = *opened;
  XXH64_state_t state;
  XXH64_reset(&state, 0);
  std::vector<char> buffer(std::size_t{1} << 18);
  FileDigest out;
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return makeError(ErrorCode::kIo, path + ": read failed at byte " + std::to_string(out.bytes));
    }
    if (n == 0) break;
    XXH64_update(&state, buffer.data(), static_cast<std::size_t>(n));
    out.bytes += static_cast<std::uint64_t>(n);
  }
  ::close(fd);
  out.xxh64 = XXH64_digest(&state);
  return out;
}

std::string hex64(std::uint64_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, value >>= 4) out[static_cast<std::size_t>(i)] = kDigits[value & 15];
  return out;
}

std::optional<std::uint64_t> parseHex64(std::string_view text) {
  if (text.size() != 16) return std::nullopt;
  std::uint64_t value = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace rigfit
