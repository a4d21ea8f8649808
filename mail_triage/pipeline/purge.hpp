#pragma once
// The purge of POST /api/v1/purge/execute (issue 4): delete a sender's old mail.
//
// Targets are one sender with its own threshold, or every active purge rule with the rule's
// older_than_days. A target whose sender is whitelisted (sender_type_of() = 'whitelist': an
// active, unexpired entry for the address or its domain) is left out and reported in `excluded`.
// For each other target and each mailbox, the messages from that sender received before
// now − days are listed in every folder but Deleted Items (GraphClient::from_sender_before).
//
// `preview` stops there. `execute` records each message in purge_deletions (`pending`), deletes
// it on the platform, and marks the row `deleted` or `failed` with the platform's error. One
// execute at a time across every instance (advisory lock; another gets 409), so two requests
// never race to delete the same messages.
#include "core/db/pool.hpp"
#include "core/graph/mail.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mail_triage::pipeline {

// At most this many distinct subjects, newest first, are listed per row of the response.
inline constexpr std::size_t kPurgeSubjectsPerRow = 10;

struct PurgeRequest {
  bool execute = false;               // mode: preview | execute
  std::optional<std::string> sender;  // nullopt: every active purge rule
  int days = 0;                       // with a sender: 1..3650
};

struct PurgeRow {
  std::string address;
  int days = 0;
  int count = 0;  // found (preview) or deleted (execute)
  std::vector<std::string> subjects;
  std::string label() const { return address + " (>" + std::to_string(days) + "d)"; }
};

struct PurgeError {
  std::string mailbox, address;
  std::string message_id;  // empty when the listing failed
  std::string error;
};

struct PurgeResult {
  std::vector<PurgeRow> rows;         // one per target, in address order
  std::vector<std::string> excluded;  // whitelisted senders, never purged
  std::vector<PurgeError> errors;     // listings or deletions the platform refused
  int listings = 0;                   // (target, mailbox) listings attempted
  int total() const;
  // True when there was something to search and not one listing could be made.
  bool nothing_searched() const;
};

class Purge {
 public:
  // `graph` is null when the mail platform is not configured (run() answers 503).
  Purge(boost::asio::any_io_executor executor, core::db::Pool& db, std::shared_ptr<core::graph::GraphClient> graph,
        std::vector<std::string> mailboxes);

  // Throws Problem 503 when the platform is not configured, 409 while another execute runs.
  boost::asio::awaitable<PurgeResult> run(PurgeRequest request);

 private:
  struct Target;
  struct Found;
  boost::asio::awaitable<std::vector<Target>> targets(const PurgeRequest& request, PurgeResult& result);
  boost::asio::awaitable<std::vector<Found>> find(const std::vector<Target>& targets, PurgeResult& result);
  boost::asio::awaitable<void> remove(const std::vector<Target>& targets, std::vector<Found>& found,
                                      PurgeResult& result);

  boost::asio::any_io_executor executor_;
  core::db::Pool& db_;
  std::shared_ptr<core::graph::GraphClient> graph_;
  std::vector<std::string> mailboxes_;
};

}  // namespace mail_triage::pipeline
