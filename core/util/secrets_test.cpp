#include "core/util/secrets.hpp"

#include "core/app/service.hpp"
#include "core/config/config.hpp"
#include "core/db/connection.hpp"
#include "core/log/log.hpp"
#include "core/testing/testing.hpp"
#include "core/util/digest.hpp"

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
  core::testing::CapturedLog captured;
  core::log::init("secrets-test", core::log::Level::debug);
  core::log::warn("the vendor said hunter2-but-longer", {{"body", "{\"echo\":\"hunter2-but-longer\"}"}});
  const std::string line = captured.text();
  EXPECT_EQ(line.find("hunter2-but-longer"), std::string::npos) << line;
  EXPECT_NE(line.find("the vendor said [redacted]"), std::string::npos) << line;
  EXPECT_NE(nlohmann::json::parse(line)["body"].get<std::string>().find("[redacted]"), std::string::npos);
}

// A secret echoed back is often not as it was sent: percent-encoded (a form body quoted back) or,
// in a log line, escaped as a JSON string. Each form is masked.
TEST_F(Secrets, ASecretIsMaskedInEveryFormItIsEchoedIn) {
  secrets::remember("pa\"ss/word+1=");
  EXPECT_EQ(secrets::mask("raw pa\"ss/word+1= url pa%22ss%2Fword%2B1%3D json pa\\\"ss/word+1="),
            "raw [redacted] url [redacted] json [redacted]");
  core::testing::CapturedLog captured;
  core::log::init("secrets-test", core::log::Level::debug);
  core::log::warn("refused: pa\"ss/word+1=", {{"secret", "pa\"ss/word+1="}});  // escaped in the line
  const std::string line = captured.text();
  EXPECT_EQ(line.find("ss/word+1="), std::string::npos) << line;
}

// However many tokens come and go, a configured secret stays masked.
TEST_F(Secrets, ConfiguredSecretsOutliveAnyNumberOfTokens) {
  secrets::remember("the-configured-secret", secrets::Kind::configured);
  secrets::remember("the-first-token-obtained");
  for (std::size_t i = 0; i < secrets::kMaxRemembered + 10; ++i)
    secrets::remember("token-" + std::to_string(i) + "-abc");
  EXPECT_EQ(secrets::mask("the-configured-secret"), "[redacted]");
  EXPECT_EQ(secrets::mask("the-first-token-obtained"), "the-first-token-obtained");  // the oldest token: forgotten
  EXPECT_EQ(secrets::mask("token-520-abc"), "[redacted]");
}

// HTTP Basic: the header carries base64(user:password), which a vendor may echo.
TEST_F(Secrets, BasicCredentialsAreMaskedAsTheHeaderCarriesThem) {
  secrets::remember_basic("client-id", "client-secret-77");
  EXPECT_EQ(secrets::mask("Authorization: Basic " + core::base64("client-id:client-secret-77")),
            "Authorization: Basic [redacted]");
  EXPECT_EQ(secrets::mask("secret client-secret-77"), "secret [redacted]");
}

// The values of one request (a per-request signature) are masked in its answer's words without
// being remembered; and masking comes before the cut, so no head of a secret is left at the end.
TEST_F(Secrets, AQuoteMasksTheValuesOfOneRequestAndCutsAfterMasking) {
  EXPECT_EQ(secrets::quote("bad signature 0123456789abcdef", 100, {"0123456789abcdef", "short"}),
            "bad signature [redacted]");
  EXPECT_EQ(secrets::mask("0123456789abcdef"), "0123456789abcdef");  // not remembered
  secrets::remember("sk-live-abcdefghijklmnop");
  const auto cut = secrets::quote("key: sk-live-abcdefghijklmnop and more", 12);
  EXPECT_EQ(cut.find("sk-live"), std::string::npos) << cut;
  EXPECT_TRUE(cut.starts_with("key: [redact")) << cut;
}

// Configured credentials read otherwise than one secret: a list of keys (each masked alone), and
// the password inside DATABASE_URL, as libpq reads it and as the URL spells it.
TEST_F(Secrets, KeyListsAndTheDatabasePasswordAreConfiguredSecrets) {
  core::config::Reader env({{"API_KEYS", " key-one-0123456789 ,key-two-abcdefghij,"},
                            {"DATABASE_URL", "postgresql://app:s3cr%40t-db-pass@db.example:5432/app"}});
  EXPECT_EQ(env.secret_list("API_KEYS", "keys"),
            (std::vector<std::string>{"key-one-0123456789", "key-two-abcdefghij"}));
  const core::app::ServiceDefinition def{.name = "secrets-test", .default_database = "secrets_test"};
  (void)core::app::read_common(env, def);
  EXPECT_EQ(secrets::mask("Bearer key-two-abcdefghij"), "Bearer [redacted]");
  EXPECT_EQ(secrets::mask("password s3cr@t-db-pass, in the URL s3cr%40t-db-pass"),
            "password [redacted], in the URL [redacted]");
  EXPECT_EQ(core::db::conninfo_passwords("host=db.example password=kw-secret-value user=app"),
            std::vector<std::string>{"kw-secret-value"});
  EXPECT_TRUE(core::db::conninfo_passwords("postgresql://app@db.example/app").empty());
  EXPECT_TRUE(core::db::conninfo_passwords("not a = conninfo '").empty());
  EXPECT_EQ(core::config::Reader::describing().secret_list("API_KEYS", "keys"), std::vector<std::string>{});
}

// The access log line, written without building a JSON object, is masked as well.
TEST_F(Secrets, TheAccessLogLineIsMaskedToo) {
  secrets::remember("path-secret-1234");
  core::testing::CapturedLog captured;
  core::log::init("secrets-test", core::log::Level::info);
  core::log::access({.method = "GET",
                     .path = "/hooks/path-secret-1234",
                     .status = 200,
                     .duration_ms = 1,
                     .request_id = "path-secret-1234",
                     .remote = "127.0.0.1"});
  const std::string line = captured.text();
  EXPECT_EQ(line.find("path-secret-1234"), std::string::npos) << line;
  EXPECT_NE(line.find("/hooks/[redacted]"), std::string::npos) << line;
}
