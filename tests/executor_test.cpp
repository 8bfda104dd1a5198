// Executor and parallelFor: every index runs exactly once, on the caller's executor or on threads
// started and joined within the call, across many calls of different sizes.
#include "rigfit/executor.hpp"

#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace rigfit {
namespace {

void expectEachIndexOnce(Executor* executor, int count) {
  std::vector<std::atomic<int>> hits(static_cast<std::size_t>(count));
  parallelFor(executor, count, [&](int i) { hits[static_cast<std::size_t>(i)].fetch_add(1); });
  for (int i = 0; i < count; ++i) ASSERT_EQ(hits[static_cast<std::size_t>(i)].load(), 1) << i << " of " << count;
}

TEST(Executor, EveryIndexOnce) {
  for (int threads : {1, 2, 3}) {
    Executor executor(threads);
    EXPECT_EQ(executor.threads(), threads);
    for (int round = 0; round < 200; ++round) expectEachIndexOnce(&executor, round % 13);
  }
  for (int count : {0, 1, 2, 5}) expectEachIndexOnce(nullptr, count);
  EXPECT_EQ(Executor(0).threads(), 1);
}

// Workers that start only after the first call, or after the destructor has begun, still take
// part or stop (destroying an executor at once must not wait for ever).
TEST(Executor, WorkersStartingLate) {
  for (int round = 0; round < 20; ++round) {
    { Executor executor(64); }
    Executor executor(64);
    expectEachIndexOnce(&executor, 100);
  }
}

// Calls that follow each other while workers are still finishing (or only waking for) the
// previous one: a late worker must not run the previous call's function on the next call's
// indices. Calls alternate between two functions that count into separate arrays.
TEST(Executor, LateWorkersNeverMixCalls) {
  Executor executor(3);
  std::vector<std::atomic<int>> a(8), b(8);
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::atomic<int>>& hits = round % 2 ? a : b;
    std::vector<std::atomic<int>>& other = round % 2 ? b : a;
    const int before = other[0].load();
    executor.parallelFor(8, [&](int i) { hits[static_cast<std::size_t>(i)].fetch_add(1); });
    EXPECT_EQ(other[0].load(), before);
    if (round % 64 == 0) std::this_thread::yield();
  }
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(a[static_cast<std::size_t>(i)].load(), 1000);
    EXPECT_EQ(b[static_cast<std::size_t>(i)].load(), 1000);
  }
}

}  // namespace
}  // namespace rigfit
