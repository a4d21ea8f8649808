// Preferences, administration and data lists of the ops-console (issue 6), over real HTTP and a
// real database.
#include "ops_console/tests/console_fixture.hpp"

namespace {

using nlohmann::json;
using ops_console::testing::ConsoleTest;

using ops_console::testing::kPassword;

struct SettingsTest : ConsoleTest {
  std::string boss_id, keeper_id, tech_id;
  std::string boss, keeper, tech;  // session tokens

  // An administrator, a holder of (admin, access) who is no administrator, and a plain user.
  void start_with_users(std::map<std::string, std::string> env = {}) {
    boss_id = add_user("boss@msp.example", kPassword, true);
    keeper_id = add_user("keeper@msp.example", kPassword, false, {{"admin", "access"}});
    tech_id = add_user("tech@msp.example", kPassword);
    start(std::move(env));
    boss = sign_in("boss@msp.example", kPassword);
    keeper = sign_in("keeper@msp.example", kPassword);
    tech = sign_in("tech@msp.example", kPassword);
  }
  void add_companies() {
    sql(R"sql(
      INSERT INTO company_categories (id, name, is_active) VALUES (1, 'Managed', true), (2, 'Break-fix', true),
                                                                  (3, 'Archived', false);
      INSERT INTO companies (id, company_name, company_category_id, classification_id, is_active, deleted_at) VALUES
        (0, 'Our MSP', 1, 1, true, NULL),
        (102, 'beta Ltd', 1, 1, true, NULL),
        (101, 'Acme GmbH', 2, 2, true, NULL),
        (103, 'Gone Inc', 1, 1, true, now()),
        (104, 'Dormant AG', 1, 1, false, NULL))sql");
  }
  std::string updated_at_of(const std::string& id) { return sql("SELECT \"updatedAt\" FROM users WHERE id = " + id); }
};

const std::vector<std::pair<std::string, std::string>> kSignedInRoutes = {{"GET", "/api/me/timezone"},
                                                                          {"PUT", "/api/me/timezone"},
                                                                          {"GET", "/api/me/theme"},
                                                                          {"PUT", "/api/me/theme"},
                                                                          {"GET", "/api/data/company-categories"},
                                                                          {"GET", "/api/data/companies-list"}};
const std::vector<std::pair<std::string, std::string>> kAdminRoutes = {
    {"PATCH", "/api/settings/profile"},        {"GET", "/api/admin/company-scope"},
    {"PATCH", "/api/admin/company-scope/101"}, {"GET", "/api/admin/display-settings"},
    {"POST", "/api/admin/display-settings"},   {"GET", "/api/admin/pipeline-executions"}};
const std::vector<std::pair<std::string, std::string>> kAdminAccessRoutes = {{"GET", "/api/admin/integrations"},
                                                                             {"PATCH", "/api/admin/integrations"}};

}  // namespace

TEST_F(SettingsTest, EveryRouteRefusesFirstAndTouchesNoDatabase) {
  start_with_users();
  const json body = {
      {"theme", "dark"},  {"timezone", "Europe/Berlin"},      {"name", "X"}, {"in_scope", false}, {"key", "psa"},
      {"disabled", true}, {"kiosk_excluded_company_ids", {1}}};
  std::vector<std::pair<std::string, std::string>> all = kSignedInRoutes;
  all.insert(all.end(), kAdminRoutes.begin(), kAdminRoutes.end());
  all.insert(all.end(), kAdminAccessRoutes.begin(), kAdminAccessRoutes.end());

  const auto before = database_work();
  for (const auto& [method, path] : all) {
    const auto res = call(method, path, body);
    EXPECT_EQ(res.status, 401u) << method << " " << path;
    EXPECT_EQ(res.header("content-type"), "application/problem+json") << path;
  }
  EXPECT_EQ(database_work(), before) << "a request without a session reached the database";

  for (const auto& [method, path] : kAdminRoutes) {
    EXPECT_EQ(call(method, path, body, tech).status, 403u) << method << " " << path;
    EXPECT_EQ(call(method, path, body, keeper).status, 403u) << method << " " << path;  // admin.access is not admin
  }
  for (const auto& [method, path] : kAdminAccessRoutes)
    EXPECT_EQ(call(method, path, body, tech).status, 403u) << method << " " << path;
  // nothing was written by the refused calls
  EXPECT_EQ(sql("SELECT count(*) FROM users WHERE theme IS NOT NULL OR timezone IS NOT NULL OR name = 'X'"), "0");
  EXPECT_EQ(sql("SELECT count(*) FROM integration_settings WHERE disabled"), "0");
  EXPECT_EQ(sql("SELECT count(*) FROM company_scope"), "0");
  EXPECT_EQ(sql("SELECT value::text FROM display_settings WHERE key = 'kiosk_excluded_company_ids'"), "[]");

  // the permission holder reaches the integration switches
  EXPECT_EQ(call("GET", "/api/admin/integrations", nullptr, keeper).status, 200u);
}

