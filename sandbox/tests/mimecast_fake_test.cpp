// The Mimecast fake speaks Mimecast API 2.0 over real HTTP: the client-credentials token and its refusals,
// the bearer every call needs, the request envelope and its fail entries, paging of the held queue to the
// end, the admin flag's 403 for a non-admin caller, releasing (once), message finder with spam info and its
// 30-day limit, the SIEM receipt stream the message counts come from, and the fault switches.
#include "core/testing/testing.hpp"
#include "core/util/strings.hpp"
#include "sandbox/sandbox.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

using core::testing::http;
using core::testing::HttpResponse;
using nlohmann::json;

namespace {

class MimecastFakeTest : public ::testing::Test {
 protected:
  sandbox::InProcess fakes;

  HttpResponse token_call(const std::string& form) {
    return http(fakes.port(), "POST", "/mimecast/oauth/token", form,
                {{"Content-Type", "application/x-www-form-urlencoded"}});
  }
  std::string token() {
    if (!bearer_.empty()) return bearer_;
    const auto res =
        token_call("grant_type=client_credentials&client_id=sandbox-mailsec&client_secret=sandbox-mailsec-secret");
    EXPECT_EQ(res.status, 200u) << res.body;
    bearer_ = res.json()["access_token"];
    return bearer_;
  }
  // POST {meta, data: [item]} to an API path under /mimecast.
  HttpResponse call(const std::string& path, const json& item, const json& meta = json::object()) {
    json body = {{"data", json::array({item})}};
    if (!meta.empty()) body["meta"] = meta;
    return http(fakes.port(), "POST", "/mimecast" + path, body.dump(),
                {{"Authorization", "Bearer " + token()}, {"Content-Type", "application/json"}});
  }
  HttpResponse get(const std::string& target) {
    return http(fakes.port(), "GET", "/mimecast" + target, {}, {{"Authorization", "Bearer " + token()}});
  }
  static std::string days_ago(int days) { return sandbox::mimecast::date_text(core::now() - std::chrono::days(days)); }
  static std::string error_code(const HttpResponse& res) {
    const auto body = res.json();
    return body["fail"].at(0)["errors"].at(0)["code"];
  }
  // Every held message the list gives, page by page (pageSize `size`); the number of pages in `pages`.
  std::vector<json> all_held(const json& item, int size, int& pages) {
    std::vector<json> out;
    json meta = {{"pagination", {{"pageSize", size}}}};
    for (pages = 0; pages < 1000;) {
      const auto res = call("/api/gateway/get-hold-message-list", item, meta);
      EXPECT_EQ(res.status, 200u) << res.body;
      const auto body = res.json();
      EXPECT_TRUE(body["fail"].empty()) << res.body;
      ++pages;
      for (const auto& m : body["data"]) out.push_back(m);
      const auto& pagination = body["meta"]["pagination"];
      if (!pagination.contains("next")) break;
      meta["pagination"]["pageToken"] = pagination["next"];
    }
    return out;
  }

 private:
  std::string bearer_;
};

}  // namespace

TEST_F(MimecastFakeTest, IssuesTokensToItsClientOnly) {
  const auto ok =
      token_call("grant_type=client_credentials&client_id=sandbox-mailsec&client_secret=sandbox-mailsec-secret");
  ASSERT_EQ(ok.status, 200u) << ok.body;
  EXPECT_EQ(ok.json()["token_type"], "Bearer");
  EXPECT_EQ(ok.json()["expires_in"], 1800);
  EXPECT_GE(ok.json()["access_token"].get<std::string>().size(), 32u);

  const auto wrong = token_call("grant_type=client_credentials&client_id=sandbox-mailsec&client_secret=guess");
  EXPECT_EQ(wrong.status, 401u);
  EXPECT_EQ(wrong.json()["fail"][0]["code"], "invalid_client");
  EXPECT_TRUE(wrong.json()["fail"][0]["message"].is_string());
  EXPECT_EQ(token_call("grant_type=client_credentials&client_id=someone&client_secret=sandbox-mailsec-secret").status,
            401u);
  const auto grant = token_call("grant_type=password&client_id=sandbox-mailsec&client_secret=sandbox-mailsec-secret");
  EXPECT_EQ(grant.status, 400u);
  EXPECT_EQ(grant.json()["fail"][0]["code"], "unsupported_grant_type");
  EXPECT_EQ(token_call("client_id=sandbox-mailsec").status, 400u);

  const auto stats = fakes.mimecast().stats();
  EXPECT_EQ(stats["tokens_issued"], 1);
  EXPECT_EQ(stats["refused_tokens"], 4);
}

