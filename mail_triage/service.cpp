#include "mail_triage/service.hpp"

#include "mail_triage/api/analysis.hpp"
#include "mail_triage/api/auth.hpp"
#include "mail_triage/api/log.hpp"
#include "mail_triage/api/process.hpp"
#include "mail_triage/api/purge.hpp"
#include "mail_triage/api/purge_rules.hpp"
#include "mail_triage/api/senders.hpp"
#include "mail_triage/api/whitelist.hpp"
#include "mail_triage/dbusers/console.hpp"

std::span<const core::db::Migration> mail_triage_migrations();
std::span<const std::string_view> mail_triage_api_descriptions();

namespace mail_triage {

const core::app::ServiceDefinition& definition() {
  static const core::app::ServiceDefinition def{
      .name = "mail-triage",
      .summary = "fetches unread Microsoft 365 mail, classifies it, logs the outcome; JSON API under /api/v1/",
      .default_port = 8080,
      .default_database = "mail_triage",
      .migrations = mail_triage_migrations(),
      .configure = [](core::config::Reader& env) -> core::app::Setup {
        auto keys = read_api_keys(env);
        auto triage_settings = pipeline::read_triage_settings(env);
        auto console_settings = dbusers::read_console_settings(env, keys);
        return [keys = std::move(keys), triage_settings = std::move(triage_settings),
                console_settings = std::move(console_settings)](core::app::Context& ctx) {
          ctx.pipeline.add(bearer_auth(keys));
          auto graph = pipeline::make_graph_client(ctx.executor, triage_settings);
          auto triage = std::make_shared<pipeline::Triage>(ctx.executor, ctx.db, triage_settings, graph);
          triage->count_in(ctx.metrics);
          install_process_routes(ctx, triage);
          install_purge_routes(
              ctx, std::make_shared<pipeline::Purge>(ctx.executor, ctx.db, graph, triage_settings.mailboxes));
          triage->start_schedule();
          ctx.stop_hooks.push_back([triage] { triage->stop_schedule(); });
          install_log_routes(ctx);
          install_sender_routes(ctx);
          install_purge_rule_routes(ctx);
          install_whitelist_routes(ctx);
          install_analysis_routes(ctx);
          dbusers::install_console_routes(ctx, console_settings);
          ctx.router.get("/openapi.json", core::app::api_document_handler(definition(), ctx.router));
          ctx.router.declare_access(access_of);
        };
      },
      .api = {.version = "1.0.0",
              .access = documented_access(),
              .common = {{"400", "a percent-escape of the path or query that does not decode (any route)"},
                         {"413", "a body longer than HTTP_MAX_BODY_BYTES (any route)"},
                         {"500", "an unexpected fault (the problem's request_id names it in the log)"},
                         {"503", "the database did not answer in time, or is down"}},
              .texts = mail_triage_api_descriptions()},
      .default_metrics_address = "127.0.0.1:9463",
      // Its routes are single small statements: 1.12x the rate, 0.92x the CPU, p99 11 ms instead
      // of 80 ms with two pipelines (bench/RESULTS.md, issue 36).
      .default_db_pipelines = 2,
  };
  return def;
}

}  // namespace mail_triage