TEST_F(SettingsTest, TimezoneIsAZoneTheServerKnowsAndOnlyTheSessionUsersOwn) {
  start_with_users();
  EXPECT_EQ(call("GET", "/api/me/timezone", nullptr, tech).json(), json({{"timezone", "UTC"}, {"source", "default"}}));
  sql("UPDATE users SET \"updatedAt\" = now() - interval '1 day'");
  const auto before = updated_at_of(tech_id);

  const auto set = call("PUT", "/api/me/timezone?user_id=" + boss_id,
                        {{"timezone", "Europe/Berlin"}, {"user_id", boss_id}, {"userId", std::stoi(boss_id)}}, tech);
  ASSERT_EQ(set.status, 200u) << set.body;
  EXPECT_EQ(set.json(), json({{"timezone", "Europe/Berlin"}, {"source", "user"}}));
  EXPECT_EQ(call("GET", "/api/me/timezone", nullptr, tech).json(),
            json({{"timezone", "Europe/Berlin"}, {"source", "user"}}));
  EXPECT_EQ(call("GET", "/api/auth/me", nullptr, tech).json()["timezone"], "Europe/Berlin");
  EXPECT_NE(updated_at_of(tech_id), before);
  EXPECT_EQ(sql("SELECT coalesce(timezone, 'none') FROM users WHERE id = " + boss_id),
            "none");  // body and query ids ignored
  EXPECT_EQ(sql("SELECT (\"updatedAt\" < now() - interval '1 hour')::text FROM users WHERE id = " + boss_id), "true");

  for (const json& bad : {json("Mars/Olympus_Mons"), json("europe/berlin"), json(std::string(65, 'A')), json(""),
                          json(3), json(nullptr)}) {
    const auto res = call("PUT", "/api/me/timezone", {{"timezone", bad}}, tech);
    EXPECT_EQ(res.status, 400u) << bad;
    EXPECT_EQ(res.json()["errors"][0]["field"], "timezone") << bad;
  }
  EXPECT_EQ(call("PUT", "/api/me/timezone", json::object(), tech).status, 400u);
  EXPECT_EQ(sql("SELECT timezone FROM users WHERE id = " + tech_id), "Europe/Berlin");  // unchanged by the refusals
  EXPECT_EQ(call("PUT", "/api/me/timezone", {{"timezone", "America/Argentina/Buenos_Aires"}}, tech).status, 200u);
}

TEST_F(SettingsTest, ThemeIsLightDarkOrSystemWithItsSource) {
  start_with_users();
  EXPECT_EQ(call("GET", "/api/me/theme", nullptr, tech).json(), json({{"theme", "system"}, {"source", "default"}}));
  sql("UPDATE users SET \"updatedAt\" = now() - interval '1 day'");
  const auto before = updated_at_of(tech_id);
  for (const std::string theme : {"light", "system", "dark"}) {
    const auto res =
        call("PUT", "/api/me/theme?userId=" + boss_id, {{"theme", theme}, {"user_id", std::stoi(boss_id)}}, tech);
    ASSERT_EQ(res.status, 200u) << res.body;
    EXPECT_EQ(res.json(), json({{"theme", theme}, {"source", "user"}}));
  }
  EXPECT_EQ(call("GET", "/api/me/theme", nullptr, tech).json(), json({{"theme", "dark"}, {"source", "user"}}));
  EXPECT_NE(updated_at_of(tech_id), before);
  EXPECT_EQ(call("GET", "/api/me/theme", nullptr, boss).json()["source"], "default");  // another user's is untouched

  for (const json& bad : {json("blue"), json("Dark"), json(true), json(nullptr)}) {
    const auto res = call("PUT", "/api/me/theme", {{"theme", bad}}, tech);
    EXPECT_EQ(res.status, 400u) << bad;
    EXPECT_EQ(res.json()["errors"][0]["field"], "theme");
  }
  EXPECT_EQ(sql("SELECT theme FROM users WHERE id = " + tech_id), "dark");
}

