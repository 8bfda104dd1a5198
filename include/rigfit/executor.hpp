// Threads for jobs that split their work (SkinningJob), owned by the caller.
//
// The library starts no thread that outlives a call. A job given a thread count and no executor
// starts its threads and joins them within run(); a caller that runs many jobs back to back
// (every frame, a batch of characters) creates one Executor and passes it, so the threads are
// started once. The executor belongs to the caller: the library keeps no pointer to it after the
// call returns.
//
//   rigfit::Executor executor(2);       // the calling thread + 1 worker
//   job.threads = 2;
//   job.executor = &executor;
//   job.run();                          // as often as needed
#pragma once

#include <functional>
#include <memory>

namespace rigfit {

/// A small fixed set of worker threads. After each parallelFor the workers spin briefly (so that
/// back-to-back calls start within a microsecond), then sleep until the next call. One call at a
/// time: concurrent parallelFor calls on one executor are serialised.
class Executor {
 public:
  /// `threads`: the parallelism including the calling thread (threads - 1 workers are started;
  /// clamped to [1, 1024]).
  explicit Executor(int threads);
  /// Stops and joins the workers.
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  /// The parallelism including the calling thread.
  int threads() const;
  /// Calls fn(i) for every i in [0, count), on the calling thread and the workers; returns when
  /// all calls have returned.
  void parallelFor(int count, const std::function<void(int)>& fn);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Calls fn(i) for every i in [0, count): on `executor` when given, else on the calling thread and
/// count - 1 threads started and joined within the call.
void parallelFor(Executor* executor, int count, const std::function<void(int)>& fn);

}  // namespace rigfit
