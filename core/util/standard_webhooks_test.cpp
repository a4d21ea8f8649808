#include "core/util/standard_webhooks.hpp"

#include "core/util/digest.hpp"

#include <gtest/gtest.h>

namespace core::standard_webhooks {
namespace {

// The example of the Standard Webhooks specification and its libraries' tests. Computed again,
// independently, with
//   python3 -c 'import hmac,hashlib,base64; k=base64.b64decode("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
//     print(base64.b64encode(hmac.new(k, b"msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330.{\"test\": 2432232314}",
//     hashlib.sha256).digest()).decode())'
constexpr std::string_view kSpecSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
constexpr std::string_view kSpecId = "msg_p5jXN8AQM9LWM0D4loKWxJek";
constexpr std::int64_t kSpecTimestamp = 1614265330;
constexpr std::string_view kSpecBody = R"({"test": 2432232314})";
constexpr std::string_view kSpecSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

TEST(StandardWebhooks, SignsTheSpecificationsExample) {
  const auto key = decode_secret(kSpecSecret);
  ASSERT_TRUE(key);
  EXPECT_EQ(key->size(), 24u);
  EXPECT_EQ(sign(*key, kSpecId, kSpecTimestamp, kSpecBody), kSpecSignature);
  const auto h = headers(*key, kSpecId, kSpecTimestamp, kSpecBody);
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h[0], (std::pair<std::string, std::string>{"webhook-id", std::string(kSpecId)}));
  EXPECT_EQ(h[1], (std::pair<std::string, std::string>{"webhook-timestamp", "1614265330"}));
  EXPECT_EQ(h[2], (std::pair<std::string, std::string>{"webhook-signature", std::string(kSpecSignature)}));
}

TEST(StandardWebhooks, ALegacySecretSignsWithItsOwnBytes) {
  // python3 -c 'import hmac,hashlib,base64; print(base64.b64encode(hmac.new(b"legacy-secret-0123456789",
  //   b"msg_1.1700000000.{}", hashlib.sha256).digest()).decode())'
  EXPECT_EQ(signing_key("legacy-secret-0123456789"), "legacy-secret-0123456789");
  EXPECT_EQ(sign(signing_key("legacy-secret-0123456789"), "msg_1", 1700000000, "{}"),
            "v1,GHoS9zmSkpG0pIa6kpFhtwHcoACO33PKgi/eg2E4gEc=");
  EXPECT_EQ(signing_key(kSpecSecret), *decode_secret(kSpecSecret));
}

TEST(StandardWebhooks, SecretsRoundTripAndBadOnesAreRefused) {
  std::string key;
  for (int b = 0; b < 32; ++b) key += static_cast<char>(b);  // the bytes 0, 1, ..., 31
  ASSERT_EQ(key.size(), 32u);
  EXPECT_EQ(encode_secret(key), "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=");
  EXPECT_EQ(decode_secret(encode_secret(key)), key);
  const std::string made = new_secret();
  EXPECT_TRUE(made.starts_with("whsec_"));
  ASSERT_TRUE(decode_secret(made));
  EXPECT_EQ(decode_secret(made)->size(), kKeyBytes);
  EXPECT_NE(new_secret(), made);

  EXPECT_FALSE(decode_secret("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="));  // no prefix
  EXPECT_FALSE(decode_secret("whsec_"));
  EXPECT_FALSE(decode_secret("whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXG"));     // not a multiple of 4
  EXPECT_FALSE(decode_secret("whsec_AAECAwQFBgcICQoLDA0ODxAREhMU"));          // 21 bytes: too short
  EXPECT_FALSE(decode_secret("whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYX-A=="));  // base64url letter
  EXPECT_FALSE(decode_secret("whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYX GBk"));  // a space
  EXPECT_FALSE(decode_secret("whsec_" + base64(std::string(65, 'k'))));       // 65 bytes: too long
  EXPECT_TRUE(decode_secret("whsec_" + base64(std::string(64, 'k'))));
  EXPECT_TRUE(is_secret(kSpecSecret));
  EXPECT_FALSE(is_secret("a-secret-of-old-16-or-more"));
}

TEST(StandardWebhooks, MessageIdsAreFreshAndShaped) {
  const std::string id = new_message_id();
  EXPECT_TRUE(id.starts_with("msg_"));
  EXPECT_EQ(id.size(), 4u + 22u);
  EXPECT_NE(new_message_id(), id);
}

TEST(StandardWebhooks, VerifiesAsAReceiverDoes) {
  const std::string key = *decode_secret(kSpecSecret);
  const std::int64_t now = kSpecTimestamp + 10;
  EXPECT_EQ(verify(key, kSpecId, "1614265330", kSpecSignature, kSpecBody, now), Verdict::ok);
  // One good entry in a list is enough; other versions are skipped.
  EXPECT_EQ(verify(key, kSpecId, "1614265330", "v1a,abc v1,AAAA " + std::string(kSpecSignature), kSpecBody, now),
            Verdict::ok);
  EXPECT_EQ(verify(key, kSpecId, "1614265330", kSpecSignature, R"({"test": 2432232315})", now), Verdict::bad_signature);
  EXPECT_EQ(verify(key, "msg_other", "1614265330", kSpecSignature, kSpecBody, now), Verdict::bad_signature);
  EXPECT_EQ(verify("another key of 24 bytes!", kSpecId, "1614265330", kSpecSignature, kSpecBody, now),
            Verdict::bad_signature);
  EXPECT_EQ(verify(key, kSpecId, "1614265330", "v1=" + std::string(kSpecSignature).substr(3), kSpecBody, now),
            Verdict::bad_signature);
  EXPECT_EQ(verify(key, "", "1614265330", kSpecSignature, kSpecBody, now), Verdict::missing_header);
  EXPECT_EQ(verify(key, kSpecId, "", kSpecSignature, kSpecBody, now), Verdict::missing_header);
  EXPECT_EQ(verify(key, kSpecId, "1614265330", "", kSpecBody, now), Verdict::missing_header);
  EXPECT_EQ(verify(key, kSpecId, "16142653.0", kSpecSignature, kSpecBody, now), Verdict::malformed_timestamp);
  EXPECT_EQ(verify(key, kSpecId, "-1614265330", kSpecSignature, kSpecBody, now), Verdict::malformed_timestamp);
  // Five minutes either side of the clock, not a second more.
  EXPECT_EQ(verify(key, kSpecId, "1614265330", kSpecSignature, kSpecBody, kSpecTimestamp + 300), Verdict::ok);
  EXPECT_EQ(verify(key, kSpecId, "1614265330", kSpecSignature, kSpecBody, kSpecTimestamp - 300), Verdict::ok);
  EXPECT_EQ(verify(key, kSpecId, "1614265330", kSpecSignature, kSpecBody, kSpecTimestamp + 301),
            Verdict::stale_timestamp);
  EXPECT_EQ(verify(key, kSpecId, "1614265330", kSpecSignature, kSpecBody, kSpecTimestamp - 301),
            Verdict::stale_timestamp);
}

}  // namespace
}  // namespace core::standard_webhooks
