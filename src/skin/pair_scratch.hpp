// Where both weights readers (weights_fast.cpp, weights_read.cpp) collect one group's pairs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "rigfit/weights.hpp"

namespace rigfit::detail {

/// One group's [vertex, weight] pairs as they are read. The thread's instance keeps its capacity
/// from group to group and file to file, so each group's vectors are allocated once, at their
/// final size (store).
struct PairScratch {
  std::vector<std::int64_t> vertices;
  std::vector<double> weights;
  std::vector<std::size_t> ints;  ///< indices of the weights the file wrote as integers

  /// This thread's scratch, emptied. (Callers keep the reference: every access to a
  /// thread_local with a destructor goes through a wrapper call.)
  static PairScratch& start() {
    static thread_local PairScratch scratch;
    scratch.vertices.clear();
    scratch.weights.clear();
    scratch.ints.clear();
    return scratch;
  }

  /// The pairs read into g's vectors (and weight_is_int where some weight was an integer).
  void store(WeightsFile::Group& g) const {
    g.vertices.assign(vertices.begin(), vertices.end());
    g.weights.assign(weights.begin(), weights.end());
    if (!ints.empty()) {
      g.weight_is_int.assign(vertices.size(), 0);
      for (std::size_t i : ints) g.weight_is_int[i] = 1;
    }
  }
};

}  // namespace rigfit::detail
