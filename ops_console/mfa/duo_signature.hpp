#pragma once
// Duo's request signature (../shared/vendors.md, "MFA: Cisco Duo Admin API"), as duo_client_python
// (duo_client/client.py: canon_params, canonicalize, sign) computes it. Pure functions.
//
//   const std::string auth = duo_authorization(ikey, skey, canonical_v5(date, "GET", host, path, params, "", {}));
//   // headers: Authorization: <auth>, Date: <date>
//
// Canonical string, signature version 5 (duo_client's default): lines joined by "\n": the Date
// header (RFC 2822), the method in upper case, the host in lower case, the path, the parameters
// (canon_params: each name and value percent-encoded with only A-Z a-z 0-9 - _ . ~ left as they
// are, sorted by name then value, joined name=value with "&"), the SHA-512 (hex) of the body ("" for a
// GET, whose parameters go in the query; a POST sends its parameters as a JSON body and signs no
// parameters), and the SHA-512 (hex) of the X-Duo-* headers (lowercased names and values joined
// by NUL, sorted by name; none: the SHA-512 of ""). The Authorization header is
// "Basic " + base64(ikey + ":" + hex(HMAC-SHA512(skey, canonical))).
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ops_console::mfa {

using DuoParams = std::multimap<std::string, std::string>;

// canon_params: "a=1&b=x%20y".
std::string duo_canon_params(const DuoParams& params);

// The version-2 canonical string (no body, no headers): what duo_client's published test vectors sign.
std::string duo_canonical_v2(std::string_view date, std::string_view method, std::string_view host,
                             std::string_view path, const DuoParams& params);

// The version-5 canonical string.
std::string duo_canonical_v5(std::string_view date, std::string_view method, std::string_view host,
                             std::string_view path, const DuoParams& params, std::string_view body,
                             const std::map<std::string, std::string>& x_duo_headers);

// "Basic base64(ikey:hex(HMAC-SHA512(skey, canonical)))".
std::string duo_authorization(std::string_view ikey, std::string_view skey, std::string_view canonical);

// The Date header Duo expects: RFC 2822, "Tue, 17 Nov 2020 14:12:00 -0000", of the current UTC time.
std::string duo_date_now();

}  // namespace ops_console::mfa
