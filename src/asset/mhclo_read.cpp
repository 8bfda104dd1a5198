// The `.mhclo` / `.proxy` reader: MPFB's Mhclo.load() (docs/mpfb-assets.md §1), quirks included.
#include <algorithm>
#include <cctype>

#include "asset/asset_text.hpp"
#include "core/file_io.hpp"
#include "rigfit/asset.hpp"

namespace rigfit {

namespace {

using detail::isPlainDigits;
using detail::LineReader;
using detail::parsePythonFloat;
using detail::parsePythonInt;
using detail::quoteToken;

// More would only list vertices no body has; the bound keeps a hostile range from exhausting memory.
constexpr std::size_t kMaxDeleteVerts = std::size_t(1) << 20;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool contains(std::string_view haystack, std::string_view needle) { return haystack.find(needle) != std::string_view::npos; }

class ProxyReader {
 public:
  ProxyReader(std::string_view text, std::string_view label) : lines_(text) { file_.label = std::string(label); }

  Expected<ProxyFile> run() {
    enum class Section { kNone, kVerts, kDelete } section = Section::kNone;
    bool vertex_numbering_broken = false;  // MPFB's vertex counter reused by a delete range
    while (lines_.next()) {
      const auto& w = lines_.tokens();
      if (w.empty()) {
        section = Section::kNone;  // a blank line ends a section (and is consumed)
        continue;
      }
      if (w[0] == "#") {
        comment(w);
        continue;
      }
      if (w[0] == "material") {
        if (w.size() < 2) return fail("material without a file");
        file_.material = std::string(w[1]);
        continue;
      }
      if (w[0].substr(0, 17) == "vertexboneweights") {
        if (w[0] == "vertexboneweights_file" && w.size() >= 2) file_.vertexboneweights_file = std::string(w[1]);
        continue;
      }
      if (section == Section::kVerts) {
        if (!isPlainDigits(w[0])) {
          section = Section::kNone;  // the line that ends the section is consumed (MPFB's quirk)
          continue;
        }
        if (vertex_numbering_broken)
          return fail("vertex line after a delete_verts range (MPFB would number the vertices wrongly)");
        RIGFIT_TRY(vertexLine(w));
        continue;
      }
      if (section == Section::kDelete) {
        if (!isPlainDigits(w[0])) {
          section = Section::kNone;
          continue;
        }
        bool ranged = false;
        RIGFIT_TRY(deleteLine(w, ranged));
        vertex_numbering_broken = vertex_numbering_broken || ranged;
        continue;
      }
      const std::string_view key = w[0];
      if (key == "obj_file") {
        RIGFIT_TRY(need(w, 2));
        file_.obj_file = std::string(w[1]);
      } else if (key == "verts") {
        if (w.size() > 1) {  // `verts` alone starts no section
          std::int64_t ignored = 0;
          if (!parsePythonInt(w[1], ignored)) return fail("verts: " + quoteToken(w[1]) + " is not an integer");
          section = Section::kVerts;
        }
      } else if (key == "x_scale" || key == "y_scale" || key == "z_scale") {
        RIGFIT_TRY(need(w, 4));
        AssetScaleRef s;
        if (!parsePythonInt(w[1], s.a) || !parsePythonInt(w[2], s.b))
          return fail(std::string(key) + ": vertex index " + quoteToken(parsePythonInt(w[1], s.a) ? w[2] : w[1]) + " is not an integer");
        if (!parsePythonFloat(w[3], s.ref)) return fail(std::string(key) + ": " + quoteToken(w[3]) + " is not a finite number");
        (key[0] == 'x' ? file_.x_scale : key[0] == 'y' ? file_.y_scale : file_.z_scale) = s;
      } else if (key == "name") {
        RIGFIT_TRY(need(w, 2));
        file_.name = std::string(w[1]);
      } else if (key == "z_depth") {
        RIGFIT_TRY(need(w, 2));
        if (!parsePythonInt(w[1], file_.z_depth)) return fail("z_depth: " + quoteToken(w[1]) + " is not an integer");
      } else if (key == "uuid") {
        RIGFIT_TRY(need(w, 2));
        file_.uuid = std::string(w[1]);
      } else if (key == "tag") {
        RIGFIT_TRY(need(w, 2));
        if (!file_.tags.empty()) file_.tags += ',';
        file_.tags += lower(w[1]);
      } else if (key == "delete_verts") {
        file_.has_delete_verts = true;
        section = Section::kDelete;
      }
      // Every other key (basemesh, shear_*, special_pose, backface_culling, transparent, uvLayer,
      // max_pole, MakeHuman 1.x tool keys) is skipped, as MPFB skips it.
    }
    if (file_.bindings.size() == 0) return makeError(ErrorCode::kSchema, file_.label + ": no vertex bindings (no `verts` section)");
    return std::move(file_);
  }

