#include "core/http/router.hpp"

#include "core/http/problem.hpp"

#include <gtest/gtest.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

using namespace core::http;
namespace asio = boost::asio;

namespace {

Handler says(std::string what) {
  return [what](Request& req) -> asio::awaitable<Response> {
    nlohmann::json params = nlohmann::json::object();
    for (const auto& [k, v] : req.params) params[k] = v;
    co_return Response::json({{"handler", what}, {"params", params}});
  };
}

Request request(Verb verb, std::string path) {
  Request r;
  r.method = verb;
  r.method_name = std::string(bhttp::to_string(verb));
  r.path = std::move(path);
  return r;
}

nlohmann::json call(const Router& router, Request req) {
  asio::io_context io;
  auto fut = asio::co_spawn(io, router(req), asio::use_future);
  io.run();
  return nlohmann::json::parse(fut.get().body);
}

Problem problem_of(const Router& router, Request req) {
  try {
    asio::io_context io;
    auto fut = asio::co_spawn(io, router(req), asio::use_future);
    io.run();
    fut.get();
  } catch (const Problem& p) {
    return p;
  }
  ADD_FAILURE() << "no problem raised for " << req.path;
  return Problem::bad_request("none");
}

Router sample() {
  Router r;
  r.get("/api/v1/log", says("list"));
  r.get("/api/v1/log/{entry_id:uuid}", says("entry"));
  r.get("/api/v1/log/stats", says("stats"));
  r.post("/api/v1/senders", says("create"));
  r.get("/api/v1/senders", says("senders"));
  r.put("/api/v1/senders/{id}", says("replace"));
  r.get("/api/phishing/tickets/{ticket_id:int}", says("ticket"));
  r.get("/", says("root"));
  return r;
}

}  // namespace

TEST(Router, LiteralAndTypedParameters) {
  const auto r = sample();
  EXPECT_EQ(call(r, request(Verb::get, "/api/v1/log"))["handler"], "list");
  const auto id = "123e4567-e89b-12d3-a456-426614174000";
  const auto entry = call(r, request(Verb::get, std::string("/api/v1/log/") + id));
  EXPECT_EQ(entry["handler"], "entry");
  EXPECT_EQ(entry["params"]["entry_id"], id);
  EXPECT_EQ(call(r, request(Verb::get, "/"))["handler"], "root");
}

TEST(Router, LiteralWinsOverParameter) {
  EXPECT_EQ(call(sample(), request(Verb::get, "/api/v1/log/stats"))["handler"], "stats");
}

TEST(Router, MalformedTypedParameterIs400NamingIt) {
  const auto p = problem_of(sample(), request(Verb::get, "/api/v1/log/not-a-uuid"));
  EXPECT_EQ(p.status(), Status::bad_request);
  ASSERT_EQ(p.errors().size(), 1u);
  EXPECT_EQ(p.errors()[0].field, "entry_id");

  const auto q = problem_of(sample(), request(Verb::get, "/api/phishing/tickets/12x"));
  EXPECT_EQ(q.errors()[0].field, "ticket_id");
  EXPECT_EQ(call(sample(), request(Verb::get, "/api/phishing/tickets/12"))["params"]["ticket_id"], "12");
}

// A route's guard (what lets a caller in) runs before its typed parameters are checked: a caller
// it refuses learns nothing of them (issue 31).
TEST(Router, TheGuardRunsBeforeTheTypedParametersAreChecked) {
  bool let_in = false;
  const Router::Guard guard = [&let_in](Handler inner) -> Handler {
    return [&let_in, inner = std::move(inner)](Request& req) -> asio::awaitable<Response> {
      if (!let_in) throw Problem(Status::unauthorized, "unauthorized", "sign in first");
      co_return co_await inner(req);
    };
  };
  Router r;
  r.add(Verb::get, "/api/things/{thing_id:uuid}", says("thing"), "auth", guard);

  EXPECT_EQ(problem_of(r, request(Verb::get, "/api/things/not-a-uuid")).status(), Status::unauthorized);
  let_in = true;
  const auto p = problem_of(r, request(Verb::get, "/api/things/not-a-uuid"));
  EXPECT_EQ(p.status(), Status::bad_request);
  ASSERT_EQ(p.errors().size(), 1u);
  EXPECT_EQ(p.errors()[0].field, "thing_id");
  EXPECT_EQ(call(r, request(Verb::get, "/api/things/123e4567-e89b-12d3-a456-426614174000"))["handler"], "thing");
}

