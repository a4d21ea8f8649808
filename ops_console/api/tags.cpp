#include "ops_console/api/tags.hpp"

#include "core/app/json_rows.hpp"
#include "core/http/problem.hpp"
#include "core/util/strings.hpp"
#include "ops_console/identity/routes.hpp"

#include <vector>

namespace ops_console {

using boost::asio::awaitable;
using core::http::Problem;
using core::http::Request;
using core::http::Response;
using identity::current_user;

namespace {

// The PSA's tag groups, each with its tags; tags of a group the copy lacks come under null.
constexpr std::string_view kCatalogue = R"sql(
  SELECT coalesce(json_agg(json_build_object('id', g.id, 'name', g.name, 'is_active', g.is_active, 'tags',
           (SELECT coalesce(json_agg(json_build_object('id', t.id, 'label', t.label, 'is_active', t.is_active)
                                     ORDER BY lower(t.label), t.id), '[]'::json)
            FROM tags t
            WHERE t.deleted_at IS NULL
              AND CASE WHEN g.id IS NULL
                       THEN NOT EXISTS (SELECT 1 FROM tag_groups lg WHERE lg.id = t.tag_group_id AND lg.deleted_at IS NULL)
                       ELSE t.tag_group_id = g.id END))
         ORDER BY g.id IS NULL, lower(g.name), g.id), '[]'::json)
  FROM (SELECT id, name, is_active FROM tag_groups WHERE deleted_at IS NULL
        UNION ALL
        SELECT NULL, NULL, NULL WHERE EXISTS (
          SELECT 1 FROM tags t WHERE t.deleted_at IS NULL
            AND NOT EXISTS (SELECT 1 FROM tag_groups g WHERE g.id = t.tag_group_id AND g.deleted_at IS NULL))) g
)sql";

// What a tagged row is: its path, its table, and where its tags are.
struct Tagged {
  std::string_view path;    // "/api/companies/{id}/tags"
  std::string_view noun;    // for messages
  std::string_view table;   // the tagged rows
  std::string_view tags;    // the association table
  std::string_view column;  // its column naming the row
  bool console_owned;       // set through these routes; else the PSA's (read-only)
};

const std::vector<Tagged> kTagged{
    {"/api/companies/{id}/tags", "company", "companies", "company_tags", "company_id", true},
    {"/api/configuration-items/{id}/tags", "configuration item", "configuration_items", "configuration_item_tags",
     "configuration_item_id", true},
    {"/api/contacts/{id}/tags", "contact", "contacts", "contact_tags", "contact_id", true},
    {"/api/tickets/{id}/tags", "ticket", "tickets", "ticket_tags", "ticket_id", false},
};

// $1 the row's id: its tags, or no row when the row does not exist. A ticket's tags are listed
// whether or not the copy holds the ticket (its associations may be older than the window). A tag
// the PSA deleted is listed on no row, as it is gone from the catalogue (its association stays, so
// a tag the PSA restores comes back).
std::string list_sql(const Tagged& k) {
  const std::string who = k.console_owned ? "'added_by', a.added_by, 'added_at', a.added_at" : "'source', 'psa'";
  const std::string live = k.console_owned ? "" : " AND a.deleted_at IS NULL";
  const std::string of_row = k.console_owned ? " FROM " + std::string(k.table) + " WHERE id = $1" : "";
  return "SELECT (SELECT coalesce(json_agg(json_build_object('id', tg.id, 'label', tg.label, 'tag_group_id', "
         "tg.tag_group_id, " +
         who + ") ORDER BY lower(tg.label), tg.id), '[]'::json) FROM " + std::string(k.tags) +
         " a JOIN tags tg ON tg.id = a.tag_id AND tg.deleted_at IS NULL WHERE a." + std::string(k.column) + " = $1" +
         live + ")" + of_row;
}

// $1 row, $2 tag, $3 who: (created) when added now, no row when the row or the tag is missing.
std::string add_sql(const Tagged& k) {
  const std::string t(k.tags), c(k.column);
  return "WITH target AS (SELECT r.id AS row_id, tg.id AS tag_id FROM " + std::string(k.table) +
         " r, tags tg WHERE r.id = $1 AND tg.id = $2 AND tg.deleted_at IS NULL), added AS (INSERT INTO " + t + " (" +
         c + ", tag_id, added_by) SELECT row_id, tag_id, $3 FROM target ON CONFLICT DO NOTHING RETURNING 1) " +
         "SELECT EXISTS (SELECT 1 FROM added) FROM target";
}

std::string remove_sql(const Tagged& k) {
  return "DELETE FROM " + std::string(k.tags) + " WHERE " + std::string(k.column) + " = $1 AND tag_id = $2 RETURNING 1";
}

std::int64_t id_param(const Request& req, std::string_view name) {
  const auto id = core::parse_int64(req.param(name));
  if (!id || *id <= 0) throw Problem::invalid_field(std::string(name), "must be a positive integer id");
  return *id;
}

}  // namespace

void install_tag_routes(core::app::Context& ctx, std::shared_ptr<identity::Identity> id) {
  identity::Routes routes(ctx.router, id);
  auto& db = ctx.db;

  routes.get("/api/tags", [&db](Request&) { return core::app::json_document(db, kCatalogue); });

  for (const auto& k : kTagged) {
    const std::string path(k.path), noun(k.noun);
    routes.get(path, [&db, sql = list_sql(k), noun](Request& req) -> awaitable<Response> {
      const auto row_id = id_param(req, "id");
      const auto rows = co_await db.query(sql, row_id);
      if (rows.empty()) throw Problem::not_found("no " + noun + " " + std::to_string(row_id));
      co_return Response::json_text(std::string(rows.front().text(0)));
    });
    if (!k.console_owned) continue;  // the PSA's associations: read here, written by the sync

    routes.put(path + "/{tagId}", [&db, sql = add_sql(k), noun](Request& req) -> awaitable<Response> {
      const auto row_id = id_param(req, "id");
      const auto tag_id = id_param(req, "tagId");
      const auto rows = co_await db.query(sql, row_id, tag_id, current_user(req).email);
      if (rows.empty())
        throw Problem::not_found("no " + noun + " " + std::to_string(row_id) + ", or no tag " + std::to_string(tag_id));
      co_return Response::empty(rows.front().get<bool>(0) ? core::http::Status::created
                                                          : core::http::Status::no_content);
    });
    routes.del(path + "/{tagId}", [&db, sql = remove_sql(k), noun](Request& req) -> awaitable<Response> {
      const auto row_id = id_param(req, "id");
      const auto tag_id = id_param(req, "tagId");
      const auto rows = co_await db.query(sql, row_id, tag_id);
      if (rows.empty()) throw Problem::not_found("the " + noun + " does not carry tag " + std::to_string(tag_id));
      co_return Response::empty();
    });
  }
}

}  // namespace ops_console
