// The Xero fake speaks Xero over real HTTP: the authorization code flow with PKCE and its refusals,
// refresh-token rotation with the grace period, connections and disconnecting, the tenant header and
// scopes, paging, If-Modified-Since and where on the Accounting API, 429s, and a seed whose books look
// like an MSP's (aging spread, payments this month and this year).
#include "core/http/query.hpp"
#include "core/testing/testing.hpp"
#include "core/util/digest.hpp"
#include "core/util/strings.hpp"
#include "sandbox/sandbox.hpp"
#include "sandbox/xero_query.hpp"
#include "sandbox/xero_seed.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <regex>
#include <set>

using core::testing::http;
using core::testing::HttpResponse;
using nlohmann::json;

namespace {

constexpr const char* kRedirect = "http://127.0.0.1:43123/accounting/xero/callback";
constexpr const char* kScope = "openid profile email offline_access accounting.transactions accounting.contacts";
constexpr const char* kVerifier = "M25iVXpKU3puUjFaYWg3T1NDTDQtcW1ROUY5YXlwalNoc0hhakxifmZHag";
constexpr const char* kApi = "/xero/api/api.xro/2.0/";

std::string base64url_of_bytes(const std::string& bytes) {
  std::string out = core::base64(bytes);
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (auto& c : out) c = c == '+' ? '-' : c == '/' ? '_' : c;
  return out;
}

std::string challenge_of(const std::string& verifier) {
  const std::string hex = core::sha256_hex(verifier);
  std::string bytes;
  for (std::size_t i = 0; i < hex.size(); i += 2) bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return base64url_of_bytes(bytes);
}

json jwt_payload(const std::string& token) {
  const auto first = token.find('.'), second = token.find('.', first + 1);
  std::string part = token.substr(first + 1, second - first - 1);
  for (auto& c : part) c = c == '-' ? '+' : c == '_' ? '/' : c;
  while (part.size() % 4) part += '=';
  std::string out(part.size(), '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(part.data()), static_cast<int>(part.size()));
  out.resize(n);
  while (!out.empty() && out.back() == '\0') out.pop_back();
  return json::parse(out);
}

// The query parameters of a redirect's Location.
std::map<std::string, std::string> location_params(const std::string& location) {
  std::map<std::string, std::string> out;
  const auto q = location.find('?');
  if (q == std::string::npos) return out;
  const auto parsed = core::http::parse_query(location.substr(q + 1));
  if (parsed)
    for (const auto& [k, v] : parsed->items()) out[k] = v;
  return out;
}

std::int64_t ms_of(const json& date) { return *sandbox::xero::parse_json_date(date.get<std::string>()); }

class XeroFakeTest : public ::testing::Test {
 protected:
  sandbox::InProcess fakes;

  std::string tenant() { return fakes.xero().options().tenant_id; }
  std::string basic(const std::string& secret = "sandbox-accounting-secret") {
    return "Basic " + core::base64("sandbox-accounting:" + secret);
  }
  HttpResponse authorize(const std::string& redirect = kRedirect, const std::string& scope = kScope,
                         const std::string& client = "sandbox-accounting") {
    return http(fakes.port(), "GET",
                "/xero/identity/connect/authorize?response_type=code&client_id=" + core::url_encode(client) +
                    "&redirect_uri=" + core::url_encode(redirect) + "&scope=" + core::url_encode(scope) +
                    "&state=st-123&code_challenge=" + challenge_of(kVerifier) + "&code_challenge_method=S256");
  }
  std::string code(const std::string& redirect = kRedirect, const std::string& scope = kScope) {
    const auto res = authorize(redirect, scope);
    EXPECT_EQ(res.status, 302u) << res.body;
    const auto params = location_params(res.header("location"));
    EXPECT_EQ(params.count("code"), 1u) << res.header("location");
    return params.count("code") ? params.at("code") : "";
  }
  HttpResponse token(const std::string& form, std::map<std::string, std::string> headers = {}) {
    headers.emplace("Content-Type", "application/x-www-form-urlencoded");
    headers.emplace("Authorization", basic());
    return http(fakes.port(), "POST", "/xero/identity/connect/token", form, headers);
  }
  HttpResponse redeem(const std::string& c, const std::string& verifier = kVerifier,
                      const std::string& redirect = kRedirect) {
    return token("grant_type=authorization_code&code=" + core::url_encode(c) +
                 "&redirect_uri=" + core::url_encode(redirect) + "&code_verifier=" + core::url_encode(verifier));
  }
  HttpResponse refresh(const std::string& refresh_token) {
    return token("grant_type=refresh_token&refresh_token=" + core::url_encode(refresh_token));
  }
  // The whole flow: the token response.
  json connect(const std::string& scope = kScope) {
    const auto res = redeem(code(kRedirect, scope));
    EXPECT_EQ(res.status, 200u) << res.body;
    return res.json();
  }
  HttpResponse api(const std::string& path, const std::string& access,
                   std::map<std::string, std::string> headers = {}) {
    headers.emplace("Authorization", "Bearer " + access);
    headers.emplace("xero-tenant-id", tenant());
    headers.emplace("Accept", "application/json");
    return http(fakes.port(), "GET", kApi + path, {}, headers);
  }
  // Every row of a kind, page by page.
  std::vector<json> all_pages(const std::string& kind, const std::string& access, int* pages = nullptr) {
    std::vector<json> out;
    for (int page = 1; page < 100; ++page) {
      const auto res = api(kind + "?page=" + std::to_string(page), access);
      EXPECT_EQ(res.status, 200u) << res.body;
      const auto body = res.json();
      if (body[kind].empty()) break;
      if (pages) *pages = page;
      for (const auto& row : body[kind]) out.push_back(row);
    }
    return out;
  }
};

}  // namespace

TEST_F(XeroFakeTest, AuthorizationCodeFlowWithPkce) {
  const auto res = authorize();
  ASSERT_EQ(res.status, 302u) << res.body;
  const std::string location = res.header("location");
  EXPECT_EQ(location.rfind(std::string(kRedirect) + "?", 0), 0u) << location;
  const auto params = location_params(location);
  EXPECT_EQ(params.at("state"), "st-123");
  ASSERT_FALSE(params.at("code").empty());

  const auto tokens = redeem(params.at("code"));
  ASSERT_EQ(tokens.status, 200u) << tokens.body;
  const auto body = tokens.json();
  EXPECT_EQ(body["token_type"], "Bearer");
  EXPECT_EQ(body["expires_in"], 1800);
  EXPECT_EQ(body["scope"], kScope);
  EXPECT_TRUE(body["refresh_token"].is_string());
  EXPECT_TRUE(body["id_token"].is_string());  // scope openid
  const auto claims = jwt_payload(body["access_token"]);
  EXPECT_EQ(claims["client_id"], "sandbox-accounting");
  EXPECT_EQ(claims["iss"], "https://identity.xero.com");
  EXPECT_EQ(claims["exp"].get<std::int64_t>() - claims["nbf"].get<std::int64_t>(), 1800);
  EXPECT_EQ(claims["authentication_event_id"], fakes.xero().connections().front()["authEventId"]);
  EXPECT_EQ(jwt_payload(body["id_token"])["email"], fakes.xero().options().user_email);

  // Client credentials in the form instead of Basic, and no refresh token without offline_access.
  const auto c = code(kRedirect, "openid accounting.transactions.read");
  const auto form = http(fakes.port(), "POST", "/xero/identity/connect/token",
                         "grant_type=authorization_code&client_id=sandbox-accounting&client_secret=sandbox-accounting-"
                         "secret&code=" +
                             c + "&redirect_uri=" + core::url_encode(kRedirect) + "&code_verifier=" + kVerifier,
                         {{"Content-Type", "application/x-www-form-urlencoded"}});
  ASSERT_EQ(form.status, 200u) << form.body;
  EXPECT_FALSE(form.json().contains("refresh_token"));
  EXPECT_EQ(fakes.xero().stats()["codes_redeemed"], 2);
}

TEST_F(XeroFakeTest, CodesAreSingleUseAndBoundToTheVerifierAndRedirect) {
  const auto a = code();
  const auto wrong = redeem(a, std::string(kVerifier) + "x");
  EXPECT_EQ(wrong.status, 400u);
  EXPECT_EQ(wrong.json()["error"], "invalid_grant");
  EXPECT_EQ(redeem(a).json()["error"], "invalid_grant");  // the failed attempt used it up

  const auto b = code();
  EXPECT_EQ(redeem(b).status, 200u);
  const auto reused = redeem(b);
  EXPECT_EQ(reused.status, 400u);
  EXPECT_EQ(reused.json()["error"], "invalid_grant");

  const auto c = code();
  EXPECT_EQ(redeem(c, kVerifier, "http://127.0.0.1:43123/elsewhere").json()["error"], "invalid_grant");
  EXPECT_EQ(redeem(code(), "").json()["error"], "invalid_grant");  // PKCE started, no verifier

  const auto bad_secret = token("grant_type=authorization_code&code=" + code() +
                                    "&redirect_uri=" + core::url_encode(kRedirect) + "&code_verifier=" + kVerifier,
                                {{"Authorization", basic("wrong")}});
  EXPECT_EQ(bad_secret.status, 400u);
  EXPECT_EQ(bad_secret.json()["error"], "invalid_client");
  EXPECT_EQ(token("grant_type=password&username=a&password=b").json()["error"], "unsupported_grant_type");

  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/xero/token", R"({"code_lifetime_seconds":0})").status, 200u);
  EXPECT_EQ(redeem(code()).json()["error"], "invalid_grant");  // expired on arrival
  EXPECT_GE(fakes.xero().stats()["refused_codes"].get<int>(), 5);
}

TEST_F(XeroFakeTest, AuthorizeRefusesStrangersAndCanBeDenied) {
  const auto stranger = authorize(kRedirect, kScope, "someone-else");
  EXPECT_EQ(stranger.status, 400u);
  EXPECT_NE(stranger.header("content-type").find("text/html"), std::string::npos);
  EXPECT_EQ(authorize("https://evil.example/callback").status, 400u);
  EXPECT_EQ(authorize("http://localhost:9/cb").status, 302u);  // any port of an allowed host

  const auto plain =
      http(fakes.port(), "GET",
           "/xero/identity/connect/authorize?response_type=code&client_id=sandbox-accounting&redirect_uri=" +
               core::url_encode(kRedirect) + "&scope=openid&state=st-123&code_challenge=" + challenge_of(kVerifier) +
               "&code_challenge_method=plain");
  EXPECT_EQ(location_params(plain.header("location")).at("error"), "invalid_request");
  EXPECT_EQ(location_params(authorize(kRedirect, "accounting.everything openid").header("location")).at("error"),
            "invalid_scope");

  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/xero/faults", R"({"deny_next_authorization":true})").status, 204u);
  const auto denied = location_params(authorize().header("location"));
  EXPECT_EQ(denied.at("error"), "access_denied");
  EXPECT_EQ(denied.at("state"), "st-123");
  EXPECT_EQ(denied.count("code"), 0u);
  EXPECT_EQ(location_params(authorize().header("location")).count("code"), 1u);  // only the next one
  EXPECT_EQ(fakes.xero().stats()["denied_authorizations"], 1);
}

TEST_F(XeroFakeTest, RefreshRotatesAndTheUsedTokenDiesAfterTheGracePeriod) {
  const auto first = connect();
  const std::string r1 = first["refresh_token"];
  const auto second = refresh(r1);
  ASSERT_EQ(second.status, 200u) << second.body;
  const std::string r2 = second.json()["refresh_token"];
  EXPECT_NE(r2, r1);
  EXPECT_NE(second.json()["access_token"], first["access_token"]);
  EXPECT_EQ(api("Contacts", second.json()["access_token"]).status, 200u);

  // Xero: a used refresh token can be retried for 30 minutes, in case the answer was lost.
  EXPECT_EQ(refresh(r1).status, 200u);
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/xero/token", R"({"refresh_grace_seconds":0})").status, 200u);
  const auto old = refresh(r1);
  EXPECT_EQ(old.status, 400u);
  EXPECT_EQ(old.json(), json::parse(R"({"error":"invalid_grant"})"));
  const auto third = refresh(r2);
  ASSERT_EQ(third.status, 200u);
  EXPECT_EQ(refresh(r2).json()["error"], "invalid_grant");
  EXPECT_EQ(refresh(third.json()["refresh_token"]).status, 200u);
  EXPECT_EQ(refresh("no-such-token").json()["error"], "invalid_grant");
  const auto stats = fakes.xero().stats();
  EXPECT_EQ(stats["refreshes"], 4);
  EXPECT_EQ(stats["refused_refresh_tokens"], 3);
}

TEST_F(XeroFakeTest, AnExpiredAccessTokenIs401) {
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/xero/token", R"({"access_lifetime_seconds":0})").status, 200u);
  const auto tokens = connect();
  EXPECT_EQ(tokens["expires_in"], 0);
  const auto expired = api("Invoices", tokens["access_token"]);
  EXPECT_EQ(expired.status, 401u);
  EXPECT_EQ(expired.json()["Title"], "Unauthorized");
  EXPECT_TRUE(expired.json()["Detail"].get<std::string>().starts_with("TokenExpired: token expired at "))
      << expired.body;
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/xero/token", R"({"access_lifetime_seconds":1800})").status, 200u);
  const auto renewed = refresh(tokens["refresh_token"]);
  ASSERT_EQ(renewed.status, 200u);
  EXPECT_EQ(api("Invoices", renewed.json()["access_token"]).status, 200u);
}

TEST_F(XeroFakeTest, ConnectionsAndDisconnecting) {
  const auto tokens = connect();
  const std::string access = tokens["access_token"];
  const auto list = http(fakes.port(), "GET", "/xero/api/connections", {}, {{"Authorization", "Bearer " + access}});
  ASSERT_EQ(list.status, 200u) << list.body;
  ASSERT_EQ(list.json().size(), 1u);
  const auto connection = list.json()[0];
  EXPECT_EQ(connection["tenantId"], tenant());
  EXPECT_EQ(connection["tenantType"], "ORGANISATION");
  EXPECT_EQ(connection["tenantName"], "Northwind IT Services (Demo)");
  EXPECT_TRUE(core::is_uuid(connection["authEventId"].get<std::string>()));
  EXPECT_TRUE(std::regex_match(connection["createdDateUtc"].get<std::string>(),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7})")));
  EXPECT_EQ(http(fakes.port(), "GET", "/xero/api/connections").status, 401u);

  const auto gone = http(fakes.port(), "DELETE", "/xero/api/connections/" + connection["id"].get<std::string>(), {},
                         {{"Authorization", "Bearer " + access}});
  EXPECT_EQ(gone.status, 204u);
  EXPECT_EQ(http(fakes.port(), "GET", "/xero/api/connections", {}, {{"Authorization", "Bearer " + access}}).status,
            401u);
  EXPECT_EQ(api("Invoices", access).status, 401u);
  EXPECT_EQ(refresh(tokens["refresh_token"]).json()["error"], "invalid_grant");
  EXPECT_EQ(fakes.xero().stats()["connections"], 0);

  // Connecting again is a new connection, and its tokens work.
  const auto again = connect();
  EXPECT_EQ(api("Invoices", again["access_token"]).status, 200u);
  EXPECT_NE(fakes.xero().connections().front()["id"], connection["id"]);
}

TEST_F(XeroFakeTest, AccountingCallsNeedTheTenantHeaderScopeAndJson) {
  const std::string access = connect()["access_token"];
  const auto bearer = "Bearer " + access;
  const auto missing = http(fakes.port(), "GET", std::string(kApi) + "Invoices", {},
                            {{"Authorization", bearer}, {"Accept", "application/json"}});
  EXPECT_EQ(missing.status, 403u);
  EXPECT_EQ(missing.json()["Detail"], "AuthenticationUnsuccessful");
  EXPECT_EQ(missing.json()["Title"], "Forbidden");
  EXPECT_EQ(api("Invoices", access, {{"xero-tenant-id", "00000000-0000-0000-0000-000000000000"}}).status, 403u);
  EXPECT_EQ(http(fakes.port(), "GET", std::string(kApi) + "Invoices", {},
                 {{"Authorization", bearer}, {"Xero-Tenant-Id", tenant()}})
                .status,
            406u);  // Xero would answer XML
  EXPECT_EQ(api("Invoices", "forged").status, 401u);
  EXPECT_EQ(api("Nonsense", access).status, 404u);
  EXPECT_EQ(api("Organisation", access).status, 401u);  // no accounting.settings scope

  const std::string contacts_only = connect("offline_access accounting.contacts.read")["access_token"];
  const auto scoped = api("Invoices", contacts_only);
  EXPECT_EQ(scoped.status, 401u);
  EXPECT_EQ(scoped.json()["Detail"], "AuthorizationUnsuccessful");
  EXPECT_NE(scoped.header("www-authenticate").find("insufficient_scope"), std::string::npos);
  EXPECT_EQ(api("Contacts", contacts_only).status, 200u);
  const std::string granular =
      connect("offline_access accounting.invoices.read accounting.payments.read")["access_token"];
  EXPECT_EQ(api("Invoices", granular).status, 200u);
  EXPECT_EQ(api("Payments", granular).status, 200u);
}

TEST_F(XeroFakeTest, PagesInvoicesAndFiltersByIfModifiedSince) {
  fakes.xero().seed({});
  const std::string access = connect()["access_token"];
  const auto rows = fakes.xero().rows("Invoices");
  ASSERT_GT(rows.size(), 250u);

  const auto page1 = api("Invoices?page=1", access);
  ASSERT_EQ(page1.status, 200u) << page1.body;
  const auto body = page1.json();
  EXPECT_EQ(body["Status"], "OK");
  EXPECT_TRUE(body["DateTimeUTC"].get<std::string>().starts_with("/Date("));
  EXPECT_EQ(body["Invoices"].size(), 100u);
  EXPECT_EQ(body["pagination"]["itemCount"], rows.size());
  EXPECT_EQ(body["pagination"]["pageCount"], (rows.size() + 99) / 100);
  EXPECT_FALSE(body["Invoices"][0]["LineItems"].empty());
  EXPECT_TRUE(std::regex_match(body["Invoices"][0]["UpdatedDateUTC"].get<std::string>(),
                               std::regex(R"(/Date\(\d{12,13}\+0000\)/)")));
  int pages = 0;
  const auto paged = all_pages("Invoices", access, &pages);
  EXPECT_EQ(paged.size(), rows.size());
  EXPECT_EQ(pages, static_cast<int>((rows.size() + 99) / 100));
  std::set<std::string> ids;
  for (const auto& row : paged) ids.insert(row["InvoiceID"].get<std::string>());
  EXPECT_EQ(ids.size(), rows.size());
  const auto past = api("Invoices?page=" + std::to_string(pages + 1), access).json();
  EXPECT_TRUE(past["Invoices"].is_array() && past["Invoices"].empty());
  EXPECT_EQ(api("Invoices?page=1&pageSize=7", access).json()["Invoices"].size(), 7u);

  const auto unpaged = api("Invoices", access).json()["Invoices"];
  EXPECT_EQ(unpaged.size(), rows.size());
  EXPECT_TRUE(unpaged[0]["LineItems"].empty());
  EXPECT_EQ(all_pages("Payments", access).size(), fakes.xero().rows("Payments").size());
  EXPECT_EQ(api("Payments?page=1", access).json()["Payments"].size(), 100u);

  // Only what changed after If-Modified-Since; the seed is older than ten minutes.
  const auto since = core::format_rfc3339(core::now() - std::chrono::minutes(5)).substr(0, 19);
  EXPECT_TRUE(api("Invoices?page=1", access, {{"If-Modified-Since", since}}).json()["Invoices"].empty());
  const json* draft = nullptr;
  for (const auto& row : rows)
    if (row["Status"] == "DRAFT") draft = &row;
  ASSERT_NE(draft, nullptr);
  const auto touched =
      http(fakes.port(), "POST", "/_sandbox/xero/invoices/" + (*draft)["InvoiceID"].get<std::string>() + "/touch");
  ASSERT_EQ(touched.status, 200u) << touched.body;
  const auto changed = api("Invoices?page=1", access, {{"If-Modified-Since", since}}).json()["Invoices"];
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(changed[0]["InvoiceID"], (*draft)["InvoiceID"]);
  EXPECT_EQ(changed[0]["Status"], "AUTHORISED");
  EXPECT_GT(ms_of(changed[0]["UpdatedDateUTC"]), ms_of((*draft)["UpdatedDateUTC"]));
  // The HTTP-date form (pyxero's) and the ISO form with an offset say the same.
  EXPECT_EQ(api("Invoices", access, {{"If-Modified-Since", "Thu, 01 Jan 1970 00:00:00 GMT"}}).json()["Invoices"].size(),
            rows.size());
  EXPECT_EQ(api("Invoices", access, {{"If-Modified-Since", since + "+00:00"}}).json()["Invoices"].size(), 1u);
  EXPECT_EQ(api("Invoices", access, {{"If-Modified-Since", "yesterday"}}).status, 400u);

  // Paying it moves it again and adds a payment after `since`.
  ASSERT_EQ(
      http(fakes.port(), "POST", "/_sandbox/xero/invoices/" + (*draft)["InvoiceNumber"].get<std::string>() + "/touch")
          .status,
      200u);
  const auto payments = api("Payments", access, {{"If-Modified-Since", since}}).json()["Payments"];
  ASSERT_EQ(payments.size(), 1u);
  EXPECT_EQ(payments[0]["Invoice"]["InvoiceID"], (*draft)["InvoiceID"]);
  EXPECT_EQ(fakes.xero().touch_invoice((*draft)["InvoiceID"].get<std::string>())->at("Status"), "PAID");
}

TEST_F(XeroFakeTest, WhereFiltersByTypeAndMore) {
  fakes.xero().seed({});
  const std::string access = connect()["access_token"];
  const auto where = [&](const std::string& kind, const std::string& clause) {
    const auto res = api(kind + "?where=" + core::url_encode(clause), access);
    EXPECT_EQ(res.status, 200u) << clause << ": " << res.body;
    return res.json()[kind];
  };
  const auto receivable = where("Invoices", R"(Type=="ACCREC")");
  const auto payable = where("Invoices", R"(Type=="ACCPAY")");
  EXPECT_GT(receivable.size(), 500u);
  EXPECT_GT(payable.size(), 3u);
  EXPECT_EQ(receivable.size() + payable.size(), fakes.xero().rows("Invoices").size());
  for (const auto& row : receivable) EXPECT_EQ(row["Type"], "ACCREC");

  const auto outstanding = where("Invoices", R"(Type=="ACCREC" AND Status=="AUTHORISED" && AmountDue>0)");
  ASSERT_FALSE(outstanding.empty());
  for (const auto& row : outstanding) EXPECT_GT(row["AmountDue"].get<double>(), 0);
  const std::string contact = outstanding[0]["Contact"]["ContactID"];
  for (const auto& row : where("Invoices", "Contact.ContactID==Guid(\"" + contact + "\")"))
    EXPECT_EQ(row["Contact"]["ContactID"], contact);
  const auto year =
      std::chrono::year_month_day{std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now())}.year();
  for (const auto& row : where("Invoices", "Date >= DateTime(" + std::to_string(static_cast<int>(year)) + ", 01, 01)"))
    EXPECT_GE(row["DateString"].get<std::string>(), std::to_string(static_cast<int>(year)) + "-01-01");
  const auto suppliers = where("Contacts", "IsSupplier==true");
  EXPECT_GE(suppliers.size(), 5u);
  EXPECT_EQ(where("Contacts", R"(Name.Contains("Dental"))").size(), 2u);  // Brightwater Dental, Abbey Road Dental Care
  EXPECT_FALSE(where("Payments", R"(PaymentType=="ACCRECPAYMENT" OR (PaymentType=="ACCPAYPAYMENT"))").empty());
  EXPECT_EQ(api("Invoices?Statuses=DRAFT,SUBMITTED", access).json()["Invoices"].size(),
            where("Invoices", R"(Status=="DRAFT" OR Status=="SUBMITTED")").size());

