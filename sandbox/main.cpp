// The sandbox: faithful fakes of the external systems the services talk to (Microsoft Graph,
// an OpenAI-compatible model server, Autotask, Pax8, Mimecast, Duo, notification channels...),
// on loopback, for tests and the demo. Each fake arrives with the issue that builds its client;
// this binary is their common home. It has no database.
#include "core/config/config.hpp"
#include "core/http/router.hpp"
#include "core/http/server.hpp"
#include "core/log/log.hpp"
#include "sandbox/sandbox.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <iostream>

namespace asio = boost::asio;
using core::http::Request;
using core::http::Response;

namespace {

struct Settings {
  core::http::ServerOptions server;
  std::string log_level;
  sandbox::GraphFakeOptions graph;
  sandbox::ModelFakeOptions model;
  sandbox::AutotaskFakeOptions autotask;
  std::vector<std::string> seed_mailboxes;
  int seed_count = 0;
  bool seed_autotask = false;
  bool seed_pax8 = false;
  sandbox::XeroFakeOptions xero;
  bool seed_xero = false;
  bool seed_mimecast = false;
  bool seed_duo = false;
  bool seed_sentinelone = false;
  bool seed_datto = false;
  bool seed_cloudflare = false;
};

Settings read_settings(core::config::Reader& env) {
  Settings s;
  s.server.bind_address = env.string("BIND_ADDRESS", "127.0.0.1", "address to listen on");
  s.server.port = static_cast<std::uint16_t>(env.integer("PORT", 8090, "TCP port to listen on", {0, 65535}));
  s.server.shutdown_timeout = std::chrono::seconds(2);
  s.log_level = env.one_of("LOG_LEVEL", "info", {"debug", "info", "warn", "error"}, "log threshold");
  s.graph.client_id =
      env.string("SANDBOX_GRAPH_CLIENT_ID", "sandbox-client", "the app id the Graph token endpoint accepts");
  s.graph.client_secret = env.string("SANDBOX_GRAPH_CLIENT_SECRET", "sandbox-secret", "the client secret it accepts");
  s.model.api_key = env.string("SANDBOX_LLM_API_KEY", "", "bearer key the chat-completions fake requires (empty: any)");
  s.seed_mailboxes =
      env.list("SANDBOX_SEED_MAILBOXES", "", "mailboxes created at start with a demo inbox (comma-separated)");
  s.seed_count =
      static_cast<int>(env.integer("SANDBOX_SEED_COUNT", 300, "messages in each seeded mailbox", {0, 100000}));
  s.autotask.integration_code = env.string("SANDBOX_AUTOTASK_INTEGRATION_CODE", s.autotask.integration_code,
                                           "the ApiIntegrationCode the Autotask fake accepts");
  s.autotask.username =
      env.string("SANDBOX_AUTOTASK_USERNAME", s.autotask.username, "the API user (UserName) the Autotask fake accepts");
  s.autotask.secret = env.string("SANDBOX_AUTOTASK_SECRET", s.autotask.secret, "the Secret the Autotask fake accepts");
  s.seed_autotask = env.boolean("SANDBOX_AUTOTASK_SEED", false,
                                "seed the Autotask fake at start with a demo MSP (40 companies, 5,000 tickets)");
  s.seed_pax8 = env.boolean("SANDBOX_PAX8_SEED", false,
                            "seed the Pax8 fake at start with a partner account (40 companies, 6 subscriptions each)");
  s.xero.client_id =
      env.string("SANDBOX_XERO_CLIENT_ID", s.xero.client_id, "the OAuth client_id the Xero fake registers");
  s.xero.client_secret =
      env.string("SANDBOX_XERO_CLIENT_SECRET", s.xero.client_secret, "the client secret the Xero fake accepts");
  s.xero.redirect_hosts = env.list("SANDBOX_XERO_REDIRECT_HOSTS", "127.0.0.1,localhost",
                                   "hosts a Xero redirect_uri may name, any port (comma-separated)");
  s.seed_xero = env.boolean("SANDBOX_XERO_SEED", false,
                            "seed the Xero fake at start with the MSP's books (60 contacts, 18 months of invoices)");
  s.seed_mimecast = env.boolean("SANDBOX_MIMECAST_SEED", false,
                                "seed the Mimecast fake at start (held messages, tracked mail, message counts)");
  s.seed_duo = env.boolean("SANDBOX_DUO_SEED", false, "seed the Duo fake at start (a parent and two child accounts)");
  s.seed_sentinelone =
      env.boolean("SANDBOX_SENTINELONE_SEED", false, "seed the SentinelOne fake at start (sites and agents)");
  s.seed_datto = env.boolean("SANDBOX_DATTO_SEED", false,
                             "seed the Datto BCDR fake at start (devices, protected agents and shares, backups)");
  s.seed_cloudflare = env.boolean("SANDBOX_CLOUDFLARE_SEED", false,
                                  "seed the Cloudflare Access fake at start (applications and their policies)");
  return s;
}

void print_help() {
  auto reader = core::config::Reader::describing();
  read_settings(reader);
  std::cout
      << "sandbox — fakes of the external systems, on loopback, for tests and the demo\n\n"
         "Usage: sandbox [serve|migrate|--help]\n"
         "  serve     serve the fakes over HTTP (the default)\n"
         "  migrate   nothing to do: the sandbox has no database (exits 0)\n\n"
         "Routes: GET /healthz, GET /readyz, GET /_sandbox (the fakes served);\n"
         "  Microsoft Graph: POST /{tenant}/oauth2/v2.0/token, /v1.0/users/{mailbox}/..., control /_sandbox/graph/...\n"
         "  OpenAI-compatible: POST /v1/chat/completions, control /_sandbox/model/...\n"
         "  Notification receivers: POST /chat/v1/spaces/{space}/messages, /telegram/bot{token}/sendMessage,\n"
         "    /ntfy/{topic}, /webhook/{name}; control /_sandbox/notify/...\n"
         "  Autotask REST: /autotask/atservicesrest/V1.0/ZoneInformation, .../V1.0/{Entity}/query, .../query/count,\n"
         "    .../{Entity}/{id}, .../{Entity}/entityInformation/fields; control /_sandbox/autotask/...\n"
         "  Pax8: POST /pax8/v1/token, GET /pax8/v1/companies, /subscriptions, /orders, /invoices, /products;\n"
         "    control /_sandbox/pax8/... (client sandbox-distributor, secret sandbox-distributor-secret)\n"
         "  Xero: GET /xero/identity/connect/authorize, POST /xero/identity/connect/token, GET /xero/api/connections,\n"
         "    /xero/api/api.xro/2.0/{Invoices,Payments,Contacts,Organisation}; control /_sandbox/xero/...\n"
         "  Mimecast: POST /mimecast/oauth/token, /mimecast/api/gateway/..., /mimecast/api/message-finder/...,\n"
         "    GET /mimecast/siem/v1/events/cg; control /_sandbox/mimecast/... (client sandbox-mailsec)\n"
         "  Duo: POST /duo/accounts/v1/account/list, GET /duo/admin/v1/users (signed); control /_sandbox/duo/...\n"
         "  SentinelOne: GET /sentinelone/web/api/v2.1/{sites,agents,agents/count}; control "
         "/_sandbox/sentinelone/...\n"
         "  Datto BCDR: GET /datto/v1/bcdr/device, /datto/v1/bcdr/device/{serialNumber}/asset; control "
         "/_sandbox/datto/...\n\n"
         "  Cloudflare Access: GET /cloudflare/client/v4/accounts/{account}/access/apps[/{app}/policies]; control "
         "/_sandbox/cloudflare/...\n\n"
         "Environment:\n"
      << core::config::format_help(reader.described());
}

}  // namespace

