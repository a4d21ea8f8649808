#include "core/json/validate.hpp"

#include <gtest/gtest.h>

using namespace core::json;
using core::http::Problem;

namespace {
Problem problem_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Problem& p) {
    return p;
  }
  ADD_FAILURE() << "no problem raised";
  return Problem::bad_request("none");
}
}  // namespace

TEST(ParseObject, MalformedJsonIs400WithPosition) {
  const auto p = problem_of([] { parse_object(R"({"a": 1,)"); });
  EXPECT_EQ(p.status(), core::http::Status::bad_request);
  EXPECT_NE(p.detail().find("not valid JSON"), std::string::npos);
  EXPECT_NE(p.detail().find("byte"), std::string::npos);
}

TEST(ParseObject, NonObjectAndEmptyAre400) {
  EXPECT_NE(problem_of([] { parse_object("[1,2]"); }).detail().find("JSON object"), std::string::npos);
  EXPECT_NE(problem_of([] { parse_object("  "); }).detail().find("empty"), std::string::npos);
  EXPECT_EQ(parse_object(R"({"a":1})")["a"], 1);
}

TEST(BodyReader, ReportsEveryBadField) {
  const auto body = json::parse(R"({"email_address": 5, "older_than_days": 0, "notes": null,
                                    "email_types": ["a", 3], "display_name": "  x  "})");
  BodyReader in(body);
  const auto name = in.string("display_name");
  (void)in.string("email_address");
  (void)in.integer("older_than_days", {.min = 1, .max = 3650});
  (void)in.strings("email_types");
  (void)in.string("sender_type", {.one_of = {"customer", "vendor"}});
  EXPECT_EQ(in.optional_string("notes"), std::nullopt);
  EXPECT_EQ(name, "x");
  const auto p = problem_of([&] { in.finish(); });
  ASSERT_EQ(p.errors().size(), 4u);
  EXPECT_EQ(p.errors()[0], (core::http::FieldError{"email_address", "must be a string"}));
  EXPECT_EQ(p.errors()[1], (core::http::FieldError{"older_than_days", "must be between 1 and 3650"}));
  EXPECT_EQ(p.errors()[2], (core::http::FieldError{"email_types[1]", "must be a string"}));
  EXPECT_EQ(p.errors()[3], (core::http::FieldError{"sender_type", "is required"}));
  EXPECT_EQ(p.detail(), "email_address: must be a string (and 3 more)");
}

TEST(BodyReader, EnumLengthCheckAndLowercase) {
  const auto body = json::parse(R"({"t": "other", "e": " A@B.COM ", "s": "abcdef", "c": "bad"})");
  BodyReader in(body);
  (void)in.string("t", {.one_of = {"light", "dark", "system"}});
  EXPECT_EQ(in.string("e", {.lowercase = true}), "a@b.com");
  (void)in.string("s", {.max_length = 3});
  (void)in.string("c", {.check = [](std::string_view v) { return v == "good"; }, .check_message = "must be good"});
  const auto p = problem_of([&] { in.finish(); });
  ASSERT_EQ(p.errors().size(), 3u);
  EXPECT_EQ(p.errors()[0].message, "must be one of: light, dark, system");
  EXPECT_EQ(p.errors()[1].message, "must be at most 3 characters");
  EXPECT_EQ(p.errors()[2].message, "must be good");
}

// Lengths count characters, as the messages say and PostgreSQL's length() does, not bytes.
TEST(BodyReader, LengthsCountCharactersNotBytes) {
  const auto body = json::parse(R"({"note": "Größe ✓✓", "short": "ü"})");  // 8 characters, 13 bytes
  BodyReader in(body);
  EXPECT_EQ(in.string("note", {.max_length = 8}), "Größe ✓✓");
  (void)in.string("short", {.min_length = 2});
  const auto p = problem_of([&] { in.finish(); });
  ASSERT_EQ(p.errors().size(), 1u);
  EXPECT_EQ(p.errors()[0].field, "short");
}

TEST(BodyReader, IntegersRejectFractionsAndStrings) {
  const auto body = json::parse(R"({"a": 1.5, "b": "7", "c": 7.0, "d": 18446744073709551615})");
  BodyReader in(body);
  (void)in.integer("a");
  (void)in.integer("b");
  EXPECT_EQ(in.integer("c"), 7);
  (void)in.integer("d");
  const auto p = problem_of([&] { in.finish(); });
  ASSERT_EQ(p.errors().size(), 3u);
  EXPECT_EQ(p.errors()[1].message, "must be an integer");
}

TEST(BodyReader, IntegerArraysCheckEachItem) {
  const auto body = json::parse(R"({"ids": [3, 1, "2", 0, 4.5], "none": null, "scalar": 5, "long": [1, 2, 3]})");
  BodyReader in(body);
  EXPECT_EQ(in.integers("ids", {.min = 1}), (std::vector<std::int64_t>{3, 1}));
  EXPECT_TRUE(in.integers("none").empty());
  (void)in.integers("scalar");
  (void)in.integers("long", {}, 2);
  (void)in.integers("missing", {}, 10, true);
  const auto p = problem_of([&] { in.finish(); });
  ASSERT_EQ(p.errors().size(), 6u);
  EXPECT_EQ(p.errors()[0], (core::http::FieldError{"ids[2]", "must be an integer"}));
  EXPECT_EQ(p.errors()[1], (core::http::FieldError{"ids[3]", "must be at least 1"}));
  EXPECT_EQ(p.errors()[2], (core::http::FieldError{"ids[4]", "must be a whole number within range"}));
  EXPECT_EQ(p.errors()[3], (core::http::FieldError{"scalar", "must be an array of integers"}));
  EXPECT_EQ(p.errors()[4], (core::http::FieldError{"long", "must have at most 2 items"}));
  EXPECT_EQ(p.errors()[5], (core::http::FieldError{"missing", "is required"}));
}