  const auto bad = api("Invoices?where=" + core::url_encode(R"(Colour=="red")"), access);
  EXPECT_EQ(bad.status, 400u);
  EXPECT_EQ(bad.json()["Type"], "QueryParseException");
  EXPECT_EQ(bad.json()["ErrorNumber"], 16);
  const auto ordered = api("Invoices?page=1&order=" + core::url_encode("Total DESC"), access).json()["Invoices"];
  EXPECT_GE(ordered[0]["Total"].get<double>(), ordered[99]["Total"].get<double>());
}

TEST_F(XeroFakeTest, ThrottlesWithRetryAfterAndKeepsXerosLimits) {
  const std::string access = connect()["access_token"];
  const auto ok = api("Contacts", access);
  EXPECT_EQ(ok.header("x-minlimit-remaining"), "59");
  EXPECT_EQ(ok.header("x-daylimit-remaining"), "4999");
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/xero/faults", R"({"throttle":1,"retry_after":7})").status, 204u);
  const auto throttled = api("Invoices", access);
  EXPECT_EQ(throttled.status, 429u);
  EXPECT_EQ(throttled.header("retry-after"), "7");
  EXPECT_EQ(throttled.header("x-rate-limit-problem"), "minute");
  EXPECT_EQ(api("Invoices", access).status, 200u);

  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/xero/faults", R"({"server_errors":1,"status":503})").status, 204u);
  EXPECT_EQ(api("Invoices", access).status, 503u);
  EXPECT_EQ(api("Invoices", access).status, 200u);

  // The minute limit itself: the calls so far and one more fill a limit of 6.
  ASSERT_EQ(http(fakes.port(), "PUT", "/_sandbox/xero/limits", R"({"minute":6})").status, 200u);
  EXPECT_EQ(api("Invoices", access).status, 200u);
  const auto over = api("Invoices", access);
  EXPECT_EQ(over.status, 429u);
  EXPECT_EQ(over.header("x-rate-limit-problem"), "minute");
  EXPECT_EQ(over.header("x-minlimit-remaining"), "0");
  const auto wait = core::parse_int64(over.header("retry-after"));
  ASSERT_TRUE(wait.has_value()) << over.header("retry-after");
  EXPECT_GE(*wait, 1);
  EXPECT_LE(*wait, 60);
  EXPECT_GE(fakes.xero().stats()["throttled"].get<int>(), 2);
}

