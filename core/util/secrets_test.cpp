#include "core/util/secrets.hpp"

#include "core/log/log.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace secrets = core::secrets;

namespace {

struct Secrets : ::testing::Test {
  void SetUp() override { secrets::forget_all(); }
  void TearDown() override { secrets::forget_all(); }
};

}  // namespace

TEST_F(Secrets, EveryRememberedValueIsMaskedWhereverItStands) {
  secrets::remember("sk-live-0123456789");
  secrets::remember("eyJhbGciOi.payload.sig");
  EXPECT_EQ(secrets::mask("Bearer eyJhbGciOi.payload.sig refused; key sk-live-0123456789, again sk-live-0123456789"),
            "Bearer [redacted] refused; key [redacted], again [redacted]");
  EXPECT_EQ(secrets::mask("nothing secret here"), "nothing secret here");
}

TEST_F(Secrets, ShortValuesAreNotRememberedAndTheLongestIsMaskedWhole) {
  secrets::remember("short");  // would blank ordinary words
  EXPECT_EQ(secrets::mask("a short word"), "a short word");
  secrets::remember("abcdefgh");
  secrets::remember("abcdefgh-and-more");  // contains the other: masked whole, not in part
  EXPECT_EQ(secrets::mask("x abcdefgh-and-more y abcdefgh"), "x [redacted] y [redacted]");
}

TEST_F(Secrets, QuotedUpstreamTextIsMaskedAndCutAtACharacter) {
  secrets::remember("client-secret-42");
  const std::string body = "error: client-secret-42 is invalid " + std::string(10'000, 'x');
  const auto q = secrets::quote(body, 64);
  EXPECT_EQ(q.find("client-secret-42"), std::string::npos);
  EXPECT_TRUE(q.starts_with("error: [redacted] is invalid ")) << q;
  EXPECT_NE(q.find("bytes more)"), std::string::npos) << q;
  EXPECT_LT(q.size(), 100u);
  // A cut never splits a UTF-8 character: "é" is two bytes.
  const auto accented = secrets::quote("ééééé", 5);
  EXPECT_TRUE(accented.starts_with("éé...")) << accented;
  EXPECT_EQ(secrets::quote("short text"), "short text");
}

TEST_F(Secrets, RememberingFromManyThreadsWhileMasking) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t] {
      for (int i = 0; i < 200; ++i) {
        secrets::remember("token-" + std::to_string(t) + "-" + std::to_string(i) + "-xyz");
        (void)secrets::mask("token-0-1-xyz and more");
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(secrets::mask("token-3-199-xyz"), "[redacted]");
}

TEST_F(Secrets, TheLogSinkMasksEveryLine) {
  secrets::remember("hunter2-but-longer");
  testing::internal::CaptureStderr();
  core::log::init("secrets-test", core::log::Level::debug);
  core::log::warn("the vendor said hunter2-but-longer", {{"body", "{\"echo\":\"hunter2-but-longer\"}"}});
  const std::string line = testing::internal::GetCapturedStderr();
  EXPECT_EQ(line.find("hunter2-but-longer"), std::string::npos) << line;
  EXPECT_NE(line.find("the vendor said [redacted]"), std::string::npos) << line;
  EXPECT_NE(nlohmann::json::parse(line)["body"].get<std::string>().find("[redacted]"), std::string::npos);
}
