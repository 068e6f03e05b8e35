#include "worker_pool.h"

namespace nfv {

WorkerPool::WorkerPool(std::size_t threads) {
  for (std::size_t t = 0; t < threads; ++t) threads_.emplace_back([this] { work(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void WorkerPool::take_jobs(std::unique_lock<std::mutex>& lock) {
  while (next_ < jobs_) {
    const std::size_t k = next_++;
    lock.unlock();
    std::exception_ptr error;
    try {
      (*job_)(k);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    if (error && !error_) error_ = error;
    ++done_;
  }
}

void WorkerPool::work() {
  std::uint64_t seen = 0;
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || batch_ != seen; });
    if (stopping_) return;
    seen = batch_;
    ++busy_;
    take_jobs(lock);
    --busy_;
    finished_.notify_all();
  }
}

void WorkerPool::run(std::size_t jobs, const std::function<void(std::size_t)>& job) {
  std::unique_lock lock(mutex_);
  job_ = &job;
  jobs_ = jobs;
  next_ = done_ = 0;
  error_ = nullptr;
  ++batch_;
  wake_.notify_all();
  take_jobs(lock);
  // Every job done, and no helper still inside this batch.
  finished_.wait(lock, [&] { return done_ == jobs_ && busy_ == 0; });
  job_ = nullptr;
  const std::exception_ptr error = error_;
  error_ = nullptr;
  if (error) std::rethrow_exception(error);
}

}  // namespace nfv
