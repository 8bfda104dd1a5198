// rigfit's one error type: a code plus a one-line message naming the file, the location
// (line, JSON path or byte offset) and what is wrong. Returned, never thrown across the API.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace rigfit {

enum class ErrorCode {
  kIo,            ///< a file could not be read or written
  kSyntax,        ///< malformed JSON / OBJ / target text
  kSchema,        ///< a key is missing or has the wrong type or value
  kRange,         ///< an index or size outside what the data allows
  kMismatch,      ///< inputs that do not belong together (vertex counts, bone names)
  kUnsupported,   ///< a valid input rigfit does not handle (e.g. rig version too high)
  kUsage,         ///< a caller error: wrong arguments
};

const char* errorName(ErrorCode code);

struct Error {
  ErrorCode code = ErrorCode::kIo;
  std::string message;  ///< "FILE: LOCATION: what is wrong" (one line)
};

/// A value or an Error. Small stand-in for std::expected (C++23).
template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}            // NOLINT: implicit by design
  Expected(Error error) : v_(std::move(error)) {}        // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { assert(ok()); return std::get<0>(v_); }
  const T& value() const& { assert(ok()); return std::get<0>(v_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { assert(!ok()); return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

/// Expected<void>: success or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { assert(!ok_); return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

/// An error with `message` kept short (elideMessage): a file's huge value is never echoed whole.
Error makeError(ErrorCode code, std::string message);

/// A message of at most about 300 characters: each run of more than 64 non-space characters
/// (a huge string, a 10,000-digit number) keeps its first 40 and last 16 with "...(N bytes)..."
/// between them, then a message still over 300 keeps its first 200 and last 90.
std::string elideMessage(std::string message);

}  // namespace rigfit

/// Propagates an Error from an Expected/Status expression.
#define RIGFIT_TRY(expr)                         \
  do {                                           \
    auto&& rigfit_try_ = (expr);                 \
    if (!rigfit_try_.ok()) return rigfit_try_.error(); \
  } while (0)