TEST_F(MimecastFakeTest, EveryApiCallNeedsABearerToken) {
  fakes.mimecast().seed({.held = 5, .tracked = 0, .users = 2, .days = 1});
  const std::string body = R"({"data":[{"admin":true}]})";
  const auto none = http(fakes.port(), "POST", "/mimecast/api/gateway/get-hold-message-list", body);
  EXPECT_EQ(none.status, 401u);
  EXPECT_EQ(none.json()["fail"][0]["code"], "unauthorized");
  EXPECT_EQ(http(fakes.port(), "POST", "/mimecast/api/gateway/get-hold-message-list", body,
                 {{"Authorization", "Bearer forged"}})
                .status,
            401u);
  EXPECT_EQ(http(fakes.port(), "GET", "/mimecast/siem/v1/events/cg").status, 401u);
  EXPECT_EQ(call("/api/gateway/get-hold-message-list", {{"admin", true}}).status, 200u);

  // A token issued with no lifetime has expired at once; revoked tokens stop working.
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/mimecast/token", R"({"expires_in":0})").status, 204u);
  const auto brief =
      token_call("grant_type=client_credentials&client_id=sandbox-mailsec&client_secret=sandbox-mailsec-secret");
  EXPECT_EQ(brief.json()["expires_in"], 0);
  EXPECT_EQ(http(fakes.port(), "POST", "/mimecast/api/gateway/get-hold-message-list", body,
                 {{"Authorization", "Bearer " + brief.json()["access_token"].get<std::string>()}})
                .status,
            401u);
  fakes.mimecast().revoke_tokens();
  EXPECT_EQ(call("/api/gateway/get-hold-message-list", {{"admin", true}}).status, 401u);
  EXPECT_EQ(fakes.mimecast().stats()["unauthorized"], 5);
}

TEST_F(MimecastFakeTest, ChecksTheRequestEnvelope) {
  const auto headers = std::map<std::string, std::string>{{"Authorization", "Bearer " + token()}};
  const auto two =
      http(fakes.port(), "POST", "/mimecast/api/gateway/hold-release", R"({"data":[{"id":"a"},{"id":"b"}]})", headers);
  EXPECT_EQ(two.status, 400u);
  EXPECT_EQ(error_code(two), "err_validation_null");
  EXPECT_EQ(http(fakes.port(), "POST", "/mimecast/api/gateway/hold-release", "not json", headers).status, 400u);
  // A function-level failure is a 200 with data [] and a fail entry naming the item.
  const auto missing = call("/api/gateway/hold-release", json::object());
  EXPECT_EQ(missing.status, 200u);
  EXPECT_EQ(missing.json()["meta"]["status"], 200);
  EXPECT_TRUE(missing.json()["data"].empty());
  EXPECT_EQ(error_code(missing), "err_validation_null");
  EXPECT_EQ(missing.json()["fail"][0]["key"], json::object());
  const auto field = call("/api/gateway/get-hold-message-list",
                          {{"admin", true}, {"searchBy", {{"fieldName", "colour"}, {"value", "red"}}}});
  EXPECT_EQ(error_code(field), "err_validation_value_not_allowed");
  EXPECT_EQ(error_code(call("/api/gateway/get-hold-message-list", {{"admin", true}, {"start", "last tuesday"}})),
            "err_validation_invalid_date");
  EXPECT_EQ(error_code(call("/api/gateway/get-hold-message-list", {{"admin", true}},
                            {{"pagination", {{"pageToken", "forged"}}}})),
            "err_invalid_page_token");
  EXPECT_EQ(
      error_code(call("/api/gateway/get-hold-message-list", {{"admin", true}}, {{"pagination", {{"pageSize", 501}}}})),
      "err_validation_value_not_allowed");
}

