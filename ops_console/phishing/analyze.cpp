#include "ops_console/phishing/analyze.hpp"

#include "core/util/digest.hpp"
#include "core/util/strings.hpp"
#include "ops_console/phishing/message.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <vector>

namespace ops_console::phishing {

using boost::asio::awaitable;
using core::http::Problem;
using nlohmann::json;

namespace {

constexpr std::size_t kMaxMessages = 10;                  // e-mail attachments read per ticket
constexpr std::int64_t kMaxAttachmentBytes = 10'000'000;  // Autotask's own limit is 6-7 MB

// The indicators a campaign is recognised by (README, "Phishing").
const std::set<std::string, std::less<>> kGroupingKinds{"sender_address", "reply_to_address", "url_domain",
                                                        "attachment_sha256"};

constexpr std::string_view kTicket =
    "SELECT coalesce(description, '') FROM tickets WHERE id = $1 AND deleted_at IS NULL";

// Every analysis holds this lock to its commit: grouping reads what the others wrote.
constexpr std::string_view kLock = "SELECT pg_advisory_xact_lock(hashtext('ops-console: phishing grouping'))";

constexpr std::string_view kReport = "SELECT id, campaign_id::text FROM phishing_reports WHERE ticket_id = $1";

// The oldest open campaign holding one of the indicators ($1: [{kind, value}]).
constexpr std::string_view kCampaignOf = R"sql(
  SELECT c.id::text
  FROM jsonb_to_recordset($1::jsonb) AS k(kind text, value text)
  JOIN phishing_indicators i ON i.kind = k.kind AND i.value = k.value
  JOIN phishing_messages m ON m.id = i.message_id
  JOIN phishing_reports r ON r.id = m.report_id
  JOIN phishing_campaigns c ON c.id = r.campaign_id
  WHERE c.status = 'open'
  ORDER BY c.created_at, c.id
  LIMIT 1
)sql";

constexpr std::string_view kNewCampaign = R"sql(
  INSERT INTO phishing_campaigns (first_seen, last_seen)
  VALUES (coalesce($1::timestamptz, now()), coalesce($2::timestamptz, now()))
  RETURNING id::text
)sql";

constexpr std::string_view kNewReport =
    "INSERT INTO phishing_reports (ticket_id, campaign_id, analyzed_by) VALUES ($1, $2::uuid, $3) RETURNING id";
constexpr std::string_view kTouchReport =
    "UPDATE phishing_reports SET analyzed_at = now(), analyzed_by = $2 WHERE id = $1";

constexpr std::string_view kMessage = R"sql(
  INSERT INTO phishing_messages (report_id, sha256, source, psa_attachment_id, file_name, subject, from_address,
                                 from_name, reply_to, return_path, message_id, sent_at, spf, dkim, dmarc, body_excerpt)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::timestamptz, $13, $14, $15, $16)
  ON CONFLICT (report_id, sha256) DO UPDATE SET
    source = EXCLUDED.source, psa_attachment_id = EXCLUDED.psa_attachment_id, file_name = EXCLUDED.file_name,
    subject = EXCLUDED.subject, from_address = EXCLUDED.from_address, from_name = EXCLUDED.from_name,
    reply_to = EXCLUDED.reply_to, return_path = EXCLUDED.return_path, message_id = EXCLUDED.message_id,
    sent_at = EXCLUDED.sent_at, spf = EXCLUDED.spf, dkim = EXCLUDED.dkim, dmarc = EXCLUDED.dmarc,
    body_excerpt = EXCLUDED.body_excerpt, updated_at = now()
  RETURNING id
)sql";

constexpr std::string_view kIndicators = R"sql(
  INSERT INTO phishing_indicators (message_id, kind, value)
  SELECT $1, k.kind, k.value FROM jsonb_to_recordset($2::jsonb) AS k(kind text, value text)
  ON CONFLICT (message_id, kind, value) DO NOTHING
)sql";

constexpr std::string_view kSeen = R"sql(
  UPDATE phishing_campaigns
  SET first_seen = least(first_seen, coalesce($2::timestamptz, now())),
      last_seen = greatest(last_seen, coalesce($3::timestamptz, now())), updated_at = now()
  WHERE id = $1::uuid
)sql";

// A reported message before it is stored.
struct Found {
  std::string source;  // attachment, pasted_headers
  std::optional<std::int64_t> attachment_id;
  std::optional<std::string> file_name;
  std::string sha256;
  ReportedMessage message;
  std::vector<Indicator> indicators;
};

std::optional<std::string> first_address(const std::vector<Mailbox>& list) {
  return list.empty() ? std::nullopt : std::optional<std::string>(list.front().address);
}
std::optional<std::string> text_or_null(const std::string& s) {
  return s.empty() ? std::nullopt : std::optional<std::string>(s);
}

}  // namespace

bool is_reported_message(const psa::TicketAttachment& a) {
  const auto type = core::to_lower(core::trim(std::string_view(a.content_type).substr(0, a.content_type.find(';'))));
  const auto eml = [](const std::string& name) { return core::to_lower(core::trim(name)).ends_with(".eml"); };
  return type == "message/rfc822" || eml(a.title) || eml(a.full_path);
}

