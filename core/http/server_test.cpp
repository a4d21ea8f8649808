// The HTTP server over real loopback sockets, with the core middleware, no database.
#include "core/http/server.hpp"

#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "core/testing/testing.hpp"
#include "core/util/digest.hpp"

#include <gtest/gtest.h>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <thread>

using namespace core;
using namespace core::http;
using boost::asio::awaitable;
using core::testing::HttpClient;
using namespace std::chrono_literals;

namespace {

constexpr std::size_t kBigBody = 16 << 20;

struct ServerTest : ::testing::Test {
  core::testing::IoThreads io{2};
  Router router;
  std::unique_ptr<Server> server;
  std::atomic<int> slow_started{0};

  ServerTest() {
    router.get("/echo/{word}", [](Request& req) -> awaitable<Response> {
      co_return Response::json({{"word", req.param("word")}, {"request_id", req.request_id}});
    });
    router.post("/things", [](Request& req) -> awaitable<Response> {
      auto body = json::parse_object(req.body);
      json::BodyReader in(body);
      const auto name = in.string("name", {.min_length = 1});
      in.finish();
      co_return Response::json({{"name", name}}, Status::created);
    });
    router.get("/slow", [this](Request&) -> awaitable<Response> {
      ++slow_started;
      boost::asio::steady_timer t(co_await boost::asio::this_coro::executor, 700ms);
      co_await t.async_wait(boost::asio::use_awaitable);
      co_return Response::json({{"slow", true}});
    });
    router.get("/big", [](Request&) -> awaitable<Response> {  // more than the socket's buffers take
      co_return Response::json_text("\"" + std::string(kBigBody, 'b') + "\"");
    });
    router.get("/boom", [](Request&) -> awaitable<Response> {
      throw std::runtime_error("secret internal detail");
      co_return Response{};
    });
  }

  std::uint16_t start(ServerOptions options = {}) {
    options.port = 0;
    server = std::make_unique<Server>(io.executor(), options, Pipeline{request_id(), problems()},
                                      [this](Request& req) { return router(req); });
    return server->start();
  }

  void TearDown() override {
    if (server) io.run(server->stop());
  }
};

}  // namespace

TEST_F(ServerTest, KeepAliveServesManyRequestsOnOneConnection) {
  const auto port = start();
  HttpClient client(port);
  for (int i = 0; i < 200; ++i) {
    const auto res = client.request("GET", "/echo/w" + std::to_string(i));
    ASSERT_EQ(res.status, 200u);
    ASSERT_EQ(res.json()["word"], "w" + std::to_string(i));
  }
  EXPECT_EQ(server->open_connections(), 1u);
}