TEST_F(SettingsTest, AnAdministratorRenamesOnlyThemself) {
  start_with_users();
  sql("UPDATE users SET \"updatedAt\" = now() - interval '1 day'");
  const auto before = updated_at_of(boss_id);
  const auto res = call("PATCH", "/api/settings/profile", {{"name", "  The Boss  "}, {"id", std::stoi(tech_id)}}, boss);
  ASSERT_EQ(res.status, 200u) << res.body;
  EXPECT_EQ(res.json()["name"], "The Boss");
  EXPECT_EQ(res.json()["email"], "boss@msp.example");
  EXPECT_NE(updated_at_of(boss_id), before);
  EXPECT_EQ(sql("SELECT name FROM users WHERE id = " + tech_id), "Name of tech@msp.example");
  EXPECT_EQ(call("PATCH", "/api/settings/profile", {{"name", " "}}, boss).json()["errors"][0]["field"], "name");
  EXPECT_EQ(call("PATCH", "/api/settings/profile", {{"name", std::string(201, 'n')}}, boss).status, 400u);
  EXPECT_EQ(call("PATCH", "/api/settings/profile", json::object(), boss).status, 400u);
  EXPECT_EQ(sql("SELECT name FROM users WHERE id = " + boss_id), "The Boss");
}

TEST_F(SettingsTest, CompanyScopeIsOptOut) {
  add_companies();
  start_with_users();
  const auto list = call("GET", "/api/admin/company-scope", nullptr, boss);
  ASSERT_EQ(list.status, 200u) << list.body;
  const auto items = list.json()["items"];
  ASSERT_EQ(items.size(), 4u);  // the soft-deleted company is not listed
  EXPECT_EQ(items[0]["company_name"], "Acme GmbH");
  EXPECT_EQ(items[1]["company_name"], "beta Ltd");  // ordered ignoring case
  for (const auto& c : items) {
    EXPECT_EQ(c["in_scope"], true) << c;  // no row: in scope
    EXPECT_EQ(c["explicit"], false);
  }

  const auto out =
      call("PATCH", "/api/admin/company-scope/101", {{"in_scope", false}, {"note", "contract ended"}}, boss);
  ASSERT_EQ(out.status, 200u) << out.body;
  EXPECT_EQ(out.json()["company_id"], 101);
  EXPECT_EQ(out.json()["in_scope"], false);
  EXPECT_EQ(out.json()["explicit"], true);
  EXPECT_EQ(out.json()["note"], "contract ended");
  EXPECT_EQ(out.json()["updated_by"], "boss@msp.example");
  // the upsert: a second PATCH updates the same row
  EXPECT_EQ(call("PATCH", "/api/admin/company-scope/101", {{"in_scope", true}}, boss).json()["in_scope"], true);
  EXPECT_EQ(call("PATCH", "/api/admin/company-scope/0", {{"in_scope", false}}, boss).status, 200u);
  EXPECT_EQ(sql("SELECT string_agg(company_id || ':' || in_scope, ',' ORDER BY company_id) FROM company_scope"),
            "0:false,101:true");
  const auto after = call("GET", "/api/admin/company-scope", nullptr, boss).json()["items"];
  EXPECT_EQ(after[3]["company_name"], "Our MSP");
  EXPECT_EQ(after[3]["in_scope"], false);

  EXPECT_EQ(call("PATCH", "/api/admin/company-scope/999", {{"in_scope", false}}, boss).status, 404u);
  EXPECT_EQ(call("PATCH", "/api/admin/company-scope/103", {{"in_scope", false}}, boss).status, 404u);  // deleted
  for (const std::string bad : {"abc", "-1", "1.5", "%2B7", "99999999999999999999"}) {
    const auto res = call("PATCH", "/api/admin/company-scope/" + bad, {{"in_scope", false}}, boss);
    EXPECT_EQ(res.status, 400u) << bad;
    EXPECT_EQ(res.json()["errors"][0]["field"], "companyId") << bad;
  }
  EXPECT_EQ(call("PATCH", "/api/admin/company-scope/102", {{"in_scope", "no"}}, boss).json()["errors"][0]["field"],
            "in_scope");
  EXPECT_EQ(call("PATCH", "/api/admin/company-scope/102", json::object(), boss).status, 400u);
  EXPECT_EQ(call("PATCH", "/api/admin/company-scope/102", {{"in_scope", false}, {"note", std::string(501, 'n')}}, boss)
                .json()["errors"][0]["field"],
            "note");
  EXPECT_EQ(sql("SELECT count(*) FROM company_scope"), "2");
}

