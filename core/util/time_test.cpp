#include "core/util/time.hpp"

#include <gtest/gtest.h>

using namespace std::chrono;
using core::parse_rfc3339;

namespace {
std::int64_t unix_micros(std::string_view s) {
  const auto t = parse_rfc3339(s);
  EXPECT_TRUE(t) << s;
  return t ? t->time_since_epoch().count() : -1;
}
}  // namespace

TEST(Rfc3339, ReadsUtcAndOffsets) {
  EXPECT_EQ(unix_micros("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(unix_micros("2026-11-21T09:30:00Z"), 1'795'253'400'000'000);
  EXPECT_EQ(unix_micros("2026-11-21T10:30:00+01:00"), 1'795'253'400'000'000);
  EXPECT_EQ(unix_micros("2026-11-21 04:00:00-05:30"), 1'795'253'400'000'000);
  EXPECT_EQ(unix_micros("2026-11-21t09:30:00z"), 1'795'253'400'000'000);
}

TEST(Rfc3339, ReadsFractionsToMicroseconds) {
  EXPECT_EQ(unix_micros("1970-01-01T00:00:00.25Z"), 250'000);
  EXPECT_EQ(unix_micros("1970-01-01T00:00:00.123456789Z"), 123'456);
}

TEST(Rfc3339, RefusesWhatIsNotADateTimeWithOffset) {
  for (const char* bad :
       {"", "2026-11-21", "2026-11-21T09:30:00", "2026-11-21T09:30Z", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z",
        "2026-11-31T00:00:00Z", "2026-11-21T24:00:00Z", "2026-11-21T23:60:00Z", "2026-11-21T23:59:60Z",
        "2026-11-21T09:30:00.Z", "2026-11-21T09:30:00+0100", "2026-11-21T09:30:00+24:00", "0000-01-01T00:00:00Z",
        "2026-11-21T09:30:00Z ", " 2026-11-21T09:30:00Z", "2026-1-21T09:30:00Z", "tomorrow"})
    EXPECT_FALSE(parse_rfc3339(bad)) << bad;
  EXPECT_TRUE(parse_rfc3339("2028-02-29T00:00:00Z"));  // a leap year
}

TEST(Rfc3339, FormatsWhatItParses) {
  const auto t = parse_rfc3339("2026-11-21T10:30:00.25+01:00");
  ASSERT_TRUE(t);
  EXPECT_EQ(core::format_rfc3339(*t), "2026-11-21T09:30:00.250000Z");
  EXPECT_EQ(parse_rfc3339(core::format_rfc3339(*t)), t);
}