TEST_F(MimecastFakeTest, PagesTheHeldListToTheEnd) {
  ASSERT_EQ(http(fakes.port(), "POST", "/_sandbox/mimecast/seed", R"({"held":150})").status, 201u);
  const json item = {{"admin", true}, {"start", days_ago(8)}, {"end", days_ago(0)}};
  const auto first = call("/api/gateway/get-hold-message-list", item, {{"pagination", {{"pageSize", 10}}}});
  ASSERT_EQ(first.status, 200u) << first.body;
  const auto body = first.json();
  EXPECT_EQ(body["data"].size(), 10u);
  EXPECT_EQ(body["meta"]["pagination"]["totalCount"], 150);
  EXPECT_EQ(body["meta"]["pagination"]["pageSize"], 10);
  EXPECT_FALSE(body["meta"]["pagination"].contains("previous"));
  const auto& m = body["data"][0];
  for (const auto* key : {"id", "dateReceived", "reason", "reasonId", "reasonCode", "policyInfo", "from", "fromHeader",
                          "to", "toHeader", "subject", "route", "hasAttachments", "size"})
    EXPECT_TRUE(m.contains(key)) << key;
  EXPECT_TRUE(m["from"]["emailAddress"].is_string());
  EXPECT_TRUE(m["to"].contains("displayableName"));
  EXPECT_TRUE(sandbox::mimecast::parse_date(m["dateReceived"].get<std::string>()).has_value());

  int pages = 0;
  const auto all = all_held(item, 10, pages);
  EXPECT_EQ(pages, 15);
  ASSERT_EQ(all.size(), 150u);
  std::set<std::string> ids;
  for (std::size_t i = 0; i < all.size(); ++i) {
    ids.insert(all[i]["id"].get<std::string>());
    if (i > 0)  // newest first
      EXPECT_GE(*sandbox::mimecast::parse_date(all[i - 1]["dateReceived"].get<std::string>()),
                *sandbox::mimecast::parse_date(all[i]["dateReceived"].get<std::string>()));
  }
  EXPECT_EQ(ids.size(), 150u);

  // Without a range every held message; the default page is 25; searchBy narrows.
  EXPECT_EQ(call("/api/gateway/get-hold-message-list", {{"admin", true}}).json()["data"].size(), 25u);
  const auto spam =
      all_held({{"admin", true}, {"searchBy", {{"fieldName", "reason_code"}, {"value", "spam"}}}}, 100, pages);
  EXPECT_GT(spam.size(), 10u);
  EXPECT_LT(spam.size(), 150u);
  for (const auto& h : spam) EXPECT_EQ(h["reasonCode"], "spam_signature");
  // The same seed gives the same queue.
  sandbox::InProcess other;
  other.mimecast().seed({.held = 150});
  EXPECT_EQ(other.mimecast().held()[7]["id"], fakes.mimecast().held()[7]["id"]);
}

TEST_F(MimecastFakeTest, TheAdminFlagIsForbiddenToANonAdminCaller) {
  fakes.mimecast().seed({.held = 150});
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/mimecast/admin", R"({"admin":false})").status, 200u);
  const auto refused = call("/api/gateway/get-hold-message-list", {{"admin", true}});
  EXPECT_EQ(refused.status, 403u);
  EXPECT_EQ(refused.json()["meta"]["status"], 403);
  EXPECT_EQ(error_code(refused), "app_forbidden");
  EXPECT_EQ(refused.json()["fail"][0]["key"]["admin"], true);

  // Without the flag: the caller's own held messages (every 10th of the seed).
  int pages = 0;
  const auto own = all_held(json::object(), 100, pages);
  EXPECT_EQ(own.size(), 15u);
  for (const auto& m : own) EXPECT_EQ(m["to"]["emailAddress"], "helpdesk@northwind-it.example");
  EXPECT_EQ(all_held({{"admin", false}}, 100, pages).size(), 15u);
  EXPECT_EQ(fakes.mimecast().stats()["forbidden"], 1);

  // An administrator sees everything with the flag, and still only its own without it.
  fakes.mimecast().set_admin(true);
  EXPECT_EQ(all_held({{"admin", true}}, 100, pages).size(), 150u);
  EXPECT_EQ(all_held(json::object(), 100, pages).size(), 15u);
}

