#pragma once
// The pieces of OAuth 2.0 the accounting connection computes or reads itself. Pure functions
// (fuzzed: fuzz/fuzz_jwt_claim.cpp).
#include <optional>
#include <string>
#include <string_view>

namespace ops_console::accounting {

// PKCE (RFC 7636): the S256 challenge of a verifier, base64url of its SHA-256 without padding.
std::string pkce_challenge(std::string_view verifier);

// A claim of a JWT's payload, read without checking the signature (the token came straight from
// the identity service over TLS; we only learn which consent it belongs to). nullopt when the
// token is not a JWT or has no such string claim.
std::optional<std::string> jwt_claim(std::string_view token, std::string_view claim);

}  // namespace ops_console::accounting
