#include "ops_console/api/rmm.hpp"

#include "core/app/json_rows.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "core/util/strings.hpp"
#include "ops_console/identity/routes.hpp"
#include "ops_console/integrations/company_mappings.hpp"

namespace ops_console {

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using identity::Access;

namespace {

// Clients render as rmm_client_json() (migration 0026).
constexpr std::string_view kRmmClients = R"sql(
  SELECT coalesce(json_agg(rmm_client_json(c) ORDER BY lower(c.name), c.id), '[]'::json)
  FROM rmm_clients c WHERE c.deleted_at IS NULL
)sql";
// rmm_client_json() (migration 0026) of the clients without a company.
constexpr std::string_view kRmmUnmatched = R"sql(
  SELECT coalesce(json_agg(j ORDER BY lower(j->>'name')), '[]'::json)
  FROM (SELECT rmm_client_json(c) AS j FROM rmm_clients c WHERE c.deleted_at IS NULL) x
  WHERE j->>'companyId' IS NULL
)sql";

constexpr std::string_view kRmmClientExists = "SELECT 1 FROM rmm_clients WHERE id = $1 AND deleted_at IS NULL";
constexpr std::string_view kRmmMap = R"sql(
  INSERT INTO rmm_company_mappings (client_id, company_id, mapped_by) VALUES ($1, $2, $3)
  ON CONFLICT (client_id) DO UPDATE SET company_id = EXCLUDED.company_id, mapped_by = EXCLUDED.mapped_by,
    mapped_at = now()
  RETURNING json_build_object('clientId', client_id, 'companyId', company_id, 'mappedAt', mapped_at)
)sql";
constexpr std::string_view kRmmUnmap = "DELETE FROM rmm_company_mappings WHERE client_id = $1 RETURNING 1";

constexpr std::string_view kRmmAgents = R"sql(
  SELECT coalesce(json_agg(json_build_object('agentId', agent_id, 'hostname', hostname, 'clientName', client_name,
                                             'siteName', site_name, 'plat', plat, 'status', status,
                                             'lastSeen', last_seen) ORDER BY lower(hostname), agent_id), '[]'::json)
  FROM rmm_agents WHERE deleted_at IS NULL
)sql";

constexpr std::string_view kRmmScripts = R"sql(
  SELECT coalesce(json_agg(json_build_object('id', id, 'name', name, 'shell', shell, 'category', category,
                                             'defaultTimeout', default_timeout) ORDER BY lower(name), id), '[]'::json)
  FROM rmm_scripts WHERE deleted_at IS NULL
)sql";

constexpr std::string_view kRmmAgentHost = "SELECT hostname FROM rmm_agents WHERE agent_id = $1 AND deleted_at IS NULL";
constexpr std::string_view kRmmScript =
    "SELECT name, coalesce(default_timeout, 90) FROM rmm_scripts WHERE id = $1 AND deleted_at IS NULL";

// The new execution renders as rmm_execution_json() (migration 0026).
constexpr std::string_view kQueueExecution = R"sql(
  INSERT INTO rmm_executions AS e (device, script, agent_id, script_id, args, timeout_seconds, requested_by)
  VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7)
  RETURNING rmm_execution_json(e)
)sql";

// rmm_execution_json() (migration 0026), newest first.
constexpr std::string_view kListExecutions = R"sql(
  SELECT coalesce(json_agg(rmm_execution_json(e) ORDER BY e.created_at DESC, e.id DESC), '[]'::json)
  FROM (SELECT * FROM rmm_executions ORDER BY created_at DESC, id DESC LIMIT $1) e
)sql";

// rmm_execution_json() (migration 0026).
constexpr std::string_view kOneExecution = "SELECT rmm_execution_json(e) FROM rmm_executions e WHERE e.id = $1";

const core::json::StringRule kAgentIdRule{.min_length = 1, .max_length = 100};
const core::json::StringRule kArgRule{.max_length = 1000};

}  // namespace

