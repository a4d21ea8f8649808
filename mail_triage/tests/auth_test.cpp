// Authentication of /api/v1/ (spec: "Authentication"; issue 3).
#include "mail_triage/api/auth.hpp"
#include "mail_triage/service.hpp"

#include "core/testing/readme_routes.hpp"
#include "core/testing/testing.hpp"

#include <gtest/gtest.h>

#include <fstream>

using namespace core::testing;

namespace {

const std::map<std::string, std::string> kValid = {{"Authorization", "Bearer key-two"}};

struct AuthTest : ::testing::Test {
  TestDatabase database{mail_triage::definition().migrations};
  RunningService svc{mail_triage::definition(), database.url(), {{"API_KEYS", " key-one , ,key-two,"}}};
};

void expect_401(const HttpResponse& res) {
  EXPECT_EQ(res.status, 401u);
  EXPECT_EQ(res.header("content-type"), "application/problem+json");
  EXPECT_TRUE(res.header("www-authenticate").starts_with("Bearer")) << res.header("www-authenticate");
  EXPECT_EQ(res.json()["status"], 401);
}

}  // namespace

TEST_F(AuthTest, MissingHeaderIs401OnEveryApiPathKnownOrNot) {
  for (const char* path : {"/api/v1/log", "/api/v1/no-such-route", "/api/v1", "/api/v1/senders/not-a-uuid"}) {
    SCOPED_TRACE(path);
    expect_401(svc.get(path));
  }
  expect_401(http(svc.port(), "POST", "/api/v1/process", "{not json"));  // before body validation
}

// Every /api/v1/ route the service registers, tried without a key with its path parameters, its
// query and its body malformed: 401, before any parsing (issue 31).
TEST_F(AuthTest, EveryApiRouteWithMalformedInputIs401WithoutAKey) {
  int walked = 0;
  for (const auto& r : svc.service().router().routes()) {
    if (!r.path.starts_with("/api/v1/")) continue;
    std::string target;
    for (std::size_t i = 0; i < r.path.size();) {
      if (r.path[i] != '{') {
        target += r.path[i++];
        continue;
      }
      target += "not-a-value";
      i = r.path.find('}', i) + 1;
    }
    target += "?limit=many&offset=-1&since=yesterday&mailbox=%ZZ";
    const std::string method(core::http::bhttp::to_string(r.method));
    SCOPED_TRACE(method + " " + target);
    expect_401(http(svc.port(), method, target, "{not json", {{"Content-Type", "application/json"}}));
    ++walked;
  }
  EXPECT_GE(walked, 15);  // the spec's /api/v1/ routes: the walk saw them
}

// `mail-triage routes` says what each route needs: the key for exactly the /api/v1/ routes and
// their description (the middleware's rule), the console's session for /dbusers but its sign-in
// form.
TEST_F(AuthTest, EveryRouteDeclaresTheAccessItsChecksEnforce) {
  int keyed = 0;
  for (const auto& r : svc.service().router().routes()) {
    SCOPED_TRACE(r.path);
    if (r.path.starts_with("/api/v1/") || r.path == "/openapi.json") {
      EXPECT_EQ(r.access, "key");
      ++keyed;
    } else if (r.path == "/dbusers/login" || r.path == "/healthz" || r.path == "/readyz") {
      EXPECT_EQ(r.access, "public");
    } else {
      EXPECT_TRUE(r.path.starts_with("/dbusers"));
      EXPECT_EQ(r.access, "console");
    }
  }
  EXPECT_GE(keyed, 15);
}

TEST_F(AuthTest, MalformedOrUnknownKeysAre401) {
  for (const char* value : {"key-two", "Basic a2V5LXR3bw==", "Bearer", "Bearer ", "Bearer key-three", "Bearer key-tw",
                            "Bearer key-two-and-more", "Bearerkey-two"}) {
    SCOPED_TRACE(value);
    const auto res = svc.get("/api/v1/log", {{"Authorization", value}});
    expect_401(res);
    EXPECT_EQ(res.body.find("key-"), std::string::npos);  // the key is never echoed
  }
}

TEST_F(AuthTest, EveryListedKeyIsAcceptedAndRoutingFollows) {
  // Authenticated, the request reaches the router: an unknown path is then a 404.
  EXPECT_EQ(svc.get("/api/v1/no-such-route", kValid).status, 404u);
  EXPECT_EQ(svc.get("/api/v1/no-such-route", {{"Authorization", "Bearer key-one"}}).status, 404u);
  EXPECT_EQ(svc.get("/api/v1/no-such-route", {{"Authorization", "bearer   key-one  "}}).status, 404u);
}

TEST_F(AuthTest, HealthRoutesNeedNoKey) {
  EXPECT_EQ(svc.get("/healthz").status, 200u);
  EXPECT_EQ(svc.get("/readyz").status, 200u);
}

