// Side tasks of one call (the weights read beside the body, the normals' face terms beside the
// vertex split) on a helper thread that stays awake between them.
#pragma once

#include <atomic>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

namespace rigfit::detail {

/// Runs `work` and then `done` on the process's warm worker thread and returns true, or returns
/// false (running nothing) when that thread is busy with another caller's task. The worker is
/// free again before `done` runs, so a task posted once `done` has signalled its caller finds it
/// free.
///
/// After a task the worker stays awake for a few milliseconds (yielding its CPU to any other
/// runnable thread) before it sleeps: on virtual machines an idle CPU can take milliseconds to
/// wake, so a task posted soon after the previous one (as in an export) starts at once.
bool runOnWarmWorker(std::function<void()>& work, std::function<void()>& done);

/// Starts the warm worker now (awake, waiting for a task): a program that will post one soon
/// calls it first, so that the thread's start and its CPU's wake-up overlap other work.
void warmUpWorker();

/// Tells the warm worker that the program posts no more tasks: its thread ends (without being
/// joined) once idle, beside the caller's remaining work, so that a process exiting soon after
/// has one thread fewer to stop (about 0.5 ms on a VM). Tasks posted later run on threads of
/// their own.
void retireWarmWorker();

/// A task started beside the caller: on the warm worker when it is free, else on a thread of its
/// own. get() returns its result (or throws its exception); if no thread has started the task by
/// then (its CPU busy with something else), the caller runs it itself, so a late side thread never
/// costs more than running the task in line. The task runs exactly once; the destructor runs or
/// waits for it, so the task may refer to the caller's locals.
template <class T>
class SideTask {
 public:
  SideTask() = default;
  template <class F>
  explicit SideTask(F f) {
    state_ = std::make_shared<State>();
    result_ = state_->promise.get_future();
    state_->run = [state = state_.get(), f = std::move(f)]() mutable {
      try {
        if constexpr (std::is_void_v<T>) {
          f();
        } else {
          state->value.emplace(f());
        }
      } catch (...) {
        state->error = std::current_exception();
      }
    };
    // The side thread runs the task only if it takes it first; it then also fulfils the promise.
    std::function<void()> work = [state = state_] { state->side_took = state->take(); if (state->side_took) state->run(); };
    std::function<void()> done = [state = state_] { if (state->side_took) state->finish(); };
    if (!runOnWarmWorker(work, done)) {
      thread_ = std::async(std::launch::async, [work = std::move(work), done = std::move(done)] {
        work();
        done();
      });
    }
  }
  SideTask(SideTask&&) noexcept = default;
  SideTask& operator=(SideTask&& other) noexcept {
    wait();
    state_ = std::move(other.state_);
    result_ = std::move(other.result_);
    thread_ = std::move(other.thread_);
    return *this;
  }
  ~SideTask() { wait(); }

  bool valid() const { return result_.valid(); }
  T get() {
    runHereIfNotStarted();
    return result_.get();
  }

 private:
  struct State {
    std::promise<T> promise;
    std::function<void()> run;
    std::conditional_t<std::is_void_v<T>, bool, std::optional<T>> value{};
    std::exception_ptr error;
    std::atomic<bool> taken{false};
    bool side_took = false;  // written and read by the side thread only
    bool take() { return !taken.exchange(true, std::memory_order_acq_rel); }
    void finish() {
      if (error) {
        promise.set_exception(error);
      } else if constexpr (std::is_void_v<T>) {
        promise.set_value();
      } else {
        promise.set_value(std::move(*value));
      }
    }
  };
  void runHereIfNotStarted() {
    if (state_ && state_->take()) {
      state_->run();
      state_->finish();
    }
  }
  void wait() {
    runHereIfNotStarted();
    if (result_.valid()) result_.wait();
    if (thread_.valid()) thread_.wait();
  }
  std::shared_ptr<State> state_;
  std::future<T> result_;
  std::future<void> thread_;  // the fallback thread (its future joins it)
};

}  // namespace rigfit::detail
