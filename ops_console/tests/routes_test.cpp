// Every route of the ops-console declares its access where it is registered (identity/routes.hpp),
// and the default is a signed-in user. These tests walk the running service's own route list, so
// a route added tomorrow is checked without anyone remembering to add it here.
#include "core/testing/manual_clock.hpp"
#include "ops_console/tests/console_fixture.hpp"

#include "core/testing/readme_routes.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace {

using core::testing::HttpResponse;
using nlohmann::json;
using ops_console::testing::ConsoleTest;
using ops_console::testing::kPassword;

// The routes exempt from the session check: the spec's allowlist ("Public routes bypass the
// session check through an allowlist": incremental sync, ticket reconciliation, webhook intake,
// the log-evidence upload; and, from its own sentence, the access gateway's sync: "a configuration-only
// health row and a public sync route exist for an access-gateway integration"), plus sign-in, sign-out, first-login setup, the health routes and the
// web UI's shell and assets (ops_console/ui/routes.hpp: they hold no data).
// Allowlisted routes that are not built yet are listed already; the test asks only that every
// public route is on this list and every listed route that exists is public.
const std::set<std::string> kPublicAllowlist = {
    "GET /healthz",
    "GET /readyz",
    "POST /api/auth/login",
    "POST /api/auth/logout",
    "GET /api/auth/setup",
    "POST /api/auth/setup",
    "POST /api/sync/incremental",
    "POST /api/sync/reconcile-tickets",
    "POST /api/webhooks/psa",
    "POST /api/webhooks/gitforge",
    "POST /api/log-evidence",  // an upload token, checked before the body is read (api/log_evidence.hpp)
    "POST /api/access-gateway/sync",
    "GET /",
    "GET /assets/{name}",
    "GET /sw.js",
    "GET /manifest.webmanifest",
};

std::string key_of(const core::http::RouteInfo& r) {
  return std::string(core::http::bhttp::to_string(r.method)) + " " + r.path;
}

// A concrete path for a template: each parameter gets a well-formed value of its type, or with
// `malformed`, a value no parameter type takes.
std::string concrete(const std::string& tmpl, bool malformed = false) {
  std::string out;
  std::size_t i = 0;
  while (i < tmpl.size()) {
    if (tmpl[i] != '{') {
      out += tmpl[i++];
      continue;
    }
    const auto end = tmpl.find('}', i);
    const auto param = tmpl.substr(i, end - i + 1);
    if (malformed)
      out += "not-a-value";
    else if (param.ends_with(":uuid}"))
      out += "00000000-0000-4000-8000-000000000000";
    else
      out += "1";  // an int parameter, or text: digits suit both
    i = end + 1;
  }
  return out;
}

// The requests a route is tried with before the caller is let in: well-formed, and with every
// part malformed (path parameters, a query of bad values and a bad escape, a body that is not
// JSON). Access comes first: none of them may learn more than 401 or 403.
struct Attempt {
  std::string target, body;
};
std::vector<Attempt> attempts(const core::http::RouteInfo& r) {
  return {{concrete(r.path), "{}"},
          {concrete(r.path, true) + "?limit=many&offset=-1&cursor=%ZZ&from=yesterday&status=nope&id=x", "{not json"},
          {concrete(r.path) + "?limit=0", "[1, 2"}};
}

struct RoutesTest : ConsoleTest {
  const std::vector<core::http::RouteInfo>& routes() { return svc->service().router().routes(); }
  HttpResponse attempt(const core::http::RouteInfo& r, const Attempt& a, const std::string& token = "") {
    std::map<std::string, std::string> headers{{"Content-Type", "application/json"}};
    if (!token.empty()) headers["Cookie"] = "ops_session=" + token;
    return core::testing::http(svc->port(), std::string(core::http::bhttp::to_string(r.method)), a.target, a.body,
                               headers);
  }
};

