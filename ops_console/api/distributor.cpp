#include "ops_console/api/distributor.hpp"

#include "core/app/json_rows.hpp"
#include "core/db/statement.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "core/util/strings.hpp"
#include "ops_console/identity/routes.hpp"

#include <map>

namespace ops_console {

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using identity::Access;

namespace {

constexpr std::int64_t kDefaultPage = 50;
constexpr std::int64_t kMaxPage = 200;

// The sort whitelist: the parameter's value → the expression over the list's rows `r`.
const std::map<std::string, std::string, std::less<>> kSorts{{"name", "lower(r.name)"},
                                                             {"matchedCompany", "lower(r.matched_company_name)"},
                                                             {"activeSubscriptions", "r.active_subscriptions"},
                                                             {"monthlyCost", "r.monthly_cost"}};

const core::json::StringRule kSort{.one_of = {"name", "matchedCompany", "activeSubscriptions", "monthlyCost"}};
const core::json::StringRule kOrder{.one_of = {"asc", "desc"}, .lowercase = true};
const core::json::StringRule kSearch{.min_length = 1, .max_length = 200};
const core::json::StringRule kNote{.max_length = 500};

struct CompanyQuery {
  std::int64_t limit = kDefaultPage, offset = 0;
  std::optional<std::string> search;
  std::string sort = "name", order = "asc";
};

// A company of the list: its matched PSA company's name and its active subscriptions.
core::db::Composed compose_companies(const CompanyQuery& q) {
  core::db::Composed st;
  std::string where = " WHERE d.deleted_at IS NULL";
  if (q.search) where += " AND d.name ILIKE " + st.bind(core::db::substring_pattern(*q.search));
  const std::string direction = q.order == "desc" ? " DESC" : " ASC";
  const std::string order_by = kSorts.find(q.sort)->second + direction + " NULLS LAST, r.id" + direction;
  const std::string limit = st.bind(q.limit), offset = st.bind(q.offset);
  st.sql = R"sql(
    WITH rows AS (
      SELECT d.id, d.name, d.status, d.matched_company_id, p.company_name AS matched_company_name,
             coalesce(s.active, 0) AS active_subscriptions, coalesce(s.monthly_cost, 0) AS monthly_cost
      FROM distributor_companies d
      LEFT JOIN companies p ON p.id = d.matched_company_id
      LEFT JOIN LATERAL (
        SELECT count(*) FILTER (WHERE s.status = 'Active') AS active,
               round(sum(distributor_monthly_cost(s)), 2) AS monthly_cost
        FROM distributor_subscriptions s WHERE s.company_id = d.id AND s.deleted_at IS NULL) s ON true)sql" +
           where + R"sql()
    SELECT json_build_object(
      'items', (SELECT coalesce(json_agg(json_build_object(
                  'id', r.id, 'name', r.name, 'status', r.status, 'matchedCompanyId', r.matched_company_id,
                  'matchedCompanyName', r.matched_company_name, 'activeSubscriptions', r.active_subscriptions,
                  'monthlyCost', r.monthly_cost) ORDER BY )sql" +
           order_by + "), '[]'::json) FROM (SELECT * FROM rows r ORDER BY " + order_by + " LIMIT " + limit +
           "::bigint OFFSET " + offset + "::bigint) r), 'total', (SELECT count(*) FROM rows), 'limit', " + limit +
           "::bigint, 'offset', " + offset + "::bigint)";
  return st;
}

// A company renders as distributor_company_json() (migration 0012).
constexpr std::string_view kCompany =
    "SELECT distributor_company_json(d) FROM distributor_companies d WHERE d.id = $1::uuid AND d.deleted_at IS NULL";

// Reviews render as distributor_company_match_json() (migration 0012).
constexpr std::string_view kOpenReviews = R"sql(
  SELECT coalesce(json_agg(distributor_company_match_json(m) ORDER BY m.created_at, m.id), '[]'::json)
  FROM distributor_company_matches m
  JOIN distributor_companies d ON d.id = m.distributor_company_id AND d.deleted_at IS NULL
  WHERE NOT m.resolved
)sql";

constexpr std::string_view kLockReview =
    "SELECT resolved, distributor_company_id FROM distributor_company_matches WHERE id = $1 FOR UPDATE";
constexpr std::string_view kCompanyExists = "SELECT 1 FROM companies WHERE id = $1 AND deleted_at IS NULL";
constexpr std::string_view kResolve = R"sql(
  UPDATE distributor_company_matches m
  SET resolved = true, resolved_company_id = $2, note = $3, resolved_by = $4, resolved_at = now(), updated_at = now()
  WHERE m.id = $1
  RETURNING distributor_company_match_json(m)
)sql";
constexpr std::string_view kMatch = R"sql(
  UPDATE distributor_companies SET matched_company_id = $2, match_method = 'review', matched_at = now()
  WHERE id = $1::uuid
)sql";

}  // namespace

void install_distributor_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                                std::shared_ptr<integrations::Registry> registry,
                                std::shared_ptr<distributor::DistributorSync> sync) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;

  routes.post("/api/distributor/sync", [registry, sync](Request&) -> awaitable<Response> {
    co_await registry->require_enabled("distributor", "distributor");
    if (!sync)
      throw Problem::unavailable(
          "the distributor is not configured (DISTRIBUTOR_CLIENT_ID and DISTRIBUTOR_CLIENT_SECRET are unset)");
    if (!co_await sync->start()) throw Problem::conflict("a distributor sync is already under way");
    co_return Response::json({{"started", true}}, core::http::Status::accepted);
  });

  routes.get("/api/distributor/sync", [&db](Request&) -> awaitable<Response> {
    co_return Response::json(co_await distributor::sync_status(db));
  });

  routes.get("/api/distributor/companies", [&db](Request& req) {
    core::json::QueryReader in(req.query);
    CompanyQuery q{.limit = in.integer("limit", kDefaultPage, {.min = 1, .max = kMaxPage}),
                   .offset = in.integer("offset", 0, {.min = 0, .max = 1'000'000'000}),
                   .search = in.optional_string("search", kSearch),
                   .sort = in.optional_string("sort", kSort).value_or("name"),
                   .order = in.optional_string("order", kOrder).value_or("asc")};
    in.finish();
    return core::app::json_document(db, compose_companies(q));
  });

  routes.get("/api/distributor/companies/{id:uuid}", [&db](Request& req) {
    const std::string company(req.param("id"));
    return core::app::json_resource(db, {.missing = Problem::not_found("no distributor company " + company)}, kCompany,
                                    company);
  });

  routes.get("/api/distributor/company-matches",
             [&db](Request&) { return core::app::json_document(db, kOpenReviews); });

  routes.post("/api/distributor/company-matches/{id:int}/resolve", Access::permission("admin", "access"),
              [&db](Request& req) -> awaitable<Response> {
                const auto review = core::parse_int64(req.param("id")).value_or(0);
                const auto body = core::json::parse_object(req.body);
                core::json::BodyReader in(body);
                const auto company = in.integer("companyId", {.min = 1});
                auto note = in.optional_string("note", kNote);
                in.finish();
                const auto user = identity::current_user(req).id;
                auto tx = co_await db.begin();
                const auto found = co_await tx.query(kLockReview, review);
                if (found.empty()) throw Problem::not_found("no company match review " + std::to_string(review));
                if (found.front().get<bool>(0)) throw Problem::conflict("this review is resolved already");
                if ((co_await tx.query(kCompanyExists, company)).empty())
                  throw Problem::invalid_field("companyId", "names no company");
                const std::string distributor_company(found.front().text(1));
                const auto resolved = co_await tx.query(kResolve, review, company, std::move(note), user);
                co_await tx.query(kMatch, distributor_company, company);
                co_await tx.commit();
                co_return Response::json_text(std::string(resolved.front().text(0)));
              });
}

}  // namespace ops_console
