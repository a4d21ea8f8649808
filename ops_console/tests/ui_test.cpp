// The console's web UI as the server delivers it (ops_console/ui/routes.hpp): the shell and its
// content-hashed assets, their cache and security headers, the gzip copies, and the refusal of a
// browser's write from another site. What the pages do is tested in Chromium (tests/browser/).
#include "ops_console/tests/console_fixture.hpp"
#include "ops_console/ui/routes.hpp"

#include <regex>
#include <set>

namespace {

using nlohmann::json;
using ops_console::testing::ConsoleTest;
using ops_console::testing::kPassword;

struct UiTest : ConsoleTest {
  // Every /assets/… URL the shell names (stylesheet, scripts, preloaded modules, icons).
  std::set<std::string> assets_of(const std::string& shell) {
    static const std::regex url(R"re((?:href|src)="(/assets/[^"]+)")re");
    std::set<std::string> out;
    for (std::sregex_iterator it(shell.begin(), shell.end(), url), end; it != end; ++it) out.insert((*it)[1]);
    return out;
  }
};

TEST_F(UiTest, TheShellIsServedAtTheRootUnderAStrictPolicyAndRevalidatedByItsETag) {
  start();
  const auto before = database_work();
  const auto shell = call("GET", "/");
  ASSERT_EQ(shell.status, 200u);
  EXPECT_EQ(shell.header("content-type"), "text/html; charset=utf-8");
  EXPECT_EQ(shell.header("cache-control"), "no-cache");
  EXPECT_EQ(shell.header("content-security-policy"), ops_console::kUiContentSecurityPolicy);
  for (const auto* part : {"default-src 'self'", "script-src 'self'", "frame-ancestors 'none'"})
    EXPECT_NE(shell.header("content-security-policy").find(part), std::string::npos) << part;
  EXPECT_EQ(shell.header("x-content-type-options"), "nosniff");
  EXPECT_NE(shell.body.find("<div id=\"app\">"), std::string::npos);
  // no inline script or style for the policy to forbid: every <script> has a src
  static const std::regex inline_script(R"(<script(?![^>]*\bsrc=)[^>]*>)");
  EXPECT_FALSE(std::regex_search(shell.body, inline_script)) << shell.body;
  EXPECT_EQ(shell.body.find(" style="), std::string::npos);
  EXPECT_EQ(shell.body.find("http://"), std::string::npos) << "nothing is fetched from elsewhere";
  EXPECT_EQ(shell.body.find("https://"), std::string::npos) << "nothing is fetched from elsewhere";
  EXPECT_EQ(database_work(), before) << "the shell holds no data";

  const auto again = call("GET", "/", nullptr, "", {{"If-None-Match", shell.header("etag")}});
  EXPECT_EQ(again.status, 304u);
  EXPECT_TRUE(again.body.empty());
  EXPECT_EQ(call("GET", "/", nullptr, "", {{"If-None-Match", "\"another\""}}).status, 200u);
}

TEST_F(UiTest, EveryAssetTheShellNamesIsImmutableUnderItsHashAndGzippedForWhoAcceptsIt) {
  start();
  const auto shell = call("GET", "/");
  const auto assets = assets_of(shell.body);
  ASSERT_GE(assets.size(), 5u) << shell.body;
  static const std::regex hashed(R"(^/assets/[a-z0-9-]+\.[0-9a-f]{10}\.(js|css|svg|png)$)");
  bool some_gzipped = false;
  for (const auto& url : assets) {
    SCOPED_TRACE(url);
    EXPECT_TRUE(std::regex_match(url, hashed));
    const auto plain = call("GET", url);
    ASSERT_EQ(plain.status, 200u);
    EXPECT_EQ(plain.header("cache-control"), "public, max-age=31536000, immutable");
    EXPECT_EQ(plain.header("content-encoding"), "");
    EXPECT_FALSE(plain.header("etag").empty());
    if (url.ends_with(".js")) EXPECT_EQ(plain.header("content-type"), "text/javascript; charset=utf-8");
    if (url.ends_with(".css")) EXPECT_EQ(plain.header("content-type"), "text/css; charset=utf-8");
    const auto packed = call("GET", url, nullptr, "", {{"Accept-Encoding", "gzip, deflate, br"}});
    ASSERT_EQ(packed.status, 200u);
    if (packed.header("content-encoding") == "gzip") {
      some_gzipped = true;
      EXPECT_LT(packed.body.size(), plain.body.size());
      EXPECT_EQ(packed.header("vary"), "Accept-Encoding");
      EXPECT_EQ(static_cast<unsigned char>(packed.body[0]), 0x1fu);  // gzip's magic number
    }
    // a refused gzip gets the plain body
    EXPECT_EQ(call("GET", url, nullptr, "", {{"Accept-Encoding", "gzip;q=0"}}).body, plain.body);
  }
  EXPECT_TRUE(some_gzipped);
}

TEST_F(UiTest, AnAssetOfAnotherBuildIsA404AndTheWorkerAndManifestKeepTheirNames) {
  start();
  const auto gone = call("GET", "/assets/main.0000000000.js");
  EXPECT_EQ(gone.status, 404u);
  EXPECT_EQ(gone.header("content-type"), "application/problem+json");
  const auto worker = call("GET", "/sw.js");
  ASSERT_EQ(worker.status, 200u);
  EXPECT_EQ(worker.header("cache-control"), "no-cache");
  EXPECT_NE(worker.body.find("/assets/"), std::string::npos) << "the worker lists the shell it caches";
  EXPECT_NE(worker.body.find("url.pathname.startsWith('/assets/')"), std::string::npos)
      << "it answers for the shell's assets only, never for the API";
  const auto manifest = call("GET", "/manifest.webmanifest");
  ASSERT_EQ(manifest.status, 200u);
  EXPECT_EQ(manifest.header("content-type"), "application/manifest+json");
  const auto m = manifest.json();
  EXPECT_EQ(m["display"], "standalone");
  for (const auto& icon : m["icons"]) EXPECT_EQ(call("GET", icon["src"]).status, 200u) << icon;
}

TEST_F(UiTest, ABrowsersWriteFromAnotherSiteIsRefusedBeforeAnythingElse) {
  start();
  add_user("origin@example.com", kPassword);
  const json credentials{{"email", "origin@example.com"}, {"password", kPassword}};
  const std::string self = "http://127.0.0.1:" + std::to_string(svc->port());

  const auto before = database_work();
  for (const std::map<std::string, std::string>& headers :
       std::vector<std::map<std::string, std::string>>{{{"Origin", "http://evil.example"}},
                                                       {{"Origin", "http://127.0.0.1:1"}},
                                                       {{"Origin", "null"}},
                                                       {{"Origin", self}, {"Sec-Fetch-Site", "cross-site"}},
                                                       {{"Sec-Fetch-Site", "cross-site"}}}) {
    const auto res = call("POST", "/api/auth/login", credentials, "", headers);
    EXPECT_EQ(res.status, 403u) << res.body;
    EXPECT_EQ(res.json()["type"], "/problems/cross-site");
    EXPECT_EQ(res.header("set-cookie"), "") << "no session for a forged sign-in";
  }
  EXPECT_EQ(database_work(), before) << "refused before any query";

  // the console's own pages, and programs that send no Origin (webhook senders, curl), pass
  EXPECT_EQ(
      call("POST", "/api/auth/login", credentials, "", {{"Origin", self}, {"Sec-Fetch-Site", "same-origin"}}).status,
      200u);
  EXPECT_EQ(call("POST", "/api/auth/login", credentials).status, 200u);
  // behind a proxy that forwards the public host name
  EXPECT_EQ(call("POST", "/api/auth/login", credentials, "",
                 {{"Origin", "https://console.example"}, {"X-Forwarded-Host", "console.example"}})
                .status,
            200u);
  // reading is not changing: a cross-site GET is left to the session rules
  EXPECT_EQ(call("GET", "/api/auth/setup", nullptr, "", {{"Origin", "http://evil.example"}}).status, 200u);
}

TEST_F(UiTest, TheZoneListHoldsExactlyWhatTheTimezoneRouteAccepts) {
  start();
  add_user("zones@example.com", kPassword);
  const auto token = sign_in("zones@example.com", kPassword);
  EXPECT_EQ(call("GET", "/api/me/timezones").status, 401u);
  const auto res = call("GET", "/api/me/timezones", nullptr, token);
  ASSERT_EQ(res.status, 200u);
  const auto zones = res.json()["timezones"];
  ASSERT_GT(zones.size(), 300u);
  EXPECT_TRUE(std::is_sorted(zones.begin(), zones.end()));
  std::set<std::string> names(zones.begin(), zones.end());
  for (const auto* name : {"UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata"})
    EXPECT_TRUE(names.contains(name));
  for (const auto& name : names) EXPECT_FALSE(name.starts_with("posix/") || name.starts_with("right/")) << name;
  for (const auto* name : {"Europe/Berlin", "Pacific/Chatham", zones.back().get_ref<const std::string&>().c_str()})
    EXPECT_EQ(call("PUT", "/api/me/timezone", {{"timezone", name}}, token).status, 200u) << name;
}

}  // namespace
