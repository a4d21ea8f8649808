#include "core/util/strings.hpp"

#include <gtest/gtest.h>

#include <set>

using namespace core;

TEST(Strings, TrimAndLower) {
  EXPECT_EQ(trim("  a b \t\n"), "a b");
  EXPECT_EQ(trim("   "), "");
  EXPECT_EQ(to_lower("MiXeD@Example.COM"), "mixed@example.com");
  EXPECT_TRUE(iequals("Bearer", "bEARER"));
  EXPECT_FALSE(iequals("Bearer", "Bearer "));
}

TEST(Strings, SplitKeepsEmptyPieces) {
  const auto parts = split("a,,b,", ',');
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts[1], "");
  EXPECT_EQ(parts[3], "");
}

TEST(Strings, JoinPutsTheSeparatorBetweenPieces) {
  EXPECT_EQ(core::join({}, ", "), "");
  EXPECT_EQ(core::join({"a"}, ", "), "a");
  EXPECT_EQ(core::join({"a", "", "c"}, ","), "a,,c");
}

TEST(Strings, UrlDecode) {
  EXPECT_EQ(url_decode("a%20b+c", true), "a b c");
  EXPECT_EQ(url_decode("a+b", false), "a+b");
  EXPECT_EQ(url_decode("%25%5f", false), "%_");
  EXPECT_FALSE(url_decode("%zz", false));
  EXPECT_FALSE(url_decode("abc%4", false));
  EXPECT_FALSE(url_decode("%", false));
}

TEST(Strings, UrlEncodeKeepsOnlyUnreservedCharacters) {
  EXPECT_EQ(url_encode("isRead eq false"), "isRead%20eq%20false");
  EXPECT_EQ(url_encode("a-b.c_d~e"), "a-b.c_d~e");
  EXPECT_EQ(url_encode("x@y/z+=&'"), "x%40y%2Fz%2B%3D%26%27");
  EXPECT_EQ(url_encode("\xC3\xA9"), "%C3%A9");
  for (std::string s : {"inbox@msp.example", "a b+c%", "AAMkAGI=/x", "\xE2\x82\xAC"})
    EXPECT_EQ(url_decode(url_encode(s), false), s);
}

TEST(Strings, ConstantTimeEquals) {
  EXPECT_TRUE(constant_time_equals("secret-key", "secret-key"));
  EXPECT_FALSE(constant_time_equals("secret-key", "secret-kez"));
  EXPECT_FALSE(constant_time_equals("secret", "secret-key"));
  EXPECT_TRUE(constant_time_equals("", ""));
}

TEST(Strings, ParseInt64IsStrict) {
  EXPECT_EQ(parse_int64("42"), 42);
  EXPECT_EQ(parse_int64("-7"), -7);
  EXPECT_FALSE(parse_int64(""));
  EXPECT_FALSE(parse_int64(" 1"));
  EXPECT_FALSE(parse_int64("1.5"));
  EXPECT_FALSE(parse_int64("12abc"));
  EXPECT_FALSE(parse_int64("99999999999999999999"));
  EXPECT_EQ(parse_int64("9223372036854775807"), INT64_MAX);
}

TEST(Strings, Uuid) {
  EXPECT_TRUE(is_uuid("123e4567-e89b-12d3-a456-426614174000"));
  EXPECT_TRUE(is_uuid("123E4567-E89B-12D3-A456-426614174000"));
  EXPECT_FALSE(is_uuid("123e4567e89b12d3a456426614174000"));
  EXPECT_FALSE(is_uuid("123e4567-e89b-12d3-a456-42661417400g"));
  EXPECT_FALSE(is_uuid("not-a-uuid"));
  const auto u = random_uuid();
  EXPECT_TRUE(is_uuid(u)) << u;
  EXPECT_EQ(u[14], '4');
  EXPECT_NE(random_uuid(), u);
}

TEST(Strings, HexIsTwoLowercaseDigitsAByteMostSignificantFirst) {
  EXPECT_EQ(hex(std::string_view("\x00\x0f\xab\xff\x10", 5)), "000fabff10");
  EXPECT_EQ(hex(""), "");
}

TEST(Strings, RandomHexLengthAndAlphabet) {
  const auto h = random_hex(16);
  EXPECT_EQ(h.size(), 32u);
  EXPECT_EQ(h.find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(Strings, RandomBase64UrlLengthAlphabetAndSpread) {
  const auto a = random_base64url(24);
  EXPECT_EQ(a.size(), 32u);
  EXPECT_EQ(a.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"), std::string::npos);
  EXPECT_EQ(random_base64url(1).size(), 2u);  // 8 bits: two characters, no padding
  EXPECT_EQ(random_base64url(2).size(), 3u);
  EXPECT_NE(random_base64url(24), a);
  std::set<char> seen;  // 100 draws of 32 characters use nearly the whole alphabet
  for (int i = 0; i < 100; ++i)
    for (char c : random_base64url(24)) seen.insert(c);
  EXPECT_GT(seen.size(), 60u);
}

TEST(Strings, HtmlEscapeCoversTextAndAttributes) {
  EXPECT_EQ(html_escape(R"(<a href="x" title='y'>Tom & Jerry</a>)"),
            "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;Tom &amp; Jerry&lt;/a&gt;");
  EXPECT_EQ(html_escape("plain"), "plain");
}

TEST(Strings, EmailAndDomainShapes) {
  for (const char* ok : {"a@b.example", "first.last+tag@sub.domain.example", "x_y@a-b.example"})
    EXPECT_TRUE(is_email_address(ok)) << ok;
  for (const char* bad : {"", "a", "a@", "@b.example", "a@b", "a@@b.example", "a b@c.example", "a@b..example",
                          "a@-b.example", "a@b.example.", "a@b_c.example", "<a@b.example>"})
    EXPECT_FALSE(is_email_address(bad)) << bad;
  EXPECT_FALSE(is_email_address(std::string(65, 'a') + "@b.example"));
  EXPECT_TRUE(is_domain_name("example.com"));
  EXPECT_FALSE(is_domain_name("localhost"));
  EXPECT_FALSE(is_domain_name("exa mple.com"));
}

TEST(Strings, ValidUtf8RefusesWhatPostgresRefuses) {
  EXPECT_TRUE(core::valid_utf8(""));
  EXPECT_TRUE(core::valid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  EXPECT_FALSE(core::valid_utf8("\xFF"));
  EXPECT_FALSE(core::valid_utf8("\xC3"));              // cut short
  EXPECT_FALSE(core::valid_utf8("\xC0\xAF"));          // overlong
  EXPECT_FALSE(core::valid_utf8("\xED\xA0\x80"));      // a surrogate
  EXPECT_FALSE(core::valid_utf8("\xF4\x90\x80\x80"));  // past U+10FFFF
}
