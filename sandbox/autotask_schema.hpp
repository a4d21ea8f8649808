#pragma once
// The Autotask fake's entities: their fields with Autotask's names and data types, the picklists
// behind `entityInformation/fields`, and the field each one's incremental sync can filter on.
// Field names follow the entities Autotask's REST API serves (../shared/vendors.md, and the
// entity models generated from a live `entityInformation/fields`); each entity here has the
// subset a PSA sync reads, not all of Autotask's.
//
// An entity Autotask gives no last-modified field has none here either (Resources, TagGroups,
// Tags, TicketTagAssociations): a client re-reads those whole (they are small), and a filter on
// an invented field would fail against the real service ("Unable to find ...").
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sandbox::autotask {

enum class FieldType { integer, long_integer, decimal, boolean, string, date_time };

// The name entityInformation/fields gives the type ("integer", "long", "double", "boolean",
// "string", "dateTime").
std::string_view type_name(FieldType type);

struct PicklistValue {
  std::string value;  // Autotask sends picklist values as strings ("5"), even for integer fields
  std::string label;
  int sort_order = 0;
  bool is_active = true;
  bool is_default = false;
  std::string parent_value;  // subIssueType: the issueType it belongs to
};

struct FieldSchema {
  std::string name;
  FieldType type = FieldType::string;
  bool required = false;
  bool read_only = false;
  std::string reference_entity;  // "Company" for companyID, ...
  std::vector<PicklistValue> picklist;
  std::string picklist_parent;  // the field whose value picks the parent (subIssueType: issueType)
};

struct EntitySchema {
  std::string name;      // the URL's name: "Tickets"
  std::string singular;  // Autotask's own: "Ticket" (error messages, webhook EntityType)
  std::vector<FieldSchema> fields;
  std::string last_modified;         // the field a change bumps; empty when Autotask has none
  bool user_defined_fields = false;  // rows carry "userDefinedFields": []

  // Case-insensitive, as Autotask's field names are; nullptr when there is no such field.
  const FieldSchema* field(std::string_view name) const;
};

// Every entity the fake serves, in a fixed order.
const std::vector<EntitySchema>& entities();

// By plural ("Tickets") or singular ("Ticket") name, case-insensitive; nullptr when unknown.
const EntitySchema* find_entity(std::string_view name);

}  // namespace sandbox::autotask
