#include "ops_console/api/mailsec.hpp"

#include "core/async/join.hpp"
#include "core/async/semaphore.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "core/util/secrets.hpp"
#include "core/util/strings.hpp"
#include "core/util/time.hpp"
#include "ops_console/identity/routes.hpp"

#include <boost/asio/this_coro.hpp>

namespace ops_console {

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using nlohmann::json;

namespace {

constexpr int kHeldPageSize = 10;  // the spec's default of 100 messages is 10 pages
constexpr std::int64_t kHeldDefault = 100;
constexpr std::int64_t kHeldMost = 500;
constexpr std::size_t kDeliveredMost = 50;  // results that get their spam score, at most
constexpr std::size_t kInfoAtOnce = 4;
constexpr std::size_t kRemediateMost = 100;
constexpr auto kShortestRange = std::chrono::hours(6);
constexpr auto kLongestRange = std::chrono::hours(24 * 7);
constexpr auto kTrackingKept = std::chrono::hours(24 * 30);  // Mimecast's message finder looks 30 days back

const core::json::StringRule kTenant{.min_length = 1, .max_length = 64, .lowercase = true};
const core::json::StringRule kAddress{.min_length = 1, .max_length = 254};
const core::json::StringRule kSubject{.min_length = 1, .max_length = 200};
const core::json::StringRule kId{.min_length = 1, .max_length = 500};
const core::json::StringRule kAction{.one_of = {"search", "move", "delete"}};
const core::json::StringRule kQuery{.min_length = 1, .max_length = 200};

constexpr std::string_view kAuditStart = R"sql(
  INSERT INTO mailsec_remediations (user_id, user_email, mailbox, action, message_ids) VALUES ($1, $2, $3, $4, $5)
  RETURNING id
)sql";
constexpr std::string_view kAuditFinish =
    "UPDATE mailsec_remediations SET results = $2::jsonb, finished_at = now() WHERE id = $1";

// Mimecast's tracking status as one of the spec's four.
std::string delivered_status(const std::string& s) {
  if (s == "held") return "held";
  if (s == "rejected" || s == "blocked") return "rejected";
  if (s == "bounced" || s == "failed") return "bounced";
  return "accepted";  // delivered, archived, accepted; deferred, queued, processing: accepted, on their way
}

json spam_class(const json& score) {
  if (!score.is_number()) return nullptr;
  const double s = score.get<double>();
  return s >= 10 ? "high" : s >= 5 ? "moderate" : "clean";
}

// Mimecast writes "2015-11-16T14:49:18+0000".
std::string mimecast_time(core::Timestamp t) {
  return core::format_rfc3339(std::chrono::floor<std::chrono::seconds>(t)).substr(0, 19) + "+0000";
}

const json& member(const json& o, const char* key) {
  static const json none;
  return o.is_object() && o.contains(key) ? o[key] : none;
}

}  // namespace