TEST_F(SettingsTest, DisplaySettingsStartWithCategoryOneAndChangeByKey) {
  start_with_users();
  const json seeded = {{"kiosk_company_category_ids", {1}},
                       {"kiosk_excluded_company_ids", json::array()},
                       {"kiosk_included_classification_ids", json::array()},
                       {"mobile_company_category_ids", {1}},
                       {"mobile_excluded_company_ids", json::array()},
                       {"mobile_included_classification_ids", json::array()}};
  EXPECT_EQ(call("GET", "/api/admin/display-settings", nullptr, boss).json(), seeded);

  const auto set = call("POST", "/api/admin/display-settings",
                        {{"mobile_excluded_company_ids", {105, 0, 105, 7}},
                         {"kiosk_included_classification_ids", {2}},
                         {"unknown_setting", {1}}},
                        boss);
  ASSERT_EQ(set.status, 200u) << set.body;
  json expected = seeded;
  expected["mobile_excluded_company_ids"] = {0, 7, 105};  // sorted, each once
  expected["kiosk_included_classification_ids"] = {2};
  EXPECT_EQ(set.json(), expected);
  EXPECT_EQ(call("GET", "/api/admin/display-settings", nullptr, boss).json(), expected);
  EXPECT_EQ(sql("SELECT updated_by FROM display_settings WHERE key = 'mobile_excluded_company_ids'"),
            "boss@msp.example");

  // any bad list refuses the whole body
  const auto bad = call("POST", "/api/admin/display-settings",
                        {{"kiosk_company_category_ids", {3}}, {"mobile_company_category_ids", {1, "2", -4}}}, boss);
  EXPECT_EQ(bad.status, 400u);
  EXPECT_EQ(bad.json()["errors"][0]["field"], "mobile_company_category_ids[1]");
  EXPECT_EQ(bad.json()["errors"][1]["field"], "mobile_company_category_ids[2]");
  EXPECT_EQ(call("POST", "/api/admin/display-settings", {{"kiosk_company_category_ids", 3}}, boss).status, 400u);
  EXPECT_EQ(call("POST", "/api/admin/display-settings", {{"kiosk_company_category_ids", nullptr}}, boss).status, 400u);
  EXPECT_EQ(call("POST", "/api/admin/display-settings", json::object(), boss).status, 400u);
  EXPECT_EQ(call("GET", "/api/admin/display-settings", nullptr, boss).json(), expected);
  // an empty list is a value
  EXPECT_EQ(call("POST", "/api/admin/display-settings", {{"kiosk_company_category_ids", json::array()}}, boss)
                .json()["kiosk_company_category_ids"],
            json::array());
}

