#include "ops_console/psa/entities.hpp"

#include "core/util/strings.hpp"

namespace ops_console::psa {

using nlohmann::json;

namespace {

std::string_view sql_type(Type t) {
  switch (t) {
    case Type::integer:
      return "integer";
    case Type::bigint:
      return "bigint";
    case Type::text:
      return "text";
    case Type::boolean:
      return "boolean";
    case Type::timestamp:
      return "timestamptz";
    case Type::number:
      return "numeric";
  }
  return "text";
}

}  // namespace

// "id bigint, ticket_number text, ...": the record type of jsonb_to_record(set).
std::string record_type(const Entity& e) {
  std::string out;
  for (const auto& f : e.fields)
    out += (out.empty() ? "" : ", ") + std::string(f.column) + " " + std::string(sql_type(f.type));
  return out;
}

// $1: [{column: value}, ...]. A row seen again is replaced whole and is no longer deleted.
std::string upsert_sql(const Entity& e) {
  std::string columns, updates;
  for (const auto& f : e.fields) {
    columns += (columns.empty() ? "" : ", ") + std::string(f.column);
    if (f.column != "id") updates += std::string(f.column) + " = EXCLUDED." + std::string(f.column) + ", ";
  }
  return "INSERT INTO " + std::string(e.table) + " (" + columns + ", synced_at, deleted_at) SELECT " + columns +
         ", now(), NULL FROM jsonb_to_recordset($1::jsonb) AS r(" + record_type(e) +
         ") ON CONFLICT (id) DO UPDATE SET " + updates + "synced_at = now(), deleted_at = NULL";
}

std::string patch_assignments(const Entity& e, std::string_view row_param) {
  std::string sets;
  for (const auto& f : e.fields) {
    if (f.column == "id") continue;
    const std::string c(f.column);
    sets +=
        c + " = CASE WHEN " + std::string(row_param) + "::jsonb ? '" + c + "' THEN r." + c + " ELSE t." + c + " END, ";
  }
  return sets + "synced_at = now(), deleted_at = NULL";
}

namespace {

std::string delete_sql(const Entity& e) {
  return "UPDATE " + std::string(e.table) +
         " SET deleted_at = now(), synced_at = now() WHERE id = $1 AND deleted_at IS NULL RETURNING id";
}

Entity entity(std::string_view name, std::string_view webhook, std::string_view table, std::string_view modified,
              std::vector<Field> fields) {
  Entity e{.name = name, .webhook = webhook, .table = table, .modified = modified, .fields = std::move(fields)};
  e.upsert_sql = upsert_sql(e);
  e.delete_sql = delete_sql(e);
  return e;
}

constexpr Field kId{"id", "id", Type::bigint};

std::vector<Entity> build() {
  using T = Type;
  std::vector<Entity> out;
  out.push_back(entity("Companies", "Company", "companies", "lastActivityDate",
                       {kId,
                        {"companyName", "company_name", T::text},
                        {"companyNumber", "company_number", T::text},
                        {"companyType", "company_type", T::integer},
                        {"companyCategoryID", "company_category_id", T::bigint},
                        {"classification", "classification_id", T::bigint},
                        {"isActive", "is_active", T::boolean},
                        {"phone", "phone", T::text},
                        {"webAddress", "web_address", T::text},
                        {"city", "city", T::text},
                        {"ownerResourceID", "owner_resource_id", T::bigint},
                        {"parentCompanyID", "parent_company_id", T::bigint},
                        {"createDate", "create_date", T::timestamp},
                        {"lastActivityDate", "last_activity_date", T::timestamp}}));
  out.push_back(entity("Contacts", "Contact", "contacts", "lastModifiedDate",
                       {kId,
                        {"companyID", "company_id", T::bigint},
                        {"firstName", "first_name", T::text},
                        {"lastName", "last_name", T::text},
                        {"emailAddress", "email_address", T::text},
                        {"isActive", "is_active", T::boolean},
                        {"lastActivityDate", "last_activity_date", T::timestamp},
                        {"lastModifiedDate", "last_modified_date", T::timestamp}}));
  out.push_back(entity("Resources", "", "resources", "",
                       {kId,
                        {"firstName", "first_name", T::text},
                        {"lastName", "last_name", T::text},
                        {"email", "email", T::text},
                        {"userName", "user_name", T::text},
                        {"isActive", "is_active", T::boolean}}));
  out.push_back(entity("Tickets", "Ticket", "tickets", "lastActivityDate",
                       {kId,
                        {"ticketNumber", "ticket_number", T::text},
                        {"title", "title", T::text},
                        {"description", "description", T::text},
                        {"status", "status", T::integer},
                        {"priority", "priority", T::integer},
                        {"queueID", "queue_id", T::integer},
                        {"companyID", "company_id", T::bigint},
                        {"contactID", "contact_id", T::bigint},
                        {"assignedResourceID", "assigned_resource_id", T::bigint},
                        {"createDate", "create_date", T::timestamp},
                        {"completedDate", "completed_date", T::timestamp},
                        {"lastActivityDate", "last_activity_date", T::timestamp},
                        {"dueDateTime", "due_date_time", T::timestamp},
                        {"firstResponseDateTime", "first_response_date_time", T::timestamp},
                        {"resolvedDateTime", "resolved_date_time", T::timestamp},
                        {"issueType", "issue_type", T::integer},
                        {"subIssueType", "sub_issue_type", T::integer},
                        {"source", "source", T::integer},
                        {"contractID", "contract_id", T::bigint},
                        {"configurationItemID", "configuration_item_id", T::bigint},
                        {"projectID", "project_id", T::bigint}}));
  out.push_back(entity("TimeEntries", "TimeEntry", "time_entries", "lastModifiedDateTime",
                       {kId,
                        {"ticketID", "ticket_id", T::bigint},
                        {"taskID", "task_id", T::bigint},
                        {"resourceID", "resource_id", T::bigint},
                        {"dateWorked", "date_worked", T::timestamp},
                        {"startDateTime", "start_date_time", T::timestamp},
                        {"endDateTime", "end_date_time", T::timestamp},
                        {"hoursWorked", "hours_worked", T::number},
                        {"summaryNotes", "summary_notes", T::text},
                        {"lastModifiedDateTime", "last_modified_date_time", T::timestamp}}));
  out.push_back(entity("Projects", "Project", "projects", "lastActivityDateTime",
                       {kId,
                        {"projectName", "project_name", T::text},
                        {"companyID", "company_id", T::bigint},
                        {"status", "status", T::integer},
                        {"startDateTime", "start_date_time", T::timestamp},
                        {"endDateTime", "end_date_time", T::timestamp},
                        {"lastActivityDateTime", "last_activity_date_time", T::timestamp}}));
  out.push_back(entity("Tasks", "Task", "tasks", "lastActivityDateTime",
                       {kId,
                        {"projectID", "project_id", T::bigint},
                        {"title", "title", T::text},
                        {"status", "status", T::integer},
                        {"assignedResourceID", "assigned_resource_id", T::bigint},
                        {"createDateTime", "create_date_time", T::timestamp},
                        {"completedDateTime", "completed_date_time", T::timestamp},
                        {"lastActivityDateTime", "last_activity_date_time", T::timestamp}}));
  out.push_back(entity("Contracts", "Contract", "contracts", "lastModifiedDateTime",
                       {kId,
                        {"companyID", "company_id", T::bigint},
                        {"contractName", "contract_name", T::text},
                        {"status", "status", T::integer},
                        {"startDate", "start_date", T::timestamp},
                        {"endDate", "end_date", T::timestamp},
                        {"lastModifiedDateTime", "last_modified_date_time", T::timestamp}}));
  out.push_back(entity("ConfigurationItems", "ConfigurationItem", "configuration_items", "lastModifiedTime",
                       {kId,
                        {"companyID", "company_id", T::bigint},
                        {"referenceTitle", "reference_title", T::text},
                        {"serialNumber", "serial_number", T::text},
                        {"isActive", "is_active", T::boolean},
                        {"lastModifiedTime", "last_modified_time", T::timestamp}}));
  out.push_back(entity("TagGroups", "", "tag_groups", "",
                       {kId, {"name", "name", T::text}, {"isActive", "is_active", T::boolean}}));
  out.push_back(entity("Tags", "", "tags", "",
                       {kId,
                        {"tagGroupID", "tag_group_id", T::bigint},
                        {"label", "label", T::text},
                        {"isActive", "is_active", T::boolean}}));
  out.push_back(entity("TicketTagAssociations", "", "ticket_tags", "",
                       {kId, {"ticketID", "ticket_id", T::bigint}, {"tagID", "tag_id", T::bigint}}));
  return out;
}

}  // namespace

std::vector<std::string> Entity::include_fields() const {
  std::vector<std::string> out;
  for (const auto& f : fields) out.emplace_back(f.psa);
  return out;
}

const std::vector<Entity>& entities() {
  static const std::vector<Entity> all = build();
  return all;
}

const Entity* entity_named(std::string_view name) {
  for (const auto& e : entities())
    if (core::iequals(name, e.name) || (!e.webhook.empty() && core::iequals(name, e.webhook))) return &e;
  return nullptr;
}

const Entity* webhook_entity(std::string_view name) {
  const Entity* e = entity_named(name);
  return e && !e->webhook.empty() ? e : nullptr;
}

json to_row(const Entity& entity, const json& item) {
  json row = json::object();
  if (!item.is_object()) return row;
  for (const auto& [key, value] : item.items()) {
    for (const auto& f : entity.fields) {
      if (!core::iequals(key, f.psa)) continue;
      const bool blank = value.is_string() && value.get_ref<const std::string&>().empty();
      row[std::string(f.column)] = blank && f.type != Type::text ? json(nullptr) : value;
      break;
    }
  }
  return row;
}

json to_rows(const Entity& entity, const json& items) {
  json rows = json::array();
  if (!items.is_array()) return rows;
  for (const auto& item : items) rows.push_back(to_row(entity, item));
  return rows;
}

}  // namespace ops_console::psa
