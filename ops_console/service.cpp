#include "ops_console/service.hpp"

#include "ops_console/analyzer/jobs.hpp"
#include "ops_console/api/access_gateway.hpp"
#include "ops_console/api/accounting.hpp"
#include "ops_console/api/admin.hpp"
#include "ops_console/api/analyzer.hpp"
#include "ops_console/api/auth.hpp"
#include "ops_console/api/backup.hpp"
#include "ops_console/api/dashboard.hpp"
#include "ops_console/api/data.hpp"
#include "ops_console/api/distributor.hpp"
#include "ops_console/api/endpointsec.hpp"
#include "ops_console/api/engagement.hpp"
#include "ops_console/api/event_keys.hpp"
#include "ops_console/api/gitforge.hpp"
#include "ops_console/api/integrations.hpp"
#include "ops_console/api/log_evidence.hpp"
#include "ops_console/api/mailsec.hpp"
#include "ops_console/api/mfa.hpp"
#include "ops_console/api/mobile.hpp"
#include "ops_console/api/morning_summary.hpp"
#include "ops_console/api/notifications.hpp"
#include "ops_console/api/phishing.hpp"
#include "ops_console/api/preferences.hpp"
#include "ops_console/api/rmm.hpp"
#include "ops_console/api/sync.hpp"
#include "ops_console/api/tags.hpp"
#include "ops_console/api/webhooks.hpp"
#include "ops_console/dashboard/kept_days.hpp"
#include "ops_console/identity/create_user.hpp"
#include "ops_console/identity/identity.hpp"
#include "ops_console/identity/routes.hpp"
#include "ops_console/integrations/registry.hpp"
#include "ops_console/mailsec/counts.hpp"
#include "ops_console/metrics/queues.hpp"
#include "ops_console/notify/notifier.hpp"
#include "ops_console/ui/routes.hpp"

#include "core/async/schedule.hpp"
#include "core/db/listener.hpp"
#include "core/http/middleware.hpp"

#include <iostream>

std::span<const core::db::Migration> ops_console_migrations();
std::span<const std::string_view> ops_console_api_descriptions();