TEST_F(SettingsTest, DataListsForAnySignedInUser) {
  add_companies();
  start_with_users();
  const auto categories = call("GET", "/api/data/company-categories", nullptr, tech);
  ASSERT_EQ(categories.status, 200u);
  EXPECT_EQ(categories.json(), json::parse(R"([{"id": 3, "name": "Archived", "is_active": false},
    {"id": 2, "name": "Break-fix", "is_active": true}, {"id": 1, "name": "Managed", "is_active": true}])"));
  const auto companies = call("GET", "/api/data/companies-list", nullptr, tech);
  ASSERT_EQ(companies.status, 200u);
  // ids are JSON numbers; deleted and inactive companies are left out
  EXPECT_EQ(companies.json(), json::parse(R"([{"id": 101, "company_name": "Acme GmbH"},
    {"id": 102, "company_name": "beta Ltd"}, {"id": 0, "company_name": "Our MSP"}])"));
  EXPECT_TRUE(companies.json()[0]["id"].is_number_integer());
}

TEST_F(SettingsTest, PipelineExecutionsFilterFallbacksAndPipelines) {
  sql(R"sql(
    INSERT INTO pipeline_executions (pipeline_id, ticket_id, status, started_at, completed_at, output_data) VALUES
      (7, 1001, 'succeeded', now() - interval '5 minutes', now() - interval '5 minutes' + interval '1500 ms',
       '{"user_route_fallback": {"reason": "no owner"}, "route": "queue"}'),
      (7, 1002, 'succeeded', now() - interval '4 minutes', NULL, '{"route": {"user_route_fallback": true}}'),
      (8, 1003, 'failed',    now() - interval '3 minutes', NULL, '["user_route_fallback"]'),
      (8, 1004, 'succeeded', now() - interval '2 minutes', NULL, NULL),
      (8, 1005, 'succeeded', now() - interval '1 minutes', NULL, '{"user_route_fallback": null}'))sql");
  start_with_users();
  const auto all = call("GET", "/api/admin/pipeline-executions", nullptr, boss);
  ASSERT_EQ(all.status, 200u) << all.body;
  const auto items = all.json()["items"];
  ASSERT_EQ(items.size(), 5u);
  std::vector<std::pair<int, bool>> seen;  // newest first: ticket, has_fallback
  for (const auto& i : items) seen.emplace_back(i["ticket_id"], i["has_fallback"]);
  // only a top-level key counts: not a nested one, not an array element, not a missing output
  EXPECT_EQ(seen, (std::vector<std::pair<int, bool>>{
                      {1005, true}, {1004, false}, {1003, false}, {1002, false}, {1001, true}}));
  EXPECT_EQ(items[4]["duration_ms"], 1500);
  EXPECT_EQ(all.json()["limit"], 100);

  const auto tickets = [&](const std::string& query) {
    std::vector<int> out;
    const auto page = call("GET", "/api/admin/pipeline-executions" + query, nullptr, boss).json();
    for (const auto& i : page["items"]) out.push_back(i["ticket_id"]);
    return out;
  };
  EXPECT_EQ(tickets("?fallbacks_only=true"), (std::vector<int>{1005, 1001}));
  EXPECT_EQ(tickets("?fallbacks_only=false"), (std::vector<int>{1005, 1004, 1003, 1002, 1001}));
  EXPECT_EQ(tickets("?pipeline_id=7"), (std::vector<int>{1002, 1001}));
  EXPECT_EQ(tickets("?pipeline_id=7&fallbacks_only=1"), (std::vector<int>{1001}));
  EXPECT_EQ(tickets("?pipeline_id=9"), (std::vector<int>{}));
  EXPECT_EQ(tickets("?limit=2"), (std::vector<int>{1005, 1004}));
  EXPECT_EQ(call("GET", "/api/admin/pipeline-executions?limit=100000", nullptr, boss).json()["limit"], 500);  // capped

  for (const std::string bad :
       {"pipeline_id=abc", "pipeline_id=-7", "pipeline_id=%207", "pipeline_id=7.0",
        "pipeline_id=", "pipeline_id=99999999999999999999", "limit=0", "limit=ten", "fallbacks_only=maybe"}) {
    const auto res = call("GET", "/api/admin/pipeline-executions?" + bad, nullptr, boss);
    EXPECT_EQ(res.status, 400u) << bad;
    EXPECT_EQ(res.json()["errors"][0]["field"], bad.substr(0, bad.find('='))) << bad;
  }
}
