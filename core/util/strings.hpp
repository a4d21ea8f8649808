#pragma once
// Small string helpers shared by every part of the core. Pure functions, no I/O.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace core {

std::string_view trim(std::string_view s);
std::string to_lower(std::string_view s);
bool iequals(std::string_view a, std::string_view b);
bool starts_with_icase(std::string_view s, std::string_view prefix);
// Well-formed UTF-8 (RFC 3629: no overlong form, surrogate or code point past U+10FFFF), as
// PostgreSQL's text takes it. A percent-decoded query value may be anything.
bool valid_utf8(std::string_view s);

// The pieces with `sep` between them.
std::string join(const std::vector<std::string>& pieces, std::string_view sep);
// Splits on `sep`; empty pieces are kept (callers filter them when they mean to).
std::vector<std::string_view> split(std::string_view s, char sep);

// Percent-decoding of a URL component; `plus_as_space` for query strings.
// Returns nullopt on a malformed escape (`%zz`, a truncated `%4`).
std::optional<std::string> url_decode(std::string_view s, bool plus_as_space);
// Percent-encoding of a URL component (a path segment, a query or form value): every byte but
// RFC 3986's unreserved characters (letters, digits, "-._~") becomes %XX.
std::string url_encode(std::string_view s);

// Compares two secrets without an early exit, so timing does not reveal a common prefix.
bool constant_time_equals(std::string_view a, std::string_view b);

// Strict decimal integer parse: optional '-', digits only, no spaces, no overflow.
std::optional<std::int64_t> parse_int64(std::string_view s);

// The canonical 8-4-4-4-12 hexadecimal form (either case).
bool is_uuid(std::string_view s);

// The shape of an e-mail address as mail systems use it: one '@', a local part of 1-64
// printable non-space characters, and a domain of dot-separated labels of letters, digits and
// hyphens with at least one dot; at most 320 characters. Deliberately not the full RFC 5322.
bool is_email_address(std::string_view s);

// A domain name as above (labels of letters, digits and hyphens, at least one dot).
bool is_domain_name(std::string_view s);

// `bytes`, lowercase hex (two characters a byte).
std::string hex(std::string_view bytes);

// `n` bytes from the operating system's CSPRNG, hex-encoded (2n characters).
std::string random_hex(std::size_t n);

// Text for HTML element content and quoted attribute values: & < > " ' escaped.
std::string html_escape(std::string_view text);

// `n` bytes from the CSPRNG, raw: keys (a Standard Webhooks secret's).
std::string random_bytes(std::size_t n);

// `n` bytes from the CSPRNG, base64url without padding (ceil(4n/3) characters of A-Z a-z 0-9 - _):
// passwords and session tokens.
std::string random_base64url(std::size_t n);

// A version-4 UUID from the CSPRNG, lowercase.
std::string random_uuid();

}  // namespace core