TEST(Router, UnknownPathIs404) {
  const auto r = sample();
  EXPECT_EQ(problem_of(r, request(Verb::get, "/api/v1/nope")).status(), Status::not_found);
  EXPECT_EQ(problem_of(r, request(Verb::get, "/api/v1/log/")).status(), Status::not_found);
  EXPECT_EQ(problem_of(r, request(Verb::get, "/api/v1")).status(), Status::not_found);
  EXPECT_EQ(problem_of(r, request(Verb::get, "/api/v1/log/a/b")).status(), Status::not_found);
  EXPECT_EQ(problem_of(r, request(Verb::get, "")).status(), Status::not_found);
}

TEST(Router, WrongMethodIs405WithAllow) {
  const auto p = problem_of(sample(), request(Verb::delete_, "/api/v1/senders"));
  EXPECT_EQ(p.status(), Status::method_not_allowed);
  const auto res = p.to_response("r");
  EXPECT_EQ(res.headers[bhttp::field::allow], "GET, HEAD, POST");
}

TEST(Router, HeadFallsBackToGetWithoutBody) {
  const auto r = sample();
  auto req = request(Verb::head, "/api/v1/log");
  asio::io_context io;
  auto fut = asio::co_spawn(io, r(req), asio::use_future);
  io.run();
  const auto res = fut.get();
  EXPECT_TRUE(res.body.empty());
  EXPECT_NE(res.headers[bhttp::field::content_length], "0");
}

TEST(Router, ParametersArePercentDecoded) {
  const auto res = call(sample(), request(Verb::put, "/api/v1/senders/a%20b"));
  EXPECT_EQ(res["params"]["id"], "a b");
  EXPECT_EQ(problem_of(sample(), request(Verb::put, "/api/v1/senders/%zz")).status(), Status::bad_request);
}

TEST(Router, EachSegmentIsMatchedDecodedAndAnEmptyOneMatchesNothing) {
  const auto r = sample();
  EXPECT_EQ(call(r, request(Verb::get, "/"))["handler"], "root");
  // a percent-escaped literal is the literal; an escaped slash stays inside its segment
  EXPECT_EQ(call(r, request(Verb::get, "/api/v1/%6Cog/stats"))["handler"], "stats");
  EXPECT_EQ(call(r, request(Verb::put, "/api/v1/senders/a%2Fb"))["params"]["id"], "a/b");
  for (const char* path : {"//", "/api//log", "/api/v1/senders//", "/api/v1/log/stats/"})
    EXPECT_EQ(problem_of(r, request(Verb::get, path)).status(), Status::not_found) << path;
  EXPECT_EQ(r.route_of(request(Verb::get, "/api/v1/%6Cog/stats")), r.route_of(request(Verb::get, "/api/v1/log/stats")));
  EXPECT_EQ(r.route_of(request(Verb::get, "/api/v1/log/%zz")), -1);
}

TEST(Router, ABodyGateIsFoundByItsMethodAndExactPath) {
  Router r = sample();
  r.gate_body(Verb::post, "/api/v1/senders", {.limit = 10});
  ASSERT_NE(r.body_gate(request(Verb::post, "/api/v1/senders")), nullptr);
  EXPECT_EQ(r.body_gate(request(Verb::post, "/api/v1/senders"))->limit, 10u);
  EXPECT_EQ(r.body_gate(request(Verb::put, "/api/v1/senders")), nullptr);
  EXPECT_EQ(r.body_gate(request(Verb::post, "/api/v1/senders/x")), nullptr);
  EXPECT_EQ(r.body_gate(request(Verb::post, "/api/v1/sender")), nullptr);
}

TEST(Router, RejectsBadRegistrations) {
  Router r;
  r.get("/a/{id}", says("x"));
  EXPECT_THROW(r.get("/a/{id}", says("y")), std::invalid_argument);
  EXPECT_THROW(r.get("/a/{other}/b", says("y")), std::invalid_argument);
  EXPECT_THROW(r.get("/b/{id:float}", says("y")), std::invalid_argument);
  EXPECT_THROW(r.get("no-slash", says("y")), std::invalid_argument);
  // at most Router::kMaxParams (8) parameters, which a request's walk holds without allocating
  EXPECT_NO_THROW(r.get("/c/{a}/{b}/{c}/{d}/{e}/{f}/{g}/{h}", says("eight")));
  EXPECT_THROW(r.get("/d/{a}/{b}/{c}/{d}/{e}/{f}/{g}/{h}/{i}", says("nine")), std::invalid_argument);
}

TEST(Router, EightParametersAreEachDecoded) {
  Router r;
  r.get("/c/{a}/{b}/{c}/{d}/{e}/{f}/{g}/{h}", says("eight"));
  const auto res = call(r, request(Verb::get, "/c/1/2/3/4/5/6/7/%38%20"));
  EXPECT_EQ(res["handler"], "eight");
  EXPECT_EQ(res["params"],
            (nlohmann::json{
                {"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", "4"}, {"e", "5"}, {"f", "6"}, {"g", "7"}, {"h", "8 "}}));
}
