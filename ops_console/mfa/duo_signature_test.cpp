// Duo's signature against duo_client_python's published test vectors (tests/test_client.py:
// TestCanonicalize.test_v2, test_v5_with_json, TestSign.test_hmac_sha512).
#include "ops_console/mfa/duo_signature.hpp"

#include "core/util/digest.hpp"

#include <gtest/gtest.h>

namespace {

using namespace ops_console::mfa;

// The vectors' four parameters (CJK names and values, UTF-8).
const DuoParams kUnicodeParams{
    {"\xe4\x9a\x9a\xe2\xa1\xbb\xe3\x97\x90\xe8\xbb\xb3\xe6\x9c\xa7\xe5\x80\xaa\xe0\xa0\x90\xed\x82\x91\xc3\x88\xec"
     "\x85\xb0",
     "\xe0\xbd\x85\xe1\xa9\xb6\xe3\x90\x9a\xe6\x95\x8c\xec\x88\xbf\xe9\xac\x89\xea\xaf\xa2\xe8\x8d\x83\xe1\xac\xa7\xe6"
     "\x83\x90"},
    {"\xe7\x91\x89\xe7\xb9\x8b\xec\xb3\xbb\xe5\xa7\xbf\xef\xb9\x9f\xe8\x8e\xb7\xea\xb7\x8c\xe9\x80\x8c\xec\xbf\x91\xe7"
     "\xa0\x93",
     "\xe8\xb6\xb7\xe5\x80\xa2\xe9\x8b\x93\xe4\x8b\xaf\xe2\x81\xbd\xe8\x9c\xb0\xea\xb3\xbe\xe5\x98\x97\xe0\xa5\x86\xe4"
     "\xb8\xb0"},
    {"\xe7\x91\xb0\xe9\x8c\x94\xe9\x80\x9c\xe9\xba\xae\xe4\x83\x98\xe4\x88\x81\xe8\x8b\x98\xe8\xb1\xb0\xe1\xb4\xb1\xea"
     "\x81\x82",
     "\xe1\x9f\x99\xe0\xae\xa8\xe9\x8d\x98\xea\xab\x9f\xea\x90\xaa\xe4\xa2\xbe\xef\xae\x96\xe6\xbf\xa9\xeb\x9f\xbf\xe3"
     "\x8b\xb3"},
    {"\xec\x8b\x85\xe2\xb0\x9d\xe2\x98\xa0\xe3\x98\x97\xe9\x9a\xb3"
     "F\xe8\x98\x85\xe2\x83\xa8\xea\xb0\xa1\xe5\xa4\xb4",
     "\xef\xae\xa9\xe4\x86\xaa\xeb\xb6\x83\xe8\x90\x8b\xe2\x98\x95\xe3\xb9\xae\xe6\x94\xad\xea\xa2\xb5\xed\x95\xab"
     "U"}};

constexpr const char* kUnicodeCanon =
    "%E4%9A%9A%E2%A1%BB%E3%97%90%E8%BB%B3%E6%9C%A7%E5%80%AA%E0%A0%90%ED%82%91%C3%88%EC%85%B0=%E0%BD%85%E1%A9%B6%E3%90%"
    "9A%E6%95%8C%EC%88%BF%E9%AC%89%EA%AF%A2%E8%8D%83%E1%AC%A7%E6%83%90&%E7%91%89%E7%B9%8B%EC%B3%BB%E5%A7%BF%EF%B9%9F%"
    "E8%8E%B7%EA%B7%8C%E9%80%8C%EC%BF%91%E7%A0%93=%E8%B6%B7%E5%80%A2%E9%8B%93%E4%8B%AF%E2%81%BD%E8%9C%B0%EA%B3%BE%E5%"
    "98%97%E0%A5%86%E4%B8%B0&%E7%91%B0%E9%8C%94%E9%80%9C%E9%BA%AE%E4%83%98%E4%88%81%E8%8B%98%E8%B1%B0%E1%B4%B1%EA%81%"
    "82=%E1%9F%99%E0%AE%A8%E9%8D%98%EA%AB%9F%EA%90%AA%E4%A2%BE%EF%AE%96%E6%BF%A9%EB%9F%BF%E3%8B%B3&%EC%8B%85%E2%B0%9D%"
    "E2%98%A0%E3%98%97%E9%9A%B3F%E8%98%85%E2%83%A8%EA%B0%A1%E5%A4%B4=%EF%AE%A9%E4%86%AA%EB%B6%83%E8%90%8B%E2%98%95%E3%"
    "B9%AE%E6%94%AD%EA%A2%B5%ED%95%ABU";

TEST(DuoSignature, TheParametersAreCanonicalAsDuoClientWritesThem) {
  EXPECT_EQ(duo_canon_params({{"foo_bar", "2"}, {"foo", "1"}}), "foo=1&foo_bar=2");
  EXPECT_EQ(duo_canon_params({{"realname", "First Last"}, {"username", "root~x"}}),
            "realname=First%20Last&username=root~x");
  EXPECT_EQ(duo_canon_params({{"a", "2"}, {"a", "1"}}), "a=1&a=2");
  EXPECT_EQ(duo_canon_params({}), "");
  EXPECT_EQ(
      duo_canonical_v2("Fri, 07 Dec 2012 17:18:00 -0000", "PoSt", "foO.BAr52.cOm", "/Foo/BaR2/qux", kUnicodeParams),
      std::string("Fri, 07 Dec 2012 17:18:00 -0000\nPOST\nfoo.bar52.com\n/Foo/BaR2/qux\n") + kUnicodeCanon);
}

TEST(DuoSignature, TheHmacSha512AuthorizationMatchesDuoClientsVector) {
  const std::string canonical =
      duo_canonical_v2("Fri, 07 Dec 2012 17:18:00 -0000", "PoSt", "foO.BAr52.cOm", "/Foo/BaR2/qux", kUnicodeParams);
  EXPECT_EQ(
      duo_authorization("test_ikey", "gtdfxv9YgVBYcF6dl2Eq17KUQJN2PLM2ODVTkvoT", canonical),
      "Basic " + core::base64("test_ikey:0508065035a03b2a1de2f453e629e791d180329e157f65df6b3e0f08299d4321e1c5c7a7c"
                              "7ee6b9e5fc80d1fb6fbf3ad5eb7c44dd3b3985a02c37aca53ec3698"));
}

TEST(DuoSignature, VersionFiveAddsTheBodyAndTheXDuoHeadersHashes) {
  const std::string body = R"({"alpha":["a","b","c","d"],"data":"abc123","info":{"another":2,"test":1}})";
  EXPECT_EQ(
      duo_canonical_v5("Tue, 17 Nov 2020 14:12:00", "POST", "foO.BaR52.cOm", "/Foo/BaR2/qux", {}, body,
                       {{"X-Duo-Header-1", "header_value_1"}}),
      "Tue, 17 Nov 2020 14:12:00\nPOST\nfoo.bar52.com\n/Foo/BaR2/qux\n\n" + core::sha512_hex(body) +
          "\n630b4bfe7e9abd03da2eee8f0a5d4e60a254ec880a839bcc2223bb5b9443e8ef24d58f0254f1f5934bf8c017ebd0fd5b1acf86766"
          "bdbe74185e712a4092df3ed");
  EXPECT_EQ(
      duo_canonical_v5("Tue, 17 Nov 2020 14:12:00", "POST", "h", "/p", {}, body,
                       {{"x-duo-A", "header_value_1"}, {"X-Duo-B", "header_value_2"}})
          .substr(std::string("Tue, 17 Nov 2020 14:12:00\nPOST\nh\n/p\n\n").size() + 129),
      "60be11a30e0756f2ee2afdce1db849b987dcf86c1133394bd7bbbc9877920330c4d78aceacbb377ab8cbd9a8efe6a410fed40473766"
      "35ac71226ab46ca10d2b1");  // lowered, then sorted
  // A GET without headers: the hashes of two empty strings.
  EXPECT_EQ(duo_canonical_v5("D", "get", "H", "/admin/v1/users", {{"limit", "300"}, {"offset", "0"}}, "", {}),
            "D\nGET\nh\n/admin/v1/users\nlimit=300&offset=0\n" + core::sha512_hex("") + "\n" + core::sha512_hex(""));
}

}  // namespace