TEST_F(MimecastFakeTest, ReleasesAHeldMessageOnce) {
  fakes.mimecast().seed({.held = 20});
  const std::string id = fakes.mimecast().held()[3]["id"];
  const auto released = call("/api/gateway/hold-release", {{"id", id}});
  ASSERT_EQ(released.status, 200u) << released.body;
  EXPECT_EQ(released.json()["data"], json::array({{{"id", id}, {"release", true}}}));
  EXPECT_TRUE(released.json()["fail"].empty());

  const auto again = call("/api/gateway/hold-release", {{"id", id}});
  EXPECT_EQ(again.status, 200u);
  EXPECT_TRUE(again.json()["data"].empty());
  EXPECT_EQ(error_code(again), "err_hold_release_failed");
  EXPECT_EQ(again.json()["fail"][0]["key"]["id"], id);
  EXPECT_EQ(error_code(call("/api/gateway/hold-release", {{"id", "eNoUnknown"}})), "err_hold_release_failed");

  int pages = 0;
  const auto left = all_held({{"admin", true}}, 100, pages);
  EXPECT_EQ(left.size(), 19u);
  for (const auto& m : left) EXPECT_NE(m["id"], id);
  EXPECT_EQ(fakes.mimecast().stats()["released"], 1);
  EXPECT_EQ(fakes.mimecast().stats()["rows"]["held_now"], 19);
}

TEST_F(MimecastFakeTest, FindsMessagesWithTheirStatusAndSpamInfo) {
  fakes.mimecast().seed({.held = 0, .tracked = 200});
  const json range = {{"start", days_ago(7)}, {"end", days_ago(0)}, {"searchReason", "user report"}};
  const auto res = call("/api/message-finder/search", range);
  ASSERT_EQ(res.status, 200u) << res.body;
  const auto tracked = res.json()["data"][0]["trackedEmails"];
  EXPECT_GT(tracked.size(), 150u);
  std::map<std::string, int> statuses;
  for (const auto& t : tracked) {
    ++statuses[t["status"]];
    EXPECT_TRUE(t["fromEnv"]["emailAddress"].is_string());
    EXPECT_TRUE(t["to"].is_array());
    EXPECT_TRUE(sandbox::mimecast::parse_date(t["received"].get<std::string>()).has_value());
  }
  for (const auto* status : {"delivered", "archived", "held", "rejected", "bounced"})
    EXPECT_GT(statuses[status], 0) << status;

  // Filters: a sender's domain, a recipient, a subject, a route.
  const auto by_domain =
      call("/api/message-finder/search",
           {{"start", days_ago(7)}, {"advancedTrackAndTraceOptions", {{"from", "fabrikam.example"}}}});
  const auto from_fabrikam = by_domain.json()["data"][0]["trackedEmails"];
  EXPECT_FALSE(from_fabrikam.empty());
  for (const auto& t : from_fabrikam) EXPECT_EQ(t["fromEnv"]["emailAddress"], "invoices@fabrikam.example");
  const std::string recipient = tracked[0]["to"][0]["emailAddress"];
  const auto to_one = call("/api/message-finder/search",
                           {{"start", days_ago(7)}, {"advancedTrackAndTraceOptions", {{"to", recipient}}}});
  EXPECT_GE(to_one.json()["data"][0]["trackedEmails"].size(), 1u);
  const auto outbound = call("/api/message-finder/search",
                             {{"start", days_ago(7)}, {"advancedTrackAndTraceOptions", {{"route", {"outbound"}}}}});
  const auto outbound_emails = outbound.json()["data"][0]["trackedEmails"];
  EXPECT_FALSE(outbound_emails.empty());
  for (const auto& t : outbound_emails) EXPECT_EQ(t["route"], "outbound");

  // The spam score comes from get-message-info.
  const auto rejected =
      std::find_if(tracked.begin(), tracked.end(), [](const json& t) { return t["status"] == "rejected"; });
  ASSERT_NE(rejected, tracked.end());
  const auto info = call("/api/message-finder/get-message-info", {{"id", (*rejected)["id"]}});
  ASSERT_EQ(info.status, 200u) << info.body;
  const auto detail = info.json()["data"][0];
  EXPECT_EQ(detail["id"], (*rejected)["id"]);
  EXPECT_EQ(detail["status"], "rejected");
  EXPECT_GE(detail["spamInfo"]["spamScore"].get<int>(), 10);
  EXPECT_TRUE(detail["spamInfo"]["detectionLevel"].is_string());
  EXPECT_TRUE(detail["spamInfo"]["spamProcessingDetail"].contains("spamVerdict"));
  EXPECT_TRUE(detail["recipientInfo"]["messageInfo"].contains("fromEnvelope"));
  EXPECT_EQ(error_code(call("/api/message-finder/get-message-info", {{"id", "eNoNothing"}})), "err_message_not_found");

  // Message finder reaches 30 days back at most, strictly; an end before the start is refused.
  const auto old = call("/api/message-finder/search", {{"start", days_ago(30)}, {"end", days_ago(0)}});
  EXPECT_EQ(old.status, 200u);
  EXPECT_EQ(error_code(old), "err_track_and_trace_invalid_start_date");
  EXPECT_EQ(error_code(call("/api/message-finder/search", {{"start", days_ago(2)}, {"end", days_ago(3)}})),
            "err_track_and_trace_invalid_end_date");
  EXPECT_EQ(error_code(call("/api/message-finder/search",
                            {{"start", days_ago(2)}, {"advancedTrackAndTraceOptions", {{"route", "sideways"}}}})),
            "err_validation_value_not_allowed");
}

