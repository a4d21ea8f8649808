#include "core/http/assets.hpp"

#include <algorithm>
#include <cctype>

namespace core::http {

namespace {

std::string_view trim_spaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) { return std::tolower(x) == std::tolower(y); });
}

// True when an If-None-Match value (a list of entity tags, or *) names `etag`. Weak tags compare
// weakly, as RFC 9110 asks for If-None-Match.
bool matches(std::string_view if_none_match, std::string_view etag) {
  while (!if_none_match.empty()) {
    const auto comma = if_none_match.find(',');
    auto tag = trim_spaces(if_none_match.substr(0, comma));
    if (tag == "*") return true;
    if (tag.starts_with("W/")) tag.remove_prefix(2);
    if (tag == etag) return true;
    if (comma == std::string_view::npos) break;
    if_none_match.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

bool accepts_gzip(std::string_view accept_encoding) {
  while (!accept_encoding.empty()) {
    const auto comma = accept_encoding.find(',');
    auto item = trim_spaces(accept_encoding.substr(0, comma));
    const auto semi = item.find(';');
    const auto coding = trim_spaces(item.substr(0, semi));
    if (iequals(coding, "gzip") || coding == "*") {
      if (semi == std::string_view::npos) return true;
      auto param = trim_spaces(item.substr(semi + 1));
      // q=0, q=0.0, q=0.000: refused; any other weight accepts
      if (!(param.starts_with("q=") || param.starts_with("Q="))) return true;
      param.remove_prefix(2);
      return param.find_first_not_of("0.") != std::string_view::npos;
    }
    if (comma == std::string_view::npos) break;
    accept_encoding.remove_prefix(comma + 1);
  }
  return false;
}

Response serve(const Request& req, const Asset& asset, const AssetPolicy& policy) {
  Response res;
  res.headers.set("ETag", asset.etag);
  res.headers.set("Cache-Control", asset.immutable ? "public, max-age=31536000, immutable" : "no-cache");
  res.headers.set("Content-Security-Policy", policy.content_security_policy);
  res.headers.set("X-Content-Type-Options", "nosniff");
  res.headers.set("Referrer-Policy", "same-origin");
  res.headers.set("X-Frame-Options", "DENY");
  if (!asset.gzip.empty()) res.headers.set("Vary", "Accept-Encoding");
  if (matches(req.header("If-None-Match"), asset.etag)) {
    res.status = Status::not_modified;
    return res;
  }
  res.headers.set("Content-Type", asset.content_type);
  if (!asset.gzip.empty() && accepts_gzip(req.header("Accept-Encoding"))) {
    res.headers.set("Content-Encoding", "gzip");
    res.body.assign(asset.gzip);
  } else {
    res.body.assign(asset.body);
  }
  return res;
}

}  // namespace core::http