void install_mailsec_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                            std::shared_ptr<integrations::Registry> registry, std::shared_ptr<const MailsecWiring> w) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;

  // 403 switched off (first), 503 no tenant, 400 an unknown tenant; else that tenant's client.
  const auto client_for =
      [registry, w](std::optional<std::string> tenant) -> awaitable<std::shared_ptr<mailsec::MimecastClient>> {
    co_await registry->require_enabled("mailsec", "mail-security");
    if (w->tenants.empty()) throw integrations::not_configured("the mail-security service", w->settings.missing);
    const std::string name = tenant.value_or(w->settings.tenants.front().name);
    const auto it = w->tenants.find(name);
    if (it == w->tenants.end()) throw Problem::invalid_field("tenant", "is not a configured mail-security tenant");
    co_return it->second;
  };

  routes.get("/api/mailsec/held", [client_for](Request& req) -> awaitable<Response> {
    core::json::QueryReader in(req.query);
    auto tenant = in.optional_string("tenant", kTenant);
    const auto limit = in.integer("limit", kHeldDefault, {.min = 1, .max = kHeldMost});
    in.finish();
    auto client = co_await client_for(std::move(tenant));
    // The admin flag first (every recipient's held mail); a 403 to it: again without (the API
    // user's own), as the spec says.
    bool admin = true;
    json items = json::array();
    std::string token;
    bool more = true;
    for (int page = 0; more && static_cast<std::int64_t>(items.size()) < limit; ++page) {
      json answer;
      bool forbidden = false;
      try {
        answer = co_await client->call("/api/gateway/get-hold-message-list", {{"admin", admin}},
                                       {.page_size = kHeldPageSize, .page_token = token});
      } catch (const mailsec::MailsecForbidden&) {
        if (!admin || page > 0) throw;
        forbidden = true;
      }
      if (forbidden) {
        admin = false;
        page = -1;
        continue;
      }
      if (const auto f = mailsec::failure_of(answer)) throw mailsec::MailsecError("the held list failed: " + *f);
      for (const auto& item : member(answer, "data"))
        if (static_cast<std::int64_t>(items.size()) < limit) items.push_back(item);
      const auto& next = member(member(member(answer, "meta"), "pagination"), "next");
      more = next.is_string() && !next.get<std::string>().empty() && member(answer, "data").size() > 0;
      if (more) token = next.get<std::string>();
    }
    auto res = Response::json({{"tenant", client->tenant().name},
                               {"admin", admin},
                               {"items", items},
                               {"count", items.size()},
                               {"truncated", more}});
    res.headers.set(core::http::bhttp::field::cache_control, "no-store");
    co_return res;
  });

  routes.post("/api/mailsec/held/release", [client_for](Request& req) -> awaitable<Response> {
    const auto body = core::json::parse_object(req.body);
    core::json::BodyReader in(body);
    auto message = in.string("id", kId);
    auto tenant = in.optional_string("tenant", kTenant);
    in.finish();
    auto client = co_await client_for(std::move(tenant));
    json answer;
    std::optional<std::string> refused;
    try {
      answer = co_await client->call("/api/gateway/hold-release", {{"id", message}}, {.page_size = 1});
    } catch (const mailsec::MailsecForbidden& e) {
      refused = e.detail();
    }
    if (!refused) refused = mailsec::failure_of(answer);
    const auto& first = member(answer, "data").is_array() && !answer["data"].empty() ? answer["data"][0] : json();
    const bool released = !refused && member(first, "release") == true;
    json out{{"id", message}, {"released", released}};
    if (!released)  // the service's words, answered: masked, bounded
      out["reason"] = core::secrets::quote(refused.value_or("the mail-security service did not release it"));
    co_return Response::json(out);
  });

  routes.post("/api/mailsec/delivered", [client_for](Request& req) -> awaitable<Response> {
    const auto body = core::json::parse_object(req.body);
    core::json::BodyReader in(body);
    auto recipient = in.optional_string("recipient", kAddress);
    auto sender = in.optional_string("sender", kAddress);
    auto subject = in.optional_string("subject", kSubject);
    auto tenant = in.optional_string("tenant", kTenant);
    const auto start_text = in.optional_string("start");
    const auto end_text = in.optional_string("end");
    const auto now = core::now();
    const auto end = end_text ? core::parse_rfc3339(*end_text) : std::optional<core::Timestamp>(now);
    if (end_text && !end) in.add("end", "must be an RFC 3339 date-time");
    const auto start = start_text ? core::parse_rfc3339(*start_text)
                                  : std::optional<core::Timestamp>(end.value_or(now) - std::chrono::hours(24));
    if (start_text && !start) in.add("start", "must be an RFC 3339 date-time");
    if (start && end) {
      if (*end <= *start)
        in.add("end", "must be after start");
      else if (*end - *start < kShortestRange)
        in.add("start", "the range must be at least 6 hours");
      else if (*end - *start > kLongestRange)
        in.add("start", "the range must be at most 7 days");
      else if (*start < now - kTrackingKept)
        in.add("start", "must be within the last 30 days (the message finder keeps no more)");
    }
    in.finish();
    auto client = co_await client_for(std::move(tenant));
    json options = json::object();
    if (sender) options["from"] = *sender;
    if (recipient) options["to"] = *recipient;
    if (subject) options["subject"] = *subject;
    json search{{"start", mimecast_time(*start)},
                {"end", mimecast_time(*end)},
                {"searchReason", "ops-console delivered-mail search"}};
    if (!options.empty()) search["advancedTrackAndTraceOptions"] = options;
    const json answer = co_await client->call("/api/message-finder/search", search, {.page_size = 100});
    if (const auto f = mailsec::failure_of(answer)) throw mailsec::MailsecError("the message search failed: " + *f);
    json found = json::array();
    for (const auto& block : member(answer, "data"))
      for (const auto& t : member(block, "trackedEmails")) found.push_back(t);
    const bool truncated = found.size() > kDeliveredMost;
    std::vector<json> items;
    for (std::size_t i = 0; i < found.size() && i < kDeliveredMost; ++i) items.push_back(found[i]);

    // Each result's spam score, from get-message-info, a few at once.
    std::vector<json> scores(items.size());
    core::async::Semaphore slots(kInfoAtOnce);
    std::vector<std::function<awaitable<void>()>> reads;
    for (std::size_t i = 0; i < items.size(); ++i)
      reads.push_back([&, i]() -> awaitable<void> {
        auto permit = co_await slots.acquire();
        const json info = co_await client->call("/api/message-finder/get-message-info",
                                                {{"id", member(items[i], "id")}}, {.page_size = 1});
        const auto& data = member(info, "data");
        if (data.is_array() && !data.empty()) scores[i] = member(member(data[0], "spamInfo"), "spamScore");
      });
    co_await core::async::join_all(co_await boost::asio::this_coro::executor, std::move(reads));

    json out = json::array();
    for (std::size_t i = 0; i < items.size(); ++i) {
      const auto& t = items[i];
      json score = scores[i];
      if (score.is_string()) score = core::parse_int64(score.get<std::string>()).value_or(0);
      const std::string raw = member(t, "status").is_string() ? t["status"].get<std::string>() : "";
      json to = json::array();
      for (const auto& r : member(t, "to")) to.push_back(member(r, "emailAddress"));
      out.push_back({{"id", member(t, "id")},
                     {"status", delivered_status(raw)},
                     {"mailsecStatus", raw},
                     {"from", member(member(t, "fromEnv"), "emailAddress")},
                     {"to", to},
                     {"subject", member(t, "subject")},
                     {"received", member(t, "received")},
                     {"spamScore", score},
                     {"spamClass", spam_class(score)}});
    }
    co_return Response::json({{"tenant", client->tenant().name},
                              {"start", core::format_rfc3339(*start)},
                              {"end", core::format_rfc3339(*end)},
                              {"items", out},
                              {"count", out.size()},
                              {"truncated", truncated}});
  });

  routes.post("/api/mailsec/mailbox-remediate", [&db, registry, w](Request& req) -> awaitable<Response> {
    co_await registry->require_enabled("mailsec", "mail-security");
    const auto body = core::json::parse_object(req.body);
    core::json::BodyReader in(body);
    const auto action = in.string("action", kAction);
    auto mailbox = in.string("mailbox", kAddress);
    const auto query = in.optional_string("query", kQuery);
    std::vector<std::string> ids;
    if (body.contains("messageIds")) {
      if (!body["messageIds"].is_array() || body["messageIds"].empty() || body["messageIds"].size() > kRemediateMost)
        in.add("messageIds", "must be a list of 1 to 100 message ids");
      else
        for (const auto& m : body["messageIds"])
          if (m.is_string() && !m.get<std::string>().empty() && m.get<std::string>().size() <= 500)
            ids.push_back(m.get<std::string>());
          else
            in.add("messageIds", "each must be a message id (a string of 1 to 500 characters)");
    }
    if (!core::is_email_address(mailbox)) in.add("mailbox", "must be an e-mail address");
    if (action == "search" && !query) in.add("query", "is required to search");
    if (action != "search" && ids.empty() && !body.contains("messageIds"))
      in.add("messageIds", "is required to " + action);
    in.finish();
    if (!w->graph) throw integrations::not_configured("the mail platform (Microsoft Graph)", w->graph_missing);
    mailbox = core::to_lower(mailbox);
    // Graph's 403 on a mailbox means the app may not open it: a permission to grant, not a fault.
    const auto denied = [&mailbox]() {
      return Problem(core::http::Status::forbidden, "mailbox-access-denied",
                     "the mail platform app may not open " + mailbox +
                         ": grant it the Mail.ReadWrite application permission (or widen its access policy)");
    };

    if (action == "search") {
      std::vector<core::graph::MailMessage> found;
      bool refused = false;
      try {
        found = co_await w->graph->search(mailbox, *query, kRemediateMost);
      } catch (const core::graph::GraphError& e) {
        if (e.status != 403) throw mailsec::MailsecError("the mailbox search failed: " + std::string(e.what()));
        refused = true;
      }
      if (refused) throw denied();
      json items = json::array();
      for (const auto& m : found)
        items.push_back({{"id", m.id},
                         {"internetMessageId", m.internet_message_id},
                         {"subject", m.subject},
                         {"from", m.from_address},
                         {"receivedAt", core::format_rfc3339(m.received_at)},
                         {"folderId", m.parent_folder_id}});
      co_return Response::json({{"mailbox", mailbox}, {"items", items}, {"count", items.size()}});
    }

    // Move or delete: the audit row first, then each message, then the outcome of each.
    const auto& user = identity::current_user(req);
    const auto audit =
        (co_await db.query(kAuditStart, user.id, user.email, mailbox, action, ids)).front().get<std::int64_t>(0);
    json results = json::array();
    std::size_t done = 0;
    bool refused = false;
    for (const auto& message : ids) {
      std::optional<std::string> error;
      try {
        if (action == "move")
          co_await w->graph->move(mailbox, message, "deleteditems");  // recoverable
        else
          co_await w->graph->remove(mailbox, message);
      } catch (const core::graph::GraphError& e) {
        if (e.status == 403) refused = true;
        error = core::secrets::quote(e.what());  // stored in the audit and answered: masked, bounded
      }
      results.push_back({{"id", message}, {"ok", !error}, {"error", error ? json(*error) : json(nullptr)}});
      if (refused) break;
      done += !error;
    }
    co_await db.query(kAuditFinish, audit, results.dump());
    if (refused) throw denied();
    co_return Response::json({{"mailbox", mailbox},
                              {"action", action},
                              {action == "move" ? "moved" : "deleted", done},
                              {"results", results},
                              {"auditId", audit}});
  });
}

}  // namespace ops_console
