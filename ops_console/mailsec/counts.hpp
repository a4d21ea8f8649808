#pragma once
// The message-count store (issue 20): per internal user and UTC day, messages sent and received,
// in mailsec_message_counts (migration 0017), from the default tenant's SIEM receipt stream
// (Mimecast API 2.0 has no per-user count endpoint: GET /siem/v1/events/cg, types=receipt, is the
// feed of every message; ops_console/README.md, "Mail security").
//
//   auto counts = std::make_shared<MessageCounts>(db, client);
//   co_await counts->pull();     // every MAILSEC_COUNTS_MINUTES, and once at start
//   co_await counts->retain();   // daily, and once at start: days older than 18 months go
//
// A receipt counts as sent for its senderEnvelope when its direction is Outbound or Internal, and
// as received for its recipient when Inbound or Internal (so internal users are those the
// service itself calls internal). A pull re-reads whole UTC days, from the start of the day of
// its last pull (the first: 7 days back) to now, and replaces those days' counts: pulling twice
// counts nothing twice.
#include "core/db/pool.hpp"
#include "ops_console/mailsec/mimecast.hpp"

#include <boost/asio/awaitable.hpp>

#include <memory>

namespace ops_console::mailsec {

inline constexpr int kFirstPullDays = 7;

class MessageCounts {
 public:
  MessageCounts(core::db::Pool& db, std::shared_ptr<MimecastClient> client);

  boost::asio::awaitable<void> pull();
  boost::asio::awaitable<void> retain();

 private:
  core::db::Pool& db_;
  std::shared_ptr<MimecastClient> client_;
};

}  // namespace ops_console::mailsec
