#pragma once
// The secret values this process holds, so that no log line and no text quoted from an upstream
// carries one (issue 31, part 4). Configured secrets are remembered as they are read
// (config::Reader::secret and secret_list, the password of DATABASE_URL); a client remembers each
// token it obtains, from the moment it has it. The log sink masks every line (core/log), and text a
// service stores or returns from an upstream goes through quote(): masked and cut to a bounded
// length.
//
//   core::secrets::remember(token);                       // an access token just obtained
//   log::warn("the vendor refused", {{"error", core::secrets::quote(res.body)}});
//
// A value is remembered with the forms it takes where it may be echoed: as it is, percent-encoded
// (a form body or a query string quoted back) and escaped as a JSON string (a log line is one JSON
// object, so a secret with a quote or a backslash stands there escaped). A client that sends HTTP
// Basic credentials remembers their base64 as well (remember_basic).
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>

namespace core::secrets {

// What a masked secret reads as.
inline constexpr std::string_view kMask = "[redacted]";
// Values shorter than this are not remembered: masking them would blank ordinary words.
inline constexpr std::size_t kMinLength = 8;
// How many obtained values are kept (the oldest are forgotten first); configured ones are never
// forgotten, however many tokens come and go.
inline constexpr std::size_t kMaxRemembered = 512;
// How much of an upstream's text quote() keeps by default.
inline constexpr std::size_t kQuoteLimit = 2048;

// Where a value comes from: obtained (a token, for as long as kMaxRemembered newer ones do not
// push it out) or configured (for the life of the process).
enum class Kind { obtained, configured };

// Remembers `value` and its encoded forms (thread-safe; a value already known, or shorter than
// kMinLength, is ignored).
void remember(std::string_view value, Kind kind = Kind::obtained);

// HTTP Basic credentials: the password, and base64("user:password") as the Authorization header
// carries it (a vendor that echoes the header quotes that).
void remember_basic(std::string_view user, std::string_view password, Kind kind = Kind::configured);

// `text` with every remembered value replaced by kMask (in place: the log sink moves its line in).
std::string mask(std::string text);

// Upstream text as a service may log, store or return it: masked, then cut to `limit` bytes (at a
// character boundary) with a note of how much was cut. Masking comes first, so a cut never leaves
// the head of a secret behind.
std::string quote(std::string_view text, std::size_t limit = kQuoteLimit);
// The same, masking `also` too: values of one request that are not worth remembering for the
// process (a per-request signature), so they do not push tokens out of the remembered ones.
std::string quote(std::string_view text, std::size_t limit, std::initializer_list<std::string_view> also);

// Forgets every remembered value (tests).
void forget_all();

}  // namespace core::secrets