TEST_F(XeroFakeTest, SeedLooksLikeAnMspsBooks) {
  const auto now = core::now();
  const auto books = sandbox::xero::seed_books({}, now);
  EXPECT_EQ(books.contacts.size(), 60u);
  EXPECT_EQ(sandbox::xero::seed_books({}, now).invoices.back(), books.invoices.back());  // deterministic
  EXPECT_NE(sandbox::xero::seed_books({.seed = 2}, now).invoices.back()["InvoiceID"],
            books.invoices.back()["InvoiceID"]);

  // The customers are the PSA's companies, some under a legal name the PSA does not use.
  fakes.autotask().seed({.companies = 40,
                         .contacts = 0,
                         .resources = 1,
                         .tickets = 0,
                         .time_entries = 0,
                         .projects = 0,
                         .tasks = 0,
                         .contracts = 0,
                         .configuration_items = 0,
                         .tag_groups = 0,
                         .tags = 0,
                         .ticket_tags = 0});
  std::set<std::string> psa;
  for (const auto& company : fakes.autotask().rows("Companies")) psa.insert(company["companyName"].get<std::string>());
  int same = 0, suffixed = 0;
  for (const auto& contact : books.contacts) {
    const std::string name = contact["Name"];
    same += psa.contains(name) ? 1 : 0;
    suffixed += name.ends_with(" Ltd") && psa.contains(name.substr(0, name.size() - 4)) ? 1 : 0;
  }
  EXPECT_GE(same, 25);
  EXPECT_GE(suffixed, 5);

  const auto today = std::chrono::floor<std::chrono::days>(now);
  const auto ymd = std::chrono::year_month_day{today};
  const auto month_start = sandbox::xero::to_ms(core::Timestamp(std::chrono::sys_days{ymd.year() / ymd.month() / 1}));
  const auto year_start = sandbox::xero::to_ms(core::Timestamp(std::chrono::sys_days{ymd.year() / 1 / 1}));
  const auto latest = sandbox::xero::to_ms(now - std::chrono::minutes(10));

  std::map<std::string, int> statuses, buckets;
  std::map<std::string, std::int64_t> paid_by_invoice;
  int part_paid = 0, payable = 0;
  std::set<std::string> update_months;
  for (const auto& p : books.payments)
    paid_by_invoice[p["Invoice"]["InvoiceID"].get<std::string>()] += sandbox::xero::pence(p["Amount"]);
  for (const auto& inv : books.invoices) {
    const std::string status = inv["Status"];
    ++statuses[status];
    EXPECT_LE(ms_of(inv["UpdatedDateUTC"]), latest);
    update_months.insert(
        core::format_rfc3339(core::Timestamp(std::chrono::milliseconds(ms_of(inv["UpdatedDateUTC"])))).substr(0, 7));
    EXPECT_EQ(paid_by_invoice[inv["InvoiceID"].get<std::string>()], sandbox::xero::pence(inv["AmountPaid"]))
        << inv["InvoiceNumber"];
    if (status != "VOIDED")
      EXPECT_EQ(sandbox::xero::pence(inv["AmountDue"]),
                sandbox::xero::pence(inv["Total"]) - sandbox::xero::pence(inv["AmountPaid"]));
    if (inv["Type"] == "ACCPAY") {
      ++payable;
      continue;
    }
    if (status != "AUTHORISED") continue;
    if (inv["AmountPaid"].get<double>() > 0) ++part_paid;
    const auto overdue = (sandbox::xero::to_ms(now) - ms_of(inv["DueDate"])) / 86'400'000;
    if (overdue < 1) continue;
    ++buckets[overdue <= 30    ? "1-30"
              : overdue <= 60  ? "31-60"
              : overdue <= 90  ? "61-90"
              : overdue <= 120 ? "91-120"
                               : ">120"];
  }
  for (const char* s : {"PAID", "AUTHORISED", "DRAFT", "SUBMITTED", "VOIDED"}) EXPECT_GT(statuses[s], 0) << s;
  EXPECT_GT(statuses["PAID"], statuses["AUTHORISED"] * 3);
  for (const char* b : {"1-30", "31-60", "61-90", "91-120", ">120"}) EXPECT_GT(buckets[b], 0) << b;
  EXPECT_GT(part_paid, 0);
  EXPECT_GT(payable, 3);
  EXPECT_GE(update_months.size(), 12u);

  std::int64_t this_month = 0, this_year = 0, before = 0;
  for (const auto& p : books.payments) {
    if (p["PaymentType"] != "ACCRECPAYMENT") continue;
    const auto at = ms_of(p["Date"]);
    this_month += at >= month_start ? 1 : 0;
    this_year += at >= year_start ? 1 : 0;
    before += at < year_start ? 1 : 0;
  }
  EXPECT_GT(this_month, 0);
  if (ymd.month() != std::chrono::January) EXPECT_GT(this_year, this_month);
  EXPECT_GT(before, 0);

  // Over HTTP: the seed route and the stats.
  const auto seeded = http(fakes.port(), "POST", "/_sandbox/xero/seed", R"({"seed":3,"contacts":20,"months":6})");
  ASSERT_EQ(seeded.status, 201u) << seeded.body;
  EXPECT_EQ(seeded.json()["Contacts"], 20);
  EXPECT_EQ(fakes.xero().rows("Contacts").size(), 20u);
  EXPECT_EQ(http(fakes.port(), "GET", "/_sandbox/xero/stats").json()["rows"]["Invoices"],
            fakes.xero().rows("Invoices").size());
}

