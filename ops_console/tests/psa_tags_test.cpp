// Tags (issue 17): the catalogue from the PSA, the PSA's ticket associations, and the console's
// own associations of companies, configuration items and contacts.
#include "ops_console/tests/console_fixture.hpp"

namespace {

using nlohmann::json;
using ops_console::testing::ConsoleTest;

struct TagsTest : ConsoleTest {
  std::string token;
  void SetUp() override {
    add_user("tech@msp.example", "correct horse battery");
    start();
    token = sign_in("tech@msp.example", "correct horse battery");
    sql(R"sql(
      INSERT INTO tag_groups (id, name, is_active) VALUES (1, 'Hardware', true), (2, 'Contract', true);
      INSERT INTO tags (id, tag_group_id, label, is_active) VALUES
        (10, 1, 'Printer', true), (11, 1, 'laptop', true), (20, 2, 'Gold', true), (30, 99, 'Orphan', true);
      INSERT INTO tags (id, tag_group_id, label, is_active, deleted_at) VALUES (31, 1, 'Gone', true, now());
      INSERT INTO companies (id, company_name) VALUES (7, 'Contoso');
      INSERT INTO contacts (id, company_id) VALUES (8, 7);
      INSERT INTO configuration_items (id, company_id) VALUES (9, 7);
      INSERT INTO ticket_tags (id, ticket_id, tag_id) VALUES (500, 123456, 10);  -- a ticket the copy lacks
      INSERT INTO ticket_tags (id, ticket_id, tag_id, deleted_at) VALUES (501, 123456, 20, now());
      INSERT INTO ticket_tags (id, ticket_id, tag_id) VALUES (502, 123456, 31);  -- a tag the PSA deleted
    )sql");
  }
  json get(const std::string& path) {
    const auto res = call("GET", path, nullptr, token);
    EXPECT_EQ(res.status, 200u) << path << ": " << res.body;
    return res.json();
  }
  std::vector<long> ids(const json& tags) {
    std::vector<long> out;
    for (const auto& t : tags) out.push_back(t["id"].get<long>());
    return out;
  }
};

}  // namespace

TEST_F(TagsTest, TheCatalogueGroupsTheLiveTags) {
  const json groups = get("/api/tags");
  ASSERT_EQ(groups.size(), 3u) << groups;
  EXPECT_EQ(groups[0]["name"], "Contract");
  EXPECT_EQ(ids(groups[0]["tags"]), std::vector<long>{20});
  EXPECT_EQ(groups[1]["name"], "Hardware");
  EXPECT_EQ(ids(groups[1]["tags"]), (std::vector<long>{11, 10}));  // by label, any case; the deleted one gone
  EXPECT_TRUE(groups[2]["id"].is_null());                          // the group the copy lacks
  EXPECT_EQ(ids(groups[2]["tags"]), std::vector<long>{30});
}

TEST_F(TagsTest, CompaniesConfigurationItemsAndContactsAreTaggedHere) {
  for (const auto& [kind, id] : std::vector<std::pair<std::string, std::string>>{
           {"companies", "7"}, {"configuration-items", "9"}, {"contacts", "8"}}) {
    const std::string base = "/api/" + kind + "/" + id + "/tags";
    EXPECT_EQ(get(base), json::array()) << kind;
    EXPECT_EQ(call("PUT", base + "/10", nullptr, token).status, 201u) << kind;
    EXPECT_EQ(call("PUT", base + "/10", nullptr, token).status, 204u) << kind;  // carried already
    EXPECT_EQ(call("PUT", base + "/20", nullptr, token).status, 201u) << kind;
    const json tags = get(base);
    EXPECT_EQ(ids(tags), (std::vector<long>{20, 10})) << kind;
    EXPECT_EQ(tags[0]["added_by"], "tech@msp.example");
    EXPECT_EQ(call("PUT", base + "/31", nullptr, token).status, 404u) << kind;   // a deleted tag
    EXPECT_EQ(call("PUT", base + "/999", nullptr, token).status, 404u) << kind;  // no such tag
    EXPECT_EQ(call("PUT", "/api/" + kind + "/404/tags/10", nullptr, token).status, 404u) << kind;
    EXPECT_EQ(call("GET", "/api/" + kind + "/404/tags", nullptr, token).status, 404u) << kind;
    EXPECT_EQ(call("PUT", base + "/abc", nullptr, token).status, 400u) << kind;
    EXPECT_EQ(call("DELETE", base + "/10", nullptr, token).status, 204u) << kind;
    EXPECT_EQ(call("DELETE", base + "/10", nullptr, token).status, 404u) << kind;
    EXPECT_EQ(ids(get(base)), std::vector<long>{20}) << kind;
    // A tag the PSA deletes later leaves every record's list, as it leaves the catalogue.
    sql("UPDATE tags SET deleted_at = now() WHERE id = 20");
    EXPECT_EQ(get(base), json::array()) << kind;
    sql("UPDATE tags SET deleted_at = NULL WHERE id = 20");
    EXPECT_EQ(ids(get(base)), std::vector<long>{20}) << kind;  // and comes back when restored
  }
}

TEST_F(TagsTest, TicketTagsAreThePsasAndReadOnly) {
  const json tags = get("/api/tickets/123456/tags");  // listed although the copy lacks the ticket
  ASSERT_EQ(tags.size(), 1u) << tags;                 // the deleted association and deleted tag are not
  EXPECT_EQ(tags[0]["label"], "Printer");
  EXPECT_EQ(tags[0]["source"], "psa");
  EXPECT_EQ(get("/api/tickets/1/tags"), json::array());
  EXPECT_EQ(call("PUT", "/api/tickets/123456/tags/20", nullptr, token).status, 404u);  // no such route
}
