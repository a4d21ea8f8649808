#include "core/http/cookies.hpp"

#include <gtest/gtest.h>

using namespace core::http;

TEST(Cookies, FindsOneCookieAmongSeveral) {
  Request req;
  req.headers.set("Cookie", "a=1; ops_session=tok-en_1;b=2");
  EXPECT_EQ(cookie(req, "ops_session"), "tok-en_1");
  EXPECT_EQ(cookie(req, "b"), "2");
  EXPECT_EQ(cookie(req, "ops"), std::nullopt);  // a prefix is not a name
  EXPECT_EQ(cookie(Request{}, "a"), std::nullopt);
}

TEST(Cookies, SetCookieIsHttpOnlyAndSecureOnlyBehindTls) {
  Request plain;
  EXPECT_EQ(set_cookie(plain, {.name = "s", .value = "v", .path = "/dbusers"}),
            "s=v; Path=/dbusers; HttpOnly; SameSite=Strict");
  Request tls;
  tls.headers.set("X-Forwarded-Proto", "https");
  EXPECT_EQ(set_cookie(tls, {.name = "s", .value = "", .same_site = "Lax", .max_age = 0}),
            "s=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0; Secure");
}
