#include "core/warm_worker.hpp"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <future>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

using rigfit::detail::SideTask;

namespace {
// The thread that ran a task, waiting until a side thread has started it (so that get() does not
// run it in line).
std::thread::id sideThreadId() {
  std::promise<void> started;
  std::future<void> has_started = started.get_future();
  SideTask<std::thread::id> task([&started] {
    started.set_value();
    return std::this_thread::get_id();
  });
  has_started.wait();
  return task.get();
}
}  // namespace

TEST(SideTask, ReturnsTheResultAndRunsOffTheCallingThread) {
  // Once a side thread has started the task, get() waits for it there.
  EXPECT_NE(sideThreadId(), std::this_thread::get_id());
  SideTask<int> sum([] {
    int s = 0;
    for (int i = 1; i <= 100; ++i) s += i;
    return s;
  });
  EXPECT_EQ(sum.get(), 5050);
}

TEST(SideTask, PassesExceptionsToGet) {
  SideTask<int> task([]() -> int { throw std::runtime_error("side"); });
  EXPECT_THROW(task.get(), std::runtime_error);
  // The worker is free again afterwards.
  SideTask<int> next([] { return 7; });
  EXPECT_EQ(next.get(), 7);
}

// One task after another runs on the same (warm) thread.
TEST(SideTask, SequentialTasksShareTheWorker) {
  const std::thread::id first = sideThreadId();
  EXPECT_NE(first, std::this_thread::get_id());
  std::this_thread::sleep_for(std::chrono::milliseconds(10));  // past the awake time: asleep, not gone
  EXPECT_EQ(sideThreadId(), first);
}

// While the worker is busy, a second task gets a thread of its own instead of waiting: here the
// first task waits for the second, which would never run if it were queued behind it.
TEST(SideTask, ABusyWorkerDoesNotQueueTasks) {
  std::promise<int> from_second;
  std::future<int> second_done = from_second.get_future();
  SideTask<int> first([&] { return second_done.wait_for(std::chrono::seconds(20)) == std::future_status::ready ? second_done.get() : -1; });
  SideTask<void> second([&] { from_second.set_value(42); });
  second.get();
  EXPECT_EQ(first.get(), 42);
}

// The destructor waits for the task, which may use the caller's locals.
TEST(SideTask, DestructorWaitsForTheTask) {
  int value = 0;
  {
    SideTask<void> task([&value] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      value = 5;
    });
  }
  EXPECT_EQ(value, 5);
}

// get() runs a task no thread has started yet in the calling thread, and the side thread then
// skips it: whoever takes it first runs it, exactly once, with or without get().
TEST(SideTask, EveryTaskRunsExactlyOnceWhoeverTakesIt) {
  std::atomic<int> runs{0};
  long sum = 0;
  for (int i = 0; i < 3000; ++i) {
    SideTask<int> t([&runs, i] {
      runs.fetch_add(1);
      return i;
    });
    sum += t.get();
  }
  for (int i = 0; i < 1000; ++i) {
    SideTask<void> t([&runs] { runs.fetch_add(1); });
  }
  EXPECT_EQ(runs.load(), 4000);
  EXPECT_EQ(sum, 3000L * 2999 / 2);
  // An exception reaches get() whichever thread ran the task.
  for (int i = 0; i < 200; ++i) {
    SideTask<int> t([]() -> int { throw std::runtime_error("side"); });
    EXPECT_THROW(t.get(), std::runtime_error);
  }
}

// The worker is made to start on another CPU than its creator's, then given the process's
// whole CPU set back: a task on it may run on any of the process's CPUs.
TEST(SideTask, TheWorkerRunsWithTheProcesssCpuSet) {
  cpu_set_t process;
  ASSERT_EQ(sched_getaffinity(0, sizeof process, &process), 0);
  std::promise<void> started;
  std::future<void> has_started = started.get_future();
  SideTask<cpu_set_t> task([&started] {
    started.set_value();
    cpu_set_t mine;
    CPU_ZERO(&mine);
    pthread_getaffinity_np(pthread_self(), sizeof mine, &mine);
    return mine;
  });
  has_started.wait();
  cpu_set_t worker = task.get();
  EXPECT_TRUE(CPU_EQUAL(&worker, &process)) << CPU_COUNT(&worker) << " of " << CPU_COUNT(&process) << " CPUs";
}

// After retireWarmWorker() the worker takes no more tasks: each later task runs on a thread of
// its own, still off the calling thread, and still returns. Retiring is for the rest of the
// process, so the check runs in a fresh process of its own (a death test that exits 0).
bool retiredWorkerLeavesTasksToThreadsOfTheirOwn() {
  const std::thread::id warm = sideThreadId();
  if (sideThreadId() != warm) return false;  // the warm worker, reused
  rigfit::detail::retireWarmWorker();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // its thread has ended
  const std::thread::id first = sideThreadId();
  if (first == std::this_thread::get_id() || first == warm) return false;
  SideTask<int> answer([] { return 42; });
  if (answer.get() != 42) return false;
  rigfit::detail::warmUpWorker();  // no effect once retired
  return sideThreadId() != warm;
}

TEST(SideTaskDeathTest, ARetiredWorkerLeavesTasksToThreadsOfTheirOwn) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(retiredWorkerLeavesTasksToThreadsOfTheirOwn() ? 0 : 1), ::testing::ExitedWithCode(0), "");
}