TEST_F(ServerTest, PipelinedRequestsAreAnsweredInOrder) {
  const auto port = start();
  HttpClient client(port);
  client.send_raw(
      "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n"
      "GET /echo/second HTTP/1.1\r\nHost: x\r\n\r\n"
      "POST /things HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
      "14\r\n\r\n{\"name\":\"abc\"}"
      "GET /echo/fourth HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(client.read_response().json()["slow"], true);
  EXPECT_EQ(client.read_response().json()["word"], "second");
  const auto created = client.read_response();
  EXPECT_EQ(created.status, 201u);
  EXPECT_EQ(created.json()["name"], "abc");
  EXPECT_EQ(client.read_response().json()["word"], "fourth");
}

// A header and body that arrive in pieces (the server parses what its buffer holds, and reads on
// when the header is not complete yet) make one request; the connection then serves the next.
TEST_F(ServerTest, ARequestArrivingInPiecesIsReadWhole) {
  const auto port = start();
  HttpClient client(port);
  client.send_raw("POST /things HTTP/1.1\r\nHost: x\r\nContent-Ty");
  std::this_thread::sleep_for(50ms);  // so that the first piece is read alone: a gap, not a measurement
  client.send_raw("pe: application/json\r\nContent-Length: 14\r\n\r\n{\"name\"");
  std::this_thread::sleep_for(50ms);
  client.send_raw(":\"abc\"}GET /echo/after HTTP/1.1\r\nHost: x\r\n\r\n");
  const auto created = client.read_response();
  EXPECT_EQ(created.status, 201u);
  EXPECT_EQ(created.json()["name"], "abc");
  EXPECT_EQ(client.read_response().json()["word"], "after");
}

// A response is written at once when the socket takes it all (nearly always); one larger than
// the socket's buffers is written on as the client reads, whole, and the connection serves on.
TEST_F(ServerTest, AResponseLargerThanTheSocketTakesIsWrittenWholeAsTheClientReads) {
  const auto port = start();
  HttpClient client(port);
  client.send_raw("GET /big HTTP/1.1\r\nHost: x\r\n\r\n");
  std::this_thread::sleep_for(200ms);  // the server fills the buffers meanwhile: a gap, not a measurement
  const auto big = client.read_response();
  EXPECT_EQ(big.status, 200u);
  EXPECT_EQ(big.body, "\"" + std::string(kBigBody, 'b') + "\"");
  EXPECT_EQ(client.request("GET", "/echo/after").json()["word"], "after");
}

// A client that stops reading a large response is cut off at the write timeout; the others are
// served meanwhile.
TEST_F(ServerTest, AClientThatStopsReadingIsCutOffAtTheWriteTimeout) {
  const auto port = start({.write_timeout = 300ms});
  HttpClient stuck(port);
  stuck.send_raw("GET /big HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(core::testing::http(port, "GET", "/echo/other").status, 200u);
  EXPECT_TRUE(core::testing::eventually([&] { return server->open_connections() == 0; }));
}

// The request's header fields reach the handler; the server itself honours Connection: close, an
// HTTP/1.0 request without keep-alive and Expect: 100-continue; every field of the handler's
// response is sent, a repeated Set-Cookie too.
TEST_F(ServerTest, HeaderFieldsReachTheHandlerAndTheServerHonoursConnectionAndExpect) {
  router.post("/fields", [](Request& req) -> awaitable<Response> {
    auto res = Response::json({{"word", std::string(req.headers["X-Word"])}, {"body", req.body}});
    res.headers.insert(bhttp::field::set_cookie, "a=1; Path=/");
    res.headers.insert(bhttp::field::set_cookie, "b=2; Path=/");
    co_return res;
  });
  const auto port = start();

  HttpClient kept(port);
  const auto res = kept.request("POST", "/fields", "hi", {{"X-Word", "w1"}});
  EXPECT_EQ(res.status, 200u);
  EXPECT_EQ(res.json()["word"], "w1");
  EXPECT_EQ(res.header("set-cookie"), "a=1; Path=/\nb=2; Path=/");
  EXPECT_EQ(kept.request("POST", "/fields", "hi", {{"X-Word", "again"}}).json()["word"], "again");  // still open

  HttpClient closing(port);
  const auto last = closing.request("POST", "/fields", "hi", {{"X-Word", "w2"}, {"Connection", "close"}});
  EXPECT_EQ(last.json()["word"], "w2");
  EXPECT_EQ(last.header("connection"), "close");
  EXPECT_TRUE(closing.closed_by_server());

  HttpClient old(port);
  old.send_raw("POST /fields HTTP/1.0\r\nHost: x\r\nX-Word: w3\r\nContent-Length: 2\r\n\r\nhi");
  EXPECT_EQ(old.read_response().json()["word"], "w3");
  EXPECT_TRUE(old.closed_by_server());

  HttpClient waiting(port);
  waiting.send_raw("POST /fields HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n");
  EXPECT_EQ(waiting.read_response().status, 100u);
  waiting.send_raw("hello");
  const auto answered = waiting.read_response();
  EXPECT_EQ(answered.status, 200u);
  EXPECT_EQ(answered.json()["body"], "hello");
  EXPECT_EQ(waiting.request("POST", "/fields", "hi", {{"X-Word", "again"}}).json()["word"], "again");
}

TEST_F(ServerTest, UnknownPathIs404Problem) {
  const auto res = core::testing::http(start(), "GET", "/nowhere");
  EXPECT_EQ(res.status, 404u);
  EXPECT_EQ(res.header("content-type"), "application/problem+json");
  EXPECT_EQ(res.json()["status"], 404);
  EXPECT_EQ(res.json()["title"], "Not Found");
}

TEST_F(ServerTest, WrongMethodIs405WithAllow) {
  const auto res = core::testing::http(start(), "DELETE", "/things");
  EXPECT_EQ(res.status, 405u);
  EXPECT_EQ(res.header("allow"), "POST");
  EXPECT_EQ(res.header("content-type"), "application/problem+json");
}

TEST_F(ServerTest, OversizedBodyIs413AndConnectionCloses) {
  const auto port = start({.body_limit = 1024});
  HttpClient client(port);
  const auto res = client.request("POST", "/things", "{\"name\":\"" + std::string(5000, 'x') + "\"}");
  EXPECT_EQ(res.status, 413u);
  EXPECT_EQ(res.header("content-type"), "application/problem+json");
  EXPECT_NE(res.json()["detail"].get<std::string>().find("1024"), std::string::npos);
  EXPECT_TRUE(client.closed_by_server());
}

TEST_F(ServerTest, OversizedBodyWithoutContentLengthIs413) {
  const auto port = start({.body_limit = 1024});
  HttpClient client(port);
  std::string chunked = "POST /things HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 4; ++i) chunked += "200\r\n" + std::string(0x200, 'a') + "\r\n";
  chunked += "0\r\n\r\n";
  client.send_raw(chunked);
  EXPECT_EQ(client.read_response().status, 413u);
}

TEST_F(ServerTest, OversizedHeaderIs431) {
  const auto port = start({.header_limit = 2048});
  HttpClient client(port);
  const auto res = client.request("GET", "/echo/x", "", {{"X-Big", std::string(4096, 'h')}});
  EXPECT_EQ(res.status, 431u);
  EXPECT_EQ(res.json()["status"], 431);
  EXPECT_TRUE(client.closed_by_server());
}

TEST_F(ServerTest, MalformedJsonIs400NamingTheProblem) {
  const auto res = core::testing::http(start(), "POST", "/things", "{\"name\": ");
  EXPECT_EQ(res.status, 400u);
  EXPECT_NE(res.json()["detail"].get<std::string>().find("not valid JSON"), std::string::npos);
  const auto missing = core::testing::http(server->port(), "POST", "/things", "{\"nom\": \"x\"}");
  EXPECT_EQ(missing.status, 400u);
  EXPECT_EQ(missing.json()["errors"][0]["field"], "name");
}

TEST_F(ServerTest, MalformedQueryStringIs400) {
  const auto res = core::testing::http(start(), "GET", "/echo/x?q=%zz");
  EXPECT_EQ(res.status, 400u);
  EXPECT_NE(res.json()["detail"].get<std::string>().find("query string"), std::string::npos);
}

TEST_F(ServerTest, RequestIdIsKeptOrGenerated) {
  const auto port = start();
  const auto given = core::testing::http(port, "GET", "/echo/x", {}, {{"X-Request-Id", "abc-123"}});
  EXPECT_EQ(given.header("x-request-id"), "abc-123");
  EXPECT_EQ(given.json()["request_id"], "abc-123");
  const auto made = core::testing::http(port, "GET", "/echo/x", {}, {{"X-Request-Id", "bad id with spaces"}});
  const auto first = made.header("x-request-id"),
             next = core::testing::http(port, "GET", "/echo/x").header("x-request-id");
  // 24 lowercase hex characters: a prefix of the process, then a counter.
  EXPECT_EQ(first.size(), 24u);
  EXPECT_EQ(first.find_first_not_of("0123456789abcdef"), std::string::npos) << first;
  EXPECT_EQ(next.substr(0, 12), first.substr(0, 12));
  EXPECT_EQ(std::stoull(next.substr(12), nullptr, 16), std::stoull(first.substr(12), nullptr, 16) + 1)
      << first << " " << next;
}

TEST_F(ServerTest, UnexpectedErrorIsGeneric500WithRequestId) {
  const auto res = core::testing::http(start(), "GET", "/boom", {}, {{"X-Request-Id", "rid-9"}});
  EXPECT_EQ(res.status, 500u);
  const auto detail = res.json()["detail"].get<std::string>();
  EXPECT_EQ(detail.find("secret"), std::string::npos);
  EXPECT_NE(detail.find("rid-9"), std::string::npos);
  EXPECT_EQ(res.json()["request_id"], "rid-9");
}

TEST_F(ServerTest, GracefulStopFinishesInFlightRequest) {
  const auto port = start({.shutdown_timeout = 5s});
  HttpClient idle(port);
  ASSERT_EQ(idle.request("GET", "/echo/x").status, 200u);

  std::optional<core::testing::HttpResponse> slow;
  std::thread caller([&] { slow = core::testing::http(port, "GET", "/slow"); });
  ASSERT_TRUE(core::testing::eventually([&] { return slow_started == 1; }));
  auto stopping = boost::asio::co_spawn(io.executor(), server->stop(), boost::asio::use_future);

  EXPECT_TRUE(idle.closed_by_server());                           // an idle keep-alive connection is closed at once
  EXPECT_THROW(core::testing::HttpClient{port}, std::exception);  // no longer accepting
  caller.join();
  ASSERT_TRUE(slow);
  EXPECT_EQ(slow->status, 200u);  // the in-flight request finished
  EXPECT_EQ(slow->header("connection"), "close");
  stopping.get();
  EXPECT_EQ(server->open_connections(), 0u);
  server.reset();
}

TEST_F(ServerTest, ShutdownDeadlineClosesStragglers) {
  const auto port = start({.shutdown_timeout = 100ms});
  std::optional<std::string> error;
  std::thread caller([&] {
    try {
      core::testing::http(port, "GET", "/slow");
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  ASSERT_TRUE(core::testing::eventually([&] { return slow_started == 1; }));
  io.run(server->stop());
  caller.join();
  server.reset();
  // Past the deadline the connection was closed under the slow handler: no response arrived.
  EXPECT_TRUE(error.has_value());
}

// Slow and hostile clients (issue 37, item 3). A header trickled byte by byte is cut off at the
// header timeout, counted from its first byte; a connection that sends nothing waits the idle
// timeout, which is longer.
TEST_F(ServerTest, AHeaderTrickledSlowlyIsCutOffAtTheHeaderTimeout) {
  const auto port = start({.idle_timeout = 5s, .header_timeout = 300ms});
  HttpClient silent(port);
  HttpClient slow(port);
  slow.send_raw("GET /echo/x HTTP/1.1\r\nHost: x\r\n");
  EXPECT_TRUE(slow.closed_by_server(3000ms));
  // The silent one is still waiting for its first byte.
  EXPECT_TRUE(core::testing::eventually([&] { return server->open_connections() == 1; }));
  silent.send_raw("GET /echo/y HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(silent.read_response().status, 200u);
}

// At the cap, a new connection closes the oldest one that has no request in progress (here: a
// silent one, then one part-way through its header), so idle clients cannot keep others out.
TEST_F(ServerTest, AtTheCapANewConnectionClosesTheOldestWithoutARequest) {
  const auto port = start({.max_connections = 3});
  HttpClient oldest(port);
  HttpClient half(port);
  half.send_raw("GET /echo/x HTTP/1.1\r\n");
  HttpClient keep_alive(port);
  EXPECT_EQ(keep_alive.request("GET", "/echo/k").status, 200u);
  ASSERT_TRUE(core::testing::eventually([&] { return server->open_connections() == 3; }));

  HttpClient newcomer(port);  // stays open: the cap is full again after it
  EXPECT_EQ(newcomer.request("GET", "/echo/new").status, 200u);
  EXPECT_TRUE(oldest.closed_by_server());
  EXPECT_EQ(core::testing::http(port, "GET", "/echo/newer").status, 200u);
  EXPECT_TRUE(half.closed_by_server());
  EXPECT_EQ(keep_alive.request("GET", "/echo/still").status, 200u);
  EXPECT_EQ(server->evicted_connections(), 2u);
  EXPECT_EQ(server->refused_connections(), 0u);
  EXPECT_TRUE(core::testing::eventually([&] { return server->open_connections() <= 3; }));
}

// When every connection at the cap is busy with a request, a new one is refused at once with a
// 503 problem that says why, and served again once a request is done.
TEST_F(ServerTest, AtTheCapWithEveryConnectionBusyANewOneIs503) {
  const auto port = start({.max_connections = 2});
  std::vector<std::thread> callers;
  std::atomic<int> answered{0};
  for (int i = 0; i < 2; ++i)
    callers.emplace_back([&] { answered += core::testing::http(port, "GET", "/slow").status == 200u; });
  ASSERT_TRUE(core::testing::eventually([&] { return slow_started == 2; }));

  HttpClient refused(port);
  const auto res = refused.request("GET", "/echo/x");
  EXPECT_EQ(res.status, 503u);
  EXPECT_EQ(res.header("content-type"), "application/problem+json");
  EXPECT_EQ(res.header("retry-after"), "1");
  EXPECT_EQ(res.json()["status"], 503);
  EXPECT_EQ(res.json()["type"], "/problems/too-many-connections");
  EXPECT_TRUE(refused.closed_by_server());
  EXPECT_EQ(server->refused_connections(), 1u);

  for (auto& t : callers) t.join();
  EXPECT_EQ(answered, 2);
  EXPECT_TRUE(core::testing::eventually([&] { return server->open_connections() == 0; }));
  EXPECT_EQ(core::testing::http(port, "GET", "/echo/later").status, 200u);
}

namespace {

// A route whose gate streams its body (Router::gate_body with `stream`): the handler reads it piece
// by piece and answers what it saw; `read_body` false: a handler that answers without reading.
struct StreamedBodyTest : ServerTest {
  std::atomic<bool> saw_too_large{false};
  StreamedBodyTest() {
    const auto admit = [](Request&) -> awaitable<void> { co_return; };
    router.gate_body(Verb::post, "/stream", {.limit = 200'000, .admit = admit, .stream = true});
    router.post("/stream", [this](Request& req) -> awaitable<Response> {
      std::size_t size = 0, pieces = 0, largest = 0;
      Sha256 digest;
      try {
        for (;;) {
          auto piece = co_await req.body_stream->next();
          if (!piece) break;
          size += piece->size();
          largest = std::max(largest, piece->size());
          ++pieces;
          digest.update(*piece);
        }
      } catch (const Problem& p) {
        if (p.status() == Status::payload_too_large) saw_too_large = true;
        throw;
      }
      co_return Response::json({{"size", size}, {"pieces", pieces}, {"largest", largest}, {"sha256", digest.hex()}});
    });
    router.gate_body(Verb::post, "/unread", {.limit = 200'000, .admit = admit, .stream = true});
    router.post("/unread", [](Request&) -> awaitable<Response> { co_return Response::json({{"read", false}}); });
  }
  std::uint16_t start_streaming() { return start({.body_limit = 1024, .body_gates = &router}); }
};

}  // namespace

TEST_F(StreamedBodyTest, TheHandlerReadsTheBodyPieceByPieceAndTheConnectionStaysOpen) {
  const auto port = start_streaming();
  HttpClient client(port);
  std::string body(150'000, '\0');
  for (std::size_t i = 0; i < body.size(); ++i) body[i] = static_cast<char>('a' + i % 26);
  const auto res = client.request("POST", "/stream", body);
  ASSERT_EQ(res.status, 200u) << res.body;
  EXPECT_EQ(res.json()["size"], body.size());
  EXPECT_EQ(res.json()["sha256"], sha256_hex(body));
  EXPECT_LT(res.json()["largest"].get<std::size_t>(), body.size()) << "never the whole body at once";
  EXPECT_GE(res.json()["pieces"].get<std::size_t>(), 2u);
  // the body was read to its end: the connection serves the next request
  EXPECT_EQ(client.request("GET", "/echo/again").status, 200u);
  // an empty body: no piece at all
  const auto empty = client.request("POST", "/stream", "");
  EXPECT_EQ(empty.json()["pieces"], 0);
}

TEST_F(StreamedBodyTest, AChunkedBodyPastTheLimitIs413WhileTheHandlerReads) {
  const auto port = start_streaming();
  HttpClient client(port);
  std::string chunked = "POST /stream HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 30; ++i) chunked += "2000\r\n" + std::string(0x2000, 'a') + "\r\n";  // 240 KiB
  chunked += "0\r\n\r\n";
  client.send_raw(chunked);
  const auto res = client.read_response();
  EXPECT_EQ(res.status, 413u);
  EXPECT_NE(res.json()["detail"].get<std::string>().find("200000"), std::string::npos);
  EXPECT_TRUE(saw_too_large) << "the handler saw the 413 (to drop what it kept)";
  EXPECT_TRUE(client.closed_by_server());
  // announced too large: 413 before the handler runs
  HttpClient other(port);
  EXPECT_EQ(other.request("POST", "/stream", std::string(250'000, 'b')).status, 413u);
}

TEST_F(StreamedBodyTest, AHandlerThatLeavesTheBodyUnreadClosesTheConnection) {
  const auto port = start_streaming();
  HttpClient client(port);
  const auto res = client.request("POST", "/unread", std::string(100'000, 'c'));
  EXPECT_EQ(res.status, 200u);
  EXPECT_TRUE(client.closed_by_server()) << "the rest of the body would be read as the next request";
}
