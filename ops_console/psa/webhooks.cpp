#include "ops_console/psa/webhooks.hpp"

#include "core/db/deadlock.hpp"
#include "core/log/log.hpp"
#include "core/util/digest.hpp"
#include "core/util/secrets.hpp"
#include "core/util/strings.hpp"
#include "ops_console/psa/entities.hpp"
#include "ops_console/psa/webhook_payload.hpp"

#include <map>
#include <set>

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

// The common case, for a group of callouts of one entity: Updates and Creates of rows the copy
// holds. $1: [{n, event_id, entity_id, row, guid, entity_type, action, source_ip, user_agent,
// event_time}], n the order of arrival. An event processed before changes nothing; the fresh
// events of one row are merged in arrival order (a later value of a field wins) and patch it
// once; each event whose row was patched is logged as processed (over a failed attempt). Answers
// per event_id its earlier status ('' for none) and whether its row was patched.
std::string patch_group_sql(const Entity& e) {
  return "WITH ev AS (SELECT DISTINCT ON (event_id) * FROM jsonb_to_recordset($1::jsonb) AS ev(n int, event_id text, "
         "entity_id bigint, row jsonb, guid text, entity_type text, action text, source_ip text, user_agent text, "
         "event_time timestamptz) ORDER BY event_id, n), "
         "prior AS (SELECT ev.event_id, (SELECT w.status FROM webhook_events w WHERE w.event_id = ev.event_id) "
         "AS status FROM ev), "
         "fresh AS (SELECT ev.* FROM ev JOIN prior p USING (event_id) WHERE p.status IS DISTINCT FROM 'processed'), "
         "merged AS (SELECT f.entity_id, jsonb_object_agg(kv.key, kv.value ORDER BY f.n) AS row "
         "FROM fresh f, jsonb_each(f.row) kv GROUP BY f.entity_id), "
         "patched AS (UPDATE " +
         std::string(e.table) + " t SET " + patch_assignments(e, "m.row") +
         " FROM merged m, jsonb_to_record(m.row) AS r(" + record_type(e) +
         ") WHERE t.id = m.entity_id RETURNING t.id), "
         "logged AS (INSERT INTO webhook_events (event_id, guid, entity_type, entity_id, action, status, source_ip, "
         "user_agent, event_time) SELECT event_id, guid, entity_type, entity_id, action, 'processed', source_ip, "
         "user_agent, event_time FROM fresh WHERE entity_id IN (SELECT id FROM patched) "
         "ON CONFLICT (event_id) DO UPDATE SET status = 'processed', error_message = NULL, "
         "source_ip = EXCLUDED.source_ip, user_agent = EXCLUDED.user_agent, received_at = now() "
         "WHERE webhook_events.status = 'failed' RETURNING 1) "
         "SELECT ev.event_id, coalesce(p.status, ''), ev.entity_id IN (SELECT id FROM patched) "
         "FROM ev JOIN prior p USING (event_id)";
}

// Built once per entity, on first use.
const std::string& patch_group(const Entity& e) {
  static const std::map<const Entity*, std::string> statements = [] {
    std::map<const Entity*, std::string> out;
    for (const auto& entity : entities()) out.emplace(&entity, patch_group_sql(entity));
    return out;
  }();
  return statements.at(&e);
}

json nullable(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }

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
    : db_(db),
      psa_(std::move(psa)),
      secret_(std::move(secret)),
      patches_(
          kMaxGroup, [this](std::vector<Patch> group) { return apply(std::move(group)); },
          core::db::request_bound_passed_error) {}

// One transaction for the group: a statement per entity among its callouts. A group of one
// entity, the usual case, is one statement, which is a transaction of its own: one round trip
// instead of three (BEGIN, the statement, COMMIT).
awaitable<std::vector<WebhookIntake::Patched>> WebhookIntake::apply(std::vector<Patch> group) {
  std::map<const Entity*, json> by_entity;
  for (std::size_t i = 0; i < group.size(); ++i) {
    group[i].event["n"] = i;
    by_entity[group[i].entity].push_back(group[i].event);
  }
  std::map<std::string, Patched> outcome;  // by event_id
  const auto take = [&outcome](const core::db::Result& rows) {
    for (const auto& r : rows)
      outcome[std::string(r.text(0))] = Patched{.prior = std::string(r.text(1)), .patched = r.get<bool>(2)};
  };
  // A group that deadlocked with another writer of the same rows (the sync's pages, a second
  // instance's group) is tried again.
  co_await core::db::retry_deadlocked([&]() -> awaitable<void> {
    outcome.clear();
    if (by_entity.size() == 1) {
      const auto& [entity, events] = *by_entity.begin();
      take(co_await db_.query(patch_group(*entity), events));
      co_return;
    }
    auto tx = co_await db_.begin();
    for (const auto& [entity, events] : by_entity) take(co_await tx.query(patch_group(*entity), events));
    co_await tx.commit();
  });
  // An event twice in the group (a callout retried while the first was queued) is written once;
  // the second copy is a duplicate of the first when that one was processed.
  std::vector<Patched> out;
  std::set<std::string> seen;
  for (const auto& p : group) {
    const std::string& id = p.event["event_id"].get_ref<const std::string&>();
    Patched r = outcome.at(id);
    if (!seen.insert(id).second && r.patched && r.prior != "processed") r.prior = "processed";
    out.push_back(std::move(r));
  }
  co_return out;
}

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
    const Patched done = co_await patches_.submit(Patch{.entity = entity,
                                                        .event = {{"event_id", e.event_id},
                                                                  {"entity_id", *e.entity_id},
                                                                  {"row", row},
                                                                  {"guid", nullable(e.guid)},
                                                                  {"entity_type", *e.entity_type},
                                                                  {"action", *e.action},
                                                                  {"source_ip", c.source_ip},
                                                                  {"user_agent", c.user_agent},
                                                                  {"event_time", nullable(e.event_time)}}});
    if (done.prior == "processed") co_return Outcome{.body = duplicate};
    if (done.patched) co_return Outcome{.body = {{"status", "processed"}, {"event_id", e.event_id}}};
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
  // Stored and logged: the PSA's words masked and bounded (core/util/secrets.hpp).
  const std::optional<std::string> error =
      failure ? std::optional(core::secrets::quote(failure->detail())) : std::nullopt;
  co_await db_.query(kLog, e.event_id, e.guid, e.entity_type, e.entity_id, e.action, failure ? "failed" : "processed",
                     error, c.source_ip, c.user_agent, e.event_time);
  if (failure) {
    core::log::warn("psa webhook failed", {{"event_id", e.event_id}, {"error", *error}});
    co_return Outcome{.problem = std::move(failure)};
  }
  co_return Outcome{.body = {{"status", "processed"}, {"event_id", e.event_id}}};
}

}  // namespace ops_console::psa
