#pragma once
// Static files compiled into a binary (a web UI's HTML, CSS, modules and images), served with the
// headers that make them safe to cache across upgrades and to run under a strict policy.
//
//   for (const auto& asset : ops_console_ui_assets())
//     router.get(asset.path, [&asset](Request& req) -> awaitable<Response> { co_return serve(req, asset, policy); });
//
// An asset whose name carries its content's hash is `immutable`: the browser keeps it for a year
// (a new build has new names). The others (the page at /, the service worker, the manifest) are
// revalidated on every use through their ETag, and a matching If-None-Match is a 304.
#include "core/http/message.hpp"

#include <span>
#include <string_view>

namespace core::http {

struct Asset {
  std::string_view path;          // as requested: "/", "/assets/main.0a1b2c3d4e.js"
  std::string_view content_type;  // "text/javascript; charset=utf-8"
  std::string_view etag;          // a quoted strong validator: "\"9f86d081884c7d65\""
  bool immutable = false;         // the path names the content's hash
  std::string_view body;
  std::string_view gzip;  // the body gzipped at build time; empty when it does not pay
};

// The response headers every asset carries: its Content-Security-Policy and the usual hardening
// (nosniff, no referrer beyond the origin, no framing).
struct AssetPolicy {
  std::string_view content_security_policy;
};

// The response for `asset`: 304 when If-None-Match names its ETag; the gzip copy when the request
// accepts gzip (with Vary: Accept-Encoding either way); Cache-Control by `immutable`.
Response serve(const Request& req, const Asset& asset, const AssetPolicy& policy);

// True when an Accept-Encoding value accepts gzip (a `gzip;q=0` refuses it).
bool accepts_gzip(std::string_view accept_encoding);

}  // namespace core::http
