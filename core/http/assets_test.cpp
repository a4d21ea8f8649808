#include "core/http/assets.hpp"
#include "core/http/middleware.hpp"

#include <gtest/gtest.h>

namespace {

using core::http::accepts_gzip;
using core::http::Asset;
using core::http::origin_authority;
using core::http::Request;

TEST(Assets, AcceptEncodingIsReadAsRfc9110Says) {
  EXPECT_TRUE(accepts_gzip("gzip"));
  EXPECT_TRUE(accepts_gzip("gzip, deflate, br, zstd"));
  EXPECT_TRUE(accepts_gzip("br;q=1.0, GZIP;q=0.5"));
  EXPECT_TRUE(accepts_gzip("*"));
  EXPECT_FALSE(accepts_gzip(""));
  EXPECT_FALSE(accepts_gzip("identity"));
  EXPECT_FALSE(accepts_gzip("br"));
  EXPECT_FALSE(accepts_gzip("gzip;q=0"));
  EXPECT_FALSE(accepts_gzip("gzip; q=0.000"));
  EXPECT_FALSE(accepts_gzip("x-gzip-not"));
}

TEST(Assets, AnETagNamedByIfNoneMatchIsA304WithTheValidatorsKept) {
  const Asset asset{.path = "/",
                    .content_type = "text/html; charset=utf-8",
                    .etag = "\"abc\"",
                    .immutable = false,
                    .body = "<p>hello</p>",
                    .gzip = "packed"};
  const core::http::AssetPolicy policy{.content_security_policy = "default-src 'self'"};
  for (const char* tags : {"\"abc\"", "W/\"abc\"", "\"x\", \"abc\"", "*"}) {
    Request req;
    req.headers.set("If-None-Match", tags);
    const auto res = core::http::serve(req, asset, policy);
    EXPECT_EQ(res.status, core::http::Status::not_modified) << tags;
    EXPECT_TRUE(res.body.empty());
    EXPECT_EQ(res.headers["ETag"], "\"abc\"");
    EXPECT_EQ(res.headers["Content-Security-Policy"], "default-src 'self'");
  }
  Request other;
  other.headers.set("If-None-Match", "\"abcd\"");
  other.headers.set("Accept-Encoding", "gzip");
  const auto res = core::http::serve(other, asset, policy);
  EXPECT_EQ(res.status, core::http::Status::ok);
  EXPECT_EQ(res.body, "packed");
  EXPECT_EQ(res.headers["Content-Encoding"], "gzip");
  EXPECT_EQ(res.headers["Cache-Control"], "no-cache");
}

TEST(Assets, AnOriginsAuthorityDropsTheSchemesDefaultPort) {
  EXPECT_EQ(origin_authority("http://127.0.0.1:8081"), "127.0.0.1:8081");
  EXPECT_EQ(origin_authority("https://Console.Example"), "console.example");
  EXPECT_EQ(origin_authority("https://console.example:443"), "console.example");
  EXPECT_EQ(origin_authority("http://console.example:80"), "console.example");
  EXPECT_EQ(origin_authority("https://console.example:80"), "console.example:80");
  EXPECT_EQ(origin_authority("null"), "");
  EXPECT_EQ(origin_authority("file://"), "");
  EXPECT_EQ(origin_authority("http://"), "");
  EXPECT_EQ(origin_authority("http://a.example/path"), "");
  EXPECT_EQ(origin_authority("http://user@a.example"), "");
}

}  // namespace