awaitable<AnalysisOutcome> analyze_ticket(core::db::Pool& db, std::shared_ptr<psa::AutotaskClient> psa,
                                          Problem psa_absent, std::int64_t ticket_id, std::int64_t user_id) {
  const auto tickets = co_await db.query(kTicket, ticket_id);
  if (tickets.empty()) throw Problem::not_found("no ticket " + std::to_string(ticket_id) + " in the PSA copy");
  const std::string description(tickets.front().text(0));

  // Detect and fetch: the pasted header block, then the e-mail attachments.
  std::vector<Found> found;
  std::vector<std::string> unreadable;
  const auto block = pasted_header_block(description);
  if (block) {
    try {
      auto message = parse_pasted_headers(description);
      found.push_back({.source = "pasted_headers", .sha256 = core::sha256_hex(*block), .message = std::move(message)});
    } catch (const ParseError& e) {
      unreadable.push_back("the pasted headers (" + std::string(e.what()) + ")");
    }
  }
  if (!psa && !block) throw psa_absent;
  if (psa) {
    try {
      int read = 0;
      const auto attachments = co_await psa->ticket_attachments(ticket_id);
      for (const auto& a : attachments) {
        if (!is_reported_message(a) || read >= static_cast<int>(kMaxMessages)) continue;
        const std::string name = a.title.empty() ? a.full_path : a.title;
        if (a.file_size > kMaxAttachmentBytes) {
          unreadable.push_back("the attachment \"" + name + "\" (larger than 10 MB)");
          continue;
        }
        ++read;
        auto file = co_await psa->attachment(ticket_id, a.id);
        if (!file) continue;  // gone meanwhile
        try {
          auto message = parse_message(file->data);
          found.push_back({.source = "attachment",
                           .attachment_id = a.id,
                           .file_name = name,
                           .sha256 = core::sha256_hex(file->data),
                           .message = std::move(message)});
        } catch (const ParseError& e) {
          unreadable.push_back("the attachment \"" + name + "\" (" + e.what() + ")");
        }
      }
    } catch (const psa::PsaError& e) {
      throw e.problem();
    }
  }
  // The same message attached twice is one message.
  std::set<std::string> hashes;
  std::erase_if(found, [&](const Found& f) { return !hashes.insert(f.sha256).second; });
  if (found.empty()) {
    std::string why = "ticket " + std::to_string(ticket_id) + " is not a phishing report: ";
    if (unreadable.empty()) {
      why +=
          "it carries no reported message (an attached e-mail, message/rfc822 or .eml, or headers pasted into "
          "its description)";
    } else {
      why += "no e-mail could be read from ";
      for (std::size_t i = 0; i < unreadable.size(); ++i) why += (i ? ", " : "") + unreadable[i];
    }
    throw Problem(core::http::Status::bad_request, "not-a-phishing-report", why);
  }

  json grouping = json::array();
  std::optional<std::string> first_seen, last_seen;  // RFC 3339 UTC: they compare as text
  for (auto& f : found) {
    f.indicators = indicators(f.message);
    for (const auto& i : f.indicators)
      if (kGroupingKinds.contains(i.kind)) grouping.push_back({{"kind", i.kind}, {"value", i.value}});
    if (const auto& d = f.message.date) {
      if (!first_seen || *d < *first_seen) first_seen = *d;
      if (!last_seen || *d > *last_seen) last_seen = *d;
    }
  }

  // Store and group.
  AnalysisOutcome out;
  auto tx = co_await db.begin();
  co_await tx.query(kLock);
  const auto existing = co_await tx.query(kReport, ticket_id);
  if (!existing.empty()) {
    out.report_id = existing.front().get<std::int64_t>(0);
    out.campaign_id = std::string(existing.front().text(1));
    co_await tx.query(kTouchReport, out.report_id, user_id);
  } else {
    const auto joined = grouping.empty() ? core::db::Result() : co_await tx.query(kCampaignOf, grouping);
    if (!joined.empty()) {
      out.campaign_id = std::string(joined.front().text(0));
    } else {
      out.campaign_id = std::string((co_await tx.query(kNewCampaign, first_seen, last_seen)).front().text(0));
      out.campaign_created = true;
    }
    out.report_id = (co_await tx.query(kNewReport, ticket_id, out.campaign_id, user_id)).front().get<std::int64_t>(0);
    out.report_created = true;
  }
  for (const auto& f : found) {
    const auto& m = f.message;
    const auto from = first_address(m.from);
    const auto rows =
        co_await tx.query(kMessage, out.report_id, f.sha256, f.source, f.attachment_id, f.file_name, m.subject, from,
                          m.from.empty() ? std::nullopt : text_or_null(m.from.front().name), first_address(m.reply_to),
                          text_or_null(m.return_path), text_or_null(m.message_id), m.date, text_or_null(m.spf),
                          text_or_null(m.dkim), text_or_null(m.dmarc), m.text);
    json list = json::array();
    for (const auto& i : f.indicators) list.push_back({{"kind", i.kind}, {"value", i.value}});
    co_await tx.query(kIndicators, rows.front().get<std::int64_t>(0), list);
  }
  if (!out.campaign_created) co_await tx.query(kSeen, out.campaign_id, first_seen, last_seen);
  co_await tx.commit();
  out.messages = static_cast<int>(found.size());
  co_return out;
}

}  // namespace ops_console::phishing
