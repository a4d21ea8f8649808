#pragma once
// Sessions and sign-in attempts of a web console, kept in two tables of the console's schema:
// one store serves the ops-console's users (ops_console/identity) and the /dbusers admin keys
// (mail_triage/dbusers). The console keeps its cookie, its form of the answers, and what a
// session is for; the store keeps the rules.
//
//   SessionStore store(db, {.sessions = "sessions", .subject = "user_id",
//                           .failures = "login_failures", .account = "email"}, policy);
//   if (auto refused = co_await store.admit(email, address)) throw refused->problem();  // 429
//   if (!secret_is_right) { co_await store.failed(email, address); throw ...; }       // counted
//   co_await store.succeeded(email, address);                                        // forgiven
//   std::string token = co_await store.start(std::to_string(user.id), address);       // the cookie
//   auto rows = co_await store.find(token);  // the `lookup` rows of a live session, or none
//   co_await store.end(token);
//
// Tokens are 256 random bits in base64url; only their SHA-256 is stored, so a copy of the table
// signs no one in. A session ends `idle` after its last request, `lifetime` after it started, or
// when ended; starting one sweeps the ended ones. A request moves last_seen_at at most once a
// minute, so a busy session is not a write per request (the idle limit is precise to a minute).
//
// A store given a SessionCache (session_cache.hpp) answers find() from it while it may, and keeps
// what the database answered; end() drops the session there too. find()'s statement returns, after
// the lookup's columns, `session_subject` (the subject, as text) and `session_fresh_ms` (how long the
// answer stays as it is: until the session expires or its last-seen time is due to be written).
//
// Failed sign-ins are counted per account and per address over `failure_window`. The account's
// count (the address's, for a console without accounts) slows the next attempt (`slowdown`); at
// `refuse_account_after` or `refuse_address_after` failures, admit() refuses until the window
// has passed: 429 with Retry-After. A success forgives the account's (the address's) failures.
#include "core/auth/session_cache.hpp"
#include "core/db/pool.hpp"
#include "core/http/problem.hpp"
#include "core/http/sign_in_slowdown.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace core::auth {

// Where a console keeps its sessions and failures. Table and column names are the code's own,
// never input: they are spliced into the statements once, at construction.
struct SessionTables {
  std::string sessions;  // token_hash text PK, <subject>, address text, expires_at, last_seen_at
  std::string subject;   // the sessions' column naming whom a session is for
  std::string failures;  // address text, failed_at timestamptz DEFAULT now() [, <account> text]
  std::string account;   // the failures' column naming the account; empty: per address only
  // What find() returns: a SELECT over `live (subject)`, the one row of a live session.
  std::string lookup = "SELECT subject FROM live";
};

struct SessionPolicy {
  std::chrono::minutes idle{30};
  std::chrono::hours lifetime{12};
  std::chrono::minutes failure_window{15};
  core::http::SignInSlowdown slowdown;  // from the 3rd failure, 1 s a step, at most 5
  int refuse_account_after = 5;         // failures of one account in the window before 429
  int refuse_address_after = 20;        // failures from one address in the window before 429
};

// Why admit() said no, and for how long.
struct Refusal {
  std::chrono::seconds retry_after;
  std::string message() const;          // "too many failed sign-ins; try again in 15 minutes"
  core::http::Problem problem() const;  // 429 too-many-sign-ins, with Retry-After
};

class SessionStore {
 public:
  // `cache`: none, or where find() looks first (shared with the listener that keeps it).
  SessionStore(core::db::Pool& db, SessionTables tables, SessionPolicy policy,
               std::shared_ptr<SessionCache> cache = nullptr);

  // The rows of tables.lookup for the live session of `token` (refreshing it), or none. No
  // query runs without a plausible token, nor for a session the cache holds.
  boost::asio::awaitable<core::db::Result> find(std::optional<std::string> token);
  // A new session for `subject` (the text of the subject column's value); its token.
  boost::asio::awaitable<std::string> start(std::string subject, std::string address);
  boost::asio::awaitable<void> end(std::string token);
  // This instance's cached sessions of `subject` are asked of the database again: after a change
  // of this process's own, before the notification of it arrives.
  void forget_subject(const std::string& subject);

  // Before checking a secret: a refusal, or nothing after waiting the slowdown. `account` is
  // ignored by a store without accounts.
  boost::asio::awaitable<std::optional<Refusal>> admit(std::string account, std::string address);
  boost::asio::awaitable<void> failed(std::string account, std::string address);
  boost::asio::awaitable<void> succeeded(std::string account, std::string address);

  const SessionPolicy& policy() const { return policy_; }

 private:
  bool per_account() const { return !tables_.account.empty(); }
  const std::string& key(const std::string& account, const std::string& address) const {
    return per_account() ? account : address;
  }

  core::db::Pool& db_;
  SessionTables tables_;
  SessionPolicy policy_;
  std::shared_ptr<SessionCache> cache_;
  std::string find_sql_, start_sql_, end_sql_, count_sql_, failed_sql_, succeeded_sql_;
};

}  // namespace core::auth
