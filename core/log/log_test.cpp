#include "core/log/log.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using core::log::append_json_string;

TEST(Log, JsonStringEscaping) {
  std::string out;
  append_json_string(out, "a\"b\\c\nd\te\x01");
  EXPECT_EQ(out, R"("a\"b\\c\nd\te\u0001")");
  EXPECT_EQ(nlohmann::json::parse(out), "a\"b\\c\nd\te\x01");
}

TEST(Log, EscapedStringIsAlwaysValidJson) {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  std::string out;
  append_json_string(out, all);
  const auto parsed = nlohmann::json::parse(out);  // throws if invalid
  EXPECT_EQ(parsed.get<std::string>().substr(0, 128), all.substr(0, 128));
}

namespace {

// fd 2 redirected into a pipe. By default a thread drains it, so a test sees what the log has
// written so far without asking it to flush; without that thread, written_so_far() takes what the
// pipe holds, so a test can tell what was written before a call returned (up to the pipe's 64 KiB).
class StderrPipe {
 public:
  enum class Reader { thread, none };
  explicit StderrPipe(Reader reader = Reader::thread) {
    core::log::flush();
    saved_ = ::dup(STDERR_FILENO);
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("pipe");
    ::dup2(fds[1], STDERR_FILENO);
    ::close(fds[1]);
    read_end_ = fds[0];
    if (reader == Reader::none) {
      ::fcntl(read_end_, F_SETFL, O_NONBLOCK);
      return;
    }
    reader_ = std::thread([this] {
      char buf[4096];
      for (ssize_t n; (n = ::read(read_end_, buf, sizeof buf)) > 0;) {
        std::lock_guard lock(mutex_);
        text_.append(buf, static_cast<std::size_t>(n));
      }
    });
  }
  ~StderrPipe() {
    if (!reader_.joinable()) written_so_far();  // room for the flush below
    core::log::flush();
    ::dup2(saved_, STDERR_FILENO);  // the pipe's last write end closes: the reader sees its end
    ::close(saved_);
    if (reader_.joinable()) reader_.join();
    ::close(read_end_);
  }
  std::string text() {
    std::lock_guard lock(mutex_);
    return text_;
  }
  // Waits up to `limit` for `needle` to have been written.
  bool eventually_holds(const std::string& needle, std::chrono::milliseconds limit) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (text().find(needle) == std::string::npos) {
      if (std::chrono::steady_clock::now() > until) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
  }
  // Without the reader thread: everything written to the pipe until now.
  std::string written_so_far() {
    char buf[4096];
    for (ssize_t n; (n = ::read(read_end_, buf, sizeof buf)) > 0;) text_.append(buf, static_cast<std::size_t>(n));
    return text_;
  }

 private:
  int saved_ = -1;
  int read_end_ = -1;
  std::mutex mutex_;
  std::string text_;
  std::thread reader_;
};

}  // namespace

// Lines are written in batches; a warn (or error) line goes out at once, after the lines before it.
TEST(Log, AWarnLineIsWrittenAtOnceAfterTheLinesBeforeIt) {
  StderrPipe pipe(StderrPipe::Reader::none);
  core::log::init("log-test", core::log::Level::debug);
  core::log::info("the first, batched");
  core::log::warn("the second, at once");
  // No flush and no wait: the warn line's own write, done before warn() returned, carries both.
  const std::string text = pipe.written_so_far();
  ASSERT_NE(text.find("the second, at once"), std::string::npos) << text;
  const auto first = text.find("the first, batched");
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_LT(first, text.find("the second, at once"));
}

