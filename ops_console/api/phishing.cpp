#include "ops_console/api/phishing.hpp"

#include "core/app/json_rows.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "core/util/strings.hpp"
#include "ops_console/identity/routes.hpp"
#include "ops_console/phishing/analyze.hpp"
#include "ops_console/phishing/classify.hpp"

#include <algorithm>

namespace ops_console {

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using identity::Access;

namespace {

constexpr std::int64_t kPhishingDefaultPage = 50;
constexpr std::int64_t kPhishingMaxPage = 200;

const core::json::StringRule kCampaignStatus{.one_of = {"open", "closed"}, .lowercase = true};

// The answer of an analysis: the campaign renders as phishing_campaign_json() (migration 0019).
constexpr std::string_view kAnalysis = R"sql(
  SELECT json_build_object('ticketId', r.ticket_id, 'reportId', r.id, 'messagesRead', $3::int,
                           'campaignCreated', $2::boolean, 'campaign', phishing_campaign_json(c))
  FROM phishing_reports r JOIN phishing_campaigns c ON c.id = r.campaign_id
  WHERE r.id = $1
)sql";

// A page of campaigns, most recently seen first, and how many there are; each renders as
// phishing_campaign_summary_json() (migration 0019). With a status, both the page and the count
// take it as a parameter.
constexpr std::string_view kCampaigns = R"sql(
  SELECT json_build_object(
    'items', (SELECT coalesce(json_agg(phishing_campaign_summary_json(c) ORDER BY c.last_seen DESC, c.id), '[]'::json)
              FROM (SELECT * FROM phishing_campaigns ORDER BY last_seen DESC, id LIMIT $1 OFFSET $2) c),
    'total', (SELECT count(*) FROM phishing_campaigns),
    'limit', $1::bigint, 'offset', $2::bigint)
)sql";
constexpr std::string_view kCampaignsWithStatus = R"sql(
  SELECT json_build_object(
    'items', (SELECT coalesce(json_agg(phishing_campaign_summary_json(c) ORDER BY c.last_seen DESC, c.id), '[]'::json)
              FROM (SELECT * FROM phishing_campaigns WHERE status = $3
                    ORDER BY last_seen DESC, id LIMIT $1 OFFSET $2) c),
    'total', (SELECT count(*) FROM phishing_campaigns WHERE status = $3),
    'limit', $1::bigint, 'offset', $2::bigint)
)sql";

// One campaign in full: phishing_campaign_json() (migration 0019).
constexpr std::string_view kCampaign =
    "SELECT phishing_campaign_json(c) FROM phishing_campaigns c WHERE c.id = $1::uuid";

// Closes or reopens a campaign; the answer is the campaign, as phishing_campaign_json() (migration
// 0019) renders it.
constexpr std::string_view kSetStatus = R"sql(
  UPDATE phishing_campaigns c SET status = $2 WHERE c.id = $1::uuid RETURNING phishing_campaign_json(c)
)sql";

const std::vector<std::string> kPsaSettings{"PSA_BASE_URL", "PSA_USERNAME", "PSA_SECRET", "PSA_INTEGRATION_CODE"};

}  // namespace

void install_phishing_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                             std::shared_ptr<psa::AutotaskClient> psa,
                             std::shared_ptr<integrations::Registry> registry) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;

  routes.post(
      "/api/phishing/tickets/{ticket_id}/analyze", Access::permission("phishing", "analyze"),
      [&db, psa, registry](Request& req) -> awaitable<Response> {
        const std::string_view raw = req.param("ticket_id");
        const auto ticket = core::parse_int64(raw);
        if (!ticket || !std::all_of(raw.begin(), raw.end(), [](char c) { return c >= '0' && c <= '9'; }))
          throw Problem::invalid_field("ticket_id", "must be a numeric PSA ticket id");
        // Without the PSA (not configured, or switched off) only pasted headers can be read.
        auto client = psa;
        auto absent = integrations::not_configured("the PSA, which an attachment-only phishing report is read through",
                                                   kPsaSettings);
        if (client && (co_await registry->disabled()).contains("psa")) {
          client = nullptr;
          absent = Problem::forbidden(
              "the PSA integration is switched off: a report's attachments cannot be read, only pasted "
              "headers");
        }
        const auto outcome = co_await phishing::analyze_ticket(db, std::move(client), std::move(absent), *ticket,
                                                               identity::current_user(req).id);
        const auto rows = co_await db.query(kAnalysis, outcome.report_id, outcome.campaign_created, outcome.messages);
        co_return Response::json_text(std::string(rows.front().text(0)),
                                      outcome.report_created ? core::http::Status::created : core::http::Status::ok);
      });

  routes.get("/api/phishing/campaigns", Access::permission("phishing", "read"), [&db](Request& req) {
    core::json::QueryReader in(req.query);
    const auto limit =
        std::min(in.integer("limit", kPhishingDefaultPage, {.min = 0}), kPhishingMaxPage);  // clamped, not refused
    const auto offset = in.integer("offset", 0, {.min = 0, .max = 1'000'000'000});
    const auto status = in.optional_string("status", kCampaignStatus);
    in.finish();
    return status ? core::app::json_document(db, kCampaignsWithStatus, limit, offset, *status)
                  : core::app::json_document(db, kCampaigns, limit, offset);
  });

  routes.get("/api/phishing/campaigns/{id}", Access::permission("phishing", "read"), [&db](Request& req) {
    const std::string campaign(req.param("id"));
    if (!core::is_uuid(campaign)) throw Problem::invalid_field("id", "must be a UUID");
    return core::app::json_resource(db, {.missing = Problem::not_found("no phishing campaign " + campaign)}, kCampaign,
                                    campaign);
  });

  // Close a campaign (it keeps its reports; a related report then starts a new one) or reopen it.
  routes.patch("/api/phishing/campaigns/{id}", Access::permission("phishing", "analyze"), [&db](Request& req) {
    const std::string campaign(req.param("id"));
    if (!core::is_uuid(campaign)) throw Problem::invalid_field("id", "must be a UUID");
    const auto body = core::json::parse_object(req.body);
    core::json::BodyReader in(body);
    const std::string status = in.string("status", kCampaignStatus);
    in.finish();
    return core::app::json_resource(db, {.missing = Problem::not_found("no phishing campaign " + campaign)}, kSetStatus,
                                    campaign, status);
  });
}

void install_phishing_classify_route(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                                     std::shared_ptr<core::llm::ChatClient> llm, analyzer::Pricing pricing) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;
  routes.post("/api/phishing/campaigns/{id}/classify", Access::permission("phishing", "analyze"),
              [&db, llm, pricing](Request& req) -> awaitable<Response> {
                const std::string campaign(req.param("id"));
                if (!core::is_uuid(campaign)) throw Problem::invalid_field("id", "must be a UUID");
                if (!llm) throw integrations::not_configured("the language model", {"LLM_BASE_URL"});
                std::optional<nlohmann::json> result;
                std::optional<std::string> failure;
                try {
                  result = co_await phishing::classify_campaign(db, *llm, pricing, campaign);
                } catch (const core::llm::LlmError& e) {
                  failure = e.what();
                }
                if (failure) throw Problem(core::http::Status::bad_gateway, "model-failed", *failure);
                if (!result) throw Problem::not_found("no phishing campaign " + campaign);
                co_return Response::json(*result);
              });
}

}  // namespace ops_console
