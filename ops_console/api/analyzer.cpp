#include "ops_console/api/analyzer.hpp"

#include "core/app/json_rows.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "core/util/secrets.hpp"
#include "core/util/strings.hpp"
#include "ops_console/analyzer/gate.hpp"
#include "ops_console/analyzer/jobs.hpp"
#include "ops_console/analyzer/reports.hpp"
#include "ops_console/identity/routes.hpp"
#include "ops_console/integrations/registry.hpp"

namespace ops_console {

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using nlohmann::json;

namespace {

const std::vector<std::string> kPeriods{"today", "yesterday", "this week", "last week", "30d", "60d", "all"};
constexpr std::size_t kMaxTicketsPerRequest = 25;
constexpr std::size_t kMaxRecipients = 10;

// The ticket row of the list, with its latest job's state as the analysis status.
constexpr std::string_view kTicketRow = R"sql(
  json_build_object('id', t.id, 'ticketNumber', t.ticket_number, 'title', t.title, 'status', t.status,
    'priority', t.priority, 'queueId', t.queue_id, 'issueType', t.issue_type, 'companyId', t.company_id,
    'companyName', c.company_name, 'assignedResourceId', t.assigned_resource_id, 'createDate', t.create_date,
    'lastActivityDate', t.last_activity_date,
    'analysis', (SELECT json_build_object('status', j.status, 'jobId', j.id, 'analysisId', j.analysis_id,
                                          'at', coalesce(j.finished_at, j.started_at, j.created_at))
                 FROM analysis_jobs j WHERE j.ticket_id = t.id ORDER BY j.id DESC LIMIT 1))
)sql";

// Picklists render as ticket_picklist_json() (migration 0018): active values only.
constexpr std::string_view kFilterOptions = R"sql(
  SELECT json_build_object(
    'clients', (SELECT coalesce(json_agg(json_build_object('id', id, 'name', company_name)
                                         ORDER BY lower(company_name), id), '[]'::json)
                FROM companies WHERE deleted_at IS NULL AND is_active),
    'issueTypes', ticket_picklist_json('issueType'), 'queues', ticket_picklist_json('queueID'),
    'statuses', ticket_picklist_json('status'), 'priorities', ticket_picklist_json('priority'),
    'assignees', (SELECT coalesce(json_agg(json_build_object('id', id, 'name', trim(concat_ws(' ', first_name, last_name)))
                                           ORDER BY lower(last_name), lower(first_name), id), '[]'::json)
                  FROM resources WHERE deleted_at IS NULL AND is_active))
)sql";

// A ticket's text size, for the estimate; missing or deleted tickets are absent.
constexpr std::string_view kTicketSizes = R"sql(
  SELECT t.id, length(coalesce(t.title, '')) + length(coalesce(t.description, ''))
         + coalesce((SELECT sum(length(coalesce(e.summary_notes, ''))) FROM time_entries e
                     WHERE e.ticket_id = t.id AND e.deleted_at IS NULL), 0)
  FROM tickets t WHERE t.id = ANY($1::bigint[]) AND t.deleted_at IS NULL
)sql";

constexpr std::string_view kJob = R"sql(
  SELECT json_build_object('id', id, 'ticketId', ticket_id, 'status', status, 'route', route, 'attempts', attempts,
                           'analysisId', analysis_id, 'error', error, 'createdAt', created_at,
                           'startedAt', started_at, 'finishedAt', finished_at)
  FROM analysis_jobs WHERE id = $1
)sql";

// Feed rows render as analysis_feed_json() (migration 0018).
constexpr std::string_view kTicketAnalyses = R"sql(
  SELECT coalesce(json_agg(analysis_feed_json(a) ORDER BY a.completed_at DESC NULLS LAST, a.id DESC), '[]'::json)
  FROM (SELECT * FROM analyses WHERE ticket_id = $1 ORDER BY completed_at DESC NULLS LAST, id DESC LIMIT 50) a
)sql";