TEST_F(MimecastFakeTest, TheSiemReceiptStreamGivesTheMessageCounts) {
  fakes.mimecast().seed({.held = 0, .tracked = 0, .users = 5, .days = 3});
  const auto midnight = std::chrono::floor<std::chrono::days>(core::now());
  const auto siem_date = [](core::Timestamp t) { return core::format_rfc3339(t).substr(0, 19) + ".000Z"; };
  std::string target = "/siem/v1/events/cg?types=receipt&pageSize=100&dateRangeStartsAt=" +
                       siem_date(core::Timestamp(midnight - std::chrono::days(3))) +
                       "&dateRangeEndsAt=" + siem_date(core::Timestamp(midnight));
  std::map<std::pair<std::string, std::string>, std::pair<int, int>> sums;
  int pages = 0, events = 0;
  for (;;) {
    const auto res = get(target);
    ASSERT_EQ(res.status, 200u) << res.body;
    const auto body = res.json();
    ++pages;
    for (const auto& e : body["value"]) {
      ++events;
      EXPECT_EQ(e["eventType"], "receipt");
      const std::string day =
          core::format_rfc3339(core::Timestamp(std::chrono::milliseconds(e["timestamp"].get<std::int64_t>())))
              .substr(0, 10);
      const std::string direction = e["direction"], sender = e["senderEnvelope"], recipient = e["recipients"];
      if (direction != "Inbound" && sender.ends_with("@northwind-it.example")) ++sums[{sender, day}].first;
      if (direction != "Outbound" && recipient.ends_with("@northwind-it.example")) ++sums[{recipient, day}].second;
    }
    if (body["isCaughtUp"].get<bool>()) break;
    ASSERT_TRUE(body["@nextPage"].is_string());
    target = "/siem/v1/events/cg?pageSize=100&nextPage=" + core::url_encode(body["@nextPage"].get<std::string>());
  }
  EXPECT_GT(pages, 1);
  EXPECT_EQ(events, fakes.mimecast().stats()["rows"]["events"].get<int>());

  // The control route's sums are the same.
  const auto counts = http(fakes.port(), "GET", "/_sandbox/mimecast/counts").json()["counts"];
  ASSERT_EQ(counts.size(), sums.size());
  std::set<std::string> days;
  for (const auto& c : counts) {
    const auto it = sums.find({c["user"].get<std::string>(), c["day"].get<std::string>()});
    ASSERT_NE(it, sums.end()) << c.dump();
    EXPECT_EQ(c["sent"], it->second.first) << c.dump();
    EXPECT_EQ(c["received"], it->second.second) << c.dump();
    days.insert(c["day"].get<std::string>());
  }
  EXPECT_EQ(days.size(), 3u);

  // Other types give no receipts; bad parameters are 400.
  EXPECT_TRUE(get("/siem/v1/events/cg?types=delivery").json()["value"].empty());
  EXPECT_EQ(get("/siem/v1/events/cg?types=gossip").status, 400u);
  EXPECT_EQ(get("/siem/v1/events/cg?pageSize=0").status, 400u);
  EXPECT_EQ(get("/siem/v1/events/cg?dateRangeStartsAt=yesterday").status, 400u);
  EXPECT_EQ(get("/siem/v1/events/cg?nextPage=forged").status, 400u);
}