TEST_F(RoutesTest, EveryRouteDeclaresItsAccess) {
  start();
  ASSERT_FALSE(routes().empty());
  for (const auto& r : routes()) EXPECT_FALSE(r.access.empty()) << key_of(r) << " declares no access";
}

TEST_F(RoutesTest, ThePublicRoutesAreExactlyTheAllowlisted) {
  start();
  for (const auto& r : routes()) {
    const bool allowlisted = kPublicAllowlist.contains(key_of(r));
    EXPECT_EQ(r.access == "public", allowlisted) << key_of(r) << " is " << r.access;
  }
}

TEST_F(RoutesTest, EveryNonPublicRouteAnswers401WithoutASessionAndTouchesNoDatabase) {
  // The schedules wait on a clock that does not move, and their first runs (the trends' renewal)
  // are over before the walk: the database's work counted is the requests'.
  auto clock = std::make_shared<core::testing::ManualClock>();
  start({}, clock);
  clock->settle();
  int walked = 0;
  for (const auto& r : routes()) {
    if (r.access == "public") continue;
    // an agent's route asks for its bearer token, not a session: 401 all the same
    for (const auto& a : attempts(r)) {
      const auto before = database_work();
      const auto res = attempt(r, a);
      EXPECT_EQ(res.status, 401u) << key_of(r) << " " << a.target << ": " << res.body;
      EXPECT_EQ(database_work(), before) << key_of(r) << " " << a.target << " queried the database before refusing";
    }
    ++walked;
  }
  EXPECT_GE(walked, 30);  // the console has over thirty signed-in routes; the walk saw them
}

TEST_F(RoutesTest, AdminAndPermissionRoutesAnswer403ToAPlainUser) {
  add_user("plain@msp.example", kPassword);
  start();
  const auto token = sign_in("plain@msp.example", kPassword);
  int walked = 0;
  for (const auto& r : routes()) {
    if (r.access != "admin" && !r.access.starts_with("perm(")) continue;
    for (const auto& a : attempts(r)) {
      const auto res = attempt(r, a, token);
      EXPECT_EQ(res.status, 403u) << key_of(r) << " " << a.target << ": " << res.body;
    }
    ++walked;
  }
  EXPECT_GE(walked, 10);
}

// A wall display's account (create-user --kiosk) may read the kiosk routes and is refused every
// other signed-in route, whatever it sends.
TEST_F(RoutesTest, AWallDisplaysAccountIsRefusedEveryRouteButTheKioskOnes) {
  add_user("wall@msp.example", kPassword);
  sql("UPDATE users SET kiosk = true");
  start();
  const auto token = sign_in("wall@msp.example", kPassword);
  int refused = 0, admitted = 0;
  for (const auto& r : routes()) {
    if (r.access == "public" || r.access == "agent") continue;
    const auto res = attempt(r, attempts(r).front(), token);
    if (r.access == "kiosk") {
      EXPECT_EQ(res.status, 200u) << key_of(r) << ": " << res.body;
      ++admitted;
    } else {
      EXPECT_EQ(res.status, 403u) << key_of(r) << ": " << res.body;
      ++refused;
    }
  }
  EXPECT_EQ(admitted, 2);  // GET /api/auth/me, GET /api/kiosk/wall
  EXPECT_GE(refused, 100);
}