 private:
  Error fail(const std::string& what) const {
    return makeError(ErrorCode::kSyntax, file_.label + ": line " + std::to_string(lines_.lineNumber()) + ": " + what);
  }

  Status need(const std::vector<std::string_view>& w, std::size_t n) const {
    if (w.size() >= n) return {};
    return fail(std::string(w[0]) + " needs " + std::to_string(n - 1) + (n == 2 ? " value" : " values"));
  }

  // `# author X`, `# license ...`, `# description ...` (key matched as a substring, as MPFB does).
  void comment(const std::vector<std::string_view>& w) {
    if (w.size() <= 2) return;
    const std::string key = lower(w[1]);
    if (contains(key, "author")) {
      file_.author = std::string(w[2]);
    } else if (contains(key, "license")) {
      const std::string line = lower(lines_.line());
      if (contains(line, "by")) file_.license = "CC-BY";
      else if (contains(line, "apgl")) file_.license = "AGPL";  // sic: MPFB's spelling
    } else if (contains(key, "description")) {
      std::string d;
      for (std::size_t i = 2; i < w.size(); ++i) {
        if (i > 2) d += ' ';
        d += w[i];
      }
      file_.description = std::move(d);
    }
  }

  Status vertexLine(const std::vector<std::string_view>& w) {
    AssetBindings& b = file_.bindings;
    std::int64_t v[3];
    double weight[3] = {1.0, 0.0, 0.0};
    double d[3] = {0.0, 0.0, 0.0};
    if (w.size() == 1) {
      parsePythonInt(w[0], v[0]);  // plain digits: always an integer
      v[1] = v[2] = v[0];
    } else {
      if (w.size() < 9)
        return fail("vertex line " + std::to_string(b.size()) + " has " + std::to_string(w.size()) +
                    " values; expected 1 (a body vertex) or 9 (3 vertices, 3 weights, 3 offsets)");
      for (int k = 0; k < 3; ++k)
        if (!parsePythonInt(w[k], v[k])) return fail("vertex line " + std::to_string(b.size()) + ": " + quoteToken(w[k]) + " is not an integer");
      for (int k = 0; k < 6; ++k)
        if (!parsePythonFloat(w[3 + k], k < 3 ? weight[k] : d[k - 3]))
          return fail("vertex line " + std::to_string(b.size()) + ": " + quoteToken(w[3 + k]) + " is not a finite number");
    }
    b.vertices.insert(b.vertices.end(), {v[0], v[1], v[2]});
    b.weights.insert(b.weights.end(), {weight[0], weight[1], weight[2]});
    // MPFB keeps Vector((dx, -dz, dy)): float32 components.
    b.offsets.insert(b.offsets.end(), {static_cast<float>(d[0]), -static_cast<float>(d[2]), static_cast<float>(d[1])});
    return {};
  }

  // Numbers and `a - b` ranges (inclusive); a `-` carries to the next number on the same line only.
  Status deleteLine(const std::vector<std::string_view>& w, bool& ranged) {
    bool sequence = false;
    for (const std::string_view t : w) {
      if (t == "-") {
        sequence = true;
        continue;
      }
      std::int64_t v1 = 0;
      if (!parsePythonInt(t, v1)) return fail("delete_verts: " + quoteToken(t) + " is not an integer");
      if (sequence) {
        if (v1 >= previous_) {
          const std::uint64_t span = static_cast<std::uint64_t>(v1) - static_cast<std::uint64_t>(previous_);
          if (span >= kMaxDeleteVerts - file_.delete_verts.size())
            return fail("delete_verts: the range " + std::to_string(previous_) + " - " + std::to_string(v1) + " lists more than " +
                        std::to_string(kMaxDeleteVerts) + " vertices");
          for (std::uint64_t k = 0; k <= span; ++k) file_.delete_verts.push_back(previous_ + static_cast<std::int64_t>(k));
          ranged = true;
        }
        sequence = false;
      } else {
        if (file_.delete_verts.size() >= kMaxDeleteVerts)
          return fail("delete_verts lists more than " + std::to_string(kMaxDeleteVerts) + " vertices");
        file_.delete_verts.push_back(v1);
      }
      previous_ = v1;
    }
    return {};
  }

  LineReader lines_;
  ProxyFile file_;
  std::int64_t previous_ = 0;  // the number before a `-`
};

}  // namespace

Expected<ProxyFile> parseProxyFile(std::string_view text, std::string_view label) { return ProxyReader(text, label).run(); }

Expected<ProxyFile> readProxyFile(const std::string& path) {
  auto text = loadFile(path);
  if (!text) return text.error();
  return parseProxyFile(text->text(), path);
}

}  // namespace rigfit