// One analysis: the feed row (analysis_feed_json(), migration 0018) and what only a detail shows.
constexpr std::string_view kAnalysis = R"sql(
  SELECT (analysis_feed_json(a)::jsonb || jsonb_build_object(
            'sentiment', a.sentiment, 'confidence', a.confidence, 'nextSteps', a.next_steps,
            'reviewReasons', a.review_reasons, 'documentationReferences', a.documentation_refs, 'model', a.model,
            'promptTokens', a.prompt_tokens, 'completionTokens', a.completion_tokens, 'cost', a.cost,
            'error', a.error, 'jobId', a.job_id, 'executionId', a.execution_id)
          || CASE WHEN $2 THEN jsonb_build_object('traces', a.traces) ELSE '{}'::jsonb END)::text
  FROM analyses a WHERE a.id = $1
)sql";

constexpr std::string_view kFeedRow = "SELECT analysis_feed_json(a) FROM analyses a WHERE a.id = $1";

constexpr std::string_view kStoreShare = R"sql(
  INSERT INTO analysis_shares (analysis_id, shared_by, recipients, message) VALUES ($1, $2, $3::text[], $4)
  RETURNING id, json_build_object('id', id, 'analysisId', analysis_id, 'recipients', recipients,
                                  'message', message, 'createdAt', created_at)
)sql";
constexpr std::string_view kShareOutcome = "UPDATE analysis_shares SET email_sent = $2, email_error = $3 WHERE id = $1";

// Reports render as analyzer_report_json() (migration 0018).
constexpr std::string_view kReport = "SELECT analyzer_report_json(r) FROM analyzer_reports r WHERE r.id = $1";

core::db::Composed compose_ticket_list(const Request& req) {
  core::json::QueryReader in(req.query);
  const std::string period = in.optional_string("period", {.one_of = kPeriods}).value_or("all");
  const auto company = in.optional_integer("companyId", {.min = 1});
  const auto issue_type = in.optional_integer("issueType", {.min = 0});
  const auto search = in.optional_string("search", {.min_length = 1, .max_length = 200});
  const auto limit = in.integer("limit", 50, {.min = 1, .max = 200});
  const auto offset = in.integer("offset", 0, {.min = 0});
  in.finish();

  using core::db::restrict;
  core::db::Composed st;
  std::string where = " WHERE t.deleted_at IS NULL";
  if (period != "all") {
    const std::string range =
        "calendar_period(" + st.bind(period) + ", " + st.bind(identity::current_timezone(req)) + ", now())";
    restrict(where, "t.create_date >= coalesce(lower(" + range + "), '-infinity')");
    restrict(where, "t.create_date < coalesce(upper(" + range + "), 'infinity')");
  }
  if (company) restrict(where, "t.company_id = " + st.bind(*company));
  if (issue_type) restrict(where, "t.issue_type = " + st.bind(*issue_type));
  if (search) {
    const std::string pattern = st.bind(core::db::substring_pattern(*search));
    restrict(where, "(t.title ILIKE " + pattern + " OR t.ticket_number ILIKE " + pattern + ")");
  }
  const std::string page = " ORDER BY t.create_date DESC NULLS LAST, t.id DESC LIMIT " + st.bind(limit) +
                           "::bigint OFFSET " + st.bind(offset) + "::bigint";
  // The period "all" without a search is counted from ticket_counts (migration 0037), which
  // triggers keep exact; any other total counts the tickets it covers.
  std::string total = "SELECT count(*) FROM tickets t" + where;
  if (period == "all" && !search) {
    total = "SELECT coalesce(sum(live), 0) FROM ticket_counts WHERE true";
    if (company) total += " AND company_key = " + st.bind(*company);
    if (issue_type) total += " AND issue_type_key = " + st.bind(*issue_type);
  }
  st.sql = "SELECT json_build_object('total', (" + total + "), 'limit', " + std::to_string(limit) + ", 'offset', " +
           std::to_string(offset) +
           ", 'items', coalesce((SELECT json_agg(p.row ORDER BY p.n) FROM (SELECT row_number() OVER () AS n, " +
           std::string(kTicketRow) + " AS row FROM (SELECT * FROM tickets t" + where + page +
           ") t LEFT JOIN companies c ON c.id = t.company_id) p), '[]'::json))";
  return st;
}

