#include "core/auth/session_cache.hpp"

#include "core/db/listener.hpp"

#include <algorithm>

namespace core::auth {

std::optional<core::db::Result> SessionCache::get(const std::string& token_hash, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  if (trusted_) {
    if (const auto it = entries_.find(token_hash); it != entries_.end()) {
      if (now < it->second.until) {
        ++counts_.hits;
        return it->second.rows;
      }
      erase_locked(token_hash);
    }
  }
  ++counts_.misses;
  return std::nullopt;
}

SessionCache::Ticket SessionCache::ticket(Clock::time_point now) const {
  std::lock_guard lock(mutex_);
  return {.generation = generation_, .asked_at = now};
}

void SessionCache::put(const Ticket& ticket, const std::string& token_hash, std::string subject, core::db::Result rows,
                       std::chrono::milliseconds valid_for) {
  const auto until = ticket.asked_at + std::min<std::chrono::milliseconds>(valid_for, limit_);
  std::lock_guard lock(mutex_);
  if (!trusted_ || ticket.generation != generation_ || until <= Clock::now()) return;
  if (++puts_ % kSweepEvery == 0) {
    const auto now = Clock::now();
    for (auto it = entries_.begin(); it != entries_.end();) {
      const auto next = std::next(it);
      if (it->second.until <= now) erase_locked(it->first);
      it = next;
    }
  }
  erase_locked(token_hash);
  by_subject_[subject].insert(token_hash);
  entries_[token_hash] = Entry{.subject = std::move(subject), .rows = std::move(rows), .until = until};
}

void SessionCache::erase_locked(const std::string& token_hash) {
  const auto it = entries_.find(token_hash);
  if (it == entries_.end()) return;
  if (const auto s = by_subject_.find(it->second.subject); s != by_subject_.end()) {
    s->second.erase(token_hash);
    if (s->second.empty()) by_subject_.erase(s);
  }
  entries_.erase(it);
}

void SessionCache::clear_locked() {
  ++generation_;
  entries_.clear();
  by_subject_.clear();
}

void SessionCache::forget_token_hash(const std::string& token_hash) {
  std::lock_guard lock(mutex_);
  ++generation_;
  erase_locked(token_hash);
}

void SessionCache::forget_subject(const std::string& subject) {
  std::lock_guard lock(mutex_);
  ++generation_;
  const auto s = by_subject_.find(subject);
  if (s == by_subject_.end()) return;
  const auto hashes = std::move(s->second);
  by_subject_.erase(s);
  for (const auto& h : hashes) entries_.erase(h);
}

void SessionCache::forget_all() {
  std::lock_guard lock(mutex_);
  clear_locked();
}

void SessionCache::apply(std::string_view payload) {
  constexpr std::string_view kSession = "session:", kSubject = "subject:";
  if (payload.starts_with(kSession))
    forget_token_hash(std::string(payload.substr(kSession.size())));
  else if (payload.starts_with(kSubject))
    forget_subject(std::string(payload.substr(kSubject.size())));
  else
    forget_all();  // `all`, and anything this version does not know
}

void SessionCache::trust() {
  std::lock_guard lock(mutex_);
  clear_locked();
  trusted_ = true;
}

void SessionCache::distrust() {
  std::lock_guard lock(mutex_);
  clear_locked();
  trusted_ = false;
}

bool SessionCache::trusted() const {
  std::lock_guard lock(mutex_);
  return trusted_;
}

std::size_t SessionCache::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

SessionCache::Counts SessionCache::counts() const {
  std::lock_guard lock(mutex_);
  return counts_;
}

std::shared_ptr<core::db::Listener> SessionCache::follow(boost::asio::any_io_executor ex, std::string conninfo,
                                                         std::string channel) {
  const std::weak_ptr<SessionCache> self = weak_from_this();
  const auto with = [self](auto f) {
    return [self, f] {
      if (const auto cache = self.lock()) f(*cache);
    };
  };
  auto listener = std::make_shared<core::db::Listener>(
      std::move(ex), core::db::ListenerOptions{.conninfo = std::move(conninfo), .channel = std::move(channel)},
      [self](const std::string& payload) {
        if (const auto cache = self.lock()) cache->apply(payload);
      },
      with([](SessionCache& c) { c.trust(); }), with([](SessionCache& c) { c.distrust(); }));
  listener->start();
  return listener;
}

}  // namespace core::auth
