// A fixed set of threads that run one batch of independent jobs at a time:
// run(n, job) calls job(0) .. job(n - 1) spread over the threads and the
// caller, and returns when all are done. Used to step many environments at
// once. Which thread runs a job varies; what each job does must not depend
// on it (each job owns its data), so results are the same as a plain loop.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace nfv {

class WorkerPool {
 public:
  // `threads` helpers besides the caller (0: run everything on the caller).
  explicit WorkerPool(std::size_t threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Rethrows the first exception a job threw, after every job has finished.
  void run(std::size_t jobs, const std::function<void(std::size_t)>& job);
  std::size_t threads() const { return threads_.size(); }

 private:
  void work();
  // Runs jobs of the current batch until none is left; `lock` is held on
  // entry and on return.
  void take_jobs(std::unique_lock<std::mutex>& lock);

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  const std::function<void(std::size_t)>* job_ = nullptr;
  std::size_t jobs_ = 0, next_ = 0, done_ = 0;
  std::uint64_t batch_ = 0;
  std::size_t busy_ = 0;  // helpers inside take_jobs()
  std::exception_ptr error_;
  bool stopping_ = false;
};

}  // namespace nfv
