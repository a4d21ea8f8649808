#include "core/http/retry_after.hpp"

#include <gtest/gtest.h>

using namespace core::http;
using namespace std::chrono;

namespace {
system_clock::time_point at(int y, int mo, int d, int h, int mi, int s) {
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  return system_clock::from_time_t(timegm(&tm));
}
}  // namespace

TEST(RetryAfter, Seconds) {
  const auto now = system_clock::now();
  EXPECT_EQ(parse_retry_after("120", now), milliseconds(120'000));
  EXPECT_EQ(parse_retry_after(" 0 ", now), milliseconds(0));
}

TEST(RetryAfter, HttpDateIsMeasuredFromNow) {
  const auto now = at(2026, 10, 21, 7, 27, 30);
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2026 07:28:00 GMT", now), milliseconds(30'000));
}

TEST(RetryAfter, DateInThePastMeansNow) {
  const auto now = at(2026, 10, 21, 8, 0, 0);
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2026 07:28:00 GMT", now), milliseconds(0));
}

TEST(RetryAfter, GarbageIsRejected) {
  const auto now = system_clock::now();
  EXPECT_FALSE(parse_retry_after("", now));
  EXPECT_FALSE(parse_retry_after("-5", now));
  EXPECT_FALSE(parse_retry_after("1.5", now));
  EXPECT_FALSE(parse_retry_after("soon", now));
  EXPECT_FALSE(parse_retry_after("Wed, 21 Oct 2026 07:28:00 GMT trailing", now));
  EXPECT_FALSE(parse_retry_after("99999999999999", now));
}

// fuzz_retry_after (fuzz/corpus/retry_after/regression-year-4054): a date past system_clock's range
// overflowed its conversion (undefined); a date more than a year away is refused, as delay-seconds are.
TEST(RetryAfter, ADateMoreThanAYearAwayIsRejected) {
  const auto now = at(2026, 10, 21, 7, 27, 30);
  EXPECT_FALSE(parse_retry_after("Wed, 21 Oct 4054 07:28:00 GMT", now));
  EXPECT_FALSE(parse_retry_after("Thu, 21 Oct 2027 07:28:00 GMT", now));
  EXPECT_EQ(parse_retry_after("Thu, 21 Oct 2027 07:27:30 GMT", now), seconds(365LL * 24 * 3600));
}
