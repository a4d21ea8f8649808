#include "sandbox/autotask_schema.hpp"

#include "core/util/strings.hpp"

namespace sandbox::autotask {

namespace {

using T = FieldType;

struct Builder {
  EntitySchema entity;

  Builder& field(std::string name, FieldType type) {
    entity.fields.push_back({.name = std::move(name), .type = type});
    return *this;
  }
  Builder& required() {
    entity.fields.back().required = true;
    return *this;
  }
  Builder& read_only() {
    entity.fields.back().read_only = true;
    return *this;
  }
  Builder& reference(std::string to) {
    entity.fields.back().reference_entity = std::move(to);
    return *this;
  }
  // {value, label} pairs, sorted in the order given; the first `default_value` is the default.
  Builder& picklist(std::vector<std::pair<int, std::string>> values, int default_value = -1000) {
    int order = 0;
    for (auto& [value, label] : values)
      entity.fields.back().picklist.push_back({.value = std::to_string(value),
                                               .label = std::move(label),
                                               .sort_order = ++order,
                                               .is_default = value == default_value});
    return *this;
  }
  Builder& inactive(int value) {
    for (auto& v : entity.fields.back().picklist)
      if (v.value == std::to_string(value)) v.is_active = false;
    return *this;
  }
};

Builder make(std::string name, std::string singular, std::string last_modified, bool udfs) {
  Builder b;
  b.entity.name = std::move(name);
  b.entity.singular = std::move(singular);
  b.entity.last_modified = std::move(last_modified);
  b.entity.user_defined_fields = udfs;
  b.field("id", T::long_integer).required().read_only();
  return b;
}

// Issue types and their sub-issue types: the tree behind the ticket picklists.
struct IssueType {
  int value;
  const char* label;
  std::vector<std::pair<int, std::string>> subs;
};
const std::vector<IssueType>& issue_types() {
  static const std::vector<IssueType> all{
      {1, "Hardware", {{101, "Laptop / Desktop"}, {102, "Printer / Scanner"}, {103, "Server"}}},
      {2, "Software", {{201, "Microsoft 365"}, {202, "Line of Business Application"}, {203, "Operating System"}}},
      {3, "Network", {{301, "VPN"}, {302, "Wi-Fi"}, {303, "Firewall"}, {304, "Internet Outage"}}},
      {4, "Email", {{401, "Mailbox"}, {402, "Spam / Phishing"}, {403, "Distribution List"}}},
      {5, "Security", {{501, "Malware Alert"}, {502, "MFA"}, {503, "Suspicious Sign-in"}}},
      {6, "User Administration", {{601, "Password Reset"}, {602, "New Starter"}, {603, "Leaver"}}},
      {7, "Backup", {{701, "Backup Failure"}, {702, "Restore Request"}}}};
  return all;
}

FieldSchema issue_type_field() {
  FieldSchema f{.name = "issueType", .type = T::integer};
  int order = 0;
  for (const auto& t : issue_types())
    f.picklist.push_back({.value = std::to_string(t.value), .label = t.label, .sort_order = ++order});
  return f;
}

FieldSchema sub_issue_type_field() {
  FieldSchema f{.name = "subIssueType", .type = T::integer, .picklist_parent = "issueType"};
  int order = 0;
  for (const auto& t : issue_types())
    for (const auto& [value, label] : t.subs)
      f.picklist.push_back({.value = std::to_string(value),
                            .label = label,
                            .sort_order = ++order,
                            .parent_value = std::to_string(t.value)});
  return f;
}

std::vector<EntitySchema> build() {
  std::vector<EntitySchema> all;

  auto tickets = make("Tickets", "Ticket", "lastActivityDate", true);
  tickets.field("ticketNumber", T::string).read_only().field("title", T::string).required();
  tickets.field("description", T::string);
  tickets.field("status", T::integer)
      .required()
      .picklist({{1, "New"},
                 {5, "Complete"},
                 {7, "Waiting Customer"},
                 {8, "In Process"},
                 {9, "Waiting Materials"},
                 {10, "Dispatched"},
                 {11, "Escalated"},
                 {12, "Waiting Vendor"}},
                1)
      .inactive(11);
  tickets.field("priority", T::integer)
      .required()
      .picklist({{4, "Critical"}, {1, "High"}, {2, "Medium"}, {3, "Low"}}, 2);
  tickets.field("queueID", T::integer)
      .picklist({{8, "Monitoring Alert"},
                 {29682833, "Level I Support"},
                 {29682969, "Level II Support"},
                 {29683481, "Recurring Tickets"}},
                29682833);
  tickets.field("companyID", T::integer).required().reference("Company");
  tickets.field("contactID", T::integer).reference("Contact");
  tickets.field("assignedResourceID", T::integer).reference("Resource");
  tickets.field("createDate", T::date_time).read_only();
  tickets.field("completedDate", T::date_time).read_only();
  tickets.field("lastActivityDate", T::date_time).read_only();
  tickets.field("dueDateTime", T::date_time).required();
  tickets.field("firstResponseDateTime", T::date_time).read_only();
  tickets.field("resolvedDateTime", T::date_time);
  tickets.entity.fields.push_back(issue_type_field());
  tickets.entity.fields.push_back(sub_issue_type_field());
  tickets.field("source", T::integer)
      .picklist({{-1, "Client Portal"}, {1, "Other"}, {2, "Phone"}, {3, "Voice Mail"}, {4, "Email"}, {8, "Monitoring"}},
                2);
  tickets.field("ticketType", T::integer)
      .picklist({{1, "Service Request"}, {2, "Incident"}, {3, "Problem"}, {4, "Change Request"}, {5, "Alert"}}, 1);
  tickets.field("contractID", T::integer).reference("Contract");
  tickets.field("configurationItemID", T::integer).reference("ConfigurationItem");
  tickets.field("projectID", T::integer).reference("Project");
  tickets.field("estimatedHours", T::decimal);
  tickets.field("lastTrackedModificationDateTime", T::date_time).read_only();
  all.push_back(std::move(tickets.entity));

  auto companies = make("Companies", "Company", "lastActivityDate", true);
  companies.field("companyName", T::string).required().field("companyNumber", T::string);
  companies.field("companyCategoryID", T::integer).reference("CompanyCategory");
  companies.field("companyType", T::integer)
      .required()
      .picklist({{1, "Customer"},
                 {2, "Lead"},
                 {3, "Prospect"},
                 {4, "Dead"},
                 {6, "Cancellation"},
                 {7, "Vendor"},
                 {8, "Partner"}},
                1);
  companies.field("classification", T::integer)
      .picklist({{1, "Managed - Gold"},
                 {2, "Managed - Silver"},
                 {3, "Managed - Bronze"},
                 {4, "Break/Fix"},
                 {5, "Project Only"},
                 {6, "Legacy Support"}})
      .inactive(6);
  companies.field("isActive", T::boolean);
  companies.field("phone", T::string).required().field("webAddress", T::string).field("city", T::string);
  companies.field("ownerResourceID", T::integer).required().reference("Resource");
  companies.field("parentCompanyID", T::integer).reference("Company");
  companies.field("createDate", T::date_time).read_only();
  companies.field("lastActivityDate", T::date_time).read_only();
  companies.field("lastTrackedModifiedDateTime", T::date_time).read_only();
  all.push_back(std::move(companies.entity));

  auto contacts = make("Contacts", "Contact", "lastModifiedDate", true);
  contacts.field("companyID", T::integer).required().reference("Company");
  contacts.field("firstName", T::string).required().field("lastName", T::string).required();
  contacts.field("emailAddress", T::string);
  contacts.field("isActive", T::integer).required();  // 1 or 0: an integer on Contacts, unlike the others
  contacts.field("phone", T::string).field("title", T::string).field("primaryContact", T::boolean);
  contacts.field("createDate", T::date_time).read_only();
  contacts.field("lastActivityDate", T::date_time).read_only();
  contacts.field("lastModifiedDate", T::date_time).read_only();
  all.push_back(std::move(contacts.entity));

  auto resources = make("Resources", "Resource", "", true);
  resources.field("firstName", T::string).required().field("lastName", T::string).required();
  resources.field("email", T::string).required().field("userName", T::string).required();
  resources.field("isActive", T::boolean).required().field("resourceType", T::string).read_only();
  resources.field("title", T::string).field("hireDate", T::date_time).read_only();
  all.push_back(std::move(resources.entity));

  auto time_entries = make("TimeEntries", "TimeEntry", "lastModifiedDateTime", true);
  time_entries.field("ticketID", T::integer).reference("Ticket");
  time_entries.field("taskID", T::integer).reference("Task");
  time_entries.field("resourceID", T::integer).required().reference("Resource");
  time_entries.field("dateWorked", T::date_time).required();
  time_entries.field("startDateTime", T::date_time).field("endDateTime", T::date_time);
  time_entries.field("hoursWorked", T::decimal).field("hoursToBill", T::decimal).read_only();
  time_entries.field("summaryNotes", T::string).field("isNonBillable", T::boolean);
  time_entries.field("createDateTime", T::date_time).read_only();
  time_entries.field("lastModifiedDateTime", T::date_time).read_only();
  all.push_back(std::move(time_entries.entity));

  auto projects = make("Projects", "Project", "lastActivityDateTime", true);
  projects.field("projectName", T::string).required().field("projectNumber", T::string).read_only();
  projects.field("companyID", T::integer).required().reference("Company");
  projects.field("status", T::integer)
      .required()
      .picklist({{0, "Inactive"}, {1, "New"}, {2, "Active"}, {3, "On Hold"}, {5, "Complete"}}, 1);
  projects.field("projectType", T::integer)
      .required()
      .picklist({{2, "Proposal"}, {3, "Template"}, {5, "Client"}, {8, "Internal"}}, 5);
  projects.field("projectLeadResourceID", T::integer).reference("Resource");
  projects.field("description", T::string);
  projects.field("startDateTime", T::date_time).required().field("endDateTime", T::date_time).required();
  projects.field("createDateTime", T::date_time).read_only().field("completedDateTime", T::date_time).read_only();
  projects.field("lastActivityDateTime", T::date_time).read_only();
  all.push_back(std::move(projects.entity));

  auto tasks = make("Tasks", "Task", "lastActivityDateTime", true);
  tasks.field("projectID", T::integer).required().reference("Project");
  tasks.field("title", T::string).required().field("taskNumber", T::string).read_only();
  tasks.field("status", T::integer).required().picklist({{1, "New"}, {8, "In Progress"}, {5, "Complete"}}, 1);
  tasks.field("assignedResourceID", T::integer).reference("Resource");
  tasks.field("description", T::string).field("estimatedHours", T::decimal);
  tasks.field("createDateTime", T::date_time).read_only().field("completedDateTime", T::date_time).read_only();
  tasks.field("lastActivityDateTime", T::date_time).read_only();
  all.push_back(std::move(tasks.entity));

  auto contracts = make("Contracts", "Contract", "lastModifiedDateTime", true);
  contracts.field("companyID", T::integer).required().reference("Company");
  contracts.field("contractName", T::string).required().field("contractNumber", T::string);
  contracts.field("contractType", T::integer)
      .required()
      .picklist({{1, "Time & Materials"},
                 {3, "Fixed Price"},
                 {4, "Block Hours"},
                 {6, "Retainer"},
                 {7, "Recurring Service"},
                 {8, "Per Ticket"}});
  contracts.field("status", T::integer).required().picklist({{0, "Inactive"}, {1, "Active"}}, 1);
  contracts.field("startDate", T::date_time).required().field("endDate", T::date_time).required();
  contracts.field("contactID", T::integer).reference("Contact");
  contracts.field("lastModifiedDateTime", T::date_time).read_only();
  all.push_back(std::move(contracts.entity));

  auto items = make("ConfigurationItems", "ConfigurationItem", "lastModifiedTime", true);
  items.field("companyID", T::integer).required().reference("Company");
  items.field("productID", T::integer).required();
  items.field("referenceTitle", T::string).field("serialNumber", T::string);
  items.field("isActive", T::boolean).required();
  items.field("configurationItemType", T::integer)
      .picklist({{1, "Workstation"}, {2, "Server"}, {3, "Network Device"}, {4, "Printer"}, {5, "Mobile Device"}});
  items.field("installDate", T::date_time).field("warrantyExpirationDate", T::date_time);
  items.field("createDate", T::date_time).read_only().field("lastModifiedTime", T::date_time).read_only();
  all.push_back(std::move(items.entity));

  auto tag_groups = make("TagGroups", "TagGroup", "", false);
  tag_groups.field("name", T::string).required().field("isActive", T::boolean).required();
  tag_groups.field("displayColor", T::integer).field("isSystem", T::boolean).read_only();
  all.push_back(std::move(tag_groups.entity));

  auto tags = make("Tags", "Tag", "", false);
  tags.field("tagGroupID", T::integer).required().reference("TagGroup");
  tags.field("label", T::string).required().field("isActive", T::boolean).required();
  tags.field("isSystem", T::boolean).read_only();
  all.push_back(std::move(tags.entity));

  // What Autotask keeps of a deleted ticket: the way an incremental sync learns of the deletion.
  auto deleted_tickets = make("DeletedTicketLogs", "DeletedTicketLog", "deletedDateTime", false);
  deleted_tickets.field("ticketID", T::integer).read_only().reference("Ticket");
  deleted_tickets.field("ticketNumber", T::string).read_only().field("ticketTitle", T::string).read_only();
  deleted_tickets.field("deletedByResourceID", T::integer).read_only().reference("Resource");
  deleted_tickets.field("deletedDateTime", T::date_time).read_only();
  all.push_back(std::move(deleted_tickets.entity));

  auto ticket_tags = make("TicketTagAssociations", "TicketTagAssociation", "", false);
  ticket_tags.field("ticketID", T::integer).required().reference("Ticket");
  ticket_tags.field("tagID", T::integer).required().reference("Tag");
  all.push_back(std::move(ticket_tags.entity));

  return all;
}

}  // namespace

std::string_view type_name(FieldType type) {
  switch (type) {
    case T::integer:
      return "integer";
    case T::long_integer:
      return "long";
    case T::decimal:
      return "double";
    case T::boolean:
      return "boolean";
    case T::string:
      return "string";
    case T::date_time:
      return "dateTime";
  }
  return "string";
}

const FieldSchema* EntitySchema::field(std::string_view name) const {
  for (const auto& f : fields)
    if (core::iequals(f.name, name)) return &f;
  return nullptr;
}

const std::vector<EntitySchema>& entities() {
  static const std::vector<EntitySchema> all = build();
  return all;
}

const EntitySchema* find_entity(std::string_view name) {
  for (const auto& e : entities())
    if (core::iequals(e.name, name) || core::iequals(e.singular, name)) return &e;
  return nullptr;
}

}  // namespace sandbox::autotask