void install_rmm_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                        std::shared_ptr<integrations::Registry> registry, std::shared_ptr<rmm::RmmSync> sync,
                        std::shared_ptr<rmm::RmmExecutor> executor, rmm::RmmSettings settings) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;
  const auto missing = settings.missing();
  static constexpr auto kName = "remote-management";

  routes.post("/api/rmm/sync", Access::admin(),
              integrations::start_sync_handler(registry,
                                               {.key = "rmm",
                                                .name = kName,
                                                .service = "the remote-management service",
                                                .run = "a remote-management sync",
                                                .missing = missing},
                                               sync ? std::function([sync] { return sync->start(); }) : nullptr));

  routes.get("/api/rmm/sync", [&db, registry](Request&) -> awaitable<Response> {
    co_await registry->require_enabled("rmm", kName);
    co_return Response::json(co_await rmm::rmm_sync_status(db));
  });

  routes.get("/api/rmm/clients", [&db, registry](Request&) -> awaitable<Response> {
    co_await registry->require_enabled("rmm", kName);
    co_return co_await core::app::json_document(db, kRmmClients);
  });

  routes.get("/api/rmm/clients/unmatched", [&db, registry](Request&) -> awaitable<Response> {
    co_await registry->require_enabled("rmm", kName);
    co_return co_await core::app::json_document(db, kRmmUnmatched);
  });

  integrations::install_company_mapping_routes(routes, db, registry,
                                               {.path = "/api/rmm/company-mappings",
                                                .key = "rmm",
                                                .name = kName,
                                                .key_field = "clientId",
                                                .integer_key = true,
                                                .noun = "client",
                                                .unknown_key = "names no remote-management client (run a sync first?)",
                                                .exists = kRmmClientExists,
                                                .map = kRmmMap,
                                                .unmap = kRmmUnmap});

  routes.get("/api/rmm/agents", [&db, registry](Request&) -> awaitable<Response> {
    co_await registry->require_enabled("rmm", kName);
    co_return co_await core::app::json_document(db, kRmmAgents);
  });

  routes.get("/api/rmm/scripts", [&db, registry](Request&) -> awaitable<Response> {
    co_await registry->require_enabled("rmm", kName);
    co_return co_await core::app::json_document(db, kRmmScripts);
  });

  routes.post("/api/rmm/executions", Access::permission("rmm", "execute"),
              [&db, registry, executor, missing](Request& req) -> awaitable<Response> {
                co_await registry->require_enabled("rmm", kName);
                if (!executor) throw integrations::not_configured("the remote-management service", missing);
                const auto body = core::json::parse_object(req.body);
                core::json::BodyReader in(body);
                auto agent = in.string("agentId", kAgentIdRule);
                const auto script = in.integer("scriptId", {.min = 1});
                const auto args = in.strings("args", kArgRule, 50);
                const auto timeout = in.optional_integer("timeoutSeconds", {.min = 1, .max = 3600});
                in.finish();
                const auto host = co_await db.query(kRmmAgentHost, agent);
                if (host.empty()) throw Problem::invalid_field("agentId", "names no remote-management agent");
                const auto found = co_await db.query(kRmmScript, script);
                if (found.empty()) throw Problem::invalid_field("scriptId", "names no remote-management script");
                const auto rows = co_await db.query(
                    kQueueExecution, std::string(host.front().text(0)), std::string(found.front().text(0)),
                    std::move(agent), script, nlohmann::json(args).dump(),
                    timeout.value_or(found.front().get<std::int64_t>(1)), identity::current_user(req).id);
                executor->wake();
                co_return Response::json_text(std::string(rows.front().text(0)), core::http::Status::accepted);
              });

  routes.get("/api/rmm/executions", [&db, registry](Request& req) -> awaitable<Response> {
    co_await registry->require_enabled("rmm", kName);
    core::json::QueryReader in(req.query);
    const auto limit = in.optional_integer("limit", {.min = 1, .max = 500});
    in.finish();
    co_return co_await core::app::json_document(db, kListExecutions, limit.value_or(50));
  });

  routes.get("/api/rmm/executions/{id:int}", [&db, registry](Request& req) -> awaitable<Response> {
    co_await registry->require_enabled("rmm", kName);
    const std::string execution(req.param("id"));
    co_return co_await core::app::json_resource(db, {.missing = Problem::not_found("no execution " + execution)},
                                                kOneExecution, core::parse_int64(execution).value_or(0));
  });
}

}  // namespace ops_console
