#pragma once
// Handlers whose SQL renders the JSON answer itself (json_build_object, json_agg): the body is
// the text in the first column of the first row.
//
//   router.get("/api/v1/purge-rules", [&db](Request&) { return json_document(db, kListAll); });
//   router.del("/api/v1/purge-rules/{rule_id:uuid}", [&db](Request& req) {
//     return json_resource(db, {.missing = Problem::not_found("no purge rule " + id)}, kDeactivate, id);
//   });
//
// Arguments are taken by value, so a handler may return these awaitables directly.
#include "core/db/errors.hpp"
#include "core/db/pool.hpp"
#include "core/db/statement.hpp"
#include "core/http/message.hpp"
#include "core/http/problem.hpp"

namespace core::app {

// The statement always returns one row (an aggregate).
template <class... Args>
boost::asio::awaitable<http::Response> json_document(db::Pool& db, std::string_view sql, Args... args) {
  const auto rows = co_await db.query(sql, std::move(args)...);
  co_return http::Response::json_text(std::string(rows.front().text(0)));
}

// The same, for a statement composed from the filters present (core/db/statement.hpp).
inline boost::asio::awaitable<http::Response> json_document(db::Pool& db, db::Composed st) {
  const auto rows = co_await db.execute(st.sql, std::move(st.params));
  co_return http::Response::json_text(std::string(rows.front().text(0)));
}

// What a statement on one resource answers when it finds no row, or breaks a unique rule, and the
// status of the answer when it finds (or makes) one.
struct ResourceProblems {
  http::Problem missing;                        // usually a 404
  std::optional<http::Problem> duplicate = {};  // usually a 409; unset: the error propagates (500)
  http::Status found = http::Status::ok;        // http::Status::created for an INSERT ... RETURNING
};

// One resource, or `problems.missing` when the statement returns no row.
template <class... Args>
boost::asio::awaitable<http::Response> json_resource(db::Pool& db, ResourceProblems problems, std::string_view sql,
                                                     Args... args) {
  db::Result rows;
  bool duplicate = false;
  try {
    rows = co_await db.query(sql, std::move(args)...);
  } catch (const db::Error& e) {
    if (!problems.duplicate || !e.unique_violation()) throw;
    duplicate = true;
  }
  if (duplicate) throw *problems.duplicate;
  if (rows.empty()) throw problems.missing;
  co_return http::Response::json_text(std::string(rows.front().text(0)), problems.found);
}

// A resource as its SQL rendered it (`rendered`), with fields this answer alone shows beside its
// own: a secret or token just generated (an agent instance's, a webhook channel's), which the
// renderer never shows.
inline http::Response shown_once(std::string_view rendered, const nlohmann::json& once,
                                 http::Status status = http::Status::ok) {
  auto out = nlohmann::json::parse(rendered);
  out.update(once);
  return http::Response::json(out, status);
}

// An upsert `RETURNING <json>, (xmax = 0) AS created`: 201 when the row was created, else 200.
inline http::Response upserted(const db::Result& rows) {
  return http::Response::json_text(std::string(rows.front().text(0)),
                                   rows.front().get<bool>(1) ? http::Status::created : http::Status::ok);
}

}  // namespace core::app