// A field cannot replace the line's own keys: a caller's "level" or "msg" is kept beside them.
TEST(Log, AFieldNamedLikeTheLinesOwnKeysIsKeptBesideThem) {
  StderrPipe pipe;
  core::log::init("log-test", core::log::Level::info);
  core::log::info(
      "the real message",
      {{"level", "error"}, {"msg", "another"}, {"service", "else"}, {"ts", "never"}, {"entity", "Tickets"}});
  core::log::flush();
  ASSERT_TRUE(pipe.eventually_holds("the real message", std::chrono::seconds(5))) << pipe.text();
  const std::string text = pipe.text();
  const auto line = nlohmann::json::parse(text.substr(0, text.find('\n')));
  EXPECT_EQ(line["level"], "info");
  EXPECT_EQ(line["msg"], "the real message");
  EXPECT_EQ(line["service"], "log-test");
  EXPECT_NE(line["ts"], "never");
  EXPECT_EQ(line["field_level"], "error");
  EXPECT_EQ(line["field_msg"], "another");
  EXPECT_EQ(line["field_service"], "else");
  EXPECT_EQ(line["field_ts"], "never");
  EXPECT_EQ(line["entity"], "Tickets");
}

TEST(Log, AnInfoLineIsWrittenSoonWithoutAFlush) {
  StderrPipe pipe;
  core::log::init("log-test", core::log::Level::info);
  core::log::info("alone in its batch");
  EXPECT_TRUE(pipe.eventually_holds("alone in its batch", std::chrono::seconds(5))) << pipe.text();
}

// Batches of many threads' lines, larger than one batch: every line whole, none lost, one per line.
TEST(Log, LinesFromManyThreadsArriveWhole) {
  constexpr int kThreads = 4, kEach = 2000;
  StderrPipe pipe;
  core::log::init("log-test", core::log::Level::info);
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([t] {
        for (int i = 0; i < kEach; ++i)
          core::log::access({.method = "GET",
                             .path = "/api/v1/log/" + std::to_string(i),
                             .status = 200,
                             .duration_ms = 0.5,
                             .request_id = "thread-" + std::to_string(t),
                             .remote = "127.0.0.1"});
      });
  }
  // A last line after every thread's: once the reader has it, it has all the lines before it (one
  // thread's "1999" alone would not do: the other threads' last lines may still be in the pipe).
  core::log::warn("the last line");
  ASSERT_TRUE(pipe.eventually_holds("the last line", std::chrono::seconds(5)));
  std::istringstream lines(pipe.text());
  std::map<std::string, int> per_thread;
  for (std::string line; std::getline(lines, line);) {
    const auto parsed = nlohmann::json::parse(line);  // throws on a torn line
    if (parsed["msg"] == "request") ++per_thread[parsed["request_id"].get<std::string>()];
  }
  ASSERT_EQ(per_thread.size(), static_cast<std::size_t>(kThreads));
  for (const auto& [thread, count] : per_thread) EXPECT_EQ(count, kEach) << thread;
}

// The access line's own fields, as text: the timestamp to the millisecond in UTC, the status, and
// the duration with three decimals, rounded (the numbers are written with std::to_chars).
TEST(Log, AnAccessLineHasItsFieldsInTheirFormats) {
  StderrPipe pipe;
  core::log::init("log-test", core::log::Level::info);
  core::log::access({.method = "POST",
                     .path = "/api/v1/process",
                     .status = 404,
                     .duration_ms = 12.3456,
                     .request_id = "req-1",
                     .remote = "127.0.0.1"});
  core::log::access({.method = "GET",
                     .path = "/slow",
                     .status = 503,
                     .duration_ms = 1e20,
                     .request_id = "req-2",
                     .remote = "127.0.0.1"});
  core::log::flush();
  ASSERT_TRUE(pipe.eventually_holds("req-2", std::chrono::seconds(5))) << pipe.text();
  std::istringstream lines(pipe.text());
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_NE(first.find(R"("status":404,"duration_ms":12.346,"request_id":"req-1")"), std::string::npos) << first;
  EXPECT_NE(second.find(R"("status":503,"duration_ms":100000000000000000000.000,)"), std::string::npos) << second;
  const auto line = nlohmann::json::parse(first);
  EXPECT_TRUE(std::regex_match(line["ts"].get<std::string>(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")))
      << line["ts"];
  EXPECT_EQ(line["method"], "POST");
  EXPECT_EQ(line["path"], "/api/v1/process");
}