namespace ops_console {

namespace {

// Every instance drops its cached integration settings when the table announces a change, and
// after each reconnect of its listener (it may have missed announcements meanwhile).
void follow_integration_changes(core::app::Context& ctx, std::shared_ptr<integrations::Registry> registry) {
  auto listener = std::make_shared<core::db::Listener>(
      ctx.executor,
      core::db::ListenerOptions{.conninfo = std::string(ctx.conninfo), .channel = std::string(integrations::kChannel)},
      [registry](const std::string&) { registry->clear_cache(); }, [registry] { registry->clear_cache(); });
  listener->start();
  ctx.stop_hooks.push_back([listener] { listener->stop(); });
}

// The PSA's client, sync and schedule, when the PSA is configured; the webhook intake always
// (without a client it applies what the callouts carry and cannot fetch what the copy lacks).
void install_psa(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                 std::shared_ptr<integrations::Registry> registry, const psa::PsaSettings& settings,
                 const integrations::Health& health) {
  std::shared_ptr<psa::AutotaskClient> client;
  std::shared_ptr<psa::PsaSync> sync;
  if (settings.configured()) {
    client = std::make_shared<psa::AutotaskClient>(ctx.executor, settings, health);
    sync = std::make_shared<psa::PsaSync>(ctx.db, ctx.executor, client, settings);
    // The schedule skips a run while the integration is switched off or another run holds the lock.
    auto schedule = core::async::Schedule::start(
        ctx.executor, settings.sync_interval,
        [sync, registry]() -> boost::asio::awaitable<void> { co_await scheduled_psa_sync(*registry, *sync); },
        "psa sync", ctx.clock);
    ctx.stop_hooks.push_back([schedule] { schedule->stop(); });
  }
  install_sync_routes(ctx, id, registry, sync);
  auto intake = std::make_shared<psa::WebhookIntake>(ctx.db, client, settings.webhook_secret);
  install_queue_metrics(ctx, [intake] { return intake->waiting(); });
  install_webhook_routes(ctx, id, intake);
  install_phishing_routes(ctx, id, client, registry);  // without a client, only pasted headers are read
}

// The distributor's client and sync when it is configured; its routes always (the copy answers
// without it, the sync route says 503).
void install_distributor(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                         std::shared_ptr<integrations::Registry> registry,
                         const distributor::DistributorSettings& settings, const integrations::Health& health) {
  std::shared_ptr<distributor::DistributorSync> sync;
  if (settings.configured())
    sync = std::make_shared<distributor::DistributorSync>(
        ctx.db, ctx.executor, std::make_shared<distributor::Pax8Client>(ctx.executor, settings, health));
  install_distributor_routes(ctx, id, std::move(registry), std::move(sync));
}

// The accounting connection and sync when the app is configured; the routes always (status and
// summary answer from the copy, the others say 503).
void install_accounting(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                        std::shared_ptr<integrations::Registry> registry,
                        const accounting::AccountingSettings& settings, const integrations::Health& health) {
  std::shared_ptr<accounting::AccountingConnection> connection;
  std::shared_ptr<accounting::AccountingSync> sync;
  if (settings.configured()) {
    connection = std::make_shared<accounting::AccountingConnection>(
        ctx.db, std::make_shared<accounting::XeroClient>(ctx.executor, settings, health));
    sync = std::make_shared<accounting::AccountingSync>(ctx.db, ctx.executor, connection);
  }
  install_accounting_routes(ctx, id, std::move(registry), std::move(connection), std::move(sync));
}

// The MFA client whenever its settings are complete; the routes always (503 naming what is
// missing otherwise). Returns the flagged users (null when not configured) for the morning summary.
std::shared_ptr<mfa::FlaggedUsers> install_mfa(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                                               std::shared_ptr<integrations::Registry> registry,
                                               const mfa::MfaSettings& settings, const integrations::Health& health) {
  std::shared_ptr<mfa::FlaggedUsers> flagged;
  if (settings.missing().empty())
    flagged = std::make_shared<mfa::FlaggedUsers>(ctx.executor,
                                                  std::make_shared<mfa::DuoClient>(ctx.executor, settings, health));
  install_mfa_routes(ctx, id, std::move(registry), flagged, settings);
  return flagged;
}

// The endpoint-security client and sync whenever its settings are complete; the routes always.
void install_endpointsec(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                         std::shared_ptr<integrations::Registry> registry,
                         const endpointsec::EndpointSecSettings& settings, const integrations::Health& health) {
  std::shared_ptr<endpointsec::EndpointSecSync> sync;
  if (settings.missing().empty())
    sync = std::make_shared<endpointsec::EndpointSecSync>(
        ctx.db, ctx.executor, std::make_shared<endpointsec::SentinelOneClient>(ctx.executor, settings, health));
  install_endpointsec_routes(ctx, id, std::move(registry), std::move(sync), settings);
}

// The backup client and sync whenever its settings are complete, with its schedule (every
// BACKUP_SYNC_MINUTES, skipped while the integration is switched off or a run holds the lock); the
// routes always.
void install_backup(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                    std::shared_ptr<integrations::Registry> registry, const backup::BackupSettings& settings,
                    const integrations::Health& health) {
  std::shared_ptr<backup::BackupSync> sync;
  if (settings.missing().empty()) {
    sync = std::make_shared<backup::BackupSync>(ctx.db, ctx.executor,
                                                std::make_shared<backup::DattoClient>(ctx.executor, settings, health));
    if (settings.interval.count() > 0) {
      auto schedule = core::async::Schedule::start(
          ctx.executor, settings.interval,
          [registry, sync]() -> boost::asio::awaitable<void> {
            if ((co_await registry->disabled()).contains("backup")) co_return;
            co_await sync->run_if_free();
          },
          "backup sync", ctx.clock);
      ctx.stop_hooks.push_back([schedule] { schedule->stop(); });
    }
  }
  install_backup_routes(ctx, id, std::move(registry), std::move(sync), settings);
}

// The remote-management client, its sync and the execution worker whenever its settings are
// complete; the routes always (503 naming what is missing otherwise).
void install_rmm(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                 std::shared_ptr<integrations::Registry> registry, const rmm::RmmSettings& settings,
                 const integrations::Health& health) {
  std::shared_ptr<rmm::RmmSync> sync;
  std::shared_ptr<rmm::RmmExecutor> worker;
  if (settings.missing().empty()) {
    auto client = std::make_shared<rmm::TacticalClient>(ctx.executor, settings, health);
    sync = std::make_shared<rmm::RmmSync>(ctx.db, ctx.executor, client);
    worker = rmm::RmmExecutor::start(ctx.conninfo, ctx.executor, client, registry,
                                     {.lease_margin = settings.lease_margin, .output_limit = settings.output_limit});
    ctx.stop_hooks.push_back([worker] { worker->stop(); });
  }
  install_rmm_routes(ctx, id, std::move(registry), std::move(sync), std::move(worker), settings);
}

// The access gateway's sync when configured; its routes (the configuration-only health row among them) always.
void install_access_gateway(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                            std::shared_ptr<integrations::Registry> registry,
                            const access_gateway::AccessGatewaySettings& settings, const integrations::Health& health) {
  std::shared_ptr<access_gateway::AccessGatewaySync> sync;
  if (settings.missing().empty())
    sync = std::make_shared<access_gateway::AccessGatewaySync>(
        ctx.db, ctx.executor, std::make_shared<access_gateway::CloudflareAccessClient>(ctx.executor, settings, health));
  install_access_gateway_routes(ctx, id, std::move(registry), std::move(sync), settings);
}

// A mail-security client per configured tenant, the Graph client for remediation when GRAPH_* is
// set; the routes always.
void install_mailsec(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                     std::shared_ptr<integrations::Registry> registry, const mailsec::MailsecSettings& settings,
                     const core::graph::GraphSettings& graph, std::shared_ptr<core::graph::GraphClient> graph_client,
                     const integrations::Health& health) {
  auto wiring = std::make_shared<MailsecWiring>();
  wiring->settings = settings;
  for (const auto& tenant : settings.tenants)
    wiring->tenants[tenant.name] = std::make_shared<mailsec::MimecastClient>(ctx.executor, tenant, health);
  wiring->graph_missing = graph.missing();
  wiring->graph = std::move(graph_client);
  // The message counts of the first tenant: pulled at start and every MAILSEC_COUNTS_MINUTES; days
  // past 18 months deleted at start and daily. Both skip while the integration is switched off.
  if (!settings.tenants.empty() && settings.counts_interval.count() > 0) {
    auto counts = std::make_shared<mailsec::MessageCounts>(ctx.db, wiring->tenants.at(settings.tenants.front().name));
    const auto unless_off = [registry](std::function<boost::asio::awaitable<void>()> job) {
      return [registry, job]() -> boost::asio::awaitable<void> {
        if ((co_await registry->disabled()).contains("mailsec")) co_return;
        co_await job();
      };
    };
    auto pull =
        core::async::Schedule::start(ctx.executor, settings.counts_interval,
                                     unless_off([counts] { return counts->pull(); }), "mailsec counts", ctx.clock);
    auto retain =
        core::async::Schedule::start(ctx.executor, std::chrono::hours(24),
                                     unless_off([counts] { return counts->retain(); }), "mailsec retention", ctx.clock);
    pull->wake();
    retain->wake();
    ctx.stop_hooks.push_back([pull, retain] {
      pull->stop();
      retain->stop();
    });
  }
  install_mailsec_routes(ctx, id, std::move(registry), std::move(wiring));
}

// The analyzer's routes always; its workers when a model is configured and this instance runs any.
void install_analyzer(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                      const analyzer::AnalyzerSettings& settings, const core::llm::LlmSettings& llm,
                      std::shared_ptr<core::graph::GraphClient> graph, const integrations::Health& health) {
  auto wiring = std::make_shared<AnalyzerWiring>();
  wiring->settings = settings;
  if (llm.configured())  // the analyzer's and the phishing classification's model calls
    wiring->llm = std::make_shared<core::llm::ChatClient>(ctx.executor, llm, health.outcome("analyzer"));
  wiring->graph = std::move(graph);
  if (wiring->llm && settings.workers > 0)
    analyzer::Workers::start(ctx, std::make_shared<analyzer::Pipeline>(ctx.db, wiring->llm, settings), settings);
  install_phishing_classify_route(ctx, id, wiring->llm, settings.pricing);
  install_analyzer_routes(ctx, id, std::move(wiring));
}

}  // namespace

const core::app::ServiceDefinition& definition() {
  static const core::app::ServiceDefinition def{
      .name = "ops-console",
      .summary = "internal HTTP routes of the MSP operations console (PSA sync, dashboards, notifications, ...)",
      .default_port = 8081,
      .default_database = "ops_console",
      .migrations = ops_console_migrations(),
      .configure = [](core::config::Reader& env) -> core::app::Setup {
        auto identity_settings = identity::read_identity_settings(env);
        integrations::RegistryOptions registry_options{
            .env_disabled = integrations::parse_disabled_list(
                env.list("INTEGRATIONS_DISABLED", "",
                         "integrations switched off whatever the database says, comma-separated keys or product names "
                         "(e.g. pax8,mimecast)")),
            .cache_ttl = std::chrono::seconds(env.integer(
                "INTEGRATION_CACHE_SECONDS", 60,
                "how long an instance keeps the disabled-integration rows; changes clear it at once", {1, 86400}))};
        auto notify_settings = notify::read_notify_settings(env);
        auto psa_settings = psa::read_psa_settings(env);
        auto gitforge_settings = read_gitforge_settings(env, notify_settings.timeout);
        auto distributor_settings = distributor::read_distributor_settings(env);
        auto accounting_settings = accounting::read_accounting_settings(env);
        auto mfa_settings = mfa::read_mfa_settings(env);
        auto endpointsec_settings = endpointsec::read_endpointsec_settings(env);
        auto backup_settings = backup::read_backup_settings(env);
        auto mailsec_settings = mailsec::read_mailsec_settings(env);
        auto rmm_settings = rmm::read_rmm_settings(env);
        auto graph_settings = core::graph::read_graph_settings(env);
        auto llm_settings = core::llm::read_llm_settings(env);
        auto analyzer_settings = analyzer::read_analyzer_settings(env);
        auto clock = dashboard::read_clock(env);
        const auto trends_keep = dashboard::read_trends_keep(env);
        auto morning_settings = morning::read_morning_settings(env);
        auto engagement_settings = engagement::read_engagement_settings(env);
        auto log_evidence_settings = read_log_evidence_settings(env);
        auto access_gateway_settings = access_gateway::read_access_gateway_settings(env);
        return
            [identity_settings, registry_options, notify_settings, psa_settings, gitforge_settings,
             distributor_settings, accounting_settings, mfa_settings, endpointsec_settings, backup_settings,
             mailsec_settings, graph_settings, llm_settings, analyzer_settings, clock, trends_keep, engagement_settings,
             morning_settings, rmm_settings, log_evidence_settings, access_gateway_settings](core::app::Context& ctx) {
              // A browser's write from another site is refused before routing (the cookie is SameSite
              // already; this is the second lock).
              ctx.pipeline.add(core::http::same_origin_writes());
              auto id = std::make_shared<identity::Identity>(ctx.db, identity_settings);
              if (auto sessions = id->follow_session_changes(ctx.executor, std::string(ctx.conninfo)))
                ctx.stop_hooks.push_back([sessions] { sessions->stop(); });
              auto registry = std::make_shared<integrations::Registry>(ctx.db, registry_options);
              install_auth_routes(ctx, id);
              install_preference_routes(ctx, id);
              install_admin_routes(ctx, id);
              install_data_routes(ctx, id);
              install_integration_routes(ctx, id, registry);
              follow_integration_changes(ctx, registry);
              install_event_key_routes(ctx, id);
              auto notifier = std::make_shared<const notify::Notifier>(ctx.db, ctx.executor, notify_settings);
              install_notification_routes(ctx, id, notifier);
              // Every client's call outcomes, for the integration-health dashboard: one recorder.
              const integrations::Health health(ctx.db, ctx.executor);
              install_psa(ctx, id, registry, psa_settings, health);
              install_tag_routes(ctx, id);
              auto dispatcher = gitforge::AgentDispatcher::start(ctx.conninfo, ctx.executor, notify_settings,
                                                                 {.lease = gitforge_settings.copy_lease});
              ctx.stop_hooks.push_back([dispatcher] { dispatcher->stop(); });
              install_gitforge_routes(ctx, id, gitforge_settings, notifier, dispatcher);
              install_agent_instance_routes(ctx, id, notify_settings);
              install_log_evidence_routes(ctx, id, log_evidence_settings);
              install_distributor(ctx, id, registry, distributor_settings, health);
              install_accounting(ctx, id, registry, accounting_settings, health);
              // One Graph client for every area that reaches Microsoft 365 (mail-security remediation, the
              // analyzer's shares, the directory): one token cache, one in-flight limit per mailbox. Its mail
              // calls are recorded as the mail platform's; the directory's callers record theirs.
              std::shared_ptr<core::graph::GraphClient> graph_client;
              if (graph_settings.missing().empty())
                graph_client = std::make_shared<core::graph::GraphClient>(ctx.executor, graph_settings,
                                                                          health.outcome("mailplatform"));
              auto flagged = install_mfa(ctx, id, registry, mfa_settings, health);
              install_endpointsec(ctx, id, registry, endpointsec_settings, health);
              install_backup(ctx, id, registry, backup_settings, health);
              install_rmm(ctx, id, registry, rmm_settings, health);
              install_access_gateway(ctx, id, registry, access_gateway_settings, health);
              install_mailsec(ctx, id, registry, mailsec_settings, graph_settings, graph_client, health);
              install_analyzer(ctx, id, analyzer_settings, llm_settings, graph_client, health);
              install_dashboard_routes(ctx, id, registry, clock, trends_keep);
              install_mobile_routes(ctx, id, registry, clock);
              install_engagement(ctx, id, registry, engagement_settings, mailsec_settings, graph_settings, graph_client,
                                 clock, health);
              install_morning_summary(ctx, id, registry, notifier, flagged, clock, morning_settings);
              install_ui_routes(ctx, id);
              identity::Routes(ctx.router, id)
                  .get("/openapi.json", core::app::api_document_handler(definition(), ctx.router));
            };
      },
      .api = {.version = "1.0.0",
              .access = identity::documented_access(),
              .common = {{"400", "a percent-escape of the path or query that does not decode (any route)"},
                         {"413", "a body longer than HTTP_MAX_BODY_BYTES (any route)"},
                         {"500", "an unexpected fault (the problem's request_id names it in the log)"},
                         {"503", "the database did not answer in time, or is down"}},
              .texts = ops_console_api_descriptions()},
      .commands = {{.name = "create-user",
                    .usage = "--email E --name N [--admin] [--permission resource:action]... --password-stdin",
                    .summary = "create a console user; the password is the first line of standard input",
                    .run =
                        [](const std::vector<std::string>& args, const std::string& conninfo) {
                          return identity::create_user_command(args, conninfo, std::cin, std::cout, std::cerr);
                        }}},
      .default_metrics_address = "127.0.0.1:9464",
  };
  return def;
}

}  // namespace ops_console
