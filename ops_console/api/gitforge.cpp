#include "ops_console/api/gitforge.hpp"

#include "core/app/json_rows.hpp"
#include "core/db/statement.hpp"
#include "core/http/problem.hpp"
#include "core/json/validate.hpp"
#include "core/log/log.hpp"
#include "core/util/time.hpp"
#include "ops_console/gitforge/push.hpp"
#include "ops_console/identity/routes.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

namespace ops_console {

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using identity::Access;
using nlohmann::json;

namespace {

constexpr std::int64_t kDefaultCommits = 50;
constexpr std::int64_t kMaxCommits = 500;

// A push in one statement: the delivery (nothing more when it is a redelivery), each commit once
// per repository and branch, and a copy queued for every enabled agent instance. $1 delivery id,
// $2 forge, $3 repository, $4 ref, $5 branch, $6 pusher, $7 commit count, $8 the envelope, whose
// commits are stored. Answers whether the delivery was new, and the commits stored and copies queued.
constexpr std::string_view kStorePush = R"sql(
  WITH delivery AS (
    INSERT INTO gitforge_deliveries (delivery_id, forge, repository, ref, pusher, commit_count, envelope)
    VALUES ($1, $2, $3, $4, $6, $7, $8::jsonb)
    ON CONFLICT (delivery_id) DO NOTHING
    RETURNING delivery_id),
  stored AS (
    INSERT INTO repo_commits (repository, branch, commit_id, message, author_name, author_email, committed_at, url,
                              delivery_id)
    SELECT $3, $5, c.id, c.message, c.author_name, c.author_email, c.timestamp::timestamptz, c.url, d.delivery_id
    FROM delivery d,
         jsonb_to_recordset($8::jsonb -> 'commits')
           AS c(id text, message text, author_name text, author_email text, timestamp text, url text)
    ON CONFLICT (repository, branch, commit_id) DO NOTHING
    RETURNING 1),
  queued AS (
    INSERT INTO agent_deliveries (agent_instance_id, delivery_id)
    SELECT i.id, d.delivery_id FROM delivery d, agent_instances i WHERE i.enabled
    RETURNING 1)
  SELECT EXISTS (SELECT 1 FROM delivery), (SELECT count(*) FROM stored), (SELECT count(*) FROM queued)
)sql";

struct CommitFilter {
  std::optional<std::string> since, repo, branch;
  std::int64_t limit = kDefaultCommits;
};

// Commits render as repo_commit_json() (migration 0011).
core::db::Composed compose_commits(const CommitFilter& f) {
  core::db::Composed st;
  std::string where;
  if (f.since) core::db::restrict(where, "c.received_at >= " + st.bind(*f.since) + "::timestamptz");
  if (f.repo) core::db::restrict(where, "c.repository = " + st.bind(*f.repo));
  if (f.branch) core::db::restrict(where, "c.branch = " + st.bind(*f.branch));
  st.sql =
      "SELECT json_build_object('items', coalesce(json_agg(repo_commit_json(c) ORDER BY c.received_at DESC, "
      "c.id DESC), '[]'::json)) FROM (SELECT * FROM repo_commits c" +
      where + " ORDER BY c.received_at DESC, c.id DESC LIMIT " + st.bind(f.limit) + "::bigint) c";
  return st;
}

const core::json::StringRule kRefName{.min_length = 1, .max_length = 255};

}  // namespace

GitforgeSettings read_gitforge_settings(core::config::Reader& env, std::chrono::milliseconds attempt_timeout) {
  GitforgeSettings s{.webhook_secret = env.secret("GITFORGE_WEBHOOK_SECRET",
                                                  "the source-control forge's webhook secret (HMAC-SHA256 of each "
                                                  "push); unset: signatures are not checked")};
  s.copy_lease = std::chrono::seconds(
      env.integer("AGENT_COPY_LEASE_SECONDS", 60,
                  "an agent copy's sender holds it this long at most; a copy whose sender died goes again after it",
                  {.min = 2, .max = 3600}));
  // An attempt must end within its lease, or another instance could send the copy beside it.
  if (s.copy_lease <= attempt_timeout)
    env.fail("AGENT_COPY_LEASE_SECONDS", "must be more than NOTIFY_TIMEOUT_SECONDS (an attempt ends within its lease)");
  return s;
}

void install_gitforge_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id,
                             const GitforgeSettings& settings, std::shared_ptr<const notify::Notifier> notifier,
                             std::shared_ptr<gitforge::AgentDispatcher> dispatcher) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;
  if (settings.webhook_secret.empty())
    core::log::warn("GITFORGE_WEBHOOK_SECRET is not set: push deliveries are taken without a signature check");

  routes.post(
      "/api/webhooks/gitforge", Access::open(),
      [&db, secret = settings.webhook_secret, notifier, dispatcher,
       executor = ctx.executor](Request& req) -> awaitable<Response> {
        const auto headers = gitforge::forge_headers([&req](std::string_view name) { return req.header(name); });
        if (!gitforge::signature_ok(headers, req.body, secret))
          throw Problem::unauthorized("the push's signature does not match its body");
        if (headers.event.empty()) throw Problem::invalid_field("X-GitHub-Event", "is required (or X-Gitea-Event)");
        if (headers.event == "ping") co_return Response::json({{"status", "pong"}});
        if (headers.event != "push")
          co_return Response::json({{"status", "ignored"}, {"event", headers.event}}, core::http::Status::accepted);
        const auto push = gitforge::read_push(req.body);
        if (push.malformed) throw *push.malformed;

        const std::string delivery = gitforge::delivery_id(headers, req.body);
        const json envelope = gitforge::envelope(headers, delivery, push);
        const auto rows = co_await db.query(kStorePush, delivery, headers.forge, push.repository, push.ref, push.branch,
                                            push.pusher, static_cast<std::int64_t>(push.commits.size()), envelope);
        if (!rows.front().get<bool>(0)) co_return Response::json({{"status", "duplicate"}, {"delivery_id", delivery}});
        const auto queued = rows.front().get<std::int64_t>(2);
        if (queued > 0) dispatcher->wake();
        const auto summary = gitforge::summary(push);
        boost::asio::co_spawn(
            executor,
            [notifier, summary]() -> awaitable<void> {
              co_await notifier->notify("gitforge_push", {.title = summary.title, .text = summary.text});
            },
            boost::asio::detached);
        co_return Response::json({{"status", "stored"},
                                  {"delivery_id", delivery},
                                  {"commits", push.commits.size()},
                                  {"new_commits", rows.front().get<std::int64_t>(1)},
                                  {"agent_copies", queued}});
      });

  routes.get("/api/agent/repo-commits", Access::agent(), [&db](Request& req) {
    core::json::QueryReader in(req.query);
    CommitFilter f{.since = in.optional_string("since", {.max_length = 64}),
                   .repo = in.optional_string("repo", kRefName),
                   .branch = in.optional_string("branch", kRefName),
                   .limit = in.integer("limit", kDefaultCommits, {.min = 1, .max = kMaxCommits})};
    if (f.since && !core::parse_rfc3339(*f.since)) in.add("since", "must be an ISO 8601 date-time with an offset");
    in.finish();
    return core::app::json_document(db, compose_commits(f));
  });
}

}  // namespace ops_console
