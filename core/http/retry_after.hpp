#pragma once
// Retry-After (RFC 9110 §10.2.3): either delay-seconds ("120") or an HTTP-date
// ("Wed, 21 Oct 2026 07:28:00 GMT"). Pure; fuzzed by fuzz/fuzz_retry_after.cpp.
#include <chrono>
#include <optional>
#include <string_view>

namespace core::http {

inline constexpr long long kMaxRetryAfterSeconds = 365LL * 24 * 3600;

// The delay the header asks for, measured from `now`; a date in the past is zero.
// nullopt when the value is neither form, or asks for more than a year (kMaxRetryAfterSeconds).
std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value,
                                                           std::chrono::system_clock::time_point now);

}  // namespace core::http
