// Executor: a fixed set of worker threads that take the indices of one parallelFor at a time
// from a shared counter, so that a worker starting late (its core busy) takes fewer.
#include "rigfit/executor.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace rigfit {

namespace {

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

// One parallelFor at a time. Its indices are handed out through `ticket`, which holds the
// call's count (high 32 bits) and the next index (low 32 bits): a worker holding a ticket below
// the count knows the call is still running (that index is not done), so `fn` is that call's,
// however late the worker woke. A ticket at or past the count is left unused.
struct Executor::State {
  std::vector<std::thread> workers;
  std::mutex run_mutex;
  const std::function<void(int)>* fn = nullptr;
  std::atomic<std::uint64_t> ticket{0};
  std::atomic<int> done{0};
  std::atomic<std::uint32_t> generation{0};  ///< bumped for every call (and to stop): wakes the workers
  std::atomic<bool> stop{false};

  // Runs indices of the current call until none is left.
  void drain() {
    for (;;) {
      const std::uint64_t t = ticket.fetch_add(1, std::memory_order_acq_rel);
      const auto index = static_cast<std::uint32_t>(t), count = static_cast<std::uint32_t>(t >> 32);
      if (index >= count) return;
      (*fn)(static_cast<int>(index));
      done.fetch_add(1, std::memory_order_release);
    }
  }

  // `seen` starts at the generation the executor was built with, not the one the thread finds
  // when it starts: a worker that starts after a call (or after the destructor) has begun still
  // wakes for it.
  void workerLoop() {
    std::uint32_t seen = 0;
    for (;;) {
      // Spin for a while (back-to-back calls start at once), then sleep until the next call.
      const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
      std::uint32_t g = generation.load(std::memory_order_acquire);
      for (int i = 0; g == seen; ++i) {
        if ((i & 63) == 63 && std::chrono::steady_clock::now() > spin_until) {
          generation.wait(seen, std::memory_order_acquire);
        }
        cpuRelax();
        g = generation.load(std::memory_order_acquire);
      }
      seen = g;
      if (stop.load()) return;
      drain();
    }
  }
};

Executor::Executor(int threads) : state_(std::make_unique<State>()) {
  const int workers = std::max(0, std::min(threads, 1024) - 1);
  state_->workers.reserve(static_cast<std::size_t>(workers));
  State* s = state_.get();
  for (int i = 0; i < workers; ++i) s->workers.emplace_back([s] { s->workerLoop(); });
}

Executor::~Executor() {
  state_->stop.store(true);
  state_->generation.fetch_add(1);
  state_->generation.notify_all();
  for (auto& t : state_->workers) t.join();
}

int Executor::threads() const { return static_cast<int>(state_->workers.size()) + 1; }

void Executor::parallelFor(int count, const std::function<void(int)>& fn) {
  if (count <= 0) return;
  State& s = *state_;
  if (s.workers.empty() || count == 1) {
    for (int i = 0; i < count; ++i) fn(i);
    return;
  }
  std::lock_guard<std::mutex> lock(s.run_mutex);
  s.fn = &fn;
  s.done.store(0, std::memory_order_relaxed);
  s.ticket.store(static_cast<std::uint64_t>(count) << 32, std::memory_order_release);
  s.generation.fetch_add(1, std::memory_order_release);
  s.generation.notify_all();
  s.drain();
  while (s.done.load(std::memory_order_acquire) < count) cpuRelax();
}

void parallelFor(Executor* executor, int count, const std::function<void(int)>& fn) {
  if (count <= 1) {
    if (count == 1) fn(0);
    return;
  }
  if (executor != nullptr) {
    executor->parallelFor(count, fn);
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(count - 1));
  for (int i = 1; i < count; ++i) threads.emplace_back([&fn, i] { fn(i); });
  fn(0);
  for (auto& t : threads) t.join();
}

}  // namespace rigfit
