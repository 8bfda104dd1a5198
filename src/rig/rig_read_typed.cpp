// The typed rig reader (RigParse::kTyped): simdjson On-Demand straight into the typed fields of a
// RigDefinition, without building rigfit's Json tree, so loading a rig for fitting runs at the
// speed of the JSON scan. Every value it does not type is still checked (grammar, escapes,
// duplicate keys) so that it accepts exactly the files the full reader accepts. Whenever anything
// is unusual -- an error, a case the full reader treats specially, a version 100 file with
// Rigify data -- it gives up and the full reader decides, so results and error messages are
// always the full reader's.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <memory>

#include <simdjson.h>

#include "core/json_number.hpp"
#include "rig/rig_read_typed.hpp"

namespace rigfit::detail {
namespace {

namespace od = simdjson::ondemand;


// Unique keys, as the full reader requires of every object (keys[from..] are one object's).
bool uniqueKeys(std::vector<std::string_view>& keys, std::size_t from = 0) {
  const std::size_t n = keys.size() - from;
  if (n < 2) return true;
  const std::string_view* k = keys.data() + from;
  if (n <= 16) {
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = a + 1; b < n; ++b)
        if (k[a] == k[b]) return false;
    return true;
  }
  std::vector<std::string_view> sorted(k, k + n);
  std::sort(sorted.begin(), sorted.end());
  return std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
}

// A field's key without copying: the raw text up to the closing quote when it has no escapes
// (the document is valid, so the quote exists); otherwise simdjson's unescaped copy.
bool fieldKey(od::field& f, std::string_view& out) {
  const char* r = f.key().raw();
  const char* q = r;
  while (*q != '"' && *q != '\\') ++q;
  if (*q == '"') {
    out = std::string_view(r, static_cast<std::size_t>(q - r));
    return true;
  }
  return !f.unescaped_key().get(out);
}

// One field of an object iteration: its key (as fieldKey gives it) and its value.
bool openField(simdjson::simdjson_result<od::field> result, std::string_view& key, od::value& value) {
  od::field field;
  if (std::move(result).get(field) || !fieldKey(field, key)) return false;
  value = field.value();
  return true;
}

template <typename E, std::size_t N>
bool enumFromName(std::string_view s, const char* (*name)(E), const std::array<E, N>& all, E& out) {
  for (E e : all)
    if (s == name(e)) {
      out = e;
      return true;
    }
  return false;
}

struct BoneExtras {
  bool layers_bad = false;       // present but not an array of at most 32 booleans
  bool has_layers = false;       // a non-empty array
  std::uint32_t layer_bits = 0;  // the true entries
  bool rigify_empty = true;
};

class TypedReader {
 public:
  explicit TypedReader(od::parser& parser) : parser_(parser) {}

  bool run(const RigSource& src, RigDefinition& rig) {
    od::document doc;
    if (parser_.iterate(src.text.data(), src.size, src.text.size()).get(doc)) return false;
    od::object top;
    if (doc.get_object().get(top)) return false;
    bool first = true, bones_layout = false, seen_bones = false, has_version = false, has_ui = false;
    std::int64_t version = 0;
    std::vector<std::string_view> keys;
    for (auto result : top) {
      std::string_view key;
      od::value v;
      if (!openField(std::move(result), key, v)) return false;
      keys.push_back(key);
      if (first) bones_layout = key == "bones";
      first = false;
      if (!bones_layout) {  // legacy: the top-level object is the bone dictionary
        od::object o;
        if (v.get_object().get(o) || !bone(key, o, rig)) return false;
        continue;
      }
      if (key == "bones") {
        od::object o;
        if (v.get_object().get(o) || !bones(o, rig)) return false;
        seen_bones = true;
      } else if (key == "joints") {
        return false;  // a .mhskel skeleton: the full reader says so
      } else if (key == "version") {
        double d = 0.0;
        bool integer = false;
        if (!number(v, d, &integer) || !integer) return false;
        version = static_cast<std::int64_t>(d);
        has_version = true;
      } else if (key == "is_subrig") {
        if (v.get_bool().get(rig.is_subrig)) return false;
      } else if (key == "scale_factor") {
        bool null = false;
        if (v.is_null().get(null)) return false;
        if (!null) {
          double d = 0.0;
          if (!number(v, d) || d < 0.0) return false;
          if (d != 0.0) rig.scale_factor = d;  // only truthy values count
        }
      } else if (key == "collections") {
        if (!strings(v, rig.collections)) return false;
      } else if (key == "extra_bones") {
        if (!strings(v, rig.extra_bones)) return false;
      } else {
        has_ui = has_ui || key == "rigify_ui";
        if (!check(v, 1)) return false;
      }
    }
    if (!uniqueKeys(keys)) return false;
    if (bones_layout) {
      if (!seen_bones || !has_version || version < 100 || version > 110) return false;
      rig.layout = RigLayout::kBones;
      rig.source_version = static_cast<int>(version);
    } else {
      rig.layout = RigLayout::kLegacy;
      rig.source_version = 100;
    }
    rig.version = 110;
    if (rig.source_version < 110 && !upgrade(has_ui, rig)) return false;
    return true;
  }

