#include "core/http/query.hpp"

#include <gtest/gtest.h>

using namespace core::http;

TEST(Query, RepeatedKeysKeepOrder) {
  const auto q = parse_query("status=1&status=8&limit=20");
  ASSERT_TRUE(q);
  const auto all = q->all("status");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0], "1");
  EXPECT_EQ(all[1], "8");
  EXPECT_EQ(q->get("status"), "1");
  EXPECT_EQ(q->get("limit"), "20");
  EXPECT_FALSE(q->get("offset"));
}

TEST(Query, DecodesNamesAndValues) {
  const auto q = parse_query("q=100%25+sure&a%5Bb%5D=x&empty=&flag");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->get("q"), "100% sure");
  EXPECT_EQ(q->get("a[b]"), "x");
  EXPECT_EQ(q->get("empty"), "");
  EXPECT_TRUE(q->has("flag"));
  EXPECT_EQ(q->get("flag"), "");
}

TEST(Query, MalformedEscapeIsRejected) {
  EXPECT_FALSE(parse_query("q=%zz"));
  EXPECT_FALSE(parse_query("q=abc%"));
}

TEST(Query, EmptyAndStrayAmpersands) {
  const auto q = parse_query("&&a=1&&");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->items().size(), 1u);
  EXPECT_TRUE(parse_query("")->items().empty());
}

TEST(Query, SplitTarget) {
  EXPECT_EQ(split_target("/a/b?c=1").first, "/a/b");
  EXPECT_EQ(split_target("/a/b?c=1").second, "c=1");
  EXPECT_EQ(split_target("/a").second, "");
  EXPECT_EQ(split_target("/a?").second, "");
}