TEST(XeroQuery, WhereParsesXerosExpressions) {
  using sandbox::xero::parse_where;
  const std::set<std::string> fields{"Type", "Status", "AmountDue", "Contact", "Date", "Name", "IsCustomer", "Email"};
  const json row = {{"Type", "ACCREC"},
                    {"Status", "AUTHORISED"},
                    {"AmountDue", 120.5},
                    {"Contact", {{"ContactID", "7B8C2F1E-0000-4000-8000-000000000001"}, {"Name", "Cobalt Logistics"}}},
                    {"Date", "/Date(1767225600000+0000)/"},  // 2026-01-01
                    {"Name", "Brightwater Dental"},
                    {"IsCustomer", true},
                    {"Email", nullptr}};
  const auto holds = [&](const std::string& where) { return parse_where(where, "Invoice", fields).matches(row); };
  EXPECT_TRUE(holds(R"(Type=="ACCREC")"));
  EXPECT_TRUE(holds(R"(type = "ACCREC")"));
  EXPECT_FALSE(holds(R"(Type=="ACCPAY")"));
  EXPECT_TRUE(holds(R"(Type=="ACCREC" AND Status=="AUTHORISED" AND AmountDue>100)"));
  EXPECT_TRUE(holds(R"(Status=="PAID" OR (Status=="AUTHORISED" && AmountDue >= 120.5))"));
  EXPECT_TRUE(holds(R"(NOT Status=="PAID")"));
  EXPECT_TRUE(holds(R"(Contact.ContactID==Guid("7b8c2f1e-0000-4000-8000-000000000001"))"));
  EXPECT_TRUE(holds(R"(Contact.Name.StartsWith("Cobalt"))"));
  EXPECT_TRUE(holds(R"(Name.ToLower().Contains("dental"))"));
  EXPECT_FALSE(holds(R"(Name.Contains("dental"))"));
  EXPECT_TRUE(holds("Date >= DateTime(2026, 01, 01) && Date < DateTime(2026,01,01,00,00,01)"));
  EXPECT_FALSE(holds("Date > DateTime(2026,1,1)"));
  EXPECT_TRUE(holds("Email == null"));
  EXPECT_TRUE(holds("IsCustomer"));
  EXPECT_TRUE(holds("IsCustomer==true"));
  for (const char* broken : {R"(Colour=="red")", R"(Type=="ACCREC)", "Type==", R"(Name.Reverse("x"))",
                             "Date > DateTime(2026,13,1)", "(Type==\"A\""})
    EXPECT_THROW(parse_where(broken, "Invoice", fields), sandbox::xero::QueryParseError) << broken;
}