TEST_F(MimecastFakeTest, ThrottlesFailsAndStallsWhenAsked) {
  fakes.mimecast().seed({.held = 3, .tracked = 0, .users = 1, .days = 1});
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/mimecast/faults", R"({"throttle":1,"retry_after":7})").status, 204u);
  const auto throttled = call("/api/gateway/get-hold-message-list", {{"admin", true}});
  EXPECT_EQ(throttled.status, 429u);
  EXPECT_EQ(throttled.header("retry-after"), "7");
  EXPECT_EQ(throttled.header("x-ratelimit-reset"), "7000");
  EXPECT_EQ(throttled.header("x-ratelimit-remaining"), "0");
  const auto ok = call("/api/gateway/get-hold-message-list", {{"admin", true}});
  EXPECT_EQ(ok.status, 200u);
  EXPECT_FALSE(ok.header("x-ratelimit-limit").empty());

  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/mimecast/faults", R"({"server_errors":1,"status":502})").status, 204u);
  EXPECT_EQ(call("/api/gateway/get-hold-message-list", {{"admin", true}}).status, 502u);
  EXPECT_EQ(call("/api/gateway/get-hold-message-list", {{"admin", true}}).status, 200u);

  // Faults for one endpoint leave the others alone; latency takes milliseconds, up to ten minutes.
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/mimecast/faults",
                 R"({"server_errors":5,"endpoint":"/api/gateway/hold-release","latency_ms":1,"latency_calls":1})")
                .status,
            204u);
  EXPECT_EQ(call("/api/gateway/get-hold-message-list", {{"admin", true}}).status, 200u);
  EXPECT_EQ(call("/api/gateway/hold-release", {{"id", "x"}}).status, 503u);
  // Faults for one client leave another client's calls alone (a console's second tenant: its own account).
  const auto lab = token_call(
      "grant_type=client_credentials&client_id=sandbox-mailsec-lab&client_secret=sandbox-mailsec-lab-secret");
  ASSERT_EQ(lab.status, 200u) << lab.body;
  const std::string lab_bearer = lab.json()["access_token"];
  const auto lab_call = [&] {
    return http(fakes.port(), "POST", "/mimecast/api/gateway/get-hold-message-list",
                json{{"data", json::array({{{"admin", true}}})}}.dump(),
                {{"Authorization", "Bearer " + lab_bearer}, {"Content-Type", "application/json"}});
  };
  ASSERT_EQ(
      http(fakes.port(), "PUT", "/_sandbox/mimecast/faults", R"({"server_errors":2,"client_id":"sandbox-mailsec-lab"})")
          .status,
      204u);
  EXPECT_EQ(call("/api/gateway/get-hold-message-list", {{"admin", true}}).status, 200u);
  EXPECT_EQ(lab_call().status, 503u);
  EXPECT_EQ(call("/api/gateway/get-hold-message-list", {{"admin", true}}).status, 200u);
  EXPECT_EQ(lab_call().status, 503u);
  EXPECT_EQ(lab_call().status, 200u);
  EXPECT_EQ(
      token_call("grant_type=client_credentials&client_id=sandbox-mailsec-lab&client_secret=sandbox-mailsec-secret")
          .status,
      401u);
  EXPECT_EQ(http(fakes.port(), "PUT", "/_sandbox/mimecast/faults", R"({"latency_ms":600001})").status, 400u);
  EXPECT_EQ(http(fakes.port(), "PUT", "/_sandbox/mimecast/faults", R"({"latency_ms":25000})").status, 204u);
  fakes.mimecast().set_faults({});

  const auto stats = http(fakes.port(), "GET", "/_sandbox/mimecast/stats").json();
  EXPECT_EQ(stats["throttled"], 1);
  EXPECT_EQ(stats["server_errors"], 4);
  EXPECT_EQ(stats["calls"]["/api/gateway/get-hold-message-list"], 10);
  EXPECT_EQ(stats["calls"]["/api/gateway/hold-release"], 1);
  ASSERT_EQ(http(fakes.port(), "POST", "/_sandbox/mimecast/reset").status, 204u);
  EXPECT_EQ(fakes.mimecast().stats()["rows"]["held"], 0);
}
