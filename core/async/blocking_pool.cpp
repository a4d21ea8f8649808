#include "core/async/blocking_pool.hpp"

#include <algorithm>

namespace core::async {

BlockingPool::BlockingPool(std::size_t max_threads, std::chrono::milliseconds idle_limit)
    : max_threads_(std::max<std::size_t>(1, max_threads)), idle_limit_(idle_limit) {}

BlockingPool::~BlockingPool() {
  std::vector<std::thread> ended;
  {
    std::unique_lock lock(mutex_);
    stopping_ = true;
    for (Worker* w : idle_) w->wake.notify_one();
    all_ended_.wait(lock, [&] { return alive_ == 0; });
    for (auto& w : workers_) ended.push_back(std::move(w.thread));
    workers_.clear();
  }
  for (auto& t : ended) t.join();
}

void BlockingPool::post(Job job) {
  if (!job) return;
  std::vector<std::thread> ended;
  {
    std::lock_guard lock(mutex_);
    ended = take_ended();
    if (!idle_.empty()) {
      Worker* w = idle_.back();
      idle_.pop_back();
      w->job = std::move(job);
      w->wake.notify_one();
    } else if (alive_ < max_threads_) {
      Worker& w = workers_.emplace_back();
      ++alive_;
      peak_ = std::max(peak_, alive_);
      w.thread = std::thread([this, &w, first = std::move(job)]() mutable { work(w, std::move(first)); });
    } else {
      waiting_.push_back(std::move(job));
    }
  }
  for (auto& t : ended) t.join();  // a thread that ended has left work(); its thread-locals go now
}

void BlockingPool::work(Worker& self, Job job) {
  for (;;) {
    job();
    job = nullptr;  // what it holds is released before the thread waits
    std::unique_lock lock(mutex_);
    if (!waiting_.empty()) {
      job = std::move(waiting_.front());
      waiting_.pop_front();
      continue;
    }
    if (!stopping_) {
      idle_.push_back(&self);
      self.wake.wait_for(lock, idle_limit_, [&] { return self.job || stopping_; });
      if (self.job) {
        job = std::move(self.job);  // post() took it off the idle stack
        self.job = nullptr;
        continue;
      }
      idle_.erase(std::find(idle_.begin(), idle_.end(), &self));
    }
    self.ended = true;
    --alive_;
    all_ended_.notify_all();
    return;
  }
}

std::vector<std::thread> BlockingPool::take_ended() {
  std::vector<std::thread> ended;
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (it->ended) {
      ended.push_back(std::move(it->thread));
      it = workers_.erase(it);
    } else {
      ++it;
    }
  }
  return ended;
}

std::size_t BlockingPool::threads() const {
  std::lock_guard lock(mutex_);
  return alive_;
}

std::size_t BlockingPool::idle_threads() const {
  std::lock_guard lock(mutex_);
  return idle_.size();
}

std::size_t BlockingPool::peak_threads() const {
  std::lock_guard lock(mutex_);
  return peak_;
}

}  // namespace core::async