int main(int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "serve";
  if (command == "--help" || command == "-h" || command == "help") {
    print_help();
    return 0;
  }
  if (command == "migrate") return 0;
  if (command != "serve" || argc > 2) {
    std::cerr << "sandbox: unknown command '" << command << "'; see sandbox --help\n";
    return 2;
  }
  core::log::init("sandbox");
  try {
    core::config::Reader env(core::config::load_environment());
    const auto settings = read_settings(env);
    env.finish();
    core::log::init("sandbox", core::log::parse_level(settings.log_level).value_or(core::log::Level::info));

    asio::io_context io;
    sandbox::Fakes fakes(settings.graph, settings.model, settings.autotask);
    for (const auto& mailbox : settings.seed_mailboxes) fakes.graph.seed(mailbox, settings.seed_count);
    if (settings.seed_autotask) fakes.autotask.seed({});
    if (settings.seed_pax8) fakes.pax8.seed({});
    fakes.xero.configure(settings.xero);
    if (settings.seed_xero) fakes.xero.seed({});
    if (settings.seed_mimecast) fakes.mimecast.seed({});
    if (settings.seed_duo) fakes.duo.seed({});
    if (settings.seed_sentinelone) fakes.sentinelone.seed({});
    if (settings.seed_datto) fakes.datto.seed({});
    if (settings.seed_cloudflare) fakes.cloudflare.seed({});
    const auto router = sandbox::routes(fakes);
    core::http::Server server(io.get_executor(), settings.server,
                              {core::http::request_id(), core::http::access_log(), core::http::problems()},
                              [&router](Request& req) { return router(req); });
    const auto port = server.start();
    core::log::info("listening", {{"address", settings.server.bind_address}, {"port", port}});

    asio::signal_set signals(io, SIGINT, SIGTERM);
    signals.async_wait([&](const boost::system::error_code& ec, int) {
      if (!ec) asio::co_spawn(io, server.stop(), asio::detached);
    });
    io.run();
    return 0;
  } catch (const core::config::ConfigError& e) {
    std::cerr << "sandbox: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "sandbox: " << e.what() << "\n";
    return 1;
  }
}
