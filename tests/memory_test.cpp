// Memory in proportion to the input: small hostile files (Zstd and gzip bombs, huge declared sizes,
// one accessor copied by many surfaces) are clean errors, read under a 512 MB address-space limit
// (RLIMIT_AS) in a child process. The files are generated here; none is committed.
//
// AddressSanitizer reserves terabytes of shadow memory, so under ASan the children run without the
// limit (the checks under test come before any large allocation, so they still pass quickly).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include <zlib.h>
#include <zstd.h>

#include "core/base64.hpp"
#include "rigfit/g4mf.hpp"
#include "rigfit/shape.hpp"
#include "test_util.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define RIGFIT_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RIGFIT_TEST_ASAN 1
#endif
#endif

namespace rigfit {
namespace {

constexpr std::uint64_t kMB = 1000 * 1000;
constexpr std::uint64_t kLimit = 512 * kMB;
constexpr std::uint64_t kGiB = std::uint64_t(1) << 30;

bool limited() {
#ifdef RIGFIT_TEST_ASAN
  return false;
#else
  return true;
#endif
}

// The process's address space now (bytes), from /proc/self/statm.
std::uint64_t addressSpace() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  unsigned long long pages = 0;
  if (f) {
    if (std::fscanf(f, "%llu", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  return pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

// Runs `body` in a forked child that may map at most `extra` bytes beyond what the test process
// has mapped already; its exit status is body's result (0: as expected), or the signal that
// killed it (an abort on std::bad_alloc). The child reports through stderr only.
std::string inChild(const std::function<int()>& body, std::uint64_t extra = kLimit) {
  std::fflush(nullptr);
  const std::uint64_t now = addressSpace();
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (limited()) {
      const rlimit r{now + extra, now + extra};
      if (::setrlimit(RLIMIT_AS, &r) != 0) ::_exit(90);
    }
    int rc = 91;
    try {
      rc = body();
    } catch (...) {
      rc = 92;  // an exception escaped the library
    }
    std::fflush(nullptr);
    ::_exit(rc);
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid) return "fork or wait failed";
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "exit " + std::to_string(WEXITSTATUS(status));
}

// Returns 0 when `message` contains `want`; else prints it and returns 1.
int expectIn(const std::string& message, const std::string& want) {
  if (message.find(want) != std::string::npos && message.find('\n') == std::string::npos) return 0;
  std::fprintf(stderr, "expected \"%s\" in: %s\n", want.c_str(), message.c_str());
  return 1;
}

// The validator's first error ("PATH: MESSAGE"), or "" when there is none.
std::string firstError(const std::vector<G4mfIssue>& issues) {
  for (const G4mfIssue& i : issues)
    if (i.severity == G4mfSeverity::kError) return i.path + ": " + i.message;
  return "";
}

// ---------------------------------------------------------------------------------------------
// Files

void putLe(std::string& s, std::uint64_t v, int bytes) {
  for (int k = 0; k < bytes; ++k) s.push_back(static_cast<char>((v >> (8 * k)) & 0xFF));
}

// A Zstd frame of `size` copies of `byte` written by hand as RLE blocks (4 bytes per 128 KiB), with
// or without the content size in its header: gigabytes in a few hundred KiB, made in no time.
std::string zstdRle(std::uint64_t size, bool declared, char byte = '\0') {
  std::string out = "\x28\xB5\x2F\xFD";
  out.push_back(static_cast<char>(declared ? 0xC0 : 0x00));  // 8-byte content size, or none
  out.push_back(static_cast<char>(0x50));                    // window 1 MiB
  if (declared) putLe(out, size, 8);
  std::uint64_t left = size;
  do {
    const std::uint64_t n = std::min<std::uint64_t>(left, 128 * 1024);
    left -= n;
    putLe(out, (left == 0 ? 1 : 0) | (1u << 1) | (n << 3), 3);  // last flag, RLE block, size
    out.push_back(byte);
  } while (left);
  return out;
}

// A Zstd frame of `data` whose header does not declare its size (as a streaming writer makes).
std::string zstdUndeclared(const std::string& data) {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
  std::string out(ZSTD_compressBound(data.size()) + 64, '\0');
  ZSTD_inBuffer in{data.data(), data.size(), 0};
  ZSTD_outBuffer ob{out.data(), out.size(), 0};
  while (ZSTD_compressStream2(c, &ob, &in, ZSTD_e_end) != 0) {
  }
  ZSTD_freeCCtx(c);
  out.resize(ob.pos);
  return out;
}

struct Chunk {
  std::string type, encoding, data;
};
// A .g4b: header, then the chunks 16-byte aligned.
std::string g4b(const std::vector<Chunk>& chunks) {
  std::string out = "G4MF" + std::string(12, '\0');
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    out += chunks[i].type + chunks[i].encoding;
    putLe(out, chunks[i].data.size(), 8);
    out += chunks[i].data;
    if (i + 1 < chunks.size()) out.append((16 - out.size() % 16) % 16, chunks[i].type == "JSON" ? ' ' : '\0');
  }
  std::string size;
  putLe(size, out.size(), 8);
  out.replace(8, 8, size);
  return out;
}
const std::string kPlain(4, '\0');

// A .g4b whose one buffer (chunk 1, Zstd) has `byte_length` and the given frame.
std::string zstdBufferFile(std::uint64_t byte_length, const std::string& frame) {
  const std::string json = R"({"asset":{"dimension":3},"buffers":[{"byteLength":)" + std::to_string(byte_length) +
                           R"(,"chunk":1,"encoding":"Zstd"}]})";
  return g4b({{"JSON", kPlain, json}, {"BLOB", "Zstd", frame}});
}

// gzip of `lines` copies of `line`, deflated piece by piece (never held inflated).
std::string gzipRepeated(const std::string& line, std::size_t lines) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
  std::string piece;
  for (int k = 0; k < 8192; ++k) piece += line;
  std::string out;
  char buf[1 << 16];
  for (std::size_t done = 0; done < lines;) {
    const std::size_t n = std::min<std::size_t>(8192, lines - done);
    done += n;
    z.next_in = reinterpret_cast<Bytef*>(piece.data());
    z.avail_in = static_cast<uInt>(n * line.size());
    const int flush = done == lines ? Z_FINISH : Z_NO_FLUSH;
    do {
      z.next_out = reinterpret_cast<Bytef*>(buf);
      z.avail_out = sizeof buf;
      deflate(&z, flush);
      out.append(buf, sizeof buf - z.avail_out);
    } while (z.avail_out == 0);
  }
  deflateEnd(&z);
  return out;
}

std::string writeTemp(const std::string& name, const std::string& bytes) {
  const std::string path = (std::filesystem::temp_directory_path() / ("rigfit_memory_" + std::to_string(::getpid()) + "_" + name)).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// ---------------------------------------------------------------------------------------------
// G4MF

TEST(MemoryG4mf, ZstdBufferDeclaringGigabytesIsAnErrorBeforeInflating) {
  // The issue's case: a small .g4b whose Zstd chunk declares (and really inflates to) 4 GiB.
  for (const bool declared : {true, false}) {
    SCOPED_TRACE(declared ? "declared" : "undeclared");
    const std::string file = zstdBufferFile(4 * kGiB, zstdRle(4 * kGiB, declared));
    ASSERT_LT(file.size(), 200'000u);
    EXPECT_EQ(inChild([&] {
                const std::string v = firstError(validateG4mf(file, "bomb.g4b"));
                auto r = readG4mf(file, "bomb.g4b");
                return expectIn(v, "/buffers/0/byteLength: is 4294967296: more than the") +
                       expectIn(r.ok() ? "" : r.error().message, "bomb.g4b: /buffers/0/byteLength: is 4294967296") +
                       expectIn(v, "16 MiB + 16 x its size");
              }),
              "exit 0");
  }
}

TEST(MemoryG4mf, ZstdBufferLongerThanItsByteLengthDecodesOnlyByteLength) {
  // 4 GiB of data (declared, or not) behind a buffer of 1 MiB: only 1 MiB is inflated.
  for (const bool declared : {true, false}) {
    SCOPED_TRACE(declared ? "declared" : "undeclared");
    const std::string file = zstdBufferFile(1 << 20, zstdRle(4 * kGiB, declared));
    EXPECT_EQ(inChild([&] {
                const auto issues = validateG4mf(file, "long.g4b");
                if (!issues.empty()) std::fprintf(stderr, "%s: %s\n", issues[0].path.c_str(), issues[0].message.c_str());
                return issues.empty() && readG4mf(file, "long.g4b").ok() ? 0 : 1;
              }, 64 * kMB),
              "exit 0");
  }
}

TEST(MemoryG4mf, ZstdBuffersShareOneBudget) {
  // Two buffers of 12 MiB each, within the budget alone (16 MiB + 16 x the file), not together.
  const std::string frame = zstdRle(12 << 20, true);
  const std::string json = R"({"asset":{"dimension":3},"buffers":[{"byteLength":12582912,"chunk":1,"encoding":"Zstd"},)"
                           R"({"byteLength":12582912,"chunk":2,"encoding":"Zstd"}]})";
  const std::string file = g4b({{"JSON", kPlain, json}, {"BLOB", "Zstd", frame}, {"BLOB", "Zstd", frame}});
  const std::string v = firstError(validateG4mf(file, "two.g4b"));
  EXPECT_EQ(expectIn(v, "/buffers/1/byteLength: is 12582912: more than the"), 0) << v;
  EXPECT_FALSE(readG4mf(file, "two.g4b").ok());
  const std::string one = zstdBufferFile(12 << 20, frame);
  EXPECT_EQ(firstError(validateG4mf(one, "one.g4b")), "");
}

TEST(MemoryG4mf, ZstdDeclaredSizeShorterThanByteLengthIsNamedWithoutInflating) {
  const std::string file = zstdBufferFile(1 << 20, zstdRle(1000, true));
  EXPECT_EQ(firstError(validateG4mf(file, "short.g4b")), "/buffers/0/byteLength: is 1048576 but the Zstd data declares only 1000 bytes");
  // Undeclared: found by inflating it.
  const std::string undeclared = zstdBufferFile(1 << 20, zstdRle(1000, false));
  EXPECT_EQ(firstError(validateG4mf(undeclared, "short.g4b")), "/buffers/0/byteLength: is 1048576 but the data has only 1000 bytes");
}

TEST(MemoryG4mf, ZstdJsonChunkBombIsAnError) {
  // 1 GiB of spaces as the JSON chunk: the declared size is refused before inflating; without one,
  // inflation stops at the bound (1 MiB + 4 x the file's size).
  for (const bool declared : {true, false}) {
    SCOPED_TRACE(declared ? "declared" : "undeclared");
    const std::string file = g4b({{"JSON", "Zstd", zstdRle(kGiB, declared, ' ')}});
    ASSERT_LT(file.size(), 50'000u);
    EXPECT_EQ(inChild([&] {
                const std::string v = firstError(validateG4mf(file, "json.g4b"));
                auto r = readG4mf(file, "json.g4b");
                return expectIn(v, declared ? "g4b:chunks/0/data: the JSON chunk declares 1073741824 decoded bytes, more than the"
                                            : "g4b:chunks/0/data: the JSON chunk decodes to more than the") +
                       expectIn(r.ok() ? "" : r.error().message, "json.g4b: g4b:chunks/0/data: the JSON chunk");
              }),
              "exit 0");
  }
}

TEST(MemoryG4mf, ZstdFramesWithoutDeclaredSizesAreRead) {
  // A streaming writer's frames carry no content size: read within the bounds, growing with the data.
  const std::string json = R"({"asset":{"dimension":3},"buffers":[{"byteLength":300000,"chunk":1,"encoding":"Zstd"}]})";
  std::string data(300000, '\0');
  for (std::size_t k = 0; k < data.size(); ++k) data[k] = static_cast<char>((k * 7919) >> 5);
  const std::string file = g4b({{"JSON", "Zstd", zstdUndeclared(json)}, {"BLOB", "Zstd", zstdUndeclared(data)}});
  ASSERT_EQ(ZSTD_getFrameContentSize(file.data() + 32, file.size() - 32), ZSTD_CONTENTSIZE_UNKNOWN);
  const auto issues = validateG4mf(file, "stream.g4b");
  EXPECT_TRUE(issues.empty()) << firstError(issues);
  EXPECT_TRUE(readG4mf(file, "stream.g4b").ok());
}

TEST(MemoryG4mf, TextAccessorClaimingTwoToTheFortyElements) {
  // A view and buffer of 2^40 bytes backed by a 3-byte data URI, and a mesh using it.
  const std::string file = R"({"asset":{"dimension":3},"buffers":[{"byteLength":1099511627776,"uri":"data:application/octet-stream;base64,AAAA"}],)"
                           R"("bufferViews":[{"byteLength":1099511627776}],"accessors":[{"bufferView":0,"componentType":"uint8"}],)"
                           R"("meshes":[{"vertices":0,"surfaces":[{"simplexes":0}]}],"nodes":[{"meshInstance":{"mesh":0}}]})";
  EXPECT_EQ(inChild([&] {
              const std::string v = firstError(validateG4mf(file, "huge.g4tf"));
              auto r = readG4mf(file, "huge.g4tf");
              return expectIn(v, "/buffers/0/byteLength: is 1099511627776 but the data has only 3 bytes") +
                     expectIn(r.ok() ? "" : r.error().message, "huge.g4tf: /buffers/0/byteLength");
            }),
            "exit 0");
}

// A text file whose one mesh has `surfaces` surfaces sharing one simplexes accessor of `triangles`
// triangles (uint8 indices, 3 bytes each): the reader copies it once per surface.
std::string sharedSimplexes(std::size_t triangles, std::size_t surfaces) {
  std::string bin;
  for (float v : {0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f}) bin.append(reinterpret_cast<const char*>(&v), 4);
  for (std::size_t t = 0; t < triangles; ++t) bin += std::string("\x00\x01\x02", 3);
  std::string s = R"({"asset":{"dimension":3},"buffers":[{"byteLength":)" + std::to_string(bin.size()) +
                  R"(,"uri":"data:application/octet-stream;base64,)" + base64Encode(bin) + R"("}],)" +
                  R"("bufferViews":[{"byteLength":36},{"byteLength":)" + std::to_string(3 * triangles) + R"(,"byteOffset":36}],)" +
                  R"("accessors":[{"bufferView":0,"componentType":"float32","vectorSize":3},{"bufferView":1,"componentType":"uint8","vectorSize":3}],)" +
                  R"("meshes":[{"vertices":0,"surfaces":[)";
  for (std::size_t k = 0; k < surfaces; ++k) s += (k ? "," : "") + std::string(R"({"name":"S)") + std::to_string(k) + R"(","simplexes":1})";
  return s + R"(]}],"nodes":[{"name":"N","meshInstance":{"mesh":0}}]})";
}

TEST(MemoryG4mf, OneAccessorCopiedByManySurfacesStaysWithinTheReadersBudget) {
  // 100,000 triangles (400 KB of text) copied by 256 surfaces would take 920 MB of triangles,
  // polygons and corners; the reader stops at 32 MiB + 4 x the file's size.
  const std::string file = sharedSimplexes(100000, 256);
  ASSERT_LT(file.size(), kMB);
  EXPECT_TRUE(validateG4mf(file, "many.g4tf").empty()) << firstError(validateG4mf(file, "many.g4tf"));
  EXPECT_EQ(inChild([&] {
              auto r = readG4mf(file, "many.g4tf");
              return expectIn(r.ok() ? "" : r.error().message, "many.g4tf: /meshes/0/surfaces/") +
                     expectIn(r.ok() ? "" : r.error().message, "reading the file's arrays would take more than");
            }),
            "exit 0");
  // Two copies fit.
  auto two = readG4mf(sharedSimplexes(100000, 2), "two.g4tf");
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_EQ(two->meshes[0].triangles.size(), 2u * 3u * 100000u);
}

// ---------------------------------------------------------------------------------------------
// Targets

TEST(MemoryTarget, GzipBombStopsAtWhatTheMeshCanNeed) {
  // 300 MiB of "0 0 0 0" lines in ~300 KB of gzip: refused once past 128 bytes a vertex + 64 KiB.
  const std::string gz = gzipRepeated("0 0 0 0\n", (300u << 20) / 8);
  ASSERT_LT(gz.size(), kMB);
  EXPECT_EQ(inChild([&] {
              auto t = decodeTarget(gz, "bomb.target.gz", 19158);
              return expectIn(t.ok() ? "" : t.error().message,
                              "bomb.target.gz: inflates to more than 2517760 bytes, the most a target of a 19158-vertex mesh needs");
            }),
            "exit 0");
  // A bigger mesh allows proportionally more.
  auto big = decodeTarget(gzipRepeated("1 0 0 0\n", 100000), "big.target.gz", 100000);
  ASSERT_TRUE(big.ok()) << big.error().message;
  EXPECT_EQ(big->vertices.size(), 100000u);
}

TEST(MemoryTarget, EveryShippedTargetIsWithinTheBound) {
  RIGFIT_REQUIRE_SHARED_DATA();
  std::size_t n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(test::sharedData() + "/targets"))
    if (e.path().string().ends_with(".target.gz")) {
      auto t = readTarget(e.path().string(), 13380);  // the body without helpers: the smallest hm08 mesh
      ASSERT_TRUE(t.ok()) << t.error().message;
      ++n;
    }
  EXPECT_GT(n, 1000u);
}

// ---------------------------------------------------------------------------------------------
// The command line, in a child process limited to 512 MB in all

// Runs `rigfit ARGS...` under RLIMIT_AS = 512 MB; returns "exit N" or the signal, and its stdout.
std::string cliUnderLimit(const std::vector<std::string>& args, std::string& out) {
  const std::string out_path = writeTemp("cli.out", "");
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (limited()) {
      const rlimit r{kLimit, kLimit};
      if (::setrlimit(RLIMIT_AS, &r) != 0) ::_exit(90);
    }
    if (!std::freopen(out_path.c_str(), "w", stdout)) ::_exit(93);
    std::vector<char*> argv{const_cast<char*>(RIGFIT_CLI)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(RIGFIT_CLI, argv.data());
    ::_exit(94);
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid) return "fork or wait failed";
  out = test::readText(out_path);
  std::filesystem::remove(out_path);
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "exit " + std::to_string(WEXITSTATUS(status));
}

TEST(MemoryCli, ValidateZstdBombsUnder512MB) {
  const std::string buffer_bomb = writeTemp("buffer.g4b", zstdBufferFile(4 * kGiB, zstdRle(4 * kGiB, true)));
  const std::string json_bomb = writeTemp("json.g4b", g4b({{"JSON", "Zstd", zstdRle(kGiB, false, ' ')}}));
  std::string out;
  EXPECT_EQ(cliUnderLimit({"validate", buffer_bomb, json_bomb}, out), "exit 1");
  EXPECT_NE(out.find(buffer_bomb + ": /buffers/0/byteLength: error: is 4294967296: more than the"), std::string::npos) << out;
  EXPECT_NE(out.find(json_bomb + ": g4b:chunks/0/data: error: the JSON chunk decodes to more than the"), std::string::npos) << out;
  EXPECT_NE(out.find(json_bomb + ": 1 errors, 0 warnings"), std::string::npos) << out;
  std::filesystem::remove(buffer_bomb);
  std::filesystem::remove(json_bomb);
}

TEST(MemoryCli, TheMostExpensiveJsonChunkOfAFileUnder1MBIsValidatedUnder512MB) {
  // A JSON chunk at its bound (1 MiB + 4 x the file's size) of "[0,0,...": the text that costs
  // the most to parse (~60 bytes a byte), in a file just under 1 MB (a random BLOB fills it).
  std::string blob(990'000, '\0');
  std::uint64_t seed = 42;
  for (char& c : blob) c = static_cast<char>((seed = seed * 6364136223846793005ull + 1442695040888963407ull) >> 56);
  std::string json = R"({"asset":{"dimension":3},"buffers":[{"byteLength":990000,"chunk":1}],"extras":{"a":[0)";
  std::string file;
  for (int pass = 0; pass < 2; ++pass) {  // the second pass fills to the bound of the first's size
    const std::uint64_t cap = (1u << 20) + 4 * (file.empty() ? 990'576 : file.size());
    std::string text = json;
    while (text.size() + 2 + 3 <= cap) text += ",0";
    text += "]}}";
    std::string packed(ZSTD_compressBound(text.size()), '\0');
    packed.resize(ZSTD_compress(packed.data(), packed.size(), text.data(), text.size(), 3));
    file = g4b({{"JSON", "Zstd", packed}, {"BLOB", kPlain, blob}});
  }
  ASSERT_LT(file.size(), kMB);
  const std::string path = writeTemp("worst.g4b", file);
  std::string out;
  EXPECT_EQ(cliUnderLimit({"validate", path}, out), "exit 0");
  EXPECT_EQ(out, path + ": 0 errors, 0 warnings\n");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace rigfit
