// The outbound client against a real server on loopback.
#include "core/http/client.hpp"

#include "core/http/server.hpp"
#include "core/testing/testing.hpp"

#include <gtest/gtest.h>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <ctime>

using namespace core;
using namespace core::http;
using boost::asio::awaitable;
using namespace std::chrono_literals;

namespace {

std::string http_date(std::chrono::system_clock::time_point t) {
  const auto secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

struct ClientTest : ::testing::Test {
  core::testing::IoThreads io{2};
  Router router;
  std::unique_ptr<Server> server;
  std::atomic<int> hits{0};
  std::string base;

  Response status(Status s, std::string retry_after = "") {
    auto r = Response::json({{"hit", hits.load()}}, s);
    if (!retry_after.empty()) r.headers.set(bhttp::field::retry_after, retry_after);
    return r;
  }

  void SetUp() override {
    router.get("/flaky", [this](Request&) -> awaitable<Response> {
      co_return ++hits <= 2 ? status(Status::service_unavailable) : status(Status::ok);
    });
    router.get("/throttled", [this](Request&) -> awaitable<Response> {
      co_return ++hits == 1 ? status(Status::too_many_requests, "1") : status(Status::ok);
    });
    router.get("/throttled-until", [this](Request&) -> awaitable<Response> {
      co_return ++hits == 1 ? status(Status::service_unavailable, http_date(std::chrono::system_clock::now() + 2s))
                            : status(Status::ok);
    });
    router.get("/down", [this](Request&) -> awaitable<Response> {
      ++hits;
      co_return status(Status::bad_gateway);
    });
    router.get("/come-back-tomorrow", [this](Request&) -> awaitable<Response> {
      ++hits;
      co_return status(Status::too_many_requests, "86400");
    });
    router.get("/bad", [this](Request&) -> awaitable<Response> {
      ++hits;
      co_return status(Status::bad_request);
    });
    router.get("/internal-error-once", [this](Request&) -> awaitable<Response> {
      co_return ++hits == 1 ? status(Status::internal_server_error) : status(Status::ok);
    });
    router.get("/slow", [](Request&) -> awaitable<Response> {
      boost::asio::steady_timer t(co_await boost::asio::this_coro::executor, 2s);
      co_await t.async_wait(boost::asio::use_awaitable);
      co_return Response::json({});
    });
    router.get("/slow-briefly", [](Request&) -> awaitable<Response> {
      boost::asio::steady_timer t(co_await boost::asio::this_coro::executor, 300ms);
      co_await t.async_wait(boost::asio::use_awaitable);
      co_return Response::json({});
    });
    router.post("/echo", [this](Request& req) -> awaitable<Response> {
      ++hits;
      co_return Response::json({{"body", nlohmann::json::parse(req.body)},
                                {"content_type", req.header("Content-Type")},
                                {"auth", req.header("Authorization")}});
    });
    server = std::make_unique<Server>(io.executor(), ServerOptions{.shutdown_timeout = 100ms}, Pipeline{problems()},
                                      [this](Request& req) { return router(req); });
    base = "http://127.0.0.1:" + std::to_string(server->start());
  }

  void TearDown() override { io.run(server->stop()); }

  Client client(ClientOptions o = {}) {
    o.base_backoff = 10ms;
    return Client(io.executor(), o);
  }
};

}  // namespace

// Each send() is counted once, retries included, by the client's integration and its outcome.
TEST_F(ClientTest, CallsAreCountedByIntegrationAndOutcome) {
  const ClientOptions counted{.max_retries = 0, .integration = "client-test"};
  EXPECT_EQ(io.run(client(counted).get(base + "/bad")).status, 400);
  EXPECT_EQ(io.run(client(counted).get(base + "/come-back-tomorrow")).status, 429);
  EXPECT_EQ(io.run(client(counted).get(base + "/down")).status, 502);
  EXPECT_EQ(io.run(client({.max_retries = 3, .integration = "client-test"}).get(base + "/flaky")).status, 200);
  OutboundRequest slow{.url = base + "/slow-briefly", .timeout = 50ms};
  EXPECT_THROW(io.run(client(counted).send(slow)), TransportError);
  EXPECT_THROW(io.run(client(counted).get("http://127.0.0.1:" + std::to_string(core::testing::free_port()) + "/")),
               TransportError);
  const auto text = core::metrics::process_registry().expose();
  for (const char* outcome : {"ok", "4xx", "429", "5xx", "timeout", "error"})
    EXPECT_NE(text.find(std::string("\nupstream_requests_total{integration=\"client-test\",outcome=\"") + outcome +
                        "\"} 1\n"),
              std::string::npos)
        << outcome << " in\n"
        << text;
  EXPECT_NE(text.find("\nupstream_request_duration_seconds_count{integration=\"client-test\"} 6\n"), std::string::npos);
}

TEST_F(ClientTest, RetriesServerErrorsThenSucceeds) {
  const auto res = io.run(client().get(base + "/flaky"));
  EXPECT_EQ(res.status, 200);
  EXPECT_EQ(res.attempts, 3);
  EXPECT_EQ(hits, 3);
  ASSERT_EQ(res.retry_delays.size(), 2u);
  EXPECT_LE(res.retry_delays[1], 40ms);  // 10 ms base, doubled, at most: backoff, not Retry-After
}

TEST_F(ClientTest, HonoursRetryAfterSeconds) {
  const auto res = io.run(client().get(base + "/throttled"));
  EXPECT_EQ(res.status, 200);
  ASSERT_EQ(res.retry_delays.size(), 1u);
  EXPECT_EQ(res.retry_delays[0], 1000ms);
}

TEST_F(ClientTest, HonoursRetryAfterHttpDate) {
  const auto res = io.run(client().get(base + "/throttled-until"));
  EXPECT_EQ(res.status, 200);
  ASSERT_EQ(res.retry_delays.size(), 1u);
  EXPECT_GT(res.retry_delays[0], 0ms);
  EXPECT_LE(res.retry_delays[0], 2000ms);
}

TEST_F(ClientTest, GivesUpAfterMaxRetriesAndReturnsTheLastResponse) {
  const auto res = io.run(client({.max_retries = 2}).get(base + "/down"));
  EXPECT_EQ(res.status, 502);
  EXPECT_EQ(res.attempts, 3);
  EXPECT_EQ(hits, 3);
}

TEST_F(ClientTest, DoesNotWaitLongerThanAllowed) {
  const auto res = io.run(client({.max_retry_after = 60s}).get(base + "/come-back-tomorrow"));
  EXPECT_EQ(res.status, 429);
  EXPECT_EQ(res.attempts, 1);
  EXPECT_EQ(res.header("Retry-After"), "86400");
}

TEST_F(ClientTest, ClientErrorsAreNotRetried) {
  const auto res = io.run(client().get(base + "/bad"));
  EXPECT_EQ(res.status, 400);
  EXPECT_EQ(res.attempts, 1);
  EXPECT_EQ(res.json()["hit"], 1);
}

TEST_F(ClientTest, RetryIfCanRefuseARetry) {
  OutboundRequest quota{.url = base + "/down"};
  quota.retry_if = [](const OutboundResponse& r) { return r.json()["hit"] != 1; };
  const auto res = io.run(client().send(std::move(quota)));
  EXPECT_EQ(res.status, 502);
  EXPECT_EQ(res.attempts, 1);  // the predicate said no to the first retry
  EXPECT_EQ(hits, 1);
}

TEST_F(ClientTest, RetryStatusChoosesWhatIsRetried) {
  // A 500 is not retried by default ...
  const auto plain = io.run(client().get(base + "/internal-error-once"));
  EXPECT_EQ(plain.status, 500);
  EXPECT_EQ(plain.attempts, 1);
  // ... and is when the request widens the set.
  hits = 0;
  OutboundRequest any_5xx{.url = base + "/internal-error-once"};
  any_5xx.retry_status = [](int s) { return s == 429 || s >= 500; };
  const auto widened = io.run(client().send(std::move(any_5xx)));
  EXPECT_EQ(widened.status, 200);
  EXPECT_EQ(widened.attempts, 2);
}

TEST_F(ClientTest, ResolvePinsTheAddress) {
  const std::string port = base.substr(base.rfind(':') + 1);
  const std::string url = "http://pinned.invalid:" + port + "/bad";  // .invalid never resolves (RFC 6761)
  EXPECT_THROW(io.run(client({.max_retries = 0}).get(url)), TransportError);
  OutboundRequest pinned{.url = url, .resolve = {"pinned.invalid:" + port + ":127.0.0.1"}};
  EXPECT_EQ(io.run(client({.max_retries = 0}).send(std::move(pinned))).status, 400);
  // The pin was the request's own: the next request on any pool thread does not inherit it.
  for (int i = 0; i < 8; ++i) EXPECT_THROW(io.run(client({.max_retries = 0}).get(url)), TransportError);
}

TEST_F(ClientTest, PostsJsonWithHeaders) {
  const auto res = io.run(client().post_json(base + "/echo", {{"a", 1}}, {{"Authorization", "Bearer t"}}));
  ASSERT_EQ(res.status, 200);
  const auto body = res.json();
  EXPECT_EQ(body["body"]["a"], 1);
  EXPECT_EQ(body["content_type"], "application/json");
  EXPECT_EQ(body["auth"], "Bearer t");
}

TEST_F(ClientTest, TimeoutIsATransportError) {
  try {
    io.run(client({.max_retries = 0}).send({.url = base + "/slow", .timeout = 200ms}));
    FAIL();
  } catch (const TransportError& e) {
    EXPECT_NE(std::string(e.what()).find("1 attempt"), std::string::npos) << e.what();
  }
}

TEST_F(ClientTest, ConnectionFailureRetriesIdempotentRequestsOnly) {
  const auto nowhere = "http://127.0.0.1:" + std::to_string(core::testing::free_port()) + "/x";
  try {
    io.run(client({.max_retries = 2}).get(nowhere));
    FAIL();
  } catch (const TransportError& e) {
    EXPECT_NE(std::string(e.what()).find("after 3 attempt(s)"), std::string::npos) << e.what();
  }
  try {
    io.run(client({.max_retries = 2}).post_json(nowhere, {}));
    FAIL();
  } catch (const TransportError& e) {
    EXPECT_NE(std::string(e.what()).find("after 1 attempt(s)"), std::string::npos) << e.what();
  }
}