TEST(BodyReader, PatchTellsAbsentFromNull) {
  const auto body = json::parse(R"({"notes": null, "older_than_days": 30, "is_active": false})");
  BodyReader in(body);
  const auto notes = in.patch_string("notes");
  const auto name = in.patch_string("display_name");
  const auto days = in.patch_integer("older_than_days", {.min = 1, .max = 3650});
  const auto active = in.patch_boolean("is_active");
  in.finish();
  EXPECT_TRUE(notes.is_null());
  EXPECT_FALSE(name.present);
  EXPECT_EQ(days.value, 30);
  EXPECT_EQ(active.value, false);
}

TEST(BodyReader, NullWhereNotAllowed) {
  const auto body = json::parse(R"({"older_than_days": null, "is_active": null})");
  BodyReader in(body);
  (void)in.patch_integer("older_than_days");
  (void)in.patch_boolean("is_active");
  const auto p = problem_of([&] { in.finish(); });
  ASSERT_EQ(p.errors().size(), 2u);
  EXPECT_EQ(p.errors()[0].message, "must not be null");
}

TEST(BodyReader, Number) {
  const auto body = json::parse(R"({"c": 0.75, "d": 1.5})");
  BodyReader in(body);
  EXPECT_DOUBLE_EQ(in.number("c", 0, 1), 0.75);
  (void)in.number("d", 0, 1);
  EXPECT_EQ(problem_of([&] { in.finish(); }).errors()[0].field, "d");
}

TEST(BodyReader, Timestamp) {
  const auto body = json::parse(R"({"a": "2026-12-31T23:59:59Z", "b": null, "c": "2026-12-31", "d": 5})");
  BodyReader in(body);
  EXPECT_EQ(in.optional_timestamp("a"), core::parse_rfc3339("2026-12-31T23:59:59+00:00"));
  EXPECT_FALSE(in.optional_timestamp("b"));
  EXPECT_FALSE(in.optional_timestamp("absent"));
  EXPECT_FALSE(in.optional_timestamp("c"));
  EXPECT_FALSE(in.optional_timestamp("d"));
  const auto p = problem_of([&] { in.finish(); });
  ASSERT_EQ(p.errors().size(), 2u);
  EXPECT_EQ(p.errors()[0].field, "c");
  EXPECT_EQ(p.errors()[1].field, "d");
}

TEST(QueryReader, DefaultsRangesAndRepeatedKeys) {
  const auto q = *core::http::parse_query("limit=500&offset=x&status=completed&status=bogus&flag=maybe");
  QueryReader in(q);
  EXPECT_EQ(in.integer("page", 7), 7);
  (void)in.integer("limit", 50, {.min = 1, .max = 200});
  (void)in.integer("offset", 0, {.min = 0});
  const auto statuses = in.all("status", {.one_of = {"pending", "completed"}});
  (void)in.boolean("flag", false);
  EXPECT_EQ(statuses, std::vector<std::string>{"completed"});
  const auto p = problem_of([&] { in.finish(); });
  ASSERT_EQ(p.errors().size(), 4u);
  EXPECT_EQ(p.errors()[0], (core::http::FieldError{"limit", "must be between 1 and 200"}));
  EXPECT_EQ(p.errors()[1], (core::http::FieldError{"offset", "must be an integer"}));
  EXPECT_EQ(p.errors()[2].field, "status");
  EXPECT_EQ(p.errors()[3].field, "flag");
}

TEST(QueryReader, RepeatedIntegersAreEachChecked) {
  const auto q = *core::http::parse_query("s=1&s=8&s=x&s=99&p=2");
  QueryReader in(q);
  EXPECT_EQ(in.integers("s", {.min = 0, .max = 50}), (std::vector<std::int64_t>{1, 8}));
  EXPECT_EQ(in.integers("p"), (std::vector<std::int64_t>{2}));
  EXPECT_TRUE(in.integers("absent").empty());
  const auto p = problem_of([&] { in.finish(); });
  ASSERT_EQ(p.errors().size(), 2u);
  EXPECT_EQ(p.errors()[0], (core::http::FieldError{"s", "must be an integer"}));
  EXPECT_EQ(p.errors()[1], (core::http::FieldError{"s", "must be between 0 and 50"}));
}

// fuzz_list_query and fuzz_evidence_upload (fuzz/corpus/list_query/bad_utf8): a percent-escape
// decoding to bytes that are not UTF-8 was taken, and PostgreSQL refused the text with a 500.
TEST(QueryReader, AStringThatIsNotUtf8IsAFieldError) {
  const auto q = *core::http::parse_query("search=%FF%FE&name=caf%C3%A9&s=ok&s=%C0%AF&t=%ED%A0%80");
  QueryReader in(q);
  EXPECT_FALSE(in.optional_string("search"));
  EXPECT_EQ(in.optional_string("name"), "caf\xC3\xA9");
  EXPECT_EQ(in.all("s"), std::vector<std::string>{"ok"});
  EXPECT_FALSE(in.optional_string("t"));  // a surrogate
  const auto p = problem_of([&] { in.finish(); });
  ASSERT_EQ(p.errors().size(), 3u);
  EXPECT_EQ(p.errors()[0], (core::http::FieldError{"search", "must be valid UTF-8"}));
  EXPECT_EQ(p.errors()[1].field, "s");
  EXPECT_EQ(p.errors()[2].field, "t");
}
