// The typed rig reader (RigParse::kTyped): the text is read straight into the typed fields of a
// RigDefinition with rigfit's validating scanner (core/json_scan.hpp), without building rigfit's
// Json tree or simdjson's tape, so loading a rig for fitting runs at the speed of a byte scan.
// Every value it does not type is still checked (grammar, strings, numbers, duplicate keys) so
// that it accepts exactly the files the full reader accepts. Whenever anything is unusual -- an
// error, an escaped string, a case the full reader treats specially, a version 100 file with
// Rigify data -- it gives up and the full reader decides, so results and error messages are
// always the full reader's.
#include <algorithm>
#include <array>
#include <iterator>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <simdjson.h>

#include "core/json_scan.hpp"
#include "rig/rig_read_typed.hpp"

namespace rigfit::detail {
namespace {

// The enum value named `s`, a string in the scanner's text (readable 24 bytes on: the text's
// padding). The names (the *Name functions are their one source) are copied once into
// zero-padded words, so that a match is a length compare and up to three word compares.
template <auto kName, typename E, std::size_t N>
bool enumFromName(std::string_view s, const std::array<E, N>& all, E& out) {
  struct Name {
    std::size_t size = 0;
    std::uint64_t words[3] = {};
  };
  static const std::array<Name, N> names = [&] {
    std::array<Name, N> n{};
    for (std::size_t i = 0; i < N; ++i) {
      const std::string_view v = kName(all[i]);
      n[i].size = v.size();  // names are at most 24 bytes
      std::memcpy(n[i].words, v.data(), std::min<std::size_t>(v.size(), sizeof n[i].words));
    }
    return n;
  }();
  if (s.size() > 24) return false;
  std::uint64_t w[3];
  std::memcpy(w, s.data(), sizeof w);
  // Bytes of s beyond its length are cleared, word by word.
  for (std::size_t k = 0; k < 3; ++k) {
    const std::size_t have = s.size() > 8 * k ? s.size() - 8 * k : 0;
    if (have >= 8) continue;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w[k] &= have == 0 ? 0 : ~std::uint64_t{0} << (64 - 8 * have);
#else
    w[k] &= have == 0 ? 0 : ~std::uint64_t{0} >> (64 - 8 * have);
#endif
  }
  for (std::size_t i = 0; i < N; ++i)
    if (names[i].size == s.size() && names[i].words[0] == w[0] && names[i].words[1] == w[1] && names[i].words[2] == w[2]) {
      out = all[i];
      return true;
    }
  return false;
}

// `s` (empty) set to `v`: append copies straight into the string's buffer, where assign goes
// through std::string's general replace (aliasing checks).
inline void setString(std::string& s, std::string_view v) { s.append(v.data(), v.size()); }

// The keys of a bone and of a bone end. A bone key's number is its bit in the duplicate mask;
// the first nine are required.
enum BoneKey : unsigned {
  kHead, kTail, kRoll, kParent, kUseConnect, kUseLocalLocation, kUseInheritRotation, kInheritScale, kRigify,
  kRotationMode, kRollStrategy, kRollReferenceZ, kCollections, kConstraints, kBendyBone, kLayers, kOtherBoneKey
};
constexpr unsigned kRequiredBoneKeys = (1u << 9) - 1;
constexpr std::string_view kBoneKeyNames[] = {"head", "tail", "roll", "parent", "use_connect", "use_local_location", "use_inherit_rotation",
                                              "inherit_scale", "rigify", "rotation_mode", "roll_strategy", "roll_reference_z", "collections",
                                              "constraints", "bendy_bone", "layers"};
static_assert(std::size(kBoneKeyNames) == kOtherBoneKey);

enum EndKey : unsigned { kStrategy, kCubeName, kVertexIndex, kVertexIndices, kOffset, kDefaultPosition, kOtherEndKey };
constexpr std::string_view kEndKeyNames[] = {"strategy", "cube_name", "vertex_index", "vertex_indices", "offset", "default_position"};
static_assert(std::size(kEndKeyNames) == kOtherEndKey);

// The known keys as Scanner::knownKey patterns.
template <std::size_t N>
constexpr std::array<Scanner::KeyPattern, N> keyPatterns(const std::string_view (&names)[N]) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) { return std::array<Scanner::KeyPattern, N>{Scanner::KeyPattern(names[I])...}; }(
      std::make_index_sequence<N>());
}
constexpr auto kBoneKeyPatterns = keyPatterns(kBoneKeyNames);
constexpr auto kEndKeyPatterns = keyPatterns(kEndKeyNames);

