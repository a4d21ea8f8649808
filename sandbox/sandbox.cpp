#include "sandbox/sandbox.hpp"

#include "core/http/middleware.hpp"
#include "core/http/server.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <thread>

namespace sandbox {

namespace asio = boost::asio;
using core::http::Request;
using core::http::Response;

core::http::Router routes(Fakes& fakes) {
  core::http::Router r;
  r.get("/healthz", [](Request&) -> asio::awaitable<Response> { co_return Response::json({{"status", "ok"}}); });
  r.get("/readyz", [](Request&) -> asio::awaitable<Response> { co_return Response::json({{"status", "ready"}}); });
  r.get("/_sandbox", [](Request&) -> asio::awaitable<Response> {
    co_return Response::json(
        {{"fakes",
          {{{"name", "microsoft-graph"},
            {"serves",
             {"POST /{tenant}/oauth2/v2.0/token", "/v1.0/users/{mailbox}/...", "GET /v1.0/users/{id}/photo/$value",
              "GET /v1.0/reports/getEmailActivityUserDetail(period='D7'|date=YYYY-MM-DD)"}},
            {"control", "/_sandbox/graph"}},
           {{"name", "openai-chat-completions"},
            {"serves", {"POST /v1/chat/completions"}},
            {"control", "/_sandbox/model"}},
           {{"name", "notification-receivers"},
            {"serves",
             {"POST /chat/v1/spaces/{space}/messages", "POST /telegram/bot{token}/sendMessage", "POST /ntfy/{topic}",
              "POST /webhook/{name}"}},
            {"control", "/_sandbox/notify"}},
           {{"name", "autotask-rest"},
            {"serves",
             {"GET /autotask/atservicesrest/V1.0/ZoneInformation?user={email}",
              "POST /autotask/atservicesrest/V1.0/{Entity}/query", "/autotask/atservicesrest/V1.0/..."}},
            {"control", "/_sandbox/autotask"}},
           {{"name", "gitforge"},
            {"serves", {"POST /agent/{name}/events"}},
            {"sends", {"POST /_sandbox/gitforge/push: a GitHub or Gitea push webhook to {url}"}},
            {"control", "/_sandbox/agent"}},
           {{"name", "pax8"},
            {"serves", {"POST /pax8/v1/token", "GET /pax8/v1/companies", "/pax8/v1/..."}},
            {"control", "/_sandbox/pax8"}},
           {{"name", "xero-accounting"},
            {"serves",
             {"GET /xero/identity/connect/authorize", "POST /xero/identity/connect/token", "GET /xero/api/connections",
              "GET /xero/api/api.xro/2.0/{Invoices|Payments|Contacts|Organisation}"}},
            {"control", "/_sandbox/xero"}},
           {{"name", "mimecast"},
            {"serves",
             {"POST /mimecast/oauth/token", "POST /mimecast/api/gateway/get-hold-message-list",
              "POST /mimecast/api/gateway/hold-release", "POST /mimecast/api/message-finder/search",
              "POST /mimecast/api/message-finder/get-message-info", "GET /mimecast/siem/v1/events/cg"}},
            {"control", "/_sandbox/mimecast"}},
           {{"name", "duo"},
            {"serves", {"POST /duo/accounts/v1/account/list", "GET /duo/admin/v1/users"}},
            {"control", "/_sandbox/duo"}},
           {{"name", "sentinelone"},
            {"serves",
             {"GET /sentinelone/web/api/v2.1/sites", "GET /sentinelone/web/api/v2.1/agents",
              "GET /sentinelone/web/api/v2.1/agents/count"}},
            {"control", "/_sandbox/sentinelone"}},
           {{"name", "datto"},
            {"serves", {"GET /datto/v1/bcdr/device", "GET /datto/v1/bcdr/device/{serialNumber}/asset"}},
            {"control", "/_sandbox/datto"}},
           {{"name", "tacticalrmm"},
            {"serves",
             {"GET /tacticalrmm/clients/", "GET /tacticalrmm/clients/sites/", "GET /tacticalrmm/agents/",
              "GET /tacticalrmm/agents/{agent_id}/", "GET /tacticalrmm/agents/{agent_id}/history/",
              "GET /tacticalrmm/scripts/", "POST /tacticalrmm/agents/{agent_id}/runscript/"}},
            {"control", "/_sandbox/tacticalrmm"}},
           {{"name", "cloudflare-access"},
            {"serves",
             {"GET /cloudflare/client/v4/accounts/{account_id}/access/apps",
              "GET /cloudflare/client/v4/accounts/{account_id}/access/apps/{app_id}/policies"}},
            {"control", "/_sandbox/cloudflare"}}}}});
  });
  fakes.graph.install(r);
  fakes.model.install(r);
  fakes.notify.install(r);
  fakes.autotask.install(r);
  fakes.gitforge.install(r);
  fakes.pax8.install(r);
  fakes.xero.install(r);
  fakes.mimecast.install(r);
  fakes.duo.install(r);
  fakes.sentinelone.install(r);
  fakes.datto.install(r);
  fakes.tacticalrmm.install(r);
  fakes.cloudflare.install(r);
  return r;
}

struct InProcess::Impl {
  Impl(GraphFakeOptions g, ModelFakeOptions m, AutotaskFakeOptions a)
      : fakes(std::move(g), std::move(m), std::move(a)),
        router(routes(fakes)),
        server(io.get_executor(), core::http::ServerOptions{.shutdown_timeout = std::chrono::seconds(1)},
               {core::http::request_id(), core::http::problems()}, [this](Request& req) { return router(req); }) {}
  Fakes fakes;
  asio::io_context io;
  core::http::Router router;
  core::http::Server server;
  std::thread thread;
};

InProcess::InProcess(GraphFakeOptions graph_options, ModelFakeOptions model_options,
                     AutotaskFakeOptions autotask_options)
    : impl_(std::make_unique<Impl>(std::move(graph_options), std::move(model_options), std::move(autotask_options))) {
  impl_->server.start();
  impl_->thread = std::thread([this] { impl_->io.run(); });
}

InProcess::~InProcess() {
  asio::co_spawn(impl_->io, impl_->server.stop(), asio::use_future).get();
  impl_->io.stop();
  impl_->thread.join();
}

std::uint16_t InProcess::port() const { return impl_->server.port(); }
std::string InProcess::url() const { return "http://127.0.0.1:" + std::to_string(port()); }
GraphFake& InProcess::graph() { return impl_->fakes.graph; }
ModelFake& InProcess::model() { return impl_->fakes.model; }
NotifyFake& InProcess::notify() { return impl_->fakes.notify; }
AutotaskFake& InProcess::autotask() { return impl_->fakes.autotask; }
GitforgeFake& InProcess::gitforge() { return impl_->fakes.gitforge; }
Pax8Fake& InProcess::pax8() { return impl_->fakes.pax8; }
XeroFake& InProcess::xero() { return impl_->fakes.xero; }
MimecastFake& InProcess::mimecast() { return impl_->fakes.mimecast; }
DuoFake& InProcess::duo() { return impl_->fakes.duo; }
TacticalRmmFake& InProcess::tacticalrmm() { return impl_->fakes.tacticalrmm; }
SentinelOneFake& InProcess::sentinelone() { return impl_->fakes.sentinelone; }
DattoFake& InProcess::datto() { return impl_->fakes.datto; }
CloudflareAccessFake& InProcess::cloudflare() { return impl_->fakes.cloudflare; }

}  // namespace sandbox
