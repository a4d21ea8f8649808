#include "ops_console/psa/webhooks.hpp"

#include "core/log/log.hpp"
#include "core/util/digest.hpp"
#include "core/util/strings.hpp"
#include "ops_console/psa/entities.hpp"
#include "ops_console/psa/webhook_payload.hpp"

#include <map>

namespace ops_console::psa {

using boost::asio::awaitable;
using core::http::Problem;
using nlohmann::json;

namespace {

constexpr std::size_t kMaxSourceIp = 45;

constexpr std::string_view kProcessedAlready =
    "SELECT EXISTS (SELECT 1 FROM webhook_events WHERE event_id = $1 AND status = 'processed')";

// One row per event; an event that failed before is overwritten by its retry's outcome, one
// processed already is kept as it is.
constexpr std::string_view kLog = R"sql(
  INSERT INTO webhook_events (event_id, guid, entity_type, entity_id, action, status, error_message, source_ip,
                              user_agent, event_time)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::timestamptz)
  ON CONFLICT (event_id) DO UPDATE
    SET status = EXCLUDED.status, error_message = EXCLUDED.error_message, source_ip = EXCLUDED.source_ip,
        user_agent = EXCLUDED.user_agent, received_at = now()
  WHERE webhook_events.status = 'failed'
)sql";

// The common case in one statement, so one commit: an Update or Create of a row the copy holds,
// not processed before. $1 event_id, $2 entity id, $3 the row by column, $4 guid, $5 entity
// type, $6 action, $7 source_ip, $8 user_agent, $9 event time. Answers the event's earlier status
// ('' for none) and whether the row was patched (and the event logged).
std::string patch_and_log_sql(const Entity& e) {
  return "WITH prior AS (SELECT status FROM webhook_events WHERE event_id = $1), patched AS (UPDATE " +
         std::string(e.table) + " t SET " + patch_assignments(e, "$3") + " FROM jsonb_to_record($3::jsonb) AS r(" +
         record_type(e) +
         ") WHERE t.id = $2 AND NOT EXISTS (SELECT 1 FROM prior WHERE status = 'processed') RETURNING t.id), "
         "logged AS (INSERT INTO webhook_events (event_id, guid, entity_type, entity_id, action, status, source_ip, "
         "user_agent, event_time) SELECT $1, $4, $5, $2, $6, 'processed', $7, $8, $9::timestamptz "
         "WHERE EXISTS (SELECT 1 FROM patched) ON CONFLICT (event_id) DO UPDATE SET status = 'processed', "
         "error_message = NULL, source_ip = EXCLUDED.source_ip, user_agent = EXCLUDED.user_agent, received_at = now() "
         "WHERE webhook_events.status = 'failed' RETURNING 1) "
         "SELECT coalesce((SELECT status FROM prior), ''), EXISTS (SELECT 1 FROM patched)";
}

// Built once per entity, on first use.
const std::string& patch_and_log(const Entity& e) {
  static const std::map<const Entity*, std::string> statements = [] {
    std::map<const Entity*, std::string> out;
    for (const auto& entity : entities()) out.emplace(&entity, patch_and_log_sql(entity));
    return out;
  }();
  return statements.at(&e);
}

}  // namespace

std::string source_ip_of(const core::http::Request& req) {
  std::string ip;
  if (const auto forwarded = req.header("x-forwarded-for"); !forwarded.empty())
    ip = std::string(core::trim(forwarded.substr(0, forwarded.find(','))));
  if (ip.empty()) ip = std::string(core::trim(req.header("x-real-ip")));
  if (ip.empty()) ip = req.remote_address;
  return ip.substr(0, kMaxSourceIp);
}

WebhookIntake::WebhookIntake(core::db::Pool& db, std::shared_ptr<AutotaskClient> psa, std::string secret)
    : db_(db), psa_(std::move(psa)), secret_(std::move(secret)) {}

// "sha1=<base64>" as Autotask documents it; "sha1=<hex>" accepted too. Constant time.
bool WebhookIntake::signature_ok(const Callout& c) const {
  if (secret_.empty()) return true;
  if (!c.signature || !c.signature->starts_with("sha1=")) return false;
  const std::string_view sent = std::string_view(*c.signature).substr(5);
  if (sent.size() == 40)
    return core::constant_time_equals(core::to_lower(std::string(sent)), core::hmac_sha1_hex(secret_, c.body));
  return core::constant_time_equals(sent, core::hmac_sha1_base64(secret_, c.body));
}

awaitable<Outcome> WebhookIntake::receive(Callout c) {
  if (!signature_ok(c)) {
    core::log::warn("psa webhook refused: bad signature", {{"source_ip", c.source_ip}});
    co_return Outcome{.problem = Problem::unauthorized("the X-Hook-Signature does not match the body")};
  }

  WebhookEvent e = read_webhook(c.body);
  const Entity* entity = e.entity;
  std::optional<Problem> failure = e.malformed;
  const json duplicate{{"status", "duplicate"}, {"event_id", e.event_id}};
  const json row = entity ? to_row(*entity, e.fields) : json::object();
  if (!failure && entity && *e.action != "Delete" && !row.empty()) {
    const auto done = co_await db_.query(patch_and_log(*entity), e.event_id, *e.entity_id, row, e.guid, e.entity_type,
                                         e.action, c.source_ip, c.user_agent, e.event_time);
    if (done.front().text(0) == "processed") co_return Outcome{.body = duplicate};
    if (done.front().get<bool>(1)) co_return Outcome{.body = {{"status", "processed"}, {"event_id", e.event_id}}};
    // the copy lacks the row: below, the PSA has it whole
  } else if (!failure) {
    const auto done = co_await db_.query(kProcessedAlready, e.event_id);
    if (done.front().get<bool>(0)) co_return Outcome{.body = duplicate};
  }
  if (!failure && !entity)
    failure = Problem(core::http::Status::unprocessable_entity, "unsupported-entity",
                      "the console does not copy " + *e.entity_type + " from the PSA",
                      {{"EntityType",
                        "must be one of Company, Contact, ConfigurationItem, Contract, Project, Task, "
                        "Ticket, TimeEntry"}});
  if (!failure) {
    try {
      if (*e.action == "Delete") {
        co_await db_.query(entity->delete_sql, *e.entity_id);
      } else {  // the copy lacks the row (or the callout named no field): the PSA has it whole
        if (!psa_)
          throw PsaError("the copy lacks " + *e.entity_type + " " + std::to_string(*e.entity_id) +
                         " and the PSA is not configured to fetch it");
        const auto item = co_await psa_->get(std::string(entity->name), *e.entity_id);
        if (!item) throw PsaError("the PSA has no " + *e.entity_type + " " + std::to_string(*e.entity_id));
        const json rows = json::array({to_row(*entity, *item)});
        co_await db_.query(entity->upsert_sql, rows);
      }
    } catch (const PsaError& x) {
      failure = x.problem();
    }
  }
  const std::optional<std::string> error = failure ? std::optional(failure->detail()) : std::nullopt;
  co_await db_.query(kLog, e.event_id, e.guid, e.entity_type, e.entity_id, e.action, failure ? "failed" : "processed",
                     error, c.source_ip, c.user_agent, e.event_time);
  if (failure) {
    core::log::warn("psa webhook failed", {{"event_id", e.event_id}, {"error", *error}});
    co_return Outcome{.problem = std::move(failure)};
  }
  co_return Outcome{.body = {{"status", "processed"}, {"event_id", e.event_id}}};
}

}  // namespace ops_console::psa
