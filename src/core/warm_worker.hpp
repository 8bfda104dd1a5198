// Side tasks of one call (the weights read beside the body, the normals' face terms beside the
// vertex split) on a helper thread that stays awake between them.
#pragma once

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

/// A task started beside the caller: on the warm worker when it is free, else on a thread of its
/// own. get() returns its result (or throws its exception); the destructor waits for it, so the
/// task may refer to the caller's locals.
template <class T>
class SideTask {
 public:
  SideTask() = default;
  template <class F>
  explicit SideTask(F f) {
    auto state = std::make_shared<State>();
    result_ = state->promise.get_future();
    std::function<void()> work = [state, f = std::move(f)]() mutable {
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
    std::function<void()> done = [state] {
      if (state->error) {
        state->promise.set_exception(state->error);
      } else if constexpr (std::is_void_v<T>) {
        state->promise.set_value();
      } else {
        state->promise.set_value(std::move(*state->value));
      }
    };
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
    result_ = std::move(other.result_);
    thread_ = std::move(other.thread_);
    return *this;
  }
  ~SideTask() { wait(); }

  bool valid() const { return result_.valid(); }
  T get() { return result_.get(); }

 private:
  struct State {
    std::promise<T> promise;
    std::conditional_t<std::is_void_v<T>, bool, std::optional<T>> value{};
    std::exception_ptr error;
  };
  void wait() {
    if (result_.valid()) result_.wait();
    if (thread_.valid()) thread_.wait();
  }
  std::future<T> result_;
  std::future<void> thread_;  // the fallback thread (its future joins it)
};

}  // namespace rigfit::detail
