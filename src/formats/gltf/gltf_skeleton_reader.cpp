// glTF skeleton reader: the joints of a .glb / .gltf as bone placements for rig authoring. tinygltf
// parses the file from memory; rigfit checks the container's lengths first (errors name the byte,
// and no chunk length can take a read past the caller's buffer) and answers tinygltf's file-system
// callbacks itself: from memory every access is refused (external buffers are an error); from a
// file, only the buffer files the document names, in its folder, are read. External images are
// skipped and no image is decoded.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <filesystem>
#include <limits>
#include <new>
#include <optional>
#include <unordered_map>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <Eigen/Geometry>
#include <tiny_gltf.h>

#include "rigfit/bone_frame.hpp"
#include "rigfit/file_io.hpp"
#include "rigfit/gltf.hpp"

namespace rigfit {
namespace {

// As rigfit's own JSON reader (simdjson's default).
constexpr std::size_t kMaxJsonDepth = 1024;
constexpr std::uint32_t kChunkJson = 0x4E4F534Au;

Error fail(ErrorCode code, std::string_view label, std::string_view where, std::string_view what) {
  std::string m(label);
  m.append(": ").append(where).append(": ").append(what);
  return makeError(code, std::move(m));
}

Error bad(std::string_view label, const std::string& path, const std::string& what) {
  return fail(ErrorCode::kSchema, label, path, what);
}

std::string byteAt(std::size_t offset) { return "byte " + std::to_string(offset); }

// Cuts `s` to at most `n` bytes without splitting a UTF-8 sequence.
std::string_view utf8Prefix(std::string_view s, std::size_t n) {
  if (s.size() <= n) return s;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

// tinygltf's messages span lines and may quote a whole data URI or JSON text: one line of at most
// about 200 bytes, lines joined by "; ", control bytes as spaces, words over 48 bytes cut short.
std::string oneLine(std::string_view text) {
  constexpr std::size_t kMaxWord = 48, kMaxLine = 200;
  auto space = [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == 0x7F; };
  std::string out;
  bool newline = false;
  for (std::size_t i = 0; i < text.size() && out.size() < kMaxLine + 8;) {
    if (space(text[i])) {
      newline = newline || text[i] == '\n';
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && !space(text[end])) ++end;
    const std::string_view word = text.substr(i, end - i);
    if (!out.empty()) out += newline && out.back() != '.' && out.back() != ';' && out.back() != ':' ? "; " : " ";
    if (word.size() > kMaxWord)
      out.append(utf8Prefix(word, kMaxWord - 8)).append("...");
    else
      out.append(word);
    newline = false;
    i = end;
  }
  if (out.size() > kMaxLine) out = std::string(utf8Prefix(out, kMaxLine - 3)) + "...";
  return out;
}

// The byte at which the JSON text nests deeper than kMaxJsonDepth, if it does. tinygltf 2.7 turns
// extras into values recursively with no limit, and a few kilobytes of brackets would overflow
// the stack; this counts brackets outside strings, nothing more.
std::optional<std::size_t> tooDeep(std::string_view t) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

std::uint32_t u32(std::string_view bytes, std::size_t at) {
  std::uint32_t v = 0;
  std::memcpy(&v, bytes.data() + at, 4);
  return v;  // little-endian hosts only, as the rest of rigfit's binary I/O
}

// Checks a .glb's 12-byte header and its chunks' lengths against the buffer; returns the file's
// length (the header's) and sets `json` to the JSON chunk. tinygltf checks these too, but without
// byte offsets in its messages, and version 2.7 lets a BIN chunk's data end 8 bytes past the file.
Expected<std::uint32_t> checkGlb(std::string_view bytes, std::string_view label, std::string_view& json) {
  if (bytes.size() < 20) return fail(ErrorCode::kSyntax, label, byteAt(0), "a GLB file shorter than its header");
  if (u32(bytes, 4) != 2)
    return fail(ErrorCode::kUnsupported, label, byteAt(4), "GLB version " + std::to_string(u32(bytes, 4)) + " (expected 2)");
  const std::uint32_t length = u32(bytes, 8);
  if (length > bytes.size())
    return fail(ErrorCode::kSyntax, label, byteAt(8),
                "the header says " + std::to_string(length) + " bytes but the file has " + std::to_string(bytes.size()));
  if (length < 20)
    return fail(ErrorCode::kSyntax, label, byteAt(8), "the header says " + std::to_string(length) + " bytes, fewer than the headers take");
  if (u32(bytes, 16) != kChunkJson) return fail(ErrorCode::kSyntax, label, byteAt(16), "the first chunk is not JSON");
  const std::uint32_t json_length = u32(bytes, 12);
  if (json_length > bytes.size() - 20)
    return fail(ErrorCode::kSyntax, label, byteAt(12),
                "the JSON chunk of " + std::to_string(json_length) + " bytes runs past the end of the file");
  if (json_length > length - 20)
    return fail(ErrorCode::kSyntax, label, byteAt(12),
                "the JSON chunk of " + std::to_string(json_length) + " bytes runs past the length in the header (" +
                    std::to_string(length) + ")");
  json = bytes.substr(20, json_length);
  // The BIN chunk, when there is one (tinygltf reads at most this one).
  const std::size_t at = 20 + static_cast<std::size_t>(json_length);
  if (at < length) {
    if (length - at < 8)
      return fail(ErrorCode::kSyntax, label, byteAt(at), "a chunk header runs past the end of the file");
    const std::uint32_t chunk = u32(bytes, at);
    if (chunk > length - at - 8)
      return fail(ErrorCode::kSyntax, label, byteAt(at),
                  "a chunk of " + std::to_string(chunk) + " bytes runs past the end of the file");
  }
  return length;
}

// A buffer stored in a file of its own: buffers[index] of the document, read from `path`.
struct BufferFile {
  std::size_t index = 0;
  std::string path;  // the glTF file's folder joined with the percent-decoded URI
  std::size_t byte_length = 0;
};

// The buffer files of a document read from disk, for tinygltf's file-system callbacks. tinygltf
// parses the buffers in document order and asks for each external one by its own decoding of the
// URI (tinygltfName); the files for one name are handed out in that order. Any other name (an
// image's, or the current folder tinygltf tries second) does not exist for it.
struct BufferFiles {
  std::string_view label;
  std::unordered_map<std::string, std::deque<BufferFile>> pending;
  std::optional<Error> error;  // the first failure reading one
};

// A name for a message: control bytes as '?', cut to about 120 bytes, quoted.
std::string shown(std::string_view name) {
  std::string out(utf8Prefix(name, 120));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = '?';
  if (out.size() < name.size()) out += "...";
  return "\"" + out + "\"";
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// RFC 3986 percent-decoding: "%XY" with two hex digits is that byte; anything else (a '%' not
// followed by two, '+') stays as written (rigfit's writer puts the .bin's name in unescaped).
std::string percentDecoded(std::string_view uri) {
  std::string out;
  out.reserve(uri.size());
  for (std::size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size() && hexDigit(uri[i + 1]) >= 0 && hexDigit(uri[i + 2]) >= 0) {
      out += static_cast<char>(hexDigit(uri[i + 1]) * 16 + hexDigit(uri[i + 2]));
      i += 2;
    } else {
      out += uri[i];
    }
  }
  return out;
}

// The name tinygltf 2.7 asks the callbacks for (its dlib::urldecode: '+' as a space, "%XY" with
// a non-hex digit counted as 0, a '%' among the last two bytes kept). Only a key: the file is
// found by percentDecoded.
std::string tinygltfName(std::string_view uri) {
  std::string out;
  out.reserve(uri.size());
  for (std::size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '+') {
      out += ' ';
    } else if (uri[i] == '%' && uri.size() > i + 2) {
      out += static_cast<char>(std::max(hexDigit(uri[i + 1]), 0) * 16 + std::max(hexDigit(uri[i + 2]), 0));
      i += 2;
    } else {
      out += uri[i];
    }
  }
  return out;
}

// Why a buffer's URI (`uri` as written, `name` decoded) names no file in the glTF file's folder or
// below, or nothing when it does.
std::optional<std::string> notInFolder(std::string_view uri, std::string_view name) {
  constexpr std::string_view kOnly = " (only files in the glTF file's folder or below are read)";
  const std::size_t colon = uri.find(':');
  if (colon != std::string_view::npos && colon > 0 && colon < uri.find_first_of("/?#") &&
      std::all_of(uri.begin(), uri.begin() + static_cast<std::ptrdiff_t>(colon),
                  [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.'; }) &&
      std::isalpha(static_cast<unsigned char>(uri[0])))
    return "a URI with a scheme" + std::string(kOnly);
  if (name.empty()) return std::string("an empty file name");
  if (name.find('\0') != std::string_view::npos) return std::string("a file name with a NUL byte");
  if (name.front() == '/' || name.front() == '\\') return "an absolute path" + std::string(kOnly);
  for (std::size_t at = 0; at <= name.size();) {
    const std::size_t end = std::min(name.find_first_of("/\\", at), name.size());
    if (name.substr(at, end - at) == "..") return "a path through \"..\"" + std::string(kOnly);
    at = end + 1;
  }
  return std::nullopt;
}

// The buffers of `doc` stored in files, relative to `folder`. A .gltf buffer needs a URI; a .glb
// buffer without one is the BIN chunk. Errors name buffers[i].uri.
Status collectBufferFiles(const Json& doc, bool glb, const std::filesystem::path& folder, BufferFiles& files) {
  const Json* buffers = doc.isObject() ? doc.find("buffers") : nullptr;
  if (!buffers || !buffers->isArray()) return {};
  for (std::size_t i = 0; i < buffers->size(); ++i) {
    const Json& b = buffers->items()[i];
    if (!b.isObject()) continue;  // tinygltf reports it
    const std::string path = jsonPathIndex("buffers", i);
    const Json* uri = b.find("uri");
    if (!uri || !uri->isString() || uri->asString().empty()) {
      if (glb) continue;
      return fail(ErrorCode::kSchema, files.label, path, "no uri (a .gltf keeps each buffer in a file or a data: URI)");
    }
    const std::string& u = uri->asString();
    if (tinygltf::IsDataURI(u)) continue;
    const std::string name = percentDecoded(u);
    if (auto why = notInFolder(u, name)) return fail(ErrorCode::kUnsupported, files.label, path + ".uri", shown(u) + ": " + *why);
    // tinygltf refuses a byteLength that is not an unsigned integer before it asks for the file;
    // one too large for rigfit's integers is more than any file holds.
    const Json* length = b.find("byteLength");
    BufferFile f;
    f.index = i;
    f.path = folder.empty() ? name : (folder / name).string();
    f.byte_length = length && length->isInt() && length->asInt() >= 0 ? static_cast<std::size_t>(length->asInt())
                                                                       : std::numeric_limits<std::size_t>::max();
    files.pending[tinygltfName(u)].push_back(std::move(f));
  }
  return {};
}

// Reads the first byte_length bytes of a buffer file: its size is checked before anything is
// allocated, and a longer file is read only that far (glTF lets a file hold more than its buffer).
Status readBufferFile(const BufferFile& f, std::string_view label, std::vector<unsigned char>& out) {
  const std::string where = jsonPathIndex("buffers", f.index) + ".uri";
  const int fd = ::open(f.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(ErrorCode::kIo, label, where, "cannot open " + shown(f.path) + ": " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return fail(ErrorCode::kIo, label, where, shown(f.path) + " is not a regular file");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size < f.byte_length) {
    const std::string declared =
        f.byte_length == std::numeric_limits<std::size_t>::max() ? std::string("its byteLength") : "its byteLength of " + std::to_string(f.byte_length);
    return fail(ErrorCode::kRange, label, where, shown(f.path) + " has " + std::to_string(size) + " bytes, fewer than " + declared);
  }
  try {
    out.resize(f.byte_length);
  } catch (const std::bad_alloc&) {
    return fail(ErrorCode::kIo, label, where, shown(f.path) + ": cannot hold its " + std::to_string(f.byte_length) + " bytes in memory");
  }
  for (std::size_t done = 0; done < f.byte_length;) {
    const ssize_t n = ::read(fd, out.data() + done, f.byte_length - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail(ErrorCode::kIo, label, where, shown(f.path) + ": read failed at byte " + std::to_string(done));  // or it shrank
    done += static_cast<std::size_t>(n);
  }
  return {};
}

// tinygltf's error as one line. A JSON syntax error (nlohmann's "parse error at line L, column C")
// is located as rigfit's JSON reader does it; `json_at` is where the JSON text starts in the file.
// `files`: the document was read from a file (its buffer files are read).
Error loadError(std::string_view label, const std::string& err, std::string_view json, std::size_t json_at, bool glb, bool files) {
  std::string_view e = err;
  constexpr std::string_view kNotFound = "File not found : ";
  if (e.substr(0, kNotFound.size()) == kNotFound) {
    std::string_view name = e.substr(kNotFound.size());
    name = name.substr(0, name.find('\n'));
    if (files) return fail(ErrorCode::kIo, label, "buffers", shown(name) + " was not found");
    return fail(ErrorCode::kUnsupported, label, "buffers",
                "\"" + oneLine(name) + "\" is a separate file, which is not read (the reader takes one file: a .glb, or a .gltf "
                                       "with embedded data: URIs)");
  }
  if (e.substr(0, 16) == "[json.exception." && e.find("] ") != std::string_view::npos) {
    e.remove_prefix(e.find("] ") + 2);
    constexpr std::string_view kAt = "parse error at line ";
    std::size_t line = 0, column = 0;
    if (e.substr(0, kAt.size()) == kAt) {
      const char* p = e.data() + kAt.size();
      const char* end = e.data() + e.size();
      auto r = std::from_chars(p, end, line);
      if (r.ec == std::errc() && std::string_view(r.ptr, static_cast<std::size_t>(end - r.ptr)).substr(0, 9) == ", column ") {
        auto r2 = std::from_chars(r.ptr + 9, end, column);
        if (r2.ec == std::errc() && std::string_view(r2.ptr, static_cast<std::size_t>(end - r2.ptr)).substr(0, 2) == ": ") {
          std::size_t offset = 0;
          for (std::size_t l = 1; l < line && offset < json.size(); ++offset)
            if (json[offset] == '\n') ++l;
          offset = std::min(json.size(), offset + (column > 0 ? column - 1 : 0));
          const std::string where = std::string(glb ? "JSON chunk line " : "line ") + std::to_string(line) + ", column " +
                                    std::to_string(column) + " (byte " + std::to_string(json_at + offset) + ")";
          return fail(ErrorCode::kSyntax, label, where, oneLine(std::string_view(r2.ptr + 2, static_cast<std::size_t>(end - r2.ptr - 2))));
        }
      }
    }
    return fail(ErrorCode::kSyntax, label, glb ? "JSON chunk" : "JSON", oneLine(e));
  }
  const std::string what = oneLine(e);
  return fail(ErrorCode::kSchema, label, "(document)", what.empty() ? "not a glTF file tinygltf can read" : what);
}

// From memory no file is opened: a buffer naming another file fails ("File not found"), an image
// naming one is skipped with a warning, and no image is decoded.
bool noFile(const std::string&, void*) { return false; }
std::string samePath(const std::string& path, void*) { return path; }
bool noRead(std::vector<unsigned char>*, std::string* err, const std::string&, void*) {
  if (err) *err = "not read";
  return false;
}
bool noWrite(std::string* err, const std::string&, const std::vector<unsigned char>&, void*) {
  if (err) *err = "not written";
  return false;
}
bool noImage(tinygltf::Image*, const int, std::string*, std::string*, int, int, const unsigned char*, int, void*) { return true; }

// From a file: the buffer files collected for the document, each read once, in document order.
bool bufferExists(const std::string& name, void* user) {
  const auto& pending = static_cast<const BufferFiles*>(user)->pending;
  const auto it = pending.find(name);
  return it != pending.end() && !it->second.empty();
}
bool readBuffer(std::vector<unsigned char>* out, std::string* err, const std::string& name, void* user) {
  auto* files = static_cast<BufferFiles*>(user);
  const auto it = files->pending.find(name);
  if (it == files->pending.end() || it->second.empty()) {
    if (err) *err = "not read";
    return false;
  }
  const BufferFile f = std::move(it->second.front());
  it->second.pop_front();
  if (Status st = readBufferFile(f, files->label, *out); !st) {
    if (!files->error) files->error = st.error();
    if (err) *err = "not read";
    return false;
  }
  return true;
}

// `folder`: the document was read from a file there, and its buffer files are read (else no file is).
Expected<tinygltf::Model> loadModel(std::string_view bytes, std::string_view label, const std::filesystem::path* folder) {
  const bool glb = bytes.size() >= 4 && std::memcmp(bytes.data(), "glTF", 4) == 0;
  std::string_view json = bytes;
  std::uint32_t length = 0;
  if (glb) {
    auto checked = checkGlb(bytes, label, json);
    if (!checked) return checked.error();
    length = *checked;
  } else if (bytes.size() > std::numeric_limits<unsigned int>::max()) {
    return fail(ErrorCode::kUnsupported, label, byteAt(0), "a glTF text of 4 GiB or more");
  }
  const std::size_t json_at = glb ? 20 : 0;
  if (auto deep = tooDeep(json))
    return fail(ErrorCode::kSyntax, label, byteAt(json_at + *deep), "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  BufferFiles files;
  files.label = label;
  std::optional<Error> unscanned;  // why the buffers could not be listed (stricter JSON rules than tinygltf's)
  if (folder) {
    auto doc = parseJson(json, label);
    if (doc)
      RIGFIT_TRY(collectBufferFiles(*doc, glb, *folder, files));
    else
      unscanned = doc.error();
  }
  try {
    tinygltf::TinyGLTF loader;
    if (folder)
      loader.SetFsCallbacks(tinygltf::FsCallbacks{&bufferExists, &samePath, &readBuffer, &noWrite, &files});
    else
      loader.SetFsCallbacks(tinygltf::FsCallbacks{&noFile, &samePath, &noRead, &noWrite, nullptr});
    loader.SetImageLoader(&noImage, nullptr);
    tinygltf::Model model;
    std::string err, warn;
    const bool ok = glb ? loader.LoadBinaryFromMemory(&model, &err, &warn, reinterpret_cast<const unsigned char*>(bytes.data()), length, "")
                        : loader.LoadASCIIFromString(&model, &err, &warn, bytes.data(), static_cast<unsigned int>(bytes.size()), "");
    if (!ok) {
      if (files.error) return *files.error;
      if (unscanned && err.rfind("File not found : ", 0) == 0) return *unscanned;
      return loadError(label, err, json, json_at, glb, folder != nullptr);
    }
    return model;
  } catch (const std::exception& e) {
    return fail(ErrorCode::kSchema, label, "(document)", "tinygltf failed: " + oneLine(e.what()));
  } catch (...) {
    return fail(ErrorCode::kSchema, label, "(document)", "tinygltf failed");
  }
}

// glTF is Y up; the rig frame Z up: (x, y, z) -> (x, -z, y) (the inverse of rigfit's export).
Eigen::Matrix3d gltfToRig() {
  Eigen::Matrix3d c = Eigen::Matrix3d::Zero();
  c(0, 0) = 1.0;
  c(1, 2) = -1.0;
  c(2, 1) = 1.0;
  return c;
}

const tinygltf::Value* member(const tinygltf::Value* object, const char* key) {
  return object && object->Has(key) ? &object->Get(key) : nullptr;
}

bool finiteNumber(const tinygltf::Value* v) { return v && v->IsNumber() && std::isfinite(v->GetNumberAsDouble()); }

Expected<Eigen::Vector3d> vec3(const tinygltf::Value& v, std::string_view label, const std::string& path) {
  if (!v.IsArray() || v.ArrayLen() != 3) return bad(label, path, "expected an array of 3 numbers");
  Eigen::Vector3d out;
  for (int k = 0; k < 3; ++k) {
    const tinygltf::Value& x = v.Get(k);
    if (!finiteNumber(&x)) return bad(label, jsonPathIndex(path, static_cast<std::size_t>(k)), "expected a finite number");
    out[k] = x.GetNumberAsDouble();
  }
  return out;
}

// A rigfit export's extras.tail: {"x": .., "y": .., "z": ..} (an object: Assimp aborts on arrays
// in node extras), or [x, y, z] as earlier exports wrote it.
Expected<Eigen::Vector3d> extrasTail(const tinygltf::Value& v, std::string_view label, const std::string& path) {
  if (!v.IsObject()) return vec3(v, label, path);
  Eigen::Vector3d out;
  for (int k = 0; k < 3; ++k) {
    const std::string key(1, static_cast<char>('x' + k));
    const tinygltf::Value* x = v.Has(key) ? &v.Get(key) : nullptr;
    if (!x || !finiteNumber(x)) return bad(label, path + "." + key, "expected a finite number");
    out[k] = x->GetNumberAsDouble();
  }
  return out;
}

// A node's local transform: its matrix (column-major), else translation * rotation * scale.
Expected<Eigen::Matrix4d> localMatrix(const tinygltf::Node& n, std::string_view label, const std::string& path) {
  auto check = [&](const std::vector<double>& a, std::size_t count, const char* key) -> Status {
    if (a.empty()) return {};  // absent: the default
    if (a.size() != count) return bad(label, path + "." + key, "expected " + std::to_string(count) + " numbers");
    for (std::size_t k = 0; k < count; ++k)
      if (!std::isfinite(a[k])) return bad(label, jsonPathIndex(path + "." + key, k), "expected a finite number");
    return {};
  };
  Eigen::Matrix4d local = Eigen::Matrix4d::Identity();
  if (!n.matrix.empty()) {
    RIGFIT_TRY(check(n.matrix, 16, "matrix"));
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) local(r, c) = n.matrix[static_cast<std::size_t>(4 * c + r)];
    return local;
  }
  RIGFIT_TRY(check(n.translation, 3, "translation"));
  RIGFIT_TRY(check(n.rotation, 4, "rotation"));
  RIGFIT_TRY(check(n.scale, 3, "scale"));
  double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
  std::copy(n.translation.begin(), n.translation.end(), t);
  std::copy(n.rotation.begin(), n.rotation.end(), q);
  std::copy(n.scale.begin(), n.scale.end(), s);
  Eigen::Quaterniond quat(q[3], q[0], q[1], q[2]);
  if (quat.norm() == 0.0) return bad(label, path + ".rotation", "a zero quaternion");
  quat.normalize();
  local.topLeftCorner<3, 3>() = quat.toRotationMatrix() * Eigen::Vector3d(s[0], s[1], s[2]).asDiagonal();
  local.topRightCorner<3, 1>() = Eigen::Vector3d(t[0], t[1], t[2]);
  return local;
}

// Every node's local matrix and parent (-1 for a root); rejects a child index out of range and a
// node with two parents.
Status nodeHierarchy(const std::vector<tinygltf::Node>& nodes, std::string_view label, std::vector<Eigen::Matrix4d>& local,
                     std::vector<int>& parent) {
  const std::size_t nn = nodes.size();
  for (std::size_t i = 0; i < nn; ++i) {
    const tinygltf::Node& n = nodes[i];
    const std::string path = jsonPathIndex("nodes", i);
    auto m = localMatrix(n, label, path);
    if (!m) return m.error();
    local[i] = *m;
    for (std::size_t k = 0; k < n.children.size(); ++k) {
      const int c = n.children[k];
      if (c < 0 || static_cast<std::size_t>(c) >= nn)
        return bad(label, jsonPathIndex(path + ".children", k), "expected a node index below " + std::to_string(nn));
      const std::size_t ci = static_cast<std::size_t>(c);
      if (parent[ci] != -1 || ci == i) return bad(label, jsonPathIndex(path + ".children", k), "node " + std::to_string(ci) + " has two parents");
      parent[ci] = static_cast<int>(i);
    }
  }
  return {};
}

// Every node's world matrix (a cycle shows up as a chain longer than the node count).
Expected<std::vector<Eigen::Matrix4d>> worldMatrices(const std::vector<Eigen::Matrix4d>& local, const std::vector<int>& parent,
                                                     std::string_view label) {
  const std::size_t nn = local.size();
  std::vector<Eigen::Matrix4d> world(nn);
  std::vector<std::uint8_t> done(nn, 0);
  for (std::size_t i = 0; i < nn; ++i) {
    std::vector<std::size_t> chain;
    for (int q = static_cast<int>(i); q >= 0 && !done[static_cast<std::size_t>(q)]; q = parent[static_cast<std::size_t>(q)]) {
      chain.push_back(static_cast<std::size_t>(q));
      if (chain.size() > nn) return bad(label, jsonPathIndex("nodes", i), "the node hierarchy has a cycle");
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const int p = parent[*it];
      world[*it] = p < 0 ? local[*it] : Eigen::Matrix4d(world[static_cast<std::size_t>(p)] * local[*it]);
      done[*it] = 1;
    }
  }
  return world;
}

// The joints' nodes: the first skin's, else every node below a node named "Armature".
Expected<std::vector<std::size_t>> jointNodes(const tinygltf::Model& model, const std::vector<int>& parent, std::string_view label) {
  const std::size_t nn = model.nodes.size();
  std::vector<std::size_t> joints;
  if (!model.skins.empty()) {
    const std::vector<int>& js = model.skins[0].joints;
    for (std::size_t k = 0; k < js.size(); ++k) {
      if (js[k] < 0 || static_cast<std::size_t>(js[k]) >= nn)
        return bad(label, jsonPathIndex("skins[0].joints", k), "expected a node index below " + std::to_string(nn));
      joints.push_back(static_cast<std::size_t>(js[k]));
    }
  } else {
    for (std::size_t i = 0; i < nn; ++i) {
      for (int q = parent[i]; q >= 0; q = parent[static_cast<std::size_t>(q)]) {
        if (model.nodes[static_cast<std::size_t>(q)].name == "Armature") {
          joints.push_back(i);
          break;
        }
      }
    }
  }
  if (joints.empty()) return bad(label, "skins", "no skin joints and no node below an \"Armature\" node: the file holds no skeleton");
  return joints;
}

// Per bone (in joint order), what the steps after placeJoints need beside the placements.
struct JointInfo {
  std::vector<Eigen::Matrix3d> frames;         // the joint's frame without scale, in the rig's axes
  std::vector<int> parent;                     // the bone of the nearest joint above, -1 for a root
  std::vector<const tinygltf::Value*> extras;  // the node's extras when an object, else null
};

// A joint's frame without scale, from its world rotation-scale `m` in the rig's axes:
// Gram-Schmidt from Y (the bone axis) and Z.
Expected<Eigen::Matrix3d> unscaledFrame(const Eigen::Matrix3d& m, std::string_view label, const std::string& path) {
  Eigen::Vector3d y = m.col(1), z = m.col(2);
  if (y.norm() == 0.0) return bad(label, path, "a joint with a degenerate (zero-scale) transform");
  y.normalize();
  z = (z - z.dot(y) * y);
  if (z.norm() == 0.0) return bad(label, path, "a joint with a degenerate (zero-scale) transform");
  z.normalize();
  Eigen::Matrix3d frame;
  frame.col(0) = y.cross(z);
  frame.col(1) = y;
  frame.col(2) = z;
  return frame;
}

// One bone per joint: its name (extras.name, else the node's, else "joint<node>"), parent, head and
// frame; rejects a joint listed twice, a name used twice and a zero-scale joint.
Status placeJoints(const std::vector<tinygltf::Node>& nodes, const std::vector<std::size_t>& joints, const std::vector<int>& parent,
                   const std::vector<Eigen::Matrix4d>& world, std::string_view label, SkeletonSource& src, JointInfo& info) {
  const Eigen::Matrix3d c = gltfToRig();
  std::unordered_map<std::size_t, std::size_t> joint_of;  // node -> bone
  for (std::size_t k = 0; k < joints.size(); ++k)
    if (!joint_of.emplace(joints[k], k).second) return bad(label, jsonPathIndex("skins[0].joints", k), "a node listed twice");
  const std::size_t nb = joints.size();
  info.frames.resize(nb);
  info.parent.assign(nb, -1);
  info.extras.assign(nb, nullptr);
  src.bones.resize(nb);
  std::unordered_map<std::string, std::size_t> names;
  for (std::size_t k = 0; k < nb; ++k) {
    const std::size_t ni = joints[k];
    const tinygltf::Node& n = nodes[ni];
    const std::string path = jsonPathIndex("nodes", ni);
    info.extras[k] = n.extras.IsObject() ? &n.extras : nullptr;
    const tinygltf::Value* nm = member(info.extras[k], "name");
    const std::string& name = nm && nm->IsString() ? nm->Get<std::string>() : n.name;
    src.bones[k].name = !name.empty() ? name : "joint" + std::to_string(ni);
    if (!names.emplace(src.bones[k].name, k).second) return bad(label, path + ".name", "bone \"" + src.bones[k].name + "\" appears twice");
    for (int q = parent[ni]; q >= 0; q = parent[static_cast<std::size_t>(q)])
      if (auto it = joint_of.find(static_cast<std::size_t>(q)); it != joint_of.end()) {
        info.parent[k] = static_cast<int>(it->second);
        break;
      }
    src.bones[k].head = c * world[ni].topRightCorner<3, 1>();
    auto frame = unscaledFrame(c * world[ni].topLeftCorner<3, 3>(), label, path);
    if (!frame) return frame.error();
    info.frames[k] = *frame;
  }
  for (std::size_t k = 0; k < nb; ++k)
    src.bones[k].parent = info.parent[k] < 0 ? std::string() : src.bones[static_cast<std::size_t>(info.parent[k])].name;
  return {};
}

// The tails a rigfit export recorded: extras.length along the joint's own +Y (stays right when the
// armature above it is moved), else extras.tail. Flags the bones given a tail.
Expected<std::vector<std::uint8_t>> tailsFromExtras(const std::vector<std::size_t>& joints, const JointInfo& info,
                                                    std::string_view label, SkeletonSource& src) {
  const Eigen::Matrix3d c = gltfToRig();
  const std::size_t nb = joints.size();
  std::vector<std::uint8_t> has_tail(nb, 0);
  for (std::size_t k = 0; k < nb; ++k) {
    BonePlacement& b = src.bones[k];
    const std::string path = jsonPathIndex("nodes", joints[k]);
    const tinygltf::Value* len = member(info.extras[k], "length");
    const tinygltf::Value* tail = member(info.extras[k], "tail");
    if (finiteNumber(len) && len->GetNumberAsDouble() > 0.0) {
      b.tail = b.head + len->GetNumberAsDouble() * info.frames[k].col(1);
      has_tail[k] = 1;
    } else if (tail) {
      auto t = extrasTail(*tail, label, path + ".extras.tail");
      if (!t) return t.error();
      b.tail = c * *t;
      has_tail[k] = 1;
    }
  }
  return has_tail;
}

// Each bone's children, in joint order.
std::vector<std::vector<std::size_t>> childrenOf(const std::vector<int>& parent) {
  std::vector<std::vector<std::size_t>> kids(parent.size());
  for (std::size_t k = 0; k < parent.size(); ++k)
    if (parent[k] >= 0) kids[static_cast<std::size_t>(parent[k])].push_back(k);
  return kids;
}

// The bones depth first, children in order; an explicit stack, as a chain of joints may be long.
std::vector<std::size_t> depthFirst(const std::vector<int>& parent, const std::vector<std::vector<std::size_t>>& kids) {
  std::vector<std::size_t> order;
  std::vector<std::size_t> stack;
  for (std::size_t r = 0; r < parent.size(); ++r) {
    if (parent[r] >= 0) continue;
    stack.push_back(r);
    while (!stack.empty()) {
      const std::size_t k = stack.back();
      stack.pop_back();
      order.push_back(k);
      stack.insert(stack.end(), kids[k].rbegin(), kids[k].rend());
    }
  }
  return order;
}

// The distance along the bone axis `y` from `head` to the child joint closest to that axis (its
// offset from the axis taken relative to that distance); -1 when no child lies ahead.
double lengthToChild(const SkeletonSource& src, const std::vector<std::size_t>& kids, const Eigen::Vector3d& head,
                     const Eigen::Vector3d& y) {
  double len = -1.0;
  double best_off = 1e300;
  for (auto ch : kids) {
    const Eigen::Vector3d d = src.bones[ch].head - head;
    const double along = d.dot(y);
    if (along <= 1e-9) continue;
    const double off = (d - along * y).norm() / along;  // how far off the axis, relative
    if (off < best_off) {
      best_off = off;
      len = along;
    }
  }
  return len;
}

// Tails without extras: to the child joint nearest the +Y axis, else the parent's length, else 0.1
// (in `order`, parents first, so a leaf finds its parent's length already set). Notes the guess.
void guessTails(const std::vector<std::size_t>& order, const std::vector<std::vector<std::size_t>>& kids, const JointInfo& info,
                const std::vector<std::uint8_t>& has_tail, SkeletonSource& src) {
  std::vector<double> length(has_tail.size(), -1.0);
  bool guessed = false;
  for (std::size_t k : order) {
    BonePlacement& b = src.bones[k];
    const Eigen::Vector3d y = info.frames[k].col(1);
    if (has_tail[k]) {
      length[k] = (b.tail - b.head).norm();
      continue;
    }
    guessed = true;
    double len = lengthToChild(src, kids[k], b.head, y);
    if (len <= 0.0 && info.parent[k] >= 0) len = length[static_cast<std::size_t>(info.parent[k])];
    if (len <= 0.0) len = 0.1;
    length[k] = len;
    b.tail = b.head + len * y;
  }
  if (guessed) src.notes.push_back("bones without extras.length or extras.tail: tails guessed along each joint's +Y axis (to a child joint, else at the parent's length)");
}

// Each bone's roll: the edit roll a rigfit export kept in extras.roll, else the roll of the joint's
// frame about the bone direction.
void jointRolls(const JointInfo& info, SkeletonSource& src) {
  for (std::size_t k = 0; k < src.bones.size(); ++k) {
    BonePlacement& b = src.bones[k];
    if (const tinygltf::Value* r = member(info.extras[k], "roll"); finiteNumber(r)) {
      b.roll = r->GetNumberAsDouble();
      continue;
    }
    const Eigen::Vector3d d = b.tail - b.head;
    if (d.norm() == 0.0) continue;
    const Eigen::Vector3d n = d.normalized();
    const Eigen::Vector3d z = info.frames[k].col(2);
    b.roll = rollFromZAxis(n, z - z.dot(n) * n);
  }
}

// The skeleton of a loaded document (see parseGltfSkeleton).
Expected<SkeletonSource> skeletonOf(const tinygltf::Model& model, std::string_view label) {
  const std::vector<tinygltf::Node>& nodes = model.nodes;
  if (nodes.empty()) return bad(label, "nodes", "no nodes: the file holds no skeleton");
  std::vector<Eigen::Matrix4d> local(nodes.size());
  std::vector<int> parent(nodes.size(), -1);
  RIGFIT_TRY(nodeHierarchy(nodes, label, local, parent));
  auto world = worldMatrices(local, parent, label);
  if (!world) return world.error();
  auto joints = jointNodes(model, parent, label);
  if (!joints) return joints.error();

  SkeletonSource src;
  src.kind = "gltf";
  JointInfo info;
  RIGFIT_TRY(placeJoints(nodes, *joints, parent, *world, label, src, info));
  auto has_tail = tailsFromExtras(*joints, info, label, src);
  if (!has_tail) return has_tail.error();
  const std::vector<std::vector<std::size_t>> kids = childrenOf(info.parent);
  const std::vector<std::size_t> order = depthFirst(info.parent, kids);
  guessTails(order, kids, info, *has_tail, src);
  jointRolls(info, src);
  // Parents first, so the placements read like a skeleton file.
  std::vector<BonePlacement> sorted;
  sorted.reserve(src.bones.size());
  for (std::size_t k : order) sorted.push_back(std::move(src.bones[k]));
  src.bones = std::move(sorted);
  return src;
}

}  // namespace

Expected<SkeletonSource> parseGltfSkeleton(std::string_view bytes, std::string_view label) {
  auto model = loadModel(bytes, label, nullptr);
  if (!model) return model.error();
  return skeletonOf(*model, label);
}

Expected<SkeletonSource> readGltfSkeleton(const std::string& path) {
  auto text = loadFile(path);
  if (!text) return text.error();
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  auto model = loadModel(text->text(), path, &folder);
  if (!model) return model.error();
  return skeletonOf(*model, path);
}

}  // namespace rigfit
