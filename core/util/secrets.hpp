#pragma once
// The secret values this process holds, so that no log line and no text quoted from an upstream
// carries one (issue 31, part 4). Configured secrets are remembered as they are read
// (config::Reader::secret); a client remembers each token it obtains, from the moment it has it.
// The log sink masks every line (core/log), and text a service stores or returns from an upstream
// goes through quote(): masked and cut to a bounded length.
//
//   core::secrets::remember(token);                       // an access token just obtained
//   log::warn("the vendor refused", {{"error", core::secrets::quote(res.body)}});
#include <cstddef>
#include <string>
#include <string_view>

namespace core::secrets {

// What a masked secret reads as.
inline constexpr std::string_view kMask = "[redacted]";
// Values shorter than this are not remembered: masking them would blank ordinary words.
inline constexpr std::size_t kMinLength = 8;
// How many obtained values are kept (the oldest are forgotten first); configured ones are kept too.
inline constexpr std::size_t kMaxRemembered = 512;
// How much of an upstream's text quote() keeps by default.
inline constexpr std::size_t kQuoteLimit = 2048;

// Remembers `value` (thread-safe; a value already known, or shorter than kMinLength, is ignored).
void remember(std::string_view value);

// `text` with every remembered value replaced by kMask (in place: the log sink moves its line in).
std::string mask(std::string text);

// Upstream text as a service may log, store or return it: masked, then cut to `limit` bytes (at a
// character boundary) with a note of how much was cut.
std::string quote(std::string_view text, std::size_t limit = kQuoteLimit);

// Forgets every remembered value (tests).
void forget_all();

}  // namespace core::secrets
