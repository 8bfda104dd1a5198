#include "core/name_hint.hpp"

#include <algorithm>
#include <vector>

namespace rigfit::detail {
namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

std::size_t nameDistance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic programme: d[i][j] = distance of a[0, i) and b[0, j).
  const std::size_t n = b.size();
  std::vector<std::size_t> before(n + 1), prev(n + 1), cur(n + 1);
  for (std::size_t j = 0; j <= n; ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= n; ++j) {
      const bool same = lower(a[i - 1]) == lower(b[j - 1]);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        cur[j] = std::min(cur[j], before[j - 2] + 1);
    }
    std::swap(before, prev);
    std::swap(prev, cur);
  }
  return prev[n];
}

std::string unknownNameHint(std::string_view name, std::span<const std::string_view> known) {
  if (known.empty()) return {};
  constexpr std::size_t kSuggested = 3, kListChars = 100;
  const std::size_t limit = std::max<std::size_t>(1, name.size() / 3);
  std::size_t best = limit;
  std::vector<std::string_view> closest;
  for (const std::string_view k : known) {
    const std::size_t d = nameDistance(name, k);
    if (d > best || std::find_if(closest.begin(), closest.end(), [&](std::string_view c) { return c == k; }) != closest.end())
      continue;
    if (d < best) {
      best = d;
      closest.clear();
    }
    if (closest.size() < kSuggested) closest.push_back(k);
  }
  std::string out;
  if (!closest.empty()) {
    out = " (did you mean ";
    for (std::size_t i = 0; i < closest.size(); ++i)
      out.append(i == 0 ? "" : i + 1 == closest.size() ? " or " : ", ").append("\"").append(closest[i]).append("\"");
    return out + "?)";
  }
  std::string list;
  std::size_t listed = 0;
  std::vector<std::string_view> distinct;
  for (const std::string_view k : known)
    if (std::find(distinct.begin(), distinct.end(), k) == distinct.end()) distinct.push_back(k);
  for (; listed < distinct.size(); ++listed) {
    if (listed > 0 && list.size() + 2 + distinct[listed].size() > kListChars) break;
    list.append(listed == 0 ? "" : ", ").append(distinct[listed]);
  }
  if (listed < distinct.size()) list += ", and " + std::to_string(distinct.size() - listed) + " more";
  return " (available: " + list + ")";
}

}  // namespace rigfit::detail