 private:
  // Version 100 -> 110 for the typed fields, in the cases without Rigify data (no rigify_ui, every
  // bone's `rigify` empty): layers become collections named "Bones", "Layer 2", ... (§2.4).
  bool upgrade(bool has_ui, RigDefinition& rig) {
    if (has_ui) return false;
    std::uint32_t used = 0;
    auto name = [](int bit) { return bit == 0 ? std::string("Bones") : "Layer " + std::to_string(bit + 1); };
    for (std::size_t i = 0; i < rig.bones.size(); ++i) {
      const BoneExtras& x = extras_[i];
      if (x.layers_bad || !x.rigify_empty) return false;
      if (!x.has_layers) continue;
      BoneDef& b = rig.bones[i];
      b.collections.clear();
      for (int bit = 0; bit < 32; ++bit)
        if (x.layer_bits & (1u << bit)) b.collections.push_back(name(bit));
      std::sort(b.collections.begin(), b.collections.end());
      used |= x.layer_bits;
    }
    if (used) {
      rig.collections.clear();
      for (int bit = 0; bit < 32; ++bit)
        if (used & (1u << bit)) rig.collections.push_back(name(bit));
    }
    return true;
  }

  bool bones(od::object o, RigDefinition& rig) {
    std::vector<std::string_view> names;
    for (auto result : o) {
      std::string_view key;
      od::value v;
      od::object bo;
      if (!openField(std::move(result), key, v)) return false;
      if (v.get_object().get(bo)) return false;
      names.push_back(key);
      if (!bone(key, bo, rig)) return false;
    }
    return uniqueKeys(names);
  }

  // A number token (int or float) as a finite double; `integer`: written without '.' or exponent.
  static bool number(od::value& v, double& out, bool* integer = nullptr) {
    const std::string_view raw = v.raw_json_token();
    if (fastDecimal(raw, out)) {
      if (integer) *integer = false;
      return true;
    }
    bool is_int = true;
    const std::string_view tok = numberToken(raw, is_int);
    const std::size_t n = tok.size();
    if (integer) *integer = is_int;
    if (is_int) {
      std::int64_t i = 0;
      if (!parseInt(tok, i)) return false;
      out = static_cast<double>(i);
      return true;
    }
    // simdjson 3.0.1's On-Demand get_double misreads "0." + more than 19 decimals (fixed in
    // 3.6.3): those go through std::from_chars. simdjson checks the grammar of the others.
    const bool zero_int = tok.starts_with("0.") || tok.starts_with("-0.");
    if (zero_int && n > 20) {
      if (!detail::isJsonNumber(tok)) return false;
      const auto r = std::from_chars(tok.data(), tok.data() + tok.size(), out);
      return r.ec == std::errc() && std::isfinite(out);
    }
    return !v.get_double().get(out) && std::isfinite(out);
  }

