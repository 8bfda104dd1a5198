#include "core/warm_worker.hpp"

#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>

using rigfit::detail::SideTask;

TEST(SideTask, ReturnsTheResultAndRunsOffTheCallingThread) {
  SideTask<std::thread::id> task([] { return std::this_thread::get_id(); });
  EXPECT_NE(task.get(), std::this_thread::get_id());
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
  SideTask<std::thread::id> a([] { return std::this_thread::get_id(); });
  const std::thread::id first = a.get();
  std::this_thread::sleep_for(std::chrono::milliseconds(10));  // past the awake time: asleep, not gone
  SideTask<std::thread::id> b([] { return std::this_thread::get_id(); });
  EXPECT_EQ(b.get(), first);
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
