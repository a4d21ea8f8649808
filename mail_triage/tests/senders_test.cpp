// /api/v1/senders (spec: "Sender profiles" and the state table; issue 3).
#include "mail_triage/tests/api_test.hpp"

using namespace core::testing;
using nlohmann::json;

namespace {

struct SendersTest : mail_triage::testing::ApiTest {
  json profile(const std::string& address, const std::string& type = "vendor") {
    return {{"email_address", address},
            {"display_name", "Name of " + address},
            {"sender_type", type},
            {"email_types", {"invoice", "newsletter"}},
            {"processing_instructions", "archive invoices"},
            {"notes", nullptr}};
  }
  std::vector<std::string> active_addresses() {
    std::vector<std::string> out;
    const auto body = call("GET", "/api/v1/senders").json();
    for (const auto& p : body["items"]) out.push_back(p["email_address"]);
    return out;
  }
  std::string count_rows() { return sql("SELECT count(*) FROM sender_profiles"); }
};

using Addresses = std::vector<std::string>;

}  // namespace

TEST_F(SendersTest, PostCreatesThenUpsertsByAddress) {
  const auto created = call("POST", "/api/v1/senders", profile("Billing@Vendor.example"));
  ASSERT_EQ(created.status, 201u) << created.body;
  const auto p = created.json();
  EXPECT_EQ(p["email_address"], "billing@vendor.example");  // stored lowercased
  EXPECT_EQ(p["email_types"], (json{"invoice", "newsletter"}));
  EXPECT_EQ(p["is_active"], true);
  EXPECT_TRUE(p["notes"].is_null());

  auto changed = profile("billing@VENDOR.example", "customer");
  changed["notes"] = "moved to customer";
  const auto updated = call("POST", "/api/v1/senders", changed);
  EXPECT_EQ(updated.status, 200u);
  EXPECT_EQ(updated.json()["id"], p["id"]);
  EXPECT_EQ(updated.json()["sender_type"], "customer");
  EXPECT_EQ(updated.json()["notes"], "moved to customer");
  EXPECT_EQ(count_rows(), "1");
}

TEST_F(SendersTest, ListShowsActiveOnlyAndDeleteDeactivates) {
  call("POST", "/api/v1/senders", profile("b@x.example"));
  const auto a = call("POST", "/api/v1/senders", profile("a@x.example")).json();
  EXPECT_EQ(active_addresses(), (Addresses{"a@x.example", "b@x.example"}));

  const auto deleted = call("DELETE", "/api/v1/senders/" + a["id"].get<std::string>());
  ASSERT_EQ(deleted.status, 200u);
  EXPECT_EQ(deleted.json()["is_active"], false);  // returns the deactivated resource
  EXPECT_EQ(active_addresses(), (Addresses{"b@x.example"}));
  EXPECT_EQ(count_rows(), "2");  // soft delete: the row remains

  const auto fetched = call("GET", "/api/v1/senders/" + a["id"].get<std::string>());
  EXPECT_EQ(fetched.status, 200u);
  EXPECT_EQ(fetched.json()["is_active"], false);
}

TEST_F(SendersTest, PostReactivatesAnInactiveProfile) {
  const auto a = call("POST", "/api/v1/senders", profile("a@x.example")).json();
  call("DELETE", "/api/v1/senders/" + a["id"].get<std::string>());
  const auto again = call("POST", "/api/v1/senders", profile("a@x.example", "unknown"));
  EXPECT_EQ(again.status, 200u);
  EXPECT_EQ(again.json()["id"], a["id"]);
  EXPECT_EQ(again.json()["is_active"], true);
  EXPECT_EQ(again.json()["sender_type"], "unknown");
  EXPECT_EQ(active_addresses(), (Addresses{"a@x.example"}));
}

TEST_F(SendersTest, PutReplacesTheFields) {
  const auto a = call("POST", "/api/v1/senders", profile("a@x.example")).json();
  json replacement = {{"email_address", "new@x.example"}, {"sender_type", "customer"}};
  const auto res = call("PUT", "/api/v1/senders/" + a["id"].get<std::string>(), replacement);
  ASSERT_EQ(res.status, 200u) << res.body;
  const auto p = res.json();
  EXPECT_EQ(p["email_address"], "new@x.example");
  EXPECT_EQ(p["display_name"], "");  // replaced, not merged
  EXPECT_EQ(p["email_types"], json::array());
  EXPECT_EQ(p["processing_instructions"], "");
  EXPECT_EQ(p["sender_type"], "customer");
}

TEST_F(SendersTest, PutToAnotherProfilesAddressIs409AndChangesNothing) {
  const auto a = call("POST", "/api/v1/senders", profile("a@x.example")).json();
  call("POST", "/api/v1/senders", profile("b@x.example"));
  const auto res = call("PUT", "/api/v1/senders/" + a["id"].get<std::string>(), profile("B@x.example"));
  EXPECT_EQ(res.status, 409u);
  EXPECT_EQ(res.header("content-type"), "application/problem+json");
  EXPECT_EQ(call("GET", "/api/v1/senders/" + a["id"].get<std::string>()).json()["email_address"], "a@x.example");
}

TEST_F(SendersTest, UnknownAndMalformedIds) {
  const std::string unknown = "/api/v1/senders/123e4567-e89b-12d3-a456-426614174000";
  EXPECT_EQ(call("GET", unknown).status, 404u);
  EXPECT_EQ(call("PUT", unknown, profile("a@x.example")).status, 404u);
  EXPECT_EQ(call("DELETE", unknown).status, 404u);
  const auto bad = call("GET", "/api/v1/senders/42");
  EXPECT_EQ(bad.status, 400u);
  EXPECT_EQ(bad.json()["errors"][0]["field"], "profile_id");
}

TEST_F(SendersTest, InvalidBodiesAre400AndChangeNothing) {
  auto bad = profile("not-an-address", "partner");
  bad["email_types"] = {"ok", 7};
  const auto res = call("POST", "/api/v1/senders", bad);
  ASSERT_EQ(res.status, 400u);
  EXPECT_EQ(error_fields(res), (std::vector<std::string>{"email_address", "sender_type", "email_types[1]"}));

  EXPECT_EQ(call("POST", "/api/v1/senders", json{{"sender_type", "vendor"}}).json()["errors"][0]["field"],
            "email_address");
  auto not_array = profile("a@x.example");
  not_array["email_types"] = "invoice";
  EXPECT_EQ(call("POST", "/api/v1/senders", not_array).json()["errors"][0]["message"], "must be an array of strings");
  EXPECT_EQ(http(svc.port(), "POST", "/api/v1/senders", "{\"email_address\":", kAuth).status, 400u);
  EXPECT_EQ(count_rows(), "0");
}