awaitable<Response> analyze(core::db::Pool& db, const AnalyzerWiring& w, Request& req) {
  const auto body = core::json::parse_object(req.body);
  core::json::BodyReader in(body);
  auto tickets = in.integers("ticketIds", {.min = 1}, kMaxTicketsPerRequest, true);
  std::vector<std::string> route_names;
  for (const auto& [name, model] : w.settings.routes) route_names.push_back(name);
  const auto route = in.optional_string("route", {.one_of = route_names, .check_message = "is not a configured route"});
  if (route && route_names.empty()) in.add("route", "no routes are configured (ANALYZER_ROUTES)");
  const bool confirmed = in.optional_boolean("confirmCost").value_or(false);
  if (in.ok() && tickets.empty()) in.add("ticketIds", "needs at least one ticket");
  in.finish();
  if (!w.llm) throw integrations::not_configured("the language model", {"LLM_BASE_URL"});
  std::sort(tickets.begin(), tickets.end());
  tickets.erase(std::unique(tickets.begin(), tickets.end()), tickets.end());

  std::map<std::int64_t, double> estimates;
  for (const auto& row : co_await db.query(kTicketSizes, tickets)) {
    const auto tokens = analyzer::analysis_tokens(row.get<std::int64_t>(1));
    estimates[row.get<std::int64_t>(0)] = w.settings.pricing.cost(tokens.prompt, tokens.completion);
  }
  std::string unknown;
  for (const auto t : tickets)
    if (!estimates.contains(t)) unknown += (unknown.empty() ? "" : ", ") + std::to_string(t);
  if (!unknown.empty()) throw Problem::invalid_field("ticketIds", "names tickets not in the PSA copy: " + unknown);
  double estimate = 0;
  std::vector<double> each;
  for (const auto t : tickets) {
    estimate += estimates[t];
    each.push_back(estimates[t]);
  }

  const auto& user = identity::current_user(req);
  auto tx = co_await db.begin();
  const auto gate = co_await analyzer::pass_gate(tx, user, "analyze", estimate, confirmed, w.settings.override_users);
  const auto queued = co_await analyzer::enqueue(tx, tickets, each, route, user.id);
  co_await tx.commit();
  json jobs = json::array();
  for (const auto& job : queued) jobs.push_back({{"id", job.id}, {"ticketId", job.ticket_id}});
  co_return Response::json({{"jobs", jobs}, {"cost", gate.cost_json()}}, core::http::Status::accepted);
}

std::string share_text(const json& row, const identity::User& sharer, const std::optional<std::string>& message) {
  const auto text = [&](const char* key) { return row[key].is_string() ? row[key].get<std::string>() : std::string(); };
  std::string out = (sharer.name.empty() ? sharer.email : sharer.name) + " shared the analysis of ticket " +
                    text("ticketNumber") + ": " + text("ticketTitle") + "\n\n";
  if (message) out += *message + "\n\n";
  out += "Company: " + text("companyName") + "\nCategory: " + text("category") + "\nUrgency: " + text("urgency") +
         "\nNeeds review: " + (row["needsReview"].is_boolean() && row["needsReview"].get<bool>() ? "yes" : "no") +
         "\n\nSummary:\n" + text("summary") + "\n";
  return out;
}

awaitable<Response> share(core::db::Pool& db, const AnalyzerWiring& w, Request& req) {
  const auto id = core::parse_int64(req.param("id")).value_or(0);
  const auto body = core::json::parse_object(req.body);
  core::json::BodyReader in(body);
  const auto recipients = in.strings("recipients",
                                     {.max_length = 320,
                                      .check = core::is_email_address,
                                      .check_message = "is not an e-mail address",
                                      .lowercase = true},
                                     kMaxRecipients, true);
  const auto message = in.optional_string("message", {.max_length = 2000});
  if (in.ok() && recipients.empty()) in.add("recipients", "needs at least one address");
  in.finish();
  const auto rows = co_await db.query(kFeedRow, id);
  if (rows.empty()) throw Problem::not_found("no analysis " + std::to_string(id));
  const json row = json::parse(rows.front().text(0));
  const auto& user = identity::current_user(req);

  // The share's record comes first; the mail second, and its outcome completes the record.
  const auto stored = co_await db.query(kStoreShare, id, user.id, recipients, message);
  const auto share_id = stored.front().get<std::int64_t>(0);
  json share = json::parse(stored.front().text(1));
  std::optional<std::string> error;
  if (!w.graph || w.settings.mail_sender.empty()) {
    error = "mail is not configured (GRAPH_TENANT_ID, GRAPH_CLIENT_ID, GRAPH_CLIENT_SECRET and MAIL_SENDER)";
  } else {
    try {
      co_await w.graph->send_mail(
          w.settings.mail_sender,
          {.subject = "Ticket analysis: " + row.value("ticketNumber", std::string()) + " " +
                      (row["ticketTitle"].is_string() ? row["ticketTitle"].get<std::string>() : ""),
           .content_type = "Text",
           .body = share_text(row, user, message),
           .to = recipients});
    } catch (const std::exception& e) {
      error = core::secrets::quote(e.what());  // the platform's words, stored and answered: masked, bounded
    }
  }
  co_await db.query(kShareOutcome, share_id, !error, error);
  json out = {{"share", share}, {"emailSent", !error}};
  if (error) out["emailError"] = *error;
  co_return Response::json(out);
}

