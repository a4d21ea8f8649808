#include "core/util/digest.hpp"

#include <gtest/gtest.h>

namespace core {
namespace {

TEST(Digest, Sha256OfKnownInputs) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Digest, Sha256OfPiecesIsTheDigestOfTheWhole) {
  Sha256 none;
  EXPECT_EQ(none.hex(), sha256_hex(""));
  // FIPS 180-2's two-block message, in pieces that cut its blocks anywhere
  const std::string whole = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  Sha256 pieces;
  pieces.update(whole.substr(0, 1));
  pieces.update(whole.substr(1, 30));
  pieces.update("");
  pieces.update(whole.substr(31));
  EXPECT_EQ(pieces.hex(), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(whole), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Digest, Sha512AndHmacSha512OfKnownInputs) {
  // FIPS 180-2's "abc" and RFC 4231 test case 2.
  EXPECT_EQ(sha512_hex("abc"),
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423"
            "643ce80e2a9ac94fa54ca49f");
  EXPECT_EQ(hmac_sha512_hex("Jefe", "what do ya want for nothing?"),
            "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a3"
            "4d4a6b4b636e070a38bce737");
}

TEST(Digest, HmacSha256MatchesGithubsTestVector) {
  // vendors.md, "Source control push": GitHub's published example.
  EXPECT_EQ(hmac_sha256_hex("It's a Secret to Everybody", "Hello, World!"),
            "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17");
  // RFC 4231 test case 2.
  EXPECT_EQ(hmac_sha256_hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(Digest, HmacSha256Base64MatchesRfc4231) {
  // RFC 4231 test case 2 (the hex above), in base64: python3 hmac + base64.b64encode.
  EXPECT_EQ(hmac_sha256_base64("Jefe", "what do ya want for nothing?"), "W9zBRr9gdU5qBCQmCJV1x1oAPwidJzmDnexYuWTsOEM=");
}

TEST(Digest, HmacSha1Base64MatchesKnownVectors) {
  // RFC 2202 test case 2 (hex effcdf6ae5eb2fa2d27416d5f184df9c259a7c79), in base64.
  EXPECT_EQ(hmac_sha1_base64("Jefe", "what do ya want for nothing?"), "7/zfauXrL6LSdBbV8YTfnCWafHk=");
  // The widely quoted example (hex de7c9b85b8b78aa6bc8a7a36f70a90701c9db4d9).
  EXPECT_EQ(hmac_sha1_base64("key", "The quick brown fox jumps over the lazy dog"), "3nybhbi3iqa8ino29wqQcBydtNk=");
  EXPECT_EQ(hmac_sha1_base64("", ""), "+9sdGxiqbAgyS31ktx+3Y3BpDh0=");
}

TEST(Digest, HmacSha1HexMatchesKnownVectors) {
  EXPECT_EQ(hmac_sha1_hex("Jefe", "what do ya want for nothing?"), "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79");
  EXPECT_EQ(hmac_sha1_hex("key", "The quick brown fox jumps over the lazy dog"),
            "de7c9b85b8b78aa6bc8a7a36f70a90701c9db4d9");
}

TEST(Digest, Base64PadsLikeRfc4648) {
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64("\xc3\xa9t\xc3\xa9"), "w6l0w6k=");
}

TEST(Digest, Base64UrlRoundTripsAndRefusesWhatNoEncodingProduces) {
  EXPECT_EQ(base64url(""), "");
  EXPECT_EQ(base64url("f"), "Zg");
  EXPECT_EQ(base64url("fo"), "Zm8");
  EXPECT_EQ(base64url("\xfb\xff\xbf"), "-_-_");  // the two characters that differ from base64
  for (const std::string s : {"", "f", "fo", "foo", "foob", "\xfb\xff\xbf\x00", "{\"a\":1}"})
    EXPECT_EQ(from_base64url(base64url(s)), s);
  EXPECT_EQ(from_base64url("Zm9v"), "foo");
  EXPECT_FALSE(from_base64url("Zm9v="));  // padding
  EXPECT_FALSE(from_base64url("Zm+v"));   // the standard alphabet's +
  EXPECT_FALSE(from_base64url("Zm9vY"));  // 4n + 1 characters
  EXPECT_FALSE(from_base64url("Zh"));     // leftover bits not zero ("Zg" is canonical)
  EXPECT_FALSE(from_base64url("Zm 9"));
}

TEST(Digest, FromBase64TakesOnlyWhatBase64Makes) {
  for (const std::string s : {"", "f", "fo", "foo", "foob", "\xfb\xff\xbf\x00", "{\"a\":1}"})
    EXPECT_EQ(from_base64(base64(s)), s);
  EXPECT_EQ(from_base64("+/+/"), "\xfb\xff\xbf");
  EXPECT_EQ(from_base64("Zg=="), "f");
  EXPECT_FALSE(from_base64("Zg"));    // padding missing
  EXPECT_FALSE(from_base64("Zg=a"));  // padding inside
  EXPECT_FALSE(from_base64("Z==="));  // three of padding
  EXPECT_FALSE(from_base64("-_-_"));  // base64url's letters
  EXPECT_FALSE(from_base64("Zh=="));  // leftover bits not zero
  EXPECT_FALSE(from_base64("Zm9v\n"));
}

}  // namespace
}  // namespace core
