#include "mail_triage/api/analysis.hpp"

#include "core/app/json_rows.hpp"

namespace mail_triage {

using core::http::Request;

namespace {

// The 200 senders with the most logged messages, ties by address; sender_stats is kept current
// by triggers on email_log (migration 0009), so this reads 200 index entries at any log size.
// first_seen and last_seen are the earliest and latest received_at.
constexpr std::string_view kTopSenders = R"sql(
  SELECT json_build_object('items', coalesce(json_agg(json_build_object(
      'sender_address', s.sender_address,
      'count', s.message_count,
      'first_seen', s.first_seen,
      'last_seen', s.last_seen) ORDER BY s.message_count DESC, s.sender_address), '[]'::json))
  FROM (SELECT * FROM sender_stats ORDER BY message_count DESC, sender_address LIMIT 200) s
)sql";

}  // namespace

void install_analysis_routes(core::app::Context& ctx) {
  auto& db = ctx.db;

  ctx.router.get("/api/v1/analysis/senders", [&db](Request&) { return core::app::json_document(db, kTopSenders); });
}

}  // namespace mail_triage
