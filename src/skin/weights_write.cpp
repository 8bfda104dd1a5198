// Writing weights files byte for byte as Python's json.dump(obj, f, indent=4, sort_keys=True),
// through rigfit's JSON writer: the header's values as Json, the pairs value by value.
#include <algorithm>
#include <cmath>

#include "core/json_write.hpp"
#include "rigfit/number_format.hpp"
#include "rigfit/weights.hpp"

namespace rigfit {
namespace {

struct Kept {
  double weight;
  bool is_int;
};

// MPFB's saver (RigService.get_weights): Blender holds float32 weights;
// w = max(0, min(1, round(w, 5) + 0)), kept if w >= 0.0001. min(1, 1.0) is Python's int 1.
// Python's round(x, 5) rounds the exact binary value half to even, then takes the nearest double:
// for a float32 x of magnitude <= 2 (24-bit mantissa) x * 1e5 (17 bits) is exact in double, so
// nearbyint (round half even) decides exactly and n / 1e5 is that nearest double. Others
// (beyond 1 they clamp to 1 anyway) go through roundPython.
double roundFloat32To5(float f) {
  const double x = static_cast<double>(f);
  if (!(std::fabs(x) <= 2.0)) return roundPython(x, 5);
  return std::nearbyint(x * 1e5) / 1e5;
}

bool mpfbRound(double w, Kept& k) {
  const double r = roundFloat32To5(static_cast<float>(w)) + 0.0;
  if (!(r >= 0.0001)) return false;  // also drops NaN
  if (r >= 1.0) {
    k = {1.0, true};
    return true;
  }
  k = {r, false};
  return true;
}

void writeGroup(detail::JsonWriter& out, const WeightsFile::Group& g, const WeightsWriteOptions& options) {
  out.key(g.name);
  out.beginArray();
  const std::size_t count = std::min(g.vertices.size(), g.weights.size());
  for (std::size_t i = 0; i < count; ++i) {
    Kept k{g.weights[i], i < g.weight_is_int.size() && g.weight_is_int[i] != 0};
    if (options.mpfb_rounding && !mpfbRound(g.weights[i], k)) continue;
    out.beginArray();
    out.integer(g.vertices[i]);
    if (k.is_int) {
      out.integer(static_cast<std::int64_t>(k.weight));
    } else {
      out.number(k.weight);
    }
    out.end();
  }
  out.end();
}

// The file's top-level keys, sorted: the header's, and "weights" with the groups.
void write(detail::JsonWriter& out, const std::vector<const Json::Member*>& header, const std::vector<const WeightsFile::Group*>& groups,
           const WeightsWriteOptions& options) {
  out.beginObject();
  auto write_weights = [&] {
    out.key("weights");
    out.beginObject();
    for (const WeightsFile::Group* g : groups) writeGroup(out, *g, options);
    out.end();
  };
  bool weights_done = false;
  for (const Json::Member* m : header) {
    if (!weights_done && std::string_view("weights") < std::string_view(m->first)) {
      write_weights();
      weights_done = true;
    }
    out.key(m->first);
    out.value(m->second);
  }
  if (!weights_done) write_weights();
  out.end();
}

}  // namespace

std::string writeWeights(const WeightsFile& file, const WeightsWriteOptions& options) {
  // Top-level keys: the header's (except a stray "weights") and "weights", sorted.
  std::vector<const Json::Member*> header;
  for (const auto& m : file.header.members())
    if (m.first != "weights") header.push_back(&m);
  std::stable_sort(header.begin(), header.end(), [](const Json::Member* a, const Json::Member* b) { return a->first < b->first; });
  std::vector<const WeightsFile::Group*> groups;
  groups.reserve(file.groups.size());
  std::size_t pairs = 0;
  for (const auto& g : file.groups) {
    groups.push_back(&g);
    pairs += g.vertices.size();
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const WeightsFile::Group* a, const WeightsFile::Group* b) { return a->name < b->name; });

  std::string text;
  const JsonWriteOptions layout{.indent = 4, .sort_keys = true};
  {
    detail::JsonWriter out(text, layout);
    out.reserve(1024 + pairs * 96);  // a pair takes 63 bytes, its vertex and its weight
    write(out, header, groups, options);
  }
  if (file.final_newline) text.push_back('\n');
  return text;
}

}  // namespace rigfit
