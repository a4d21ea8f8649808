#pragma once
// The live sessions an instance has looked up, kept in process so that a signed-in request does
// not pay a database round trip only to check its session (issue 36). SessionStore::find() asks
// the cache first; the cache holds, per token hash, the rows find() returned (the lookup's: for the
// ops-console the user and their permissions) and the subject they are for.
//
//   auto cache = std::make_shared<SessionCache>(std::chrono::seconds(60));
//   SessionStore store(db, tables, policy, cache);
//   auto listener = cache->follow(executor, conninfo, "session_changes");  // stop it at shutdown
//
// What an entry may be used for, and how long:
// - Never longer than the database would answer the same: find() tells, with the rows, how long
//   the session stays as it is, the earlier of its expiry and the moment its last-seen time is due
//   to be written again (a minute after the last write). After that the next request asks the
//   database, which writes it; so the idle limit stays precise to a minute and the lifetime exact.
//   Never longer than `limit` either (SESSION_CACHE_SECONDS).
// - Changes come by NOTIFY on one channel, sent by triggers of the service's schema, so no code path
//   can forget them: `session:<token hash>` (the session ended or changed), `subject:<subject>` (the
//   user changed or went, their permissions changed) and `all` (a table was truncated). Every
//   instance drops the entries named. A notification is delivered after the change commits, so
//   another instance may answer from its entry for that moment (milliseconds; the tests hold it to
//   a second).
// - While the listening connection is down, the cache is not used at all: notifications sent
//   meanwhile are lost, so the cache cannot know what it missed. On losing the connection it drops
//   everything and answers nothing until the listener is back (every find() asks the database
//   meanwhile); after each (re)connect it starts empty. Before the listener first connects it is
//   not used either. A connection that dies silently (a network partition) is noticed only when
//   TCP gives up on it (core/db/listener.hpp).
// - A lookup that ran across a change is not kept: put() refuses an entry when anything was dropped
//   since the lookup began (ticket()), so a result read before a change cannot outlive the
//   notification of it.
// - Entries never seen again are swept as they expire (every kSweepEvery puts).
#include "core/db/result.hpp"

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace core::db {
class Listener;
}

namespace core::auth {

class SessionCache : public std::enable_shared_from_this<SessionCache> {
 public:
  using Clock = std::chrono::steady_clock;

  explicit SessionCache(std::chrono::seconds limit) : limit_(limit) {}

  // The rows of a trusted, unexpired entry for `token_hash`.
  std::optional<core::db::Result> get(const std::string& token_hash, Clock::time_point now = Clock::now());

  // Taken before asking the database: what put() checks for changes since.
  struct Ticket {
    std::uint64_t generation = 0;
    Clock::time_point asked_at;
  };
  Ticket ticket(Clock::time_point now = Clock::now()) const;
  // Keeps `rows` for `token_hash` (a session of `subject`), valid `valid_for` from when the ticket
  // was taken (bounded by the limit), unless the cache is not trusted or anything was dropped since.
  void put(const Ticket& ticket, const std::string& token_hash, std::string subject, core::db::Result rows,
           std::chrono::milliseconds valid_for);

  void forget_token_hash(const std::string& token_hash);
  void forget_subject(const std::string& subject);
  void forget_all();
  // A notification of the channel: `session:<hash>`, `subject:<subject>`, `all` (anything else: all).
  void apply(std::string_view payload);

  // The listener is up (LISTEN in place): start empty and trusted. It is down: drop everything and
  // answer nothing until trust() again.
  void trust();
  void distrust();
  bool trusted() const;

  std::size_t size() const;
  struct Counts {
    std::uint64_t hits = 0, misses = 0;
  };
  Counts counts() const;

  // A listener on `channel` that keeps this cache: apply() on each notification, trust() on each
  // (re)connect, distrust() on each loss. Started; stop it (or destroy it) before the executor's
  // io_context goes.
  std::shared_ptr<core::db::Listener> follow(boost::asio::any_io_executor ex, std::string conninfo,
                                             std::string channel);

  static constexpr std::size_t kSweepEvery = 1024;

 private:
  struct Entry {
    std::string subject;
    core::db::Result rows;
    Clock::time_point until;
  };
  void erase_locked(const std::string& token_hash);
  void clear_locked();

  const std::chrono::seconds limit_;
  mutable std::mutex mutex_;
  bool trusted_ = false;
  std::uint64_t generation_ = 0;  // moves on every drop
  std::size_t puts_ = 0;
  mutable Counts counts_;
  std::unordered_map<std::string, Entry> entries_;                               // token hash → entry
  std::unordered_map<std::string, std::unordered_set<std::string>> by_subject_;  // subject → token hashes
};

}  // namespace core::auth