awaitable<Response> start_report(core::db::Pool& db, boost::asio::any_io_executor executor,
                                 std::shared_ptr<const AnalyzerWiring> w, Request& req) {
  const auto body = core::json::parse_object(req.body);
  core::json::BodyReader in(body);
  analyzer::ReportScope scope{.period = in.string("period", {.one_of = kPeriods}),
                              .timezone = identity::current_timezone(req),
                              .company_id = in.optional_integer("companyId", {.min = 1})};
  const bool confirmed = in.optional_boolean("confirmCost").value_or(false);
  in.finish();
  if (!w->llm) throw integrations::not_configured("the language model", {"LLM_BASE_URL"});
  const json distributions = co_await analyzer::report_distributions(db, scope);
  const auto& user = identity::current_user(req);
  auto tx = co_await db.begin();
  const auto gate =
      co_await analyzer::pass_gate(tx, user, "report", analyzer::narrative_estimate(distributions, w->settings.pricing),
                                   confirmed, w->settings.override_users);
  json report = co_await analyzer::store_report(tx, user.id, scope, distributions);
  co_await tx.commit();
  analyzer::narrate_later(executor, db, w->llm, w->settings.pricing, report["id"].get<std::int64_t>());
  report["cost"] = gate.cost_json();
  co_return Response::json(report, core::http::Status::accepted);
}

}  // namespace

void install_analyzer_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                             std::shared_ptr<const AnalyzerWiring> wiring) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;

  routes.get("/api/analyzer/tickets/list", [&db](Request& req) -> awaitable<Response> {
    core::db::Composed st = compose_ticket_list(req);
    co_return co_await core::app::json_document(db, std::move(st));
  });

  routes.get("/api/analyzer/tickets/filter-options",
             [&db](Request&) { return core::app::json_document(db, kFilterOptions); });

  routes.post("/api/analyzer/analyze",
              [&db, wiring](Request& req) -> awaitable<Response> { co_return co_await analyze(db, *wiring, req); });

  routes.get("/api/analyzer/jobs/{id:int}", [&db](Request& req) {
    const std::string job(req.param("id"));
    return core::app::json_resource(db, {.missing = Problem::not_found("no analysis job " + job)}, kJob,
                                    core::parse_int64(job).value_or(0));
  });

  routes.get("/api/analyzer/analyses", [&db](Request& req) -> awaitable<Response> {
    core::json::QueryReader in(req.query);
    const auto ticket = in.optional_integer("ticketId", {.min = 1});
    if (!ticket) in.add("ticketId", "is required");
    in.finish();
    co_return co_await core::app::json_document(db, kTicketAnalyses, *ticket);
  });

  routes.get("/api/analyzer/analyses/{id:int}", [&db](Request& req) {
    const std::string analysis(req.param("id"));
    return core::app::json_resource(db, {.missing = Problem::not_found("no analysis " + analysis)}, kAnalysis,
                                    core::parse_int64(analysis).value_or(0), identity::current_user(req).is_admin);
  });

  routes.post("/api/analyzer/analyses/{id:int}/share",
              [&db, wiring](Request& req) -> awaitable<Response> { co_return co_await share(db, *wiring, req); });

  routes.post("/api/analyzer/reports", [&db, executor = ctx.executor, wiring](Request& req) -> awaitable<Response> {
    co_return co_await start_report(db, executor, wiring, req);
  });

  routes.get("/api/analyzer/reports/{id:int}", [&db](Request& req) {
    const std::string report(req.param("id"));
    return core::app::json_resource(db, {.missing = Problem::not_found("no report " + report)}, kReport,
                                    core::parse_int64(report).value_or(0));
  });
}

}  // namespace ops_console