// Once the caller is let in, bad input is a 400 naming it: every route with a typed path
// parameter, called by an administrator with a value of the wrong form, names the parameter; a
// malformed query string is a 400 that says so.
TEST_F(RoutesTest, AnAllowedCallerLearnsWhichParameterIsMalformed) {
  add_user("boss@msp.example", kPassword, true);
  start();
  const auto token = sign_in("boss@msp.example", kPassword);
  static const std::regex typed_param(R"(\{([A-Za-z_]+):[a-z]+\})");
  int walked = 0;
  for (const auto& r : routes()) {
    if (r.access == "public" || r.access == "agent") continue;
    std::smatch m;
    if (!std::regex_search(r.path, m, typed_param)) continue;
    const auto res = attempt(r, {concrete(r.path, true), "{}"}, token);
    EXPECT_EQ(res.status, 400u) << key_of(r) << ": " << res.body;
    if (res.status == 400u && res.json().contains("errors"))
      EXPECT_EQ(res.json()["errors"][0]["field"], m[1].str()) << key_of(r);
    else
      ADD_FAILURE() << key_of(r) << " names no field: " << res.body;
    ++walked;
  }
  EXPECT_GE(walked, 6);  // the distributor's and the analyzer's typed routes, at least
  const auto bad_query = call("GET", "/api/auth/me?x=%ZZ", nullptr, token);
  EXPECT_EQ(bad_query.status, 400u);
  EXPECT_NE(bad_query.body.find("query string"), std::string::npos) << bad_query.body;
}

}  // namespace

// The README's route tables agree with the OpenAPI document, which the routes the service
// registers make: every operation has a row, with the access it declares, every status a row
// names in bold is a documented answer of the operation, and every row is an operation.
TEST_F(RoutesTest, TheReadmeTablesListEveryRouteWithItsAccess) {
  start();
  const auto documented = core::testing::readme_routes("ops_console/README.md");
  ASSERT_GE(documented.size(), 30u) << "the README's route tables were not found or not read";
  const json doc = core::app::api_document(ops_console::definition(), svc->service().router());
  for (const auto& disagreement : core::testing::readme_disagreements(documented, doc, "ops_console/README.md"))
    ADD_FAILURE() << disagreement;
  EXPECT_EQ(documented.size(), routes().size()) << "one row for each registered route";
}

// The console's description (issue 35): for a signed-in user, every route an operation whose
// security follows its declared access.
TEST_F(RoutesTest, TheOpenApiDocumentIsServedToASignedInUser) {
  add_user("reader@msp.example", kPassword);
  start();
  EXPECT_EQ(call("GET", "/openapi.json").status, 401u);
  const auto res = call("GET", "/openapi.json", nullptr, sign_in("reader@msp.example", kPassword));
  ASSERT_EQ(res.status, 200u) << res.body;
  const auto doc = res.json();
  EXPECT_EQ(doc, core::app::api_document(ops_console::definition(), svc->service().router()));
  std::size_t operations = 0;
  for (const auto& [path, item] : doc["paths"].items()) operations += item.size();
  EXPECT_EQ(operations, routes().size());
  const auto security = [&](const char* path, const char* method) { return doc["paths"][path][method]["security"]; };
  EXPECT_EQ(security("/api/auth/me", "get"), json::parse(R"([{"session": []}])"));
  EXPECT_EQ(security("/api/agent/repo-commits", "get"), json::parse(R"([{"agentToken": []}])"));
  EXPECT_EQ(security("/api/auth/login", "post"), json::array());
  EXPECT_TRUE(doc["paths"]["/api/admin/company-scope"]["get"]["responses"].contains("403"));
}

// Every route is described by the API descriptions beside the handlers (*.api.json), with a 2xx
// or 3xx answer each; no description names a route that does not exist, and no $ref names nothing.
TEST_F(RoutesTest, TheApiDescriptionsFitTheRoutes) {
  start();
  for (const auto& gap : core::openapi::gaps(svc->service().router(), ops_console::definition().api))
    ADD_FAILURE() << gap;
}

// docs/openapi/ops-console.json is what the code generates (scripts/openapi writes it).
TEST_F(RoutesTest, TheCommittedOpenApiDocumentIsCurrent) {
  start();
  std::ifstream in(core::testing::project_root() + "/docs/openapi/ops-console.json");
  ASSERT_TRUE(in) << "docs/openapi/ops-console.json is missing: run scripts/openapi";
  const json committed = json::parse(in, nullptr, false);
  EXPECT_TRUE(committed == core::app::api_document(ops_console::definition(), svc->service().router()))
      << "docs/openapi/ops-console.json is not what the code generates: run scripts/openapi and commit it";
}