// Which key followed which in the objects read so far (bones, ends): MPFB writes keys sorted,
// so the next key is usually the one that followed the same key in the last object, and is then
// matched with one compare (Scanner::knownKey). Slot kOther (no prediction) and a start slot.
template <typename Key, Key kOther>
struct KeyOrder {
  static constexpr unsigned kStart = kOther + 1;
  Key next[kOther + 2];
  KeyOrder() { std::fill(std::begin(next), std::end(next), kOther); }
};

// A key's number in `names`, or the number after the last for any other key. Only used when the
// key is not the one KeyOrder predicts (mostly in a file's first bone).
template <typename Key, std::size_t N>
Key keyNumber(std::string_view k, const std::string_view (&names)[N]) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == k) return static_cast<Key>(i);
  return static_cast<Key>(N);
}

struct BoneExtras {
  bool layers_bad = false;       // present but not an array of at most 32 booleans
  bool has_layers = false;       // a non-empty array
  std::uint32_t layer_bits = 0;  // the true entries
  bool rigify_empty = true;
};

class TypedReader {
 public:
  bool run(const RigSource& src, RigDefinition& rig) {
    if (!s_.open(src.text.data(), src.size) || !s_.eat('{')) return false;
    // Shipped rigs take 710 to 1,600 bytes a bone: one allocation, no regrowth (a regrowth moves
    // every bone); at most 250 bones (126 KB) up front, so that the array stays in the heap
    // (glibc maps blocks of 128 KB or more afresh, and every parse would then fault its pages in).
    const std::size_t bones_guess = std::min<std::size_t>(src.size / 700 + 8, 250);
    rig.bones.reserve(bones_guess);
    extras_.reserve(bones_guess);
    keys_.reserve(64);
    bool first = true, bones_layout = false, seen_bones = false, has_version = false, has_ui = false;
    std::int64_t version = 0;
    std::vector<std::string_view> keys;
    keys.reserve(bones_guess);  // a legacy file's bone names
    int more = s_.first('}') ? 1 : 0;
    for (; more == 1; more = s_.next('}')) {
      std::string_view key;
      if (!s_.key(key)) return false;
      keys.push_back(key);
      if (first) bones_layout = key == "bones";
      first = false;
      if (!bones_layout) {  // legacy: the top-level object is the bone dictionary
        if (!bone(key, rig)) return false;
        continue;
      }
      if (key == "bones") {
        if (!bones(rig)) return false;
        seen_bones = true;
      } else if (key == "joints") {
        return false;  // a .mhskel skeleton: the full reader says so
      } else if (key == "version") {
        NumberToken t;
        if (!s_.number(t) || !t.integer) return false;
        version = static_cast<std::int64_t>(t.value);
        has_version = true;
      } else if (key == "is_subrig") {
        if (!s_.boolean(rig.is_subrig)) return false;
      } else if (key == "scale_factor") {
        if (!s_.null()) {
          NumberToken t;
          if (!s_.number(t) || t.value < 0.0) return false;
          if (t.value != 0.0) rig.scale_factor = t.value;  // only truthy values count
        }
      } else if (key == "collections") {
        if (!strings(rig.collections)) return false;
      } else if (key == "extra_bones") {
        if (!strings(rig.extra_bones)) return false;
      } else {
        has_ui = has_ui || key == "rigify_ui";
        if (!s_.skip(keys_, 1)) return false;
      }
    }
    if (more != 0 || !s_.atEnd() || !Scanner::uniqueKeys(keys)) return false;
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
  // The next key of a bone or end object (`names`, and `patterns` made from them): the one
  // `order` predicts after `prev` when it matches, else read by key() (`key` set) and looked up,
  // which updates the prediction.
  template <typename Key, Key kOther, std::size_t N>
  [[gnu::always_inline]] bool nextKey(KeyOrder<Key, kOther>& order, const std::string_view (&names)[N],
                                      const std::array<Scanner::KeyPattern, N>& patterns, unsigned& prev, Key& which,
                                      std::string_view& key) {
    which = order.next[prev];
    if (which == kOther || !s_.knownKey(patterns[which])) {
      if (!s_.key(key)) return false;
      which = keyNumber<Key>(key, names);
      order.next[prev] = which;
    }
    prev = which;
    return true;
  }

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

  bool bones(RigDefinition& rig) {
    if (!s_.eat('{')) return false;
    std::vector<std::string_view> names;
    names.reserve(rig.bones.capacity());
    int more = s_.first('}') ? 1 : 0;
    for (; more == 1; more = s_.next('}')) {
      std::string_view key;
      if (!s_.key(key) || !bone(key, rig)) return false;
      names.push_back(key);
    }
    return more == 0 && Scanner::uniqueKeys(names);
  }

  // Any number token, as a finite double.
  bool number(double& out) {
    NumberToken t;
    if (!s_.number(t)) return false;
    out = t.value;
    return true;
  }

  // [x, y, z]: two a bone, so read on a local cursor (no scanner calls between its tokens), with a
  // guess of its own for each kind of line break (before a number, before the ']').
  bool vec3(Vec3d& out) {
    const char* p = s_.pos();
    if (*p != '[') return false;
    p = skipSpace(p + 1, vec_item_indent_);
    for (int k = 0; k < 3; ++k) {
      NumberToken t;
      if (!scanDecimal(p, t) && !otherNumber(p, t)) return false;
      out[k] = t.value;
      p = skipSpace(t.end, vec_close_indent_);
      if (k == 2) break;
      if (*p != ',') return false;
      p = skipSpace(p + 1, vec_item_indent_);
    }
    s_.seek(p);
    return s_.eat(']');
  }

  // Numbers of other forms than scanDecimal's, out of line.
  [[gnu::noinline]] static bool otherNumber(const char* p, NumberToken& t) { return scanNumber(p, t); }

  bool strings(std::vector<std::string>& out) {
    if (!s_.eat('[')) return false;
    int more = s_.first(']') ? 1 : 0;
    for (; more == 1; more = s_.next(']')) {
      std::string_view str;
      if (!s_.string(str)) return false;
      out.emplace_back(str);
    }
    return more == 0;
  }

  bool startsNumber() const { return s_.peek() == '-' || isDigit(s_.peek()); }

  bool end(EndDef& e) {
    if (!s_.eat('{')) return false;
    std::string_view strategy, cube;
    bool has_strategy = false, has_cube = false, has_index = false, has_indices = false;
    std::int64_t index = 0;
    // Duplicate keys: a bit per known key; other keys on the keys_ stack.
    const std::size_t mark = keys_.size();
    unsigned seen = 0;
    indices_.clear();
    int more = s_.first('}') ? 1 : 0;
    unsigned prev = end_order_.kStart;
    for (; more == 1; more = s_.next('}')) {
      std::string_view key;  // set for keys read by key() (every other key)
      EndKey which;
      if (!nextKey(end_order_, kEndKeyNames, kEndKeyPatterns, prev, which, key)) return false;
      const unsigned bit = which == kOtherEndKey ? 0u : 1u << which;
      if (which == kStrategy) {
        if (!s_.string(strategy)) return false;
        has_strategy = true;
      } else if (which == kCubeName) {
        // Only a CUBE end needs it to be a string; otherwise it is just checked.
        if (s_.peek() == '"') {
          if (!s_.string(cube)) return false;
          has_cube = true;
        } else if (!s_.skip(keys_, 2)) {
          return false;
        }
      } else if (which == kVertexIndex) {
        // Only a VERTEX end needs an integer here; anything else is just checked.
        if (startsNumber()) {
          NumberToken t;
          if (!s_.number(t)) return false;
          if (t.integer) {
            index = t.negative ? -static_cast<std::int64_t>(t.magnitude) : static_cast<std::int64_t>(t.magnitude);
            has_index = true;
          }
        } else if (!s_.skip(keys_, 2)) {
          return false;
        }
      } else if (which == kVertexIndices) {
        if (s_.peek() != '[') {
          if (!s_.skip(keys_, 2)) return false;
        } else {
          s_.eat('[');
          has_indices = true;
          int more_indices = s_.first(']') ? 1 : 0;
          for (; more_indices == 1; more_indices = s_.next(']')) {
            // A non-integer entry is an error only for MEAN/XYZ: let the full reader judge.
            NumberToken t;
            if (!s_.number(t) || !t.integer) return false;
            indices_.push_back(t.negative ? -static_cast<std::int64_t>(t.magnitude) : static_cast<std::int64_t>(t.magnitude));
          }
          if (more_indices != 0) return false;
        }
      } else if (which == kOffset) {
        Vec3d o3{};
        if (!vec3(o3)) return false;
        e.offset = o3;
      } else if (which == kDefaultPosition) {
        Vec3d d3{};
        if (!vec3(d3)) return false;
        e.default_position = d3;
      } else if (!s_.skip(keys_, 2)) {
        return false;
      }
      if (seen & bit) return false;
      seen |= bit;
      if (!bit) keys_.push_back(key);
    }
    const bool unique = Scanner::uniqueKeys(keys_, mark);
    popKeys(mark);
    if (more != 0 || !unique || !has_strategy) return false;
    static constexpr std::array kAll{Strategy::kCube, Strategy::kVertex, Strategy::kMean, Strategy::kXyz, Strategy::kDefault};
    if (!enumFromName<strategyName>(strategy, kAll, e.strategy)) return false;
    switch (e.strategy) {
      case Strategy::kCube:
        if (!has_cube) return false;
        setString(e.cube_name, cube);
        break;
      case Strategy::kVertex:
        if (!has_index) return false;
        e.vertex_index = index;
        break;
      case Strategy::kMean:
      case Strategy::kXyz:
        if (!has_indices || indices_.size() < (e.strategy == Strategy::kMean ? 1u : 3u)) return false;
        e.vertex_indices.assign(indices_.begin(), indices_.end());  // one allocation, of the final size
        break;
      case Strategy::kDefault: break;
    }
    return true;
  }

  // The bone object at the cursor, named `name`.
  bool bone(std::string_view name, RigDefinition& rig) {
    if (!s_.eat('{')) return false;
    BoneDef& b = rig.bones.emplace_back();  // in place (on failure the rig is discarded)
    setString(b.name, name);
    BoneExtras x;
    // A bit per known key (BoneKey): duplicates of them; other keys' duplicates on the keys_ stack.
    unsigned seen = 0;
    const std::size_t mark = keys_.size();
    int more = s_.first('}') ? 1 : 0;
    unsigned prev = bone_order_.kStart;
    for (; more == 1; more = s_.next('}')) {
      std::string_view key;  // set for keys read by key() (every other key)
      BoneKey which;
      if (!nextKey(bone_order_, kBoneKeyNames, kBoneKeyPatterns, prev, which, key)) return false;
      bool ok = true;
      const unsigned bit = which == kOtherBoneKey ? 0u : 1u << which;
      if (which == kHead) {
        ok = end(b.head);
      } else if (which == kTail) {
        ok = end(b.tail);
      } else if (which == kRoll) {
        ok = number(b.roll);
      } else if (which == kParent) {
        std::string_view str;
        ok = s_.string(str);
        setString(b.parent, str);
      } else if (which == kUseConnect) {
        ok = s_.boolean(b.use_connect);
      } else if (which == kUseLocalLocation) {
        ok = s_.boolean(b.use_local_location);
      } else if (which == kUseInheritRotation) {
        ok = s_.boolean(b.use_inherit_rotation);
      } else if (which == kInheritScale) {
        std::string_view str;
        static constexpr std::array kScales{InheritScale::kFull, InheritScale::kFixShear, InheritScale::kAligned,
                                            InheritScale::kAverage, InheritScale::kNone, InheritScale::kNoneLegacy};
        ok = s_.string(str) && enumFromName<inheritScaleName>(str, kScales, b.inherit_scale);
      } else if (which == kRigify) {
        ok = s_.eat('{');
        if (ok) {
          const std::size_t rmark = keys_.size();
          int rmore = s_.first('}') ? 1 : 0;
          for (; rmore == 1; rmore = s_.next('}')) {
            std::string_view k;
            if (!s_.key(k) || !s_.skip(keys_, 3)) return false;
            keys_.push_back(k);
            x.rigify_empty = false;
          }
          ok = rmore == 0 && Scanner::uniqueKeys(keys_, rmark);
          popKeys(rmark);
        }
      } else if (which == kRotationMode) {
        std::string_view str;
        static constexpr std::array kModes{RotationMode::kQuaternion, RotationMode::kXYZ, RotationMode::kXZY, RotationMode::kYXZ,
                                           RotationMode::kYZX, RotationMode::kZXY, RotationMode::kZYX, RotationMode::kAxisAngle};
        ok = s_.string(str) && enumFromName<rotationModeName>(str, kModes, b.rotation_mode);
      } else if (which == kRollStrategy) {
        if (!s_.null()) {
          std::string_view str;
          static constexpr std::array kRolls{RollStrategy::kAlignZWorldZ, RollStrategy::kAlignXWorldX, RollStrategy::kAlignZReferenceZ};
          ok = s_.string(str) && (str.empty() || enumFromName<rollStrategyName>(str, kRolls, b.roll_strategy));
        }
      } else if (which == kRollReferenceZ) {
        if (!s_.null()) {
          Vec3d z{};
          ok = vec3(z);
          b.roll_reference_z = z;
        }
      } else if (which == kCollections) {
        ok = strings(b.collections);
      } else if (which == kConstraints || which == kBendyBone) {
        ok = s_.peek() == (which == kConstraints ? '[' : '{') && s_.skip(keys_, 2);
      } else if (which == kLayers) {
        if (s_.peek() == '[') {
          s_.eat('[');
          int k = 0;
          int lmore = s_.first(']') ? 1 : 0;
          for (; lmore == 1; lmore = s_.next(']')) {
            bool on = false;
            if (s_.peek() == 't' || s_.peek() == 'f') {
              if (!s_.boolean(on)) return false;
              if (on && k < 32) x.layer_bits |= 1u << k;
            } else {  // not a boolean: the full reader decides (once the value is checked)
              if (!s_.skip(keys_, 3)) return false;
              x.layers_bad = true;
            }
            ++k;
          }
          ok = lmore == 0;
          x.has_layers = k > 0;
          if (k > 32) x.layers_bad = true;
        } else {
          ok = s_.skip(keys_, 2);
          x.layers_bad = true;
        }
      } else {
        ok = s_.skip(keys_, 2);
      }
      if (!ok || (seen & bit)) return false;
      seen |= bit;
      if (!bit) keys_.push_back(key);
    }
    const bool unique = Scanner::uniqueKeys(keys_, mark);
    popKeys(mark);
    if (more != 0 || (seen & kRequiredBoneKeys) != kRequiredBoneKeys || !unique) return false;
    extras_.push_back(x);
    return true;
  }

  // Drops the keys of the object just read from the keys_ stack (usually none: no call).
  void popKeys(std::size_t mark) {
    if (keys_.size() != mark) keys_.resize(mark);
  }

  Scanner s_;
  int vec_item_indent_ = 0, vec_close_indent_ = 0;  // see vec3
  KeyOrder<BoneKey, kOtherBoneKey> bone_order_;
  KeyOrder<EndKey, kOtherEndKey> end_order_;
  std::vector<BoneExtras> extras_;
  std::vector<std::string_view> keys_;  // a stack of the open objects' keys, for duplicate checks
  std::vector<std::int64_t> indices_;   // an end's vertex_indices, as they are read
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
  rig = RigDefinition();
  rig.label = std::string(label);
  if (!TypedReader().run(*src, rig)) return false;
  rig.final_newline = src->size > 0 && src->text[src->size - 1] == '\n';
  rig.source = src;
  return true;
}

}  // namespace rigfit::detail
