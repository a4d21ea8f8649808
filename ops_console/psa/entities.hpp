#pragma once
// The PSA entities the console copies, and how each maps onto its table (migration 0009). One
// table of facts serves the sync, the reconciliation and the webhook intake: which Autotask
// fields are read, into which column and type, and which field tells what changed.
//
//   const Entity& tickets = *entity_named("Tickets");   // or the webhook's "Ticket"
//   json rows = to_rows(tickets, page["items"]);        // PSA items → [{column: value}]
//   co_await db.query(tickets.upsert_sql, rows);        // idempotent, batched
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace ops_console::psa {

enum class Type { integer, bigint, text, boolean, timestamp, number };

struct Field {
  std::string_view psa;     // the REST field ("lastActivityDate"); webhooks send it capitalised
  std::string_view column;  // its column ("last_activity_date")
  Type type;
};

struct Entity {
  std::string_view name;     // the REST entity ("Tickets"), as in /V1.0/Tickets/query
  std::string_view webhook;  // the webhook's EntityType ("Ticket"); empty when webhooks never name it
  std::string_view table;
  std::string_view modified;  // the field incremental sync filters on; empty: every run reads all
  std::vector<Field> fields;  // "id" first

  // Statements built from `fields` once (entities.cpp says what each binds).
  std::string upsert_sql;  // $1 a JSON array of rows by column: inserted or replaced, undeleted
  std::string patch_sql;   // $1 id, $2 a JSON object by column: only the given columns change
  std::string delete_sql;  // $1 id: soft-deleted (deleted_at), once
  std::vector<std::string> include_fields() const;  // the REST IncludeFields of a query
};

// Every entity, in the order a full sync reads them (companies before tickets, tags before their
// associations: not required, as there are no foreign keys, but the views fill sooner).
const std::vector<Entity>& entities();

// By REST name or webhook EntityType, any case ("tickets", "Ticket", "ConfigurationItem"); null
// when the console does not copy it.
const Entity* entity_named(std::string_view name);
// The same, among the entities webhooks change (those with a webhook EntityType).
const Entity* webhook_entity(std::string_view name);

// A PSA item (REST camelCase, or a webhook's capitalised Fields with string values) as a row by
// column: unknown fields dropped, "" read as null for every type but text, values kept as sent
// (PostgreSQL converts them: "5" into an integer, an ISO 8601 string into a timestamptz).
nlohmann::json to_row(const Entity& entity, const nlohmann::json& item);

// Pieces of statements for callers that compose their own: the record type of
// jsonb_to_record(set) ("id bigint, ticket_number text, ..."), and the SET list of a patch from
// the row in `row_param` ("$3") read as `r`, onto the table read as `t`.
std::string record_type(const Entity& entity);
std::string patch_assignments(const Entity& entity, std::string_view row_param);
nlohmann::json to_rows(const Entity& entity, const nlohmann::json& items);

}  // namespace ops_console::psa