TEST(Auth, ChecksRunBeforeAnyDatabaseQuery) {
  TempCluster cluster;
  sql(cluster.url(), "CREATE DATABASE svc");
  RunningService svc(mail_triage::definition(), cluster.url("svc"), {{"API_KEYS", "k"}});
  cluster.stop("fast");
  EXPECT_EQ(svc.get("/readyz").status, 503u);      // the database is down...
  EXPECT_EQ(svc.get("/api/v1/log").status, 401u);  // ...and an unauthenticated call never reaches it
}

TEST(Auth, RefusesToStartWithoutKeys) {
  TestDatabase database(mail_triage::definition().migrations);
  for (const char* keys : {"", " , ,"}) {
    try {
      core::app::Service service(mail_triage::definition(),
                                 {{"DATABASE_URL", database.url()}, {"API_KEYS", keys}, {"PORT", "0"}});
      ADD_FAILURE() << "started with API_KEYS='" << keys << "'";
    } catch (const core::config::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("API_KEYS: must hold at least one key"), std::string::npos) << e.what();
    }
  }
}

TEST(Auth, KeysAreComparedWhole) {
  const std::vector<std::string> keys{"alpha", "beta"};
  EXPECT_TRUE(mail_triage::bearer_matches("Bearer beta", keys));
  EXPECT_TRUE(mail_triage::bearer_matches("BEARER alpha", keys));
  EXPECT_FALSE(mail_triage::bearer_matches("Bearer alph", keys));
  EXPECT_FALSE(mail_triage::bearer_matches("Bearer alphabet", keys));
  EXPECT_FALSE(mail_triage::bearer_matches("Bearer ", keys));
  EXPECT_FALSE(mail_triage::bearer_matches("Token alpha", keys));
}

// The API's description (issue 35): behind the key, every route an operation, with the key as
// the security of the /api/v1/ routes.
TEST_F(AuthTest, TheOpenApiDocumentIsServedBehindTheKey) {
  expect_401(svc.get("/openapi.json"));
  const auto res = svc.get("/openapi.json", kValid);
  ASSERT_EQ(res.status, 200u) << res.body;
  EXPECT_EQ(res.header("content-type"), "application/json");
  const auto doc = res.json();
  EXPECT_EQ(doc["openapi"], "3.1.0");
  EXPECT_EQ(doc, core::app::api_document(mail_triage::definition(), svc.service().router()));
  std::size_t operations = 0;
  for (const auto& [path, item] : doc["paths"].items()) operations += item.size();
  EXPECT_EQ(operations, svc.service().router().routes().size());
  EXPECT_EQ(doc["paths"]["/api/v1/log/{entry_id}"]["get"]["security"], nlohmann::json::parse(R"([{"apiKey": []}])"));
  EXPECT_EQ(doc["paths"]["/dbusers/login"]["post"]["security"], nlohmann::json::array());
}

// As the console's RoutesTest.TheApiDescriptionsFitTheRoutes: every route described, nothing else.
TEST_F(AuthTest, TheApiDescriptionsFitTheRoutes) {
  for (const auto& gap : core::openapi::gaps(svc.service().router(), mail_triage::definition().api))
    ADD_FAILURE() << gap;
}

// docs/openapi/mail-triage.json is what the code generates (scripts/openapi writes it).
TEST_F(AuthTest, TheCommittedOpenApiDocumentIsCurrent) {
  std::ifstream in(core::testing::project_root() + "/docs/openapi/mail-triage.json");
  ASSERT_TRUE(in) << "docs/openapi/mail-triage.json is missing: run scripts/openapi";
  const auto committed = nlohmann::json::parse(in, nullptr, false);
  EXPECT_TRUE(committed == core::app::api_document(mail_triage::definition(), svc.service().router()))
      << "docs/openapi/mail-triage.json is not what the code generates: run scripts/openapi and commit it";
}

// The README's route tables (its "Routes" and the /dbusers console's) agree with the document:
// every operation has a row with the access it declares, every status a row names in bold is a
// documented answer of it, and every row is an operation (the console's RoutesTest does the same).
TEST_F(AuthTest, TheReadmeTablesListEveryRouteWithItsAccess) {
  const auto documented = core::testing::readme_routes("mail_triage/README.md");
  ASSERT_GE(documented.size(), 20u) << "the README's route tables were not found or not read";
  const auto doc = core::app::api_document(mail_triage::definition(), svc.service().router());
  for (const auto& disagreement : core::testing::readme_disagreements(documented, doc, "mail_triage/README.md"))
    ADD_FAILURE() << disagreement;
  EXPECT_EQ(documented.size(), svc.service().router().routes().size()) << "one row for each registered route";
}
