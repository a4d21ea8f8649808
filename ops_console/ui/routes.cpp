#include "ops_console/ui/routes.hpp"

#include "core/http/assets.hpp"
#include "core/http/problem.hpp"
#include "ops_console/identity/routes.hpp"

#include <string>
#include <unordered_map>

// Generated from ops_console/ui/src by ops_console/ui/embed.py (CMake).
std::span<const core::http::Asset> ops_console_ui_assets();

namespace ops_console {

using boost::asio::awaitable;
using core::http::Request;
using core::http::Response;

void install_ui_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id) {
  identity::Routes routes(ctx.router, id);
  const core::http::AssetPolicy policy{.content_security_policy = kUiContentSecurityPolicy};
  // /assets/<name> → the asset; the others have routes of their own.
  auto hashed = std::make_shared<std::unordered_map<std::string_view, const core::http::Asset*>>();
  for (const auto& asset : ops_console_ui_assets()) {
    if (asset.path.starts_with("/assets/")) {
      hashed->emplace(asset.path.substr(8), &asset);
      continue;
    }
    routes.get(asset.path, identity::Access::open(), [&asset, policy](Request& req) -> awaitable<Response> {
      co_return core::http::serve(req, asset, policy);
    });
  }
  routes.get("/assets/{name}", identity::Access::open(), [hashed, policy](Request& req) -> awaitable<Response> {
    const auto it = hashed->find(req.param("name"));
    // An old page may ask for an asset of the build before: it reloads and gets the new names.
    if (it == hashed->end()) throw core::http::Problem::not_found("no such asset in this build of the console");
    co_return core::http::serve(req, *it->second, policy);
  });
}

}  // namespace ops_console
