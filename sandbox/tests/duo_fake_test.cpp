// The Duo fake speaks Duo's Admin and Accounts APIs over real HTTP: Duo's request signature (checked
// against Duo's published examples, then through the fake), its refusals, limit/offset paging, child
// accounts selected by account_id, a failing child, the fault switches, and a deterministic seed.
#include "core/testing/testing.hpp"
#include "core/util/digest.hpp"
#include "core/util/strings.hpp"
#include "sandbox/duo_seed.hpp"
#include "sandbox/duo_signing.hpp"
#include "sandbox/sandbox.hpp"

#include <gtest/gtest.h>

#include <set>

using core::testing::http;
using core::testing::HttpResponse;
using nlohmann::json;
namespace duo = sandbox::duo;

namespace {

using Seconds = std::chrono::sys_seconds;

// Duo's documentation example ("Tue, 21 Aug 2012 17:29:18 -0000"), as duo_api_golang's duo_test.go pins it.
constexpr const char* kDocIkey = "DIWJ8X6AEYOR5OMC6TQ1";
constexpr const char* kDocSkey = "Zh5eGmUq9zpfQnyUIu5OL9iWoMMv5ZNmk3zLJ4Ep";
constexpr const char* kDocDate = "Tue, 21 Aug 2012 17:29:18 -0000";
constexpr const char* kDocHost = "api-XXXXXXXX.duosecurity.com";
constexpr const char* kDocPath = "/accounts/v1/account/list";
// TestSign: version 2, HMAC-SHA512, realname=First Last&username=root.
constexpr const char* kDocV2 =
    "Basic RElXSjhYNkFFWU9SNU9NQzZUUTE6MWJmZmI4OTI0MzQ4ZjdkYjdkYTllN2Q3ZDc0OWRlZDkzYWFmZDAyZDhlOTA0OTYwZGE3Yjk2YzU3NTEw"
    "MjIwMTg1YTY0YTI4MjdlZThmMjRhYzVkMzA4MDJhOWVlOTdlNTlkZTQ0YjMwNGIxODI0MmYwZDU5NmQxNWE4MTIyYWY=";
// TestSignV5: version 5, realname=First Last in the query, this body.
constexpr const char* kDocV5Body = R"({"txid":"f22b1678-252a-4070-b176-0ca2be7319fd"})";
constexpr const char* kDocV5 =
    "Basic RElXSjhYNkFFWU9SNU9NQzZUUTE6NzhmNDMyN2Y4MzExNzNjYzc4ZDA5MDdlOTEzZTNjNWEyOGZlNzJkZDQ1NDVhMzQyNTg2YmI2NzE4MWYy"
    "YmEzOTNkMjA5MTFlODcwMzYyZjZmYWJhM2RjNmY3ZTlkYjVlOTNhZWQyZjNiZmMxMTBjNmRhZGFmZjRkYzYxNzllMGI=";

Seconds doc_time() { return *duo::parse_rfc2822(kDocDate); }

class DuoFakeTest : public ::testing::Test {
 protected:
  sandbox::InProcess fakes;
  std::string ikey = "DISANDBOXPARENT00001";
  std::string skey = "sandbox-duo-secret-key-0123456789abcdefg";

  std::string host() const { return "127.0.0.1:" + std::to_string(fakes.port()); }