  // A plain decimal (-?(0|[1-9][0-9]*).[0-9]+, no exponent) whose digits form m <= 2^53 with at
  // most 22 decimals is m / 10^k, both exact doubles: one correctly rounded division, the double
  // std::from_chars and simdjson give (Clinger's fast path). False: not such a token.
  static bool fastDecimal(std::string_view raw, double& out) {
    const char* p = raw.data();
    const char* e = p + raw.size();
    const bool neg = p < e && *p == '-';
    if (neg) ++p;
    const char* int_start = p;
    std::uint64_t m = 0;
    int significant = 0;  // digits from the first non-zero one: 19 cannot overflow m
    auto digits = [&] {
      while (p < e && static_cast<unsigned>(*p - '0') <= 9u) {
        m = m * 10 + static_cast<unsigned>(*p++ - '0');
        significant += m != 0;
      }
    };
    digits();
    const std::ptrdiff_t int_digits = p - int_start;
    if (int_digits == 0 || (int_digits > 1 && *int_start == '0') || p >= e || *p != '.') return false;
    const char* frac_start = ++p;
    digits();
    const std::ptrdiff_t frac = p - frac_start;
    if (frac == 0 || frac > 22 || significant > 19 || m > (std::uint64_t{1} << 53)) return false;
    if (p < e && !(*p == ',' || *p == ']' || *p == '}' || *p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) return false;
    static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const double x = static_cast<double>(m) / kPow10[frac];
    out = neg ? -x : x;
    return true;
  }

  // An integer token of at most 18 digits (longer ones are left to the full reader).
  static bool parseInt(std::string_view tok, std::int64_t& out) {
    std::size_t p = 0;
    const bool neg = !tok.empty() && tok[0] == '-';
    if (neg) ++p;
    const std::size_t digits = tok.size() - p;
    if (digits == 0 || digits > 18 || (digits > 1 && tok[p] == '0')) return false;
    std::int64_t v = 0;
    for (; p < tok.size(); ++p) {
      const unsigned d = static_cast<unsigned char>(tok[p]) - static_cast<unsigned>('0');
      if (d > 9) return false;
      v = v * 10 + static_cast<std::int64_t>(d);
    }
    out = neg ? -v : v;
    return true;
  }

  // The characters of a number token at the start of `raw`; `is_int`: no '.', 'e' or 'E'.
  static std::string_view numberToken(std::string_view raw, bool& is_int) {
    std::size_t n = 0;
    is_int = true;
    for (; n < raw.size(); ++n) {
      const char c = raw[n];
      if (c == '.' || c == 'e' || c == 'E') is_int = false;
      else if (!((c >= '0' && c <= '9') || c == '-' || c == '+')) break;
    }
    return raw.substr(0, n);
  }

  // An integer token (written without '.' or exponent, at most 18 digits).
  static bool integer(od::value& v, std::int64_t& out) {
    bool is_int = false;
    const std::string_view tok = numberToken(v.raw_json_token(), is_int);
    return is_int && parseInt(tok, out);
  }

  static bool vec3(od::value& v, Vec3d& out) {
    od::array a;
    if (v.get_array().get(a)) return false;
    std::size_t k = 0;
    for (auto e : a) {
      od::value c;
      if (e.get(c) || k == 3 || !number(c, out[k])) return false;
      ++k;
    }
    return k == 3;
  }

  static bool strings(od::value& v, std::vector<std::string>& out) {
    od::array a;
    if (v.get_array().get(a)) return false;
    for (auto e : a) {
      std::string_view s;
      if (e.get_string().get(s)) return false;
      out.emplace_back(s);
    }
    return true;
  }

  // Checks a value the typed fields do not need, as the full reader would parse it.
  bool check(od::value& v, int depth) {
    if (depth > 1000) return false;
    od::json_type t;
    if (v.type().get(t)) return false;
    switch (t) {
      case od::json_type::object: {
        od::object o;
        if (v.get_object().get(o)) return false;
        const std::size_t mark = keys_.size();
        for (auto result : o) {
          std::string_view key;
          od::value c;
          if (!openField(std::move(result), key, c)) return false;
          keys_.push_back(key);
          if (!check(c, depth + 1)) return false;
        }
        const bool unique = uniqueKeys(keys_, mark);
        keys_.resize(mark);
        return unique;
      }
      case od::json_type::array: {
        od::array a;
        if (v.get_array().get(a)) return false;
        for (auto e : a) {
          od::value c;
          if (e.get(c) || !check(c, depth + 1)) return false;
        }
        return true;
      }
      case od::json_type::number: {
        double d = 0.0;
        return number(v, d);
      }
      case od::json_type::string: {
        std::string_view s;
        return !v.get_string().get(s);
      }
      case od::json_type::boolean: {
        bool b = false;
        return !v.get_bool().get(b);
      }
      case od::json_type::null: {
        bool null = false;
        return !v.is_null().get(null) && null;
      }
    }
    return false;
  }

  bool end(od::value& v, EndDef& e) {
    od::object o;
    if (v.get_object().get(o)) return false;
    std::string_view strategy, cube;
    bool has_strategy = false, has_cube = false, has_index = false, has_indices = false;
    std::int64_t index = 0;
    std::vector<std::string_view> keys;
    std::vector<std::int64_t> indices;
    for (auto result : o) {
      std::string_view key;
      od::value c;
      if (!openField(std::move(result), key, c)) return false;
      keys.push_back(key);
      if (key == "strategy") {
        if (c.get_string().get(strategy)) return false;
        has_strategy = true;
      } else if (key == "cube_name") {
        // Only a CUBE end needs it to be a string; otherwise it is just checked.
        od::json_type t;
        if (c.type().get(t)) return false;
        if (t == od::json_type::string) {
          if (c.get_string().get(cube)) return false;
          has_cube = true;
        } else if (!check(c, 2)) {
          return false;
        }
      } else if (key == "vertex_index") {
        // Only a VERTEX end needs an integer here; anything else is just checked.
        if (integer(c, index)) has_index = true;
        else if (!check(c, 2)) return false;
      } else if (key == "vertex_indices") {
        od::json_type t;
        if (c.type().get(t)) return false;
        if (t != od::json_type::array) {
          if (!check(c, 2)) return false;
          continue;
        }
        od::array a;
        if (c.get_array().get(a)) return false;
        has_indices = true;
        for (auto x : a) {
          od::value xv;
          std::int64_t i = 0;
          if (x.get(xv)) return false;
          // A non-integer entry is an error only for MEAN/XYZ: let the full reader judge.
          if (!integer(xv, i)) return false;
          indices.push_back(i);
        }
      } else if (key == "offset") {
        Vec3d o3{};
        if (!vec3(c, o3)) return false;
        e.offset = o3;
      } else if (key == "default_position") {
        Vec3d d3{};
        if (!vec3(c, d3)) return false;
        e.default_position = d3;
      } else if (!check(c, 2)) {
        return false;
      }
    }
    if (!uniqueKeys(keys) || !has_strategy) return false;
    static constexpr std::array kAll{Strategy::kCube, Strategy::kVertex, Strategy::kMean, Strategy::kXyz, Strategy::kDefault};
    if (!enumFromName(strategy, strategyName, kAll, e.strategy)) return false;
    switch (e.strategy) {
      case Strategy::kCube:
        if (!has_cube) return false;
        e.cube_name = cube;
        break;
      case Strategy::kVertex:
        if (!has_index) return false;
        e.vertex_index = index;
        break;
      case Strategy::kMean:
      case Strategy::kXyz:
        if (!has_indices || indices.size() < (e.strategy == Strategy::kMean ? 1u : 3u)) return false;
        e.vertex_indices = std::move(indices);
        break;
      case Strategy::kDefault: break;
    }
    return true;
  }

  bool bone(std::string_view name, od::object o, RigDefinition& rig) {
    BoneDef b;
    b.name = name;
    BoneExtras x;
    unsigned required = 0;  // bits: head tail roll parent connect local_location inherit_rotation inherit_scale rigify
    std::vector<std::string_view> keys;
    for (auto result : o) {
      std::string_view key;
      od::value v;
      if (!openField(std::move(result), key, v)) return false;
      keys.push_back(key);
      bool ok = true;
      if (key == "head") {
        ok = end(v, b.head);
        required |= 1u;
      } else if (key == "tail") {
        ok = end(v, b.tail);
        required |= 2u;
      } else if (key == "roll") {
        ok = number(v, b.roll);
        required |= 4u;
      } else if (key == "parent") {
        std::string_view s;
        ok = !v.get_string().get(s);
        b.parent = s;
        required |= 8u;
      } else if (key == "use_connect") {
        ok = !v.get_bool().get(b.use_connect);
        required |= 16u;
      } else if (key == "use_local_location") {
        ok = !v.get_bool().get(b.use_local_location);
        required |= 32u;
      } else if (key == "use_inherit_rotation") {
        ok = !v.get_bool().get(b.use_inherit_rotation);
        required |= 64u;
      } else if (key == "inherit_scale") {
        std::string_view s;
        static constexpr std::array kScales{InheritScale::kFull, InheritScale::kFixShear, InheritScale::kAligned,
                                            InheritScale::kAverage, InheritScale::kNone, InheritScale::kNoneLegacy};
        ok = !v.get_string().get(s) && enumFromName(s, inheritScaleName, kScales, b.inherit_scale);
        required |= 128u;
      } else if (key == "rigify") {
        od::object r;
        ok = !v.get_object().get(r);
        if (ok) {
          const std::size_t mark = keys_.size();
          for (auto rf : r) {
            std::string_view k;
            od::value c;
            if (!openField(std::move(rf), k, c)) return false;
            if (!check(c, 3)) return false;
            keys_.push_back(k);
            x.rigify_empty = false;
          }
          ok = uniqueKeys(keys_, mark);
          keys_.resize(mark);
        }
        required |= 256u;
      } else if (key == "rotation_mode") {
        std::string_view s;
        static constexpr std::array kModes{RotationMode::kQuaternion, RotationMode::kXYZ, RotationMode::kXZY, RotationMode::kYXZ,
                                           RotationMode::kYZX, RotationMode::kZXY, RotationMode::kZYX, RotationMode::kAxisAngle};
        ok = !v.get_string().get(s) && enumFromName(s, rotationModeName, kModes, b.rotation_mode);
      } else if (key == "roll_strategy") {
        bool null = false;
        if (v.is_null().get(null)) return false;
        if (!null) {
          std::string_view s;
          static constexpr std::array kRolls{RollStrategy::kAlignZWorldZ, RollStrategy::kAlignXWorldX, RollStrategy::kAlignZReferenceZ};
          ok = !v.get_string().get(s) && (s.empty() || enumFromName(s, rollStrategyName, kRolls, b.roll_strategy));
        }
      } else if (key == "roll_reference_z") {
        bool null = false;
        if (v.is_null().get(null)) return false;
        if (!null) {
          Vec3d z{};
          ok = vec3(v, z);
          b.roll_reference_z = z;
        }
      } else if (key == "collections") {
        ok = strings(v, b.collections);
      } else if (key == "constraints" || key == "bendy_bone") {
        od::json_type t;
        ok = !v.type().get(t) && t == (key == "constraints" ? od::json_type::array : od::json_type::object) && check(v, 2);
      } else if (key == "layers") {
        od::json_type t;
        if (v.type().get(t)) return false;
        if (t == od::json_type::array) {
          od::array a;
          if (v.get_array().get(a)) return false;
          int k = 0;
          for (auto e : a) {
            od::value ev;
            od::json_type et;
            if (e.get(ev) || ev.type().get(et)) return false;
            if (et == od::json_type::boolean) {
              bool bit = false;
              if (ev.get_bool().get(bit)) return false;
              if (bit && k < 32) x.layer_bits |= 1u << k;
            } else {  // not a boolean: the full reader decides (once the value is checked)
              if (!check(ev, 3)) return false;
              x.layers_bad = true;
            }
            ++k;
          }
          x.has_layers = k > 0;
          if (k > 32) x.layers_bad = true;
        } else {
          ok = check(v, 2);
          x.layers_bad = true;
        }
      } else {
        ok = check(v, 2);
      }
      if (!ok) return false;
    }
    if (required != 511u || !uniqueKeys(keys)) return false;
    rig.bones.push_back(std::move(b));
    extras_.push_back(x);
    return true;
  }

  od::parser& parser_;
  std::vector<BoneExtras> extras_;
  std::vector<std::string_view> keys_;  // scratch stack for nested duplicate-key checks
};

}  // namespace

std::shared_ptr<const RigSource> makeRigSource(std::string_view text) {
  auto src = std::make_shared<RigSource>();
  src->size = text.size();
  src->text.reserve(text.size() + simdjson::SIMDJSON_PADDING);
  src->text.assign(text);
  src->text.resize(text.size() + simdjson::SIMDJSON_PADDING, '\0');
  return src;
}

bool readRigTyped(const std::shared_ptr<const RigSource>& src, std::string_view label, RigDefinition& rig) {
  thread_local od::parser parser;
  rig = RigDefinition();
  rig.label = std::string(label);
  if (!TypedReader(parser).run(*src, rig)) return false;
  rig.final_newline = src->size > 0 && src->text[src->size - 1] == '\n';
  rig.source = src;
  return true;
}

}  // namespace rigfit::detail
