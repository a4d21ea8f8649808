#pragma once
// The credential of an `Authorization: Bearer <token>` header (RFC 6750 section 2.1; the scheme
// is case-insensitive), or nothing when the header is absent, of another scheme or empty.
#include "core/util/strings.hpp"

#include <optional>
#include <string_view>

namespace core::http {

inline std::optional<std::string_view> bearer_token(std::string_view authorization) {
  authorization = core::trim(authorization);
  if (!core::starts_with_icase(authorization, "Bearer ")) return std::nullopt;
  const auto token = core::trim(authorization.substr(7));
  if (token.empty()) return std::nullopt;
  return token;
}

}  // namespace core::http