  // A call signed as duo_client_python signs it today (version 5): a GET's parameters in the query, a
  // POST's as a JSON body; Date from the real clock.
  HttpResponse call(const std::string& method, const std::string& path, const duo::Params& params = {},
                    std::map<std::string, std::string> extra = {}) {
    const auto date = duo::format_rfc2822(std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
    std::string target = "/duo" + path, body;
    std::string canonical;
    if (method == "GET") {
      canonical = duo::canonical_v5(date, method, host(), target, params, "", {});
      std::string query;
      for (const auto& [k, v] : params)
        query += (query.empty() ? "" : "&") + core::url_encode(k) + "=" + core::url_encode(v);
      if (!query.empty()) target += "?" + query;
    } else {
      json object = json::object();
      for (const auto& [k, v] : params) object[k] = v;
      body = object.dump();
      canonical = duo::canonical_v5(date, method, host(), target, {}, body, {});
    }
    std::map<std::string, std::string> headers{
        {"Host", host()}, {"Date", date}, {"Authorization", duo::authorization(ikey, skey, canonical)}};
    for (auto& [k, v] : extra) headers[k] = v;
    return http(fakes.port(), method, target, body, headers);
  }
  HttpResponse users(const duo::Params& params = {}) { return call("GET", "/admin/v1/users", params); }
  json children() {
    const auto res = call("POST", "/accounts/v1/account/list");
    EXPECT_EQ(res.status, 200u) << res.body;
    return res.json()["response"];
  }
  // Every user of an account (the parent without account_id), page by page.
  std::vector<json> all_users(const std::string& account_id, int limit) {
    std::vector<json> out;
    for (int offset = 0, pages = 0; pages < 1000; ++pages) {
      duo::Params params{{"limit", std::to_string(limit)}, {"offset", std::to_string(offset)}};
      if (!account_id.empty()) params.emplace_back("account_id", account_id);
      const auto res = users(params);
      EXPECT_EQ(res.status, 200u) << res.body;
      const auto body = res.json();
      for (const auto& u : body["response"]) out.push_back(u);
      if (!body["metadata"].contains("next_offset")) break;
      offset = body["metadata"]["next_offset"].get<int>();
    }
    return out;
  }
  static void expect_fail(const HttpResponse& res, unsigned status, int code, const std::string& message) {
    EXPECT_EQ(res.status, status) << res.body;
    const auto body = res.json();
    EXPECT_EQ(body["stat"], "FAIL") << res.body;
    EXPECT_EQ(body["code"], code) << res.body;
    EXPECT_EQ(body["message"], message) << res.body;
  }
};

}  // namespace

// --- the signature, against Duo's published examples ---

TEST(DuoSigning, ReproducesDuosDocumentationExample) {
  // duo_api_golang duo_test.go TestSign, "documented at https://www.duosecurity.com/docs/authapi".
  const duo::Params params{{"realname", "First Last"}, {"username", "root"}};
  const auto canonical = duo::canonical_v2(kDocDate, "POST", kDocHost, kDocPath, params);
  EXPECT_EQ(canonical,
            "Tue, 21 Aug 2012 17:29:18 -0000\nPOST\napi-xxxxxxxx.duosecurity.com\n/accounts/v1/account/list\n"
            "realname=First%20Last&username=root");
  EXPECT_EQ(duo::authorization(kDocIkey, kDocSkey, canonical), kDocV2);
  // TestSignV5: the same with a JSON body and the hash of no X-Duo headers.
  EXPECT_EQ(duo::authorization(
                kDocIkey, kDocSkey,
                duo::canonical_v5(kDocDate, "POST", kDocHost, kDocPath, {{"realname", "First Last"}}, kDocV5Body, {})),
            kDocV5);
}

TEST(DuoSigning, ReproducesDuoClientPythonsTests) {
  // tests/test_client.py TestQueryParameters.test_printable_ascii_characters.
  EXPECT_EQ(duo::canon_params({{"digits", "0123456789"},
                               {"letters", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"},
                               {"punctuation", "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"},
                               {"whitespace", "\t\n\x0b\x0c\r "}}),
            "digits=0123456789&letters=abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ&punctuation=%21%22%23%24%25"
            "%26%27%28%29%2A%2B%2C-.%2F%3A%3B%3C%3D%3E%3F%40%5B%5C%5D%5E_%60%7B%7C%7D~&whitespace=%09%0A%0B%0C%0D%20");
  EXPECT_EQ(duo::canon_params({{"foo_bar", "2"}, {"foo", "1"}}), "foo=1&foo_bar=2");

  // TestSign.test_hmac_sha512: version 2, unicode names and values.
  const duo::Params unicode{
      {"\xe4\x9a\x9a\xe2\xa1\xbb\xe3\x97\x90\xe8\xbb\xb3\xe6\x9c\xa7\xe5\x80\xaa\xe0\xa0\x90\xed\x82\x91\xc3\x88\xec"
       "\x85\xb0",
       "\xe0\xbd\x85\xe1\xa9\xb6\xe3\x90\x9a\xe6\x95\x8c\xec\x88\xbf\xe9\xac\x89\xea\xaf\xa2\xe8\x8d\x83\xe1\xac\xa7"
       "\xe6"
       "\x83\x90"},
      {"\xe7\x91\x89\xe7\xb9\x8b\xec\xb3\xbb\xe5\xa7\xbf\xef\xb9\x9f\xe8\x8e\xb7\xea\xb7\x8c\xe9\x80\x8c\xec\xbf\x91"
       "\xe7"
       "\xa0\x93",
       "\xe8\xb6\xb7\xe5\x80\xa2\xe9\x8b\x93\xe4\x8b\xaf\xe2\x81\xbd\xe8\x9c\xb0\xea\xb3\xbe\xe5\x98\x97\xe0\xa5\x86"
       "\xe4"
       "\xb8\xb0"},
      {"\xe7\x91\xb0\xe9\x8c\x94\xe9\x80\x9c\xe9\xba\xae\xe4\x83\x98\xe4\x88\x81\xe8\x8b\x98\xe8\xb1\xb0\xe1\xb4\xb1"
       "\xea"
       "\x81\x82",
       "\xe1\x9f\x99\xe0\xae\xa8\xe9\x8d\x98\xea\xab\x9f\xea\x90\xaa\xe4\xa2\xbe\xef\xae\x96\xe6\xbf\xa9\xeb\x9f\xbf"
       "\xe3"
       "\x8b\xb3"},
      {"\xec\x8b\x85\xe2\xb0\x9d\xe2\x98\xa0\xe3\x98\x97\xe9\x9a\xb3"
       "F\xe8\x98\x85\xe2\x83\xa8\xea\xb0\xa1\xe5\xa4\xb4",
       "\xef\xae\xa9\xe4\x86\xaa\xeb\xb6\x83\xe8\x90\x8b\xe2\x98\x95\xe3\xb9\xae\xe6\x94\xad\xea\xa2\xb5\xed\x95\xab"
       "U"}};
  const auto canonical =
      duo::canonical_v2("Fri, 07 Dec 2012 17:18:00 -0000", "PoSt", "foO.BAr52.cOm", "/Foo/BaR2/qux", unicode);
  EXPECT_EQ(canonical.substr(0, canonical.find("%E4")),
            "Fri, 07 Dec 2012 17:18:00 -0000\nPOST\nfoo.bar52.com\n/Foo/BaR2/qux\n");
  EXPECT_EQ(
      duo::authorization("test_ikey", "gtdfxv9YgVBYcF6dl2Eq17KUQJN2PLM2ODVTkvoT", canonical),
      "Basic " + core::base64("test_ikey:0508065035a03b2a1de2f453e629e791d180329e157f65df6b3e0f08299d4321e1c5c7a7c7"
                              "ee6b9e5fc80d1fb6fbf3ad5eb7c44dd3b3985a02c37aca53ec3698"));

  // TestCanonicalize.test_v5_with_json: the body's and the X-Duo headers' hashes.
  const std::string body = R"({"alpha":["a","b","c","d"],"data":"abc123","info":{"another":2,"test":1}})";
  EXPECT_EQ(duo::canonical_v5("Tue, 17 Nov 2020 14:12:00", "POST", "foO.BaR52.cOm", "/Foo/BaR2/qux", {}, body,
                              {{"X-Duo-Header-1", "header_value_1"}}),
            "Tue, 17 Nov 2020 14:12:00\nPOST\nfoo.bar52.com\n/Foo/BaR2/qux\n\n" + core::sha512_hex(body) +
                "\n630b4bfe7e9abd03da2eee8f0a5d4e60a254ec880a839bcc2223bb5b9443e8ef24d58f0254f1f5934bf8c017ebd0fd5b1acf"
                "86766bdbe74185e712a4092df3ed");
}

TEST(DuoSigning, ReproducesDuoHmacPythonsXDuoDate) {
  // duo_hmac_python test/test_hmac.py test_get_no_params_no_headers: the date sent as X-Duo-Date is also
  // one of the hashed X-Duo headers.
  const char* date = "Fri, 24 May 2024 12:00:00 -0000";
  EXPECT_EQ(duo::authorization("DIABCDEFGHIJKLMNOPQR", "testtesttesttesttesttesttesttesttesttest",
                               duo::canonical_v5(date, "GET", "api-xxxxxxxx.duosecurity.com", "/api/path", {}, "",
                                                 {{"x-duo-date", date}})),
            "Basic RElBQkNERUZHSElKS0xNTk9QUVI6YzQ1NDYzOWQ3NWI0ZTNkOTliOGIxZDVlNDFjZDdiYjJkMmQ4YmE1NWY2ODExZjc4NmRmYjBl"
            "ZGQ0ZmFjZDJmM2E1ZTZkNmM4MzdmMzFmNjgyNjcwNjMyNWI0ZWQ3ZGNkYzVmMTExNjQ5NDhlNTdhNzAzMmE1MjQ5OTBlMDE1ODM=");
}

TEST(DuoSigning, ReadsAndWritesRfc2822Dates) {
  EXPECT_EQ(duo::parse_rfc2822("Tue, 21 Aug 2012 17:29:18 -0000"),
            Seconds(std::chrono::sys_days(std::chrono::year(2012) / 8 / 21)) + std::chrono::hours(17) +
                std::chrono::minutes(29) + std::chrono::seconds(18));
  EXPECT_EQ(duo::parse_rfc2822("Tue, 21 Aug 2012 19:29:18 +0200"), duo::parse_rfc2822("21 Aug 2012 17:29:18 GMT"));
  EXPECT_EQ(duo::format_rfc2822(doc_time()), kDocDate);
  EXPECT_FALSE(duo::parse_rfc2822("2012-08-21T17:29:18Z"));
  EXPECT_FALSE(duo::parse_rfc2822("Tue, 32 Aug 2012 17:29:18 -0000"));
  EXPECT_EQ(duo::base64_decode(core::base64("ikey:sig")), "ikey:sig");
  EXPECT_FALSE(duo::base64_decode("not base64!"));
}

// --- through the fake ---

TEST_F(DuoFakeTest, AcceptsDuosPublishedExampleRequests) {
  fakes.duo().seed({});
  fakes.duo().set_integration(kDocIkey, kDocSkey);
  fakes.duo().set_clock(doc_time());
  // Version 2 as the documentation signs it: the parameters as a form body.
  const auto v2 = http(fakes.port(), "POST", "/duo/accounts/v1/account/list", "realname=First+Last&username=root",
                       {{"Host", kDocHost},
                        {"Date", kDocDate},
                        {"Content-Type", "application/x-www-form-urlencoded"},
                        {"Authorization", kDocV2}});
  ASSERT_EQ(v2.status, 200u) << v2.body;
  EXPECT_EQ(v2.json()["stat"], "OK");
  EXPECT_EQ(v2.json()["response"].size(), 2u);
  // Version 5: the parameter in the query, the JSON body hashed.
  const auto v5 = http(fakes.port(), "POST", "/duo/accounts/v1/account/list?realname=First%20Last", kDocV5Body,
                       {{"Host", kDocHost}, {"Date", kDocDate}, {"Authorization", kDocV5}});
  ASSERT_EQ(v5.status, 200u) << v5.body;
  // One byte of the body changed: refused.
  std::string tampered = kDocV5Body;
  tampered.back() = ' ';
  expect_fail(http(fakes.port(), "POST", "/duo/accounts/v1/account/list?realname=First%20Last", tampered,
                   {{"Host", kDocHost}, {"Date", kDocDate}, {"Authorization", kDocV5}}),
              401, 40103, "Invalid signature in request credentials");
  const auto stats = fakes.duo().stats();
  EXPECT_EQ(stats["signature_versions"], json({{"2", 1}, {"5", 1}}));
  EXPECT_EQ(stats["unauthorized"]["bad_signature"], 1);
}

TEST_F(DuoFakeTest, AnswersASignedCall) {
  fakes.duo().seed({});
  const auto res = users();
  ASSERT_EQ(res.status, 200u) << res.body;
  const auto body = res.json();
  EXPECT_EQ(body["stat"], "OK");
  EXPECT_EQ(body["response"].size(), 60u);
  EXPECT_EQ(body["metadata"]["total_objects"], 60);
  EXPECT_FALSE(body["metadata"].contains("next_offset"));
  const auto& u = body["response"][0];
  for (const char* key : {"user_id", "username", "realname", "email", "status", "is_enrolled", "last_login", "notes"})
    EXPECT_TRUE(u.contains(key)) << key;
  EXPECT_TRUE(u["user_id"].get<std::string>().starts_with("DU"));
  EXPECT_EQ(u["user_id"].get<std::string>().size(), 20u);
  EXPECT_TRUE(u["last_login"].is_null() || u["last_login"].is_number_integer());
  // Signed with X-Duo-Date instead of Date (duo_hmac_python), the date being one of the hashed headers.
  const auto date = duo::format_rfc2822(std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
  const auto canonical = duo::canonical_v5(date, "GET", host(), "/duo/admin/v1/users", {}, "", {{"X-Duo-Date", date}});
  EXPECT_EQ(http(fakes.port(), "GET", "/duo/admin/v1/users", {},
                 {{"Host", host()}, {"X-Duo-Date", date}, {"Authorization", duo::authorization(ikey, skey, canonical)}})
                .status,
            200u);
  // Signed for the host without its port and the API path without /duo, as a client may.
  const auto bare = duo::canonical_v5(date, "GET", "127.0.0.1", "/admin/v1/users", {}, "", {});
  EXPECT_EQ(http(fakes.port(), "GET", "/duo/admin/v1/users", {},
                 {{"Host", host()}, {"Date", date}, {"Authorization", duo::authorization(ikey, skey, bare)}})
                .status,
            200u);
  EXPECT_EQ(fakes.duo().stats()["signature_versions"]["5"], 3);
}

TEST_F(DuoFakeTest, RefusesWhatIsNotSignedRight) {
  fakes.duo().seed({});
  const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  const auto signed_as = [&](const std::string& key, const std::string& secret, Seconds when,
                             const std::string& signed_path) {
    const auto date = duo::format_rfc2822(when);
    const auto canonical = duo::canonical_v5(date, "GET", host(), signed_path, {{"limit", "10"}}, "", {});
    return http(fakes.port(), "GET", "/duo/admin/v1/users?limit=10", {},
                {{"Host", host()}, {"Date", date}, {"Authorization", duo::authorization(key, secret, canonical)}});
  };
  EXPECT_EQ(signed_as(ikey, skey, now, "/duo/admin/v1/users").status, 200u);
  expect_fail(signed_as(ikey, "not-the-secret-key-0123456789abcdefghijk", now, "/duo/admin/v1/users"), 401, 40103,
              "Invalid signature in request credentials");
  expect_fail(signed_as(ikey, skey, now, "/duo/admin/v1/phones"), 401, 40103,
              "Invalid signature in request credentials");
  expect_fail(signed_as("DIUNKNOWNINTEGRATION", skey, now, "/duo/admin/v1/users"), 401, 40102,
              "Invalid integration key in request credentials");
  expect_fail(signed_as(ikey, skey, now - std::chrono::minutes(10), "/duo/admin/v1/users"), 401, 40105,
              "Bad request timestamp");
  expect_fail(signed_as(ikey, skey, now + std::chrono::minutes(10), "/duo/admin/v1/users"), 401, 40105,
              "Bad request timestamp");
  expect_fail(http(fakes.port(), "GET", "/duo/admin/v1/users"), 401, 40101, "Missing request credentials");
  expect_fail(
      http(fakes.port(), "GET", "/duo/admin/v1/users", {}, {{"Authorization", "Basic " + core::base64(ikey + ":x")}}),
      401, 40105, "Missing request timestamp");
  // A parameter changed after signing.
  const auto date = duo::format_rfc2822(now);
  const auto canonical = duo::canonical_v5(date, "GET", host(), "/duo/admin/v1/users", {{"limit", "10"}}, "", {});
  expect_fail(http(fakes.port(), "GET", "/duo/admin/v1/users?limit=11", {},
                   {{"Host", host()}, {"Date", date}, {"Authorization", duo::authorization(ikey, skey, canonical)}}),
              401, 40103, "Invalid signature in request credentials");

  const auto stats = fakes.duo().stats();
  EXPECT_EQ(stats["unauthorized"],
            json({{"missing_credentials", 1}, {"unknown_ikey", 1}, {"bad_signature", 3}, {"bad_timestamp", 3}}));
  EXPECT_EQ(stats["signature_failures"], 8);
  EXPECT_EQ(stats["requests"], 9);
}

TEST_F(DuoFakeTest, AcceptsVersionTwoUnlessTold) {
  fakes.duo().seed({});
  const auto date = duo::format_rfc2822(std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
  const auto v2 = duo::canonical_v2(date, "GET", host(), "/duo/admin/v1/users", {{"limit", "5"}});
  const std::map<std::string, std::string> headers{
      {"Host", host()}, {"Date", date}, {"Authorization", duo::authorization(ikey, skey, v2)}};
  EXPECT_EQ(http(fakes.port(), "GET", "/duo/admin/v1/users?limit=5", {}, headers).status, 200u);
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/duo/signing", R"({"versions": [5]})").status, 204u);
  expect_fail(http(fakes.port(), "GET", "/duo/admin/v1/users?limit=5", {}, headers), 401, 40103,
              "Invalid signature in request credentials");
  EXPECT_EQ(users({{"limit", "5"}}).status, 200u);
}

TEST_F(DuoFakeTest, PagesWithLimitAndOffsetToTheEnd) {
  fakes.duo().seed({.users = 250});
  const auto first = users();
  ASSERT_EQ(first.status, 200u) << first.body;
  EXPECT_EQ(first.json()["response"].size(), 100u);  // Duo's default limit
  EXPECT_EQ(first.json()["metadata"]["next_offset"], 100);
  EXPECT_FALSE(first.json()["metadata"].contains("prev_offset"));

  const auto page = users({{"limit", "100"}, {"offset", "200"}}).json();
  EXPECT_EQ(page["response"].size(), 50u);
  EXPECT_EQ(page["metadata"]["total_objects"], 250);
  EXPECT_EQ(page["metadata"]["prev_offset"], 100);
  EXPECT_FALSE(page["metadata"].contains("next_offset"));

  for (const int limit : {300, 100, 7}) {
    const auto all = all_users("", limit);
    EXPECT_EQ(all.size(), 250u) << limit;
    std::set<std::string> ids;
    for (const auto& u : all) ids.insert(u["user_id"]);
    EXPECT_EQ(ids.size(), 250u) << limit;
  }
  expect_fail(users({{"limit", "301"}}), 400, 40002, "Invalid request parameters");
  EXPECT_EQ(users({{"limit", "301"}}).json()["message_detail"], "limit");
  expect_fail(users({{"limit", "0"}}), 400, 40002, "Invalid request parameters");
  expect_fail(users({{"offset", "-1"}}), 400, 40002, "Invalid request parameters");
  EXPECT_EQ(users({{"offset", "1000"}}).json()["response"], json::array());
}

TEST_F(DuoFakeTest, ServesChildAccountsThroughTheParentsCredentials) {
  fakes.duo().seed({.children = 2, .users = 40});
  const auto list = children();
  ASSERT_EQ(list.size(), 2u);
  std::set<std::string> names;
  for (const auto& a : list) {
    EXPECT_TRUE(a["account_id"].get<std::string>().starts_with("DA"));
    EXPECT_EQ(a["api_hostname"], host());
    names.insert(a["name"]);
  }
  EXPECT_EQ(names, std::set<std::string>({"Alder & Finch Law", "Brightwater Dental"}));

  std::set<std::string> seen;
  for (const auto& id :
       {std::string(), list[0]["account_id"].get<std::string>(), list[1]["account_id"].get<std::string>()}) {
    const auto all = all_users(id, 15);
    EXPECT_EQ(all.size(), 40u);
    for (const auto& u : all) seen.insert(u["user_id"]);
  }
  EXPECT_EQ(seen.size(), 120u);  // three accounts, no user shared

  const auto stats = fakes.duo().stats();
  EXPECT_EQ(stats["per_account"][list[0]["account_id"].get<std::string>()], 3);
  const auto wrong = users({{"account_id", "DA000000000000000000"}});
  expect_fail(wrong, 400, 40002, "Invalid request parameters");
  EXPECT_EQ(wrong.json()["message_detail"], "account_id");
}

TEST_F(DuoFakeTest, ACHildAccountCanBeMadeToFail) {
  fakes.duo().seed({});
  const auto list = children();
  const std::string failing = list[0]["account_id"], healthy = list[1]["account_id"];
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/duo/accounts/" + failing + "/failing", R"({"status": 403})").status,
            204u);
  expect_fail(users({{"account_id", failing}}), 403, 40301, "Access forbidden");
  EXPECT_EQ(users({{"account_id", healthy}}).status, 200u);
  EXPECT_EQ(users().status, 200u);
  ASSERT_TRUE(fakes.duo().set_account_failing(failing, 500));
  expect_fail(users({{"account_id", failing}}), 500, 50001, "Unknown internal server error");
  EXPECT_EQ(fakes.duo().stats()["failed_account_calls"], 2);
  const auto accounts = http(fakes.port(), "GET", "/_sandbox/duo/accounts").json()["accounts"];
  EXPECT_EQ(accounts[1]["failing"], 500);
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/duo/accounts/" + failing + "/failing", R"({"status": 0})").status,
            204u);
  EXPECT_EQ(users({{"account_id", failing}}).status, 200u);
  EXPECT_EQ(http(fakes.port(), "PUT", "/_sandbox/duo/accounts/DA404/failing", R"({"status": 403})").status, 404u);
}

TEST_F(DuoFakeTest, ThrottlesAndFailsOnDemand) {
  fakes.duo().seed({});
  ASSERT_EQ(
      http(fakes.port(), "PUT", "/_sandbox/duo/faults", R"({"throttle": 1, "retry_after": 7, "server_errors": 1})")
          .status,
      204u);
  const auto throttled = users();
  expect_fail(throttled, 429, 42901, "Too Many Requests");
  EXPECT_EQ(throttled.header("retry-after"), "7");
  expect_fail(users(), 500, 50001, "Unknown internal server error");
  EXPECT_EQ(users().status, 200u);
  // A request that fails its signature is refused before any fault.
  fakes.duo().set_faults({.throttle = 1});
  EXPECT_EQ(http(fakes.port(), "GET", "/duo/admin/v1/users").status, 401u);
  EXPECT_EQ(users().status, 429u);
  const auto stats = fakes.duo().stats();
  EXPECT_EQ(stats["throttled"], 2);
  EXPECT_EQ(stats["server_errors"], 1);
}

TEST_F(DuoFakeTest, ControlRoutesSeedResetAndCount) {
  const auto seeded = http(fakes.port(), "POST", "/_sandbox/duo/seed", R"({"seed": 7, "children": 2, "users": 2000})");
  ASSERT_EQ(seeded.status, 201u) << seeded.body;
  EXPECT_EQ(seeded.json(), json({{"accounts", 3}, {"users", 6000}}));
  const auto accounts = http(fakes.port(), "GET", "/_sandbox/duo/accounts").json()["accounts"];
  ASSERT_EQ(accounts.size(), 3u);
  EXPECT_TRUE(accounts[0]["parent"].get<bool>());
  EXPECT_EQ(accounts[0]["name"], "Northwind IT Services");
  for (const auto& a : accounts) {
    EXPECT_EQ(a["users"], 2000);
    EXPECT_NEAR(a["bypass"].get<int>(), 120, 1);
    EXPECT_NEAR(a["disabled"].get<int>(), 100, 1);
    EXPECT_GT(a["locked_out"].get<int>(), 0);
  }
  EXPECT_EQ(http(fakes.port(), "POST", "/_sandbox/duo/seed", R"({"users": -1})").status, 400u);
  ASSERT_EQ(http(fakes.port(), "POST", "/_sandbox/duo/reset").status, 204u);
  EXPECT_EQ(fakes.duo().stats()["rows"]["accounts"], 0);
  EXPECT_EQ(fakes.duo().stats()["requests"], 0);
}

TEST(DuoSeed, IsDeterministicAndHasTheStatusesTheConsoleReports) {
  const auto now = Seconds(std::chrono::sys_days(std::chrono::year(2026) / 11 / 23));
  const auto a = duo::seed_accounts({.seed = 3, .children = 2, .users = 500}, now);
  const auto b = duo::seed_accounts({.seed = 3, .children = 2, .users = 500}, now);
  ASSERT_EQ(a.size(), 3u);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].account_id, b[i].account_id);
    ASSERT_EQ(a[i].users.size(), 500u);
    for (std::size_t k = 0; k < a[i].users.size(); ++k) EXPECT_EQ(a[i].users[k].json, b[i].users[k].json);
  }
  EXPECT_NE(duo::seed_accounts({.seed = 4, .children = 2, .users = 500}, now)[0].account_id, a[0].account_id);
  std::map<std::string, int> statuses;
  int enrolled = 0, logged_in = 0;
  for (const auto& u : a[1].users) {
    ++statuses[u.status];
    const auto row = json::parse(u.json);
    enrolled += row["is_enrolled"].get<bool>();
    logged_in += row["last_login"].is_number_integer();
    if (!row["is_enrolled"].get<bool>()) EXPECT_TRUE(row["last_login"].is_null());
  }
  EXPECT_EQ(statuses["bypass"], 30);
  EXPECT_EQ(statuses["disabled"], 25);
  EXPECT_EQ(statuses["locked out"], 10);
  EXPECT_EQ(statuses["pending deletion"], 5);
  EXPECT_GT(enrolled, 400);
  EXPECT_LT(enrolled, 480);
  EXPECT_GT(logged_in, 350);
}
