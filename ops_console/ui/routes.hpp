#pragma once
// The console's web UI (ops_console/ui/README.md): the shell at /, its content-hashed assets under
// /assets/, the service worker at /sw.js and the web-app manifest. These are the only public
// routes besides the spec's allowlist: they hold no data, and every figure the UI shows comes
// from the documented JSON routes, behind the session like any other client's.
//
//   GET /                       public  the shell (index.html), revalidated by ETag
//   GET /assets/{name}          public  a module, stylesheet or image; immutable for a year
//   GET /sw.js                  public  the service worker (caches the shell, never API data)
//   GET /manifest.webmanifest   public  the web-app manifest (installable on a phone)
#include "core/app/service.hpp"
#include "ops_console/identity/identity.hpp"

namespace ops_console {

// The policy every UI response carries: nothing but this origin's own scripts, styles, images and
// connections; no inline script or style; never framed.
inline constexpr std::string_view kUiContentSecurityPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; manifest-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'";

void install_ui_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> identity);

}  // namespace ops_console
