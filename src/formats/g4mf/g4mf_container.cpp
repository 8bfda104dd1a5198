// The G4MF container: the .g4b file header and chunks, the JSON text rules, and the bytes of
// buffers (chunks, base64 data URIs, Zstd frames).
#include <cstdio>
#include <memory>

#include <zstd.h>

#include "formats/g4mf/g4mf_check.hpp"

namespace rigfit::g4mf {

std::string printable4(const void* p) {
  std::string out;
  for (int k = 0; k < 4; ++k) {
    const auto c = static_cast<const unsigned char*>(p)[k];
    if (c >= 0x20 && c < 0x7F) {
      out.push_back(static_cast<char>(c));
    } else {
      static const char* kHex = "0123456789abcdef";
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}


bool zstdFrames(const unsigned char* src, std::size_t n, ZstdFrames& out, std::string& error) {
  out = {};
  if (n < 4 || std::memcmp(src, "\x28\xB5\x2F\xFD", 4) != 0) {
    error = "Zstd data must start with the Zstd magic 28 B5 2F FD";
    return false;
  }
  for (std::size_t pos = 0; pos < n;) {
    const unsigned long long size = ZSTD_getFrameContentSize(src + pos, n - pos);
    if (size == ZSTD_CONTENTSIZE_ERROR) {
      error = "byte " + std::to_string(pos) + " of the Zstd data is not the header of a Zstd frame";
      return false;
    }
    if (size == ZSTD_CONTENTSIZE_UNKNOWN) out.known = false;
    else out.total = size > ~u64(0) - out.total ? ~u64(0) : out.total + size;
    const std::size_t len = ZSTD_findFrameCompressedSize(src + pos, n - pos);
    if (ZSTD_isError(len)) {
      error = "the Zstd frame at byte " + std::to_string(pos) + " is incomplete (" + ZSTD_getErrorName(len) + ")";
      return false;
    }
    pos += len;
  }
  return true;
}

bool zstdDecode(const unsigned char* src, std::size_t n, const ZstdFrames& frames, u64 keep, std::string& out, std::string& error) {
  out.clear();
  std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!dctx) {
    error = "cannot create a Zstd decoder";
    return false;
  }
  // Declared sizes were checked by the caller: one allocation. Otherwise the output grows with
  // what the frames really produce.
  const u64 limit = frames.known ? std::min(keep, frames.total) : keep;
  out.resize(static_cast<std::size_t>(frames.known ? limit : std::min<u64>(limit, u64(n) * 4 + (1u << 16))));
  ZSTD_inBuffer in{src, n, 0};
  std::size_t produced = 0;
  while (produced < limit) {
    if (produced == out.size()) out.resize(static_cast<std::size_t>(std::min<u64>(limit, 2 * u64(out.size()))));
    ZSTD_outBuffer ob{out.data() + produced, out.size() - produced, 0};
    const std::size_t in_before = in.pos;
    const std::size_t r = ZSTD_decompressStream(dctx.get(), &ob, &in);
    if (ZSTD_isError(r)) {
      error = std::string("Zstd: ") + ZSTD_getErrorName(r);
      out.clear();
      return false;
    }
    produced += ob.pos;
    if (r == 0 && in.pos == in.size) break;  // every frame complete
    if (ob.pos == 0 && in.pos == in_before && produced < out.size()) {
      error = "Zstd data ends inside a frame";
      out.clear();
      return false;
    }
  }
  out.resize(produced);
  return true;
}

int utf8At(std::string_view s, std::size_t i, std::uint32_t& cp) {
  const auto c = static_cast<unsigned char>(s[i]);
  int len;
  std::uint32_t min;
  if (c < 0x80) {
    cp = c;
    return 1;
  } else if ((c & 0xE0) == 0xC0) {
    len = 2, cp = c & 0x1F, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3, cp = c & 0x0F, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4, cp = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + static_cast<std::size_t>(len) > s.size()) return 0;
  for (int k = 1; k < len; ++k) {
    const auto d = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
    if ((d & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

std::string codePoint(std::uint32_t cp) {
  char hex[16];
  std::snprintf(hex, sizeof hex, "U+%04X", static_cast<unsigned>(cp));
  return hex;
}


bool checkText(std::string_view t, Report& r) {
  std::size_t i = 0;
  if (t.size() >= 3 && t.substr(0, 3) == "\xEF\xBB\xBF") {
    r.error("text:0", "the JSON text starts with a byte order mark (BOM); G4MF forbids it");
    i = 3;
  }
  std::size_t cr = 0, ctl = 0, first_cr = 0, first_ctl = 0;
  std::uint32_t ctl_cp = 0;
  while (i < t.size()) {
    std::uint32_t cp;
    const int len = utf8At(t, i, cp);
    if (!len) {
      r.error("text:" + std::to_string(i), "invalid UTF-8 at byte " + std::to_string(i));
      return false;
    }
    if (cp == 0x0D) {
      if (!cr++) first_cr = i;
    } else if (isControl(cp) && cp != 0x09 && cp != 0x0A) {
      if (!ctl++) first_ctl = i, ctl_cp = cp;
    }
    i += static_cast<std::size_t>(len);
  }
  if (cr)
    r.error("text:" + std::to_string(first_cr), "carriage return (CR, U+000D) at byte " + std::to_string(first_cr) + " (" +
                                                    std::to_string(cr) + " in all); G4MF text allows only LF line ends");
  if (ctl) {
    r.error("text:" + std::to_string(first_ctl), "raw control character " + codePoint(ctl_cp) + " at byte " + std::to_string(first_ctl) +
                                                     " (" + std::to_string(ctl) + " in all); only TAB and LF are allowed");
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Checker: the container and buffer bytes

bool Checker::container(std::string_view& text) {
  const u64 n = bytes_.size();
  const unsigned char* p = bytes_.data();
  if (n < 32) {
    r_.error("g4b:header", "a .g4b file has at least 32 bytes (file header and one chunk header); this one has " + str(n));
    return false;
  }
  const u64 version = loadLe(p + 4, 4);
  if (version != 0) {
    r_.error("g4b:header/version", "version is " + str(version) + "; the draft format is version 0");
    return false;
  }
  u64 end = n;
  const u64 declared = loadLe(p + 8, 8);
  if (declared & kTopBit) {
    r_.error("g4b:header/fileSize", "the file size has its top bit set");
  } else if (declared != n) {
    r_.error("g4b:header/fileSize", "the header declares " + str(declared) + " bytes, the file has " + str(n));
    if (declared < n) end = std::max<u64>(declared, 16);
  }
  u64 off = 16;
  while (end - off >= 16) {
    Chunk c;
    c.header_offset = off;
    std::memcpy(c.type, p + off, 4);
    std::memcpy(c.encoding, p + off + 4, 4);
    c.size = loadLe(p + off + 8, 8);
    const std::string where = "g4b:chunks/" + std::to_string(chunks_.size());
    if (c.size & kTopBit) {
      r_.error(where + "/dataSize", "the chunk's data size has its top bit set");
      break;
    }
    if (c.size > end - off - 16) {
      r_.error(where + "/dataSize", "the chunk declares " + str(c.size) + " bytes of data, only " + str(end - off - 16) + " remain");
      break;
    }
    c.data = p + off + 16;
    const u64 data_end = off + 16 + c.size;
    chunkEncoding(c, where);
    if (!c.isType("JSON") && !c.isType("BLOB")) {
      bool printable = true;
      for (char ch : c.type) printable = printable && ch >= 0x20 && ch < 0x7F;
      r_.warn(where + "/type", "unknown chunk type \"" + printable4(c.type) + "\" (ignored)" +
                                   (printable ? "" : "; chunk types should be printable ASCII"));
    }
    chunks_.push_back(c);
    const u64 next = (data_end + 15) & ~u64(15);
    if (next >= end) {
      if (data_end != end) r_.warn(where + "/padding", "padding after the last chunk (it needs none)");
      off = end;
      break;
    }
    if (c.isType("JSON") && c.plain())
      for (u64 k = data_end; k < next; ++k)
        if (p[k] != ' ') {
          r_.warn(where + "/padding", "padding after plain JSON should be spaces (0x20)");
          break;
        }
    off = next;
  }
  if (off < end && end - off < 16 && !chunks_.empty() && off != end)
    r_.warn("g4b:chunks", str(end - off) + " bytes after the last chunk are not a chunk header");
  if (chunks_.empty()) {
    r_.error("g4b:chunks", "the file has no chunk");
    return false;
  }
  for (std::size_t k = 0; k < chunks_.size(); ++k)
    if (chunks_[k].isType("JSON")) {
      json_chunk_ = static_cast<i64>(k);
      break;
    }
  if (json_chunk_ < 0) {
    r_.error("g4b:chunks", "the file has no JSON chunk");
    return false;
  }
  const Chunk& j = chunks_[static_cast<std::size_t>(json_chunk_)];
  const std::string where = "g4b:chunks/" + std::to_string(json_chunk_);
  if (j.plain()) {
    text = std::string_view(reinterpret_cast<const char*>(j.data), static_cast<std::size_t>(j.size));
    return true;
  }
  if (j.zstd()) {
    // Bounded by the file's size before inflating (declared sizes) or while inflating (frames
    // that declare none): a parsed document takes many times its text.
    const u64 cap = std::min<u64>(jsonChunkCap(n), std::numeric_limits<std::size_t>::max() / 2);
    const std::string bound = str(cap) + " bytes (1 MiB + 4 x the file's " + str(n) + " bytes)";
    ZstdFrames frames;
    std::string error;
    const auto size = static_cast<std::size_t>(j.size);
    if (!zstdFrames(j.data, size, frames, error) ||
        (!(frames.known && frames.total > cap) && !zstdDecode(j.data, size, frames, cap + 1, json_owned_, error))) {
      r_.error(where + "/data", "the JSON chunk cannot be decoded: " + error);
      return false;
    }
    if (frames.known && frames.total > cap) {
      r_.error(where + "/data", "the JSON chunk declares " + str(frames.total) + " decoded bytes, more than the " + bound + " it may have");
      return false;
    }
    if (json_owned_.size() > cap) {
      json_owned_.clear();
      r_.error(where + "/data", "the JSON chunk decodes to more than the " + bound + " it may have");
      return false;
    }
    text = json_owned_;
    return true;
  }
  r_.error(where + "/encoding", "the JSON chunk's encoding \"" + printable4(j.encoding) + "\" (the chunk at byte " + str(j.header_offset) +
                                   ") is not supported; rigfit reads plain and Zstd chunks");
  return false;
}

void Checker::chunkEncoding(const Chunk& c, const std::string& where) {
  if (c.reserved()) {
    r_.error(where + "/encoding", "encoding FF FF FF FF is reserved");
  } else if (c.zstd()) {
    if (c.size < 4 || std::memcmp(c.data, "\x28\xB5\x2F\xFD", 4) != 0)
      r_.error(where + "/data", "Zstd data must start with the Zstd magic 28 B5 2F FD");
  } else if (!c.plain()) {
    r_.warn(where + "/encoding", "unsupported encoding \"" + printable4(c.encoding) + "\" (the chunk at byte " + str(c.header_offset) +
                                     "; its data is not checked)");
  }
}

// Finds the buffer's encoded bytes (its chunk, or its base64 data URI) and decodes them (Zstd)
// into out.data; leaves out.data null when they are not available (external, undecodable).
void Checker::bufferData(const std::string& p, const Json* chunk, const Json* uri, const std::string& encoding, Buffer& out) {
  const unsigned char* src = nullptr;
  std::size_t src_size = 0;
  std::string decoded_uri;
  bool from_uri = false;
  if (chunk && binary_) {
    const i64 c = index(chunk, at(p, "chunk"), chunks_.size(), "chunks");
    if (c < 0) return;
    const Chunk& ch = chunks_[static_cast<std::size_t>(c)];
    if (c == json_chunk_) {
      r_.error(at(p, "chunk"), "refers to the JSON chunk");
      return;
    }
    const bool matches = encoding.empty() ? ch.plain() : std::memcmp(ch.encoding, encoding.data(), 4) == 0;
    if (!matches) {
      r_.error(at(p, "encoding"), "the buffer's encoding (" + (encoding.empty() ? std::string("plain") : "\"" + encoding + "\"") +
                                      ") does not match chunk " + std::to_string(c) + "'s (" +
                                      (ch.plain() ? std::string("plain") : "\"" + printable4(ch.encoding) + "\"") + ")");
      return;
    }
    if (ch.reserved() || (!ch.plain() && !ch.zstd())) return;
    src = ch.data;
    src_size = static_cast<std::size_t>(ch.size);
  } else if (uri && !(chunk && binary_)) {
    const std::string& s = uri->asString();
    if (s.rfind("data:", 0) == 0) {
      if (s.rfind(kDataUriPrefix, 0) != 0) {
        r_.error(at(p, "uri"), "a data URI must start with \"" + std::string(kDataUriPrefix) + "\"");
        return;
      }
      if (binary_) r_.warn(at(p, "uri"), "buffers of a .g4b file should not use base64 data URIs");
      std::size_t bad = 0;
      if (!base64Decode(std::string_view(s).substr(kDataUriPrefix.size()), decoded_uri, bad)) {
        r_.error(at(p, "uri"), "invalid base64 at character " + std::to_string(kDataUriPrefix.size() + bad) + " of the URI");
        return;
      }
      src = reinterpret_cast<const unsigned char*>(decoded_uri.data());
      src_size = decoded_uri.size();
      from_uri = true;
    } else {
      r_.warn(at(p, "uri"), "external buffer \"" + s + "\" is not read; its data is not checked");
      external_ = true;
      return;
    }
  } else {
    return;
  }
  if (encoding == "Zstd") {
    const std::string where = chunk && binary_ ? at(p, "chunk") : at(p, "uri");
    ZstdFrames frames;
    std::string error;
    if (!zstdFrames(src, src_size, frames, error)) {
      r_.error(where, "cannot decode the buffer: " + error);
      return;
    }
    if (frames.known && frames.total < out.byte_length) {
      r_.error(at(p, "byteLength"), "is " + str(out.byte_length) + " but the Zstd data declares only " + str(frames.total) + " bytes");
      return;
    }
    // Only byteLength bytes are decoded, within what the file's size allows (zstdBudget).
    if (out.byte_length > zstd_left_) {
      r_.error(at(p, "byteLength"), "is " + str(out.byte_length) + ": more than the " + str(zstdBudget(bytes_.size())) +
                                        " bytes in all that a file of " + str(u64(bytes_.size())) +
                                        " bytes may decode its Zstd buffers to (16 MiB + 16 x its size)");
      return;
    }
    if (!zstdDecode(src, src_size, frames, out.byte_length, out.owned, error)) {
      r_.error(where, "cannot decode the buffer: " + error);
      return;
    }
    zstd_left_ -= out.owned.size();
    zstd_bytes_ += out.owned.size();
  } else if (from_uri) {
    out.owned = std::move(decoded_uri);
  } else if (src_size < out.byte_length) {
    r_.error(at(p, "byteLength"), "is " + str(out.byte_length) + " but chunk " + str(u64(chunk->asInt())) + " has only " +
                                      str(u64(src_size)) + " bytes");
    return;
  } else {
    out.data = src;
    return;
  }
  if (out.owned.size() < out.byte_length) {
    r_.error(at(p, "byteLength"), "is " + str(out.byte_length) + " but the data has only " + str(u64(out.owned.size())) + " bytes");
    return;
  }
  out.data = reinterpret_cast<const unsigned char*>(out.owned.data());
}

}  // namespace rigfit::g4mf