TEST(XeroQuery, IfModifiedSinceForms) {
  using sandbox::xero::parse_if_modified_since;
  const std::int64_t t = 1770409063000;  // 2026-02-06T20:17:43Z
  EXPECT_EQ(parse_if_modified_since("2026-02-06T20:17:43"), t);
  EXPECT_EQ(parse_if_modified_since("2026-02-06T20:17:43Z"), t);
  EXPECT_EQ(parse_if_modified_since("2026-02-06T12:17:43.000-08:00"), t);
  EXPECT_EQ(parse_if_modified_since("Fri, 06 Feb 2026 20:17:43 GMT"), t);
  EXPECT_EQ(parse_if_modified_since("2026-02-06"), t - (20 * 3600 + 17 * 60 + 43) * 1000);
  EXPECT_FALSE(parse_if_modified_since("last week").has_value());
  EXPECT_EQ(sandbox::xero::parse_json_date("/Date(1539993600000+0000)/"), 1539993600000);
  EXPECT_EQ(sandbox::xero::parse_json_date("/Date(1552326816230)/"), 1552326816230);
  EXPECT_FALSE(sandbox::xero::parse_json_date("2026-01-01").has_value());
}

TEST(XeroFakeBinary, SeedsAtStartWhenAsked) {
  core::testing::Process sandbox(SANDBOX_BINARY, {}, {{"PORT", "0"}, {"SANDBOX_XERO_SEED", "true"}});
  const auto listening = sandbox.wait_for_log("listening");
  ASSERT_TRUE(listening) << sandbox.stderr_text();
  const auto port = (*listening)["port"].get<std::uint16_t>();
  EXPECT_GT(http(port, "GET", "/_sandbox/xero/stats").json()["rows"]["Invoices"].get<int>(), 500);
  bool listed = false;
  const auto index = http(port, "GET", "/_sandbox").json();  // stored: a range-for over a temporary's member dangles
  for (const auto& fake : index["fakes"]) listed |= fake["control"] == "/_sandbox/xero";
  EXPECT_TRUE(listed);
}
