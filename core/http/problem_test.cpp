#include "core/http/problem.hpp"

#include "core/util/secrets.hpp"

#include <gtest/gtest.h>

using namespace core::http;

TEST(Problem, RendersRfc9457Body) {
  const auto res = Problem::not_found("no log entry 42").to_response("req-1");
  EXPECT_EQ(res.status, Status::not_found);
  EXPECT_EQ(res.headers[bhttp::field::content_type], "application/problem+json");
  const auto body = nlohmann::json::parse(res.body);
  EXPECT_EQ(body["type"], "/problems/not-found");
  EXPECT_EQ(body["title"], "Not Found");
  EXPECT_EQ(body["status"], 404);
  EXPECT_EQ(body["detail"], "no log entry 42");
  EXPECT_EQ(body["request_id"], "req-1");
  EXPECT_FALSE(body.contains("errors"));
}

// A detail that quotes an upstream carries no secret the process holds and is bounded (issue 31).
TEST(Problem, TheDetailIsMaskedAndBounded) {
  core::secrets::remember("an-access-token-0123");
  const auto body = nlohmann::json::parse(
      Problem(Status::bad_gateway, "upstream", "the vendor said: an-access-token-0123 " + std::string(100'000, 'y'))
          .to_response("r")
          .body);
  core::secrets::forget_all();
  const std::string detail = body["detail"];
  EXPECT_TRUE(detail.starts_with("the vendor said: [redacted] ")) << detail.substr(0, 80);
  EXPECT_LT(detail.size(), 2200u);
}

TEST(Problem, ValidationListsFields) {
  const auto p = Problem::bad_request("limit: must be between 1 and 200",
                                      {{"limit", "must be between 1 and 200"}, {"status", "must be one of: a, b"}});
  const auto body = p.body("");
  EXPECT_EQ(body["type"], "/problems/validation");
  ASSERT_EQ(body["errors"].size(), 2u);
  EXPECT_EQ(body["errors"][0]["field"], "limit");
  EXPECT_EQ(body["errors"][1]["message"], "must be one of: a, b");
  EXPECT_FALSE(body.contains("request_id"));
}

TEST(Problem, InvalidFieldNamesTheField) {
  const auto body = Problem::invalid_field("entry_id", "must be a UUID").body("r");
  EXPECT_EQ(body["status"], 400);
  EXPECT_EQ(body["errors"][0]["field"], "entry_id");
  EXPECT_EQ(body["detail"], "entry_id: must be a UUID");
}

TEST(Problem, CarriesHeaders) {
  const auto res = Problem::unauthorized().with_header(bhttp::field::www_authenticate, "Bearer").to_response("r");
  EXPECT_EQ(res.status, Status::unauthorized);
  EXPECT_EQ(res.headers[bhttp::field::www_authenticate], "Bearer");
}

TEST(Problem, CarriesExtensionMembersButNotOverStandardOnes) {
  const auto body =
      Problem::conflict("confirm the cost").with_member("estimate", 5.5).with_member("status", 200).body("r");
  EXPECT_EQ(body["estimate"], 5.5);
  EXPECT_EQ(body["status"], 409);
}
