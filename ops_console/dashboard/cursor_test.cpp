#include "ops_console/dashboard/cursor.hpp"

#include "core/util/digest.hpp"

#include <gtest/gtest.h>

namespace ops_console::dashboard {
namespace {

TEST(Cursor, RoundTripsAnInstantWithMicrosecondsAndANull) {
  const Cursor with_instant = *cursor_after("2026-11-23T10:00:00.123456+13:00", 42);
  EXPECT_EQ(decode_cursor(encode_cursor(with_instant)), with_instant);
  EXPECT_EQ(with_instant.key(), "2026-11-22T21:00:00.123456Z");
  const Cursor without{.at = std::nullopt, .id = 7};
  EXPECT_EQ(decode_cursor(encode_cursor(without)), without);
  EXPECT_EQ(without.key(), "-infinity");
  EXPECT_EQ(encode_cursor(without).find_first_of("+/="), std::string::npos);  // URL-safe as it is
}

TEST(Cursor, RefusesEverythingButItsOwnShape) {
  const auto encoded = [](std::string_view json) { return core::base64url(json); };
  EXPECT_FALSE(decode_cursor(""));
  EXPECT_FALSE(decode_cursor("not base64!"));
  EXPECT_FALSE(decode_cursor(encoded("garbage")));
  EXPECT_FALSE(decode_cursor(encoded("[1,2]")));
  EXPECT_FALSE(decode_cursor(encoded(R"({"at":null})")));
  EXPECT_FALSE(decode_cursor(encoded(R"({"at":null,"id":0})")));
  EXPECT_FALSE(decode_cursor(encoded(R"({"at":null,"id":-3})")));
  EXPECT_FALSE(decode_cursor(encoded(R"({"at":null,"id":1.5})")));
  EXPECT_FALSE(decode_cursor(encoded(R"({"at":null,"id":"1"})")));
  EXPECT_FALSE(decode_cursor(encoded(R"({"at":"yesterday","id":1})")));
  EXPECT_FALSE(decode_cursor(encoded(R"({"at":"2026-11-23T10:00:00","id":1})")));  // no offset
  EXPECT_FALSE(decode_cursor(encoded(R"({"at":5,"id":1})")));
  EXPECT_FALSE(decode_cursor(encoded(R"({"at":null,"id":1,"x":0})")));
  EXPECT_FALSE(decode_cursor(std::string(kMaxCursorLength + 4, 'A')));
  EXPECT_TRUE(decode_cursor(encoded(R"({"at":"2026-11-23T10:00:00.000000Z","id":1})")));
  // Another spelling of that value is not a cursor the lists gave out.
  EXPECT_FALSE(decode_cursor(encoded(R"({"id":1,"at":"2026-11-23T10:00:00.000000Z"})")));
  EXPECT_FALSE(decode_cursor(encoded(R"({"at":"2026-11-23T11:00:00+01:00","id":1})")));
  EXPECT_FALSE(decode_cursor(encoded(std::string(R"({"at":null,"id":1})") + '\0')));
}

}  // namespace
}  // namespace ops_console::dashboard
