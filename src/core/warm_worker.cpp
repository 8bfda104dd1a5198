#include "core/warm_worker.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>

#include <pthread.h>
#include <sched.h>

namespace rigfit::detail {
namespace {

class WarmWorker {
 public:
  bool post(std::function<void()>& work, std::function<void()>& done) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (busy_ || stopping_) return false;
      busy_ = true;
      work_ = std::move(work);
      done_ = std::move(done);
      pending_.store(true, std::memory_order_release);  // under the lock: the sleeping worker checks it there
      startLocked();
    }
    wake_.notify_one();
    return true;
  }

  void warmUp() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!stopping_) startLocked();
  }

  ~WarmWorker() {
    retire();
    if (thread_.joinable()) thread_.join();
  }

  // No more tasks: the thread ends when it has none left (later tasks get threads of their own).
  void retire() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    stop_.store(true, std::memory_order_release);
    wake_.notify_one();
  }

 private:
  // How long the worker stays awake after a task.
  static constexpr std::chrono::microseconds kAwake{3000};

  // Linux places a new thread on its creator's CPU as often as not, and the two then share it
  // until the load balancer moves one, milliseconds later (seen in an export: the side thread
  // started a median 2.4 ms after it was made). So the thread is made to start on another CPU
  // of the process's set and, once running, given the whole set back.
  void startLocked() {
    if (thread_.joinable()) return;
    thread_ = std::thread([this] {
      settleAffinity();
      loop();
    });
#if defined(__linux__)
    cpu_set_t others = allowed_;
    if (const int me = sched_getcpu(); me >= 0 && me < CPU_SETSIZE) CPU_CLR(me, &others);
    if (have_allowed_ && CPU_COUNT(&others) > 0 &&
        pthread_setaffinity_np(thread_.native_handle(), sizeof others, &others) == 0) {
      moved_.store(true, std::memory_order_release);
    }
#endif
    placed_.store(true, std::memory_order_release);
  }

  void settleAffinity() {
    while (!placed_.load(std::memory_order_acquire)) sched_yield();
#if defined(__linux__)
    if (moved_.load(std::memory_order_acquire)) pthread_setaffinity_np(pthread_self(), sizeof allowed_, &allowed_);
#endif
  }

  void loop() {
    for (;;) {
      const auto until = std::chrono::steady_clock::now() + kAwake;
      while (!pending_.load(std::memory_order_acquire) && !stop_.load(std::memory_order_acquire)) {
        if (std::chrono::steady_clock::now() > until) {
          std::unique_lock<std::mutex> lock(mutex_);
          wake_.wait(lock, [this] { return pending_.load(std::memory_order_acquire) || stopping_; });
          break;
        }
        sched_yield();  // other runnable threads on this CPU go first
      }
      std::function<void()> work, done;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!pending_.load(std::memory_order_acquire)) return;  // stopping, nothing posted
        pending_.store(false, std::memory_order_relaxed);
        work = std::move(work_);
        done = std::move(done_);
      }
      work();
      work = nullptr;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        busy_ = false;
      }
      done();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::function<void()> work_, done_;
  bool busy_ = false;
  bool stopping_ = false;
  std::atomic<bool> pending_{false};
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::atomic<bool> placed_{false};  // the creator is done with the new thread's affinity
  std::atomic<bool> moved_{false};   // ... and restricted it to the other CPUs
#if defined(__linux__)
  cpu_set_t allowed_{};  // the process's CPUs, given back to the thread once it runs
  bool have_allowed_ = sched_getaffinity(0, sizeof allowed_, &allowed_) == 0;
#endif
};

WarmWorker& worker() {
  static WarmWorker w;
  return w;
}

}  // namespace

bool runOnWarmWorker(std::function<void()>& work, std::function<void()>& done) { return worker().post(work, done); }

void warmUpWorker() { worker().warmUp(); }

void retireWarmWorker() { worker().retire(); }

}  // namespace rigfit::detail
