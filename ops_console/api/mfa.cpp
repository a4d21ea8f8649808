#include "ops_console/api/mfa.hpp"

#include "core/http/problem.hpp"
#include "ops_console/identity/routes.hpp"

namespace ops_console {

using boost::asio::awaitable;
using core::http::Request;
using core::http::Response;
using nlohmann::json;

void install_mfa_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                        std::shared_ptr<integrations::Registry> registry, std::shared_ptr<mfa::FlaggedUsers> flagged,
                        mfa::MfaSettings settings) {
  identity::Routes routes(ctx.router, id);
  const auto missing = settings.missing();

  // 403 switched off, then 503 not configured; else the flagged users (cached for a while), and
  // a 502 when the parent account itself could not be read.
  auto flagged_users = [registry, flagged, missing]() -> awaitable<json> {
    co_await registry->require_enabled("mfa", "MFA");
    if (!missing.empty()) throw integrations::not_configured("the MFA service", missing);
    json f = co_await flagged->get();
    const auto& parent = f["accounts"][0];
    if (parent.contains("error")) throw mfa::MfaError(parent["error"].get<std::string>());
    co_return f;
  };

  routes.get("/api/mfa/status", [flagged_users](Request&) -> awaitable<Response> {
    const json f = co_await flagged_users();
    std::size_t failed = 0;
    for (const auto& a : f["accounts"]) failed += a.contains("error");
    co_return Response::json({{"bypass", f["bypass"].size()},
                              {"disabled", f["disabled"].size()},
                              {"accounts", f["accounts"].size()},
                              {"failedAccounts", failed},
                              {"fetchedAt", f["fetchedAt"]},
                              {"cached", f["cached"]}});
  });

  routes.get("/api/mfa/users/flagged",
             [flagged_users](Request&) -> awaitable<Response> { co_return Response::json(co_await flagged_users()); });
}

}  // namespace ops_console
