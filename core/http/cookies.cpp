#include "core/http/cookies.hpp"

#include "core/util/strings.hpp"

namespace core::http {

std::optional<std::string> cookie(const Request& req, std::string_view name) {
  const std::string_view header = req.header("cookie");
  for (auto piece : core::split(header, ';')) {
    piece = core::trim(piece);
    const auto eq = piece.find('=');
    if (eq != std::string_view::npos && piece.substr(0, eq) == name) return std::string(piece.substr(eq + 1));
  }
  return std::nullopt;
}

bool over_tls(const Request& req) { return core::iequals(core::trim(req.header("x-forwarded-proto")), "https"); }

std::string set_cookie(const Request& req, const CookieSpec& spec) {
  std::string c = std::string(spec.name) + "=" + std::string(spec.value) + "; Path=" + std::string(spec.path) +
                  "; HttpOnly; SameSite=" + std::string(spec.same_site);
  if (spec.max_age) c += "; Max-Age=" + std::to_string(*spec.max_age);
  if (over_tls(req)) c += "; Secure";
  return c;
}

}  // namespace core::http
