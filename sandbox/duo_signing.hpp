#pragma once
// Duo's request signing, as its own client libraries compute it (duo_fake.hpp says where from). Pure
// functions: the Duo fake checks requests with them and tests reproduce Duo's published examples.
//
//   canonical string, lines joined by "\n":
//     v2: date, METHOD, host (lowercase), path, canon_params(params)
//     v5: the same five, then sha512_hex(body), then canon_x_duo_headers(x-duo-* headers)
//   Authorization: "Basic " + base64(ikey + ":" + hmac_sha512_hex(skey, canonical))
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sandbox::duo {

using Params = std::vector<std::pair<std::string, std::string>>;  // decoded (name, value), repeats kept

// "name=value&..." with every name and value percent-encoded as Python's urllib.parse.quote(s, '~') does
// (bytes outside A-Z a-z 0-9 - . _ ~ become %XX in upper case; a space is %20, '~' stays), the pairs
// sorted by encoded name, then by encoded value; "" for none.
std::string canon_params(const Params& params);

// sha512_hex of the X-Duo headers: names lowercased, sorted, then name, value, name, value ... joined
// by NUL; sha512_hex("") when there are none.
std::string canon_x_duo_headers(std::vector<std::pair<std::string, std::string>> headers);

std::string canonical_v2(std::string_view date, std::string_view method, std::string_view host, std::string_view path,
                         const Params& params);
std::string canonical_v5(std::string_view date, std::string_view method, std::string_view host, std::string_view path,
                         const Params& params, std::string_view body,
                         std::vector<std::pair<std::string, std::string>> x_duo_headers);

// "Basic base64(ikey:hmac_sha512_hex(skey, canonical))".
std::string authorization(std::string_view ikey, std::string_view skey, std::string_view canonical);

// Standard base64 decoded; nullopt when `text` is not base64 (with padding).
std::optional<std::string> base64_decode(std::string_view text);

// An RFC 2822 date-time: "Tue, 21 Aug 2012 17:29:18 -0000" (what Python's email.utils.formatdate()
// writes), "+0000", "GMT", "UT", "UTC" or "Z" as the zone, the day name and the seconds optional.
std::optional<std::chrono::sys_seconds> parse_rfc2822(std::string_view text);
// The form email.utils.formatdate() writes: "Tue, 21 Aug 2012 17:29:18 -0000".
std::string format_rfc2822(std::chrono::sys_seconds t);

}  // namespace sandbox::duo
