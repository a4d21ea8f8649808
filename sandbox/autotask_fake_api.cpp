// Autotask's REST API: zone discovery, queries with paging by id, counts, GET by id and field
// metadata, each behind the gate of autotask_fake.cpp (autotask_fake.hpp lists the routes).
#include "sandbox/autotask_fake.hpp"

#include "core/util/strings.hpp"
#include "sandbox/autotask_filter.hpp"
#include "sandbox/autotask_rest.hpp"

#include <algorithm>

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using nlohmann::json;
using namespace autotask;

namespace {

constexpr std::string_view kBase = "/autotask/atservicesrest";
constexpr int kMaxRecords = 500;

// The REST root as this request reached it: what ZoneInformation reports and page URLs start with.
std::string root_url(const Request& req) {
  const auto host = req.header("host");
  return "http://" + std::string(host.empty() ? "127.0.0.1" : host) + std::string(kBase) + "/";
}

// A query's JSON from the body (POST) or the `search` parameter (GET); nullopt when it is not JSON.
std::optional<json> search_of(const Request& req, bool from_body) {
  std::string text;
  if (from_body)
    text = req.body;
  else if (const auto s = req.query.get("search"))
    text = std::string(*s);
  if (core::trim(text).empty()) return json::object();
  auto parsed = json::parse(text, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) return std::nullopt;
  return parsed;
}

Response not_json() { return error(400, "The query is not a JSON object."); }

// The page size a query asks for: MaxRecords, 1..500, 500 when absent.
int max_records(const json& search) {
  const json* m = find_key(search, "MaxRecords");
  if (!m || m->is_null()) return kMaxRecords;
  std::optional<std::int64_t> n;
  if (m->is_number_integer()) n = m->get<std::int64_t>();
  if (m->is_string()) n = core::parse_int64(m->get<std::string>());
  if (!n || *n < 1 || *n > kMaxRecords) throw QueryError{"MaxRecords must be between 1 and 500."};
  return static_cast<int>(*n);
}

// IncludeFields, under their canonical names; an unknown one is refused like an unknown filter field.
std::vector<std::string> include_fields(const json& search, const EntitySchema& entity) {
  std::vector<std::string> out;
  const json* fields = find_key(search, "IncludeFields");
  if (!fields || fields->is_null()) return out;
  if (!fields->is_array()) throw QueryError{"IncludeFields must be an array of field names."};
  for (const auto& name : *fields) {
    const auto* f = name.is_string() ? entity.field(name.get<std::string>()) : nullptr;
    if (!f)
      throw QueryError{"Unable to find " + (name.is_string() ? name.get<std::string>() : name.dump()) + " in the " +
                       entity.singular + " Entity."};
    if (f->name != "id" && std::find(out.begin(), out.end(), f->name) == out.end()) out.push_back(f->name);
  }
  return out;
}

// Autotask needs at least one condition: "everything" is written {"op":"gte","field":"id","value":0}.
Filter filter_of(const json& search, const EntitySchema& entity) {
  const json* filter = find_key(search, "Filter");
  if (!filter || !filter->is_array() || filter->empty())
    throw QueryError{"A query needs a Filter with at least one condition."};
  return parse_filter(*filter, entity);
}

json field_info(const EntitySchema& entity, const FieldSchema& f) {
  json picklist = nullptr;
  if (!f.picklist.empty()) {
    picklist = json::array();
    for (const auto& v : f.picklist)
      picklist.push_back({{"value", v.value},
                          {"label", v.label},
                          {"isDefaultValue", v.is_default},
                          {"sortOrder", v.sort_order},
                          {"parentValue", v.parent_value},
                          {"isActive", v.is_active},
                          {"isSystem", true}});
  }
  const bool webhooks = entity.name == "Tickets" || entity.name == "Companies" || entity.name == "Contacts" ||
                        entity.name == "ConfigurationItems";
  return {{"name", f.name},
          {"dataType", type_name(f.type)},
          {"length", f.type != FieldType::string ? 0
                     : f.name == "description"   ? 8000
                                                 : 255},
          {"isRequired", f.required},
          {"isReadOnly", f.read_only},
          {"isQueryable", true},
          {"isReference", !f.reference_entity.empty()},
          {"referenceEntityType", f.reference_entity},
          {"isPickList", !f.picklist.empty()},
          {"picklistValues", picklist},
          {"picklistParentValueField", f.picklist_parent},
          {"isSupportedWebhookField", webhooks}};
}

}  // namespace

Response AutotaskFake::query(Request& req, const EntitySchema& schema, const json& search, const std::string& paging) {
  const auto* entity = &schema;
  try {
    int page_size = max_records(search);
    const auto include = include_fields(search, *entity);
    const auto filter = filter_of(search, *entity);
    // Where this page starts: after the last id of the page before, or (prevPageUrl) before the
    // first id of the page after. Ids only grow, so a row added meanwhile lands on a later page.
    std::optional<std::int64_t> after, before;
    if (!paging.empty()) {
      const auto p = json::parse(paging, nullptr, false);
      const json* size = find_key(p, "pageSize");
      const json* a = find_key(p, "afterId");
      const json* b = find_key(p, "beforeId");
      if (!size || !size->is_number_integer() || (!a && !b) || (a && !a->is_number_integer()) ||
          (b && !b->is_number_integer()))
        throw QueryError{"The paging parameter is not valid."};
      page_size = std::clamp(size->get<int>(), 1, kMaxRecords);
      if (a) after = a->get<std::int64_t>();
      if (b) before = b->get<std::int64_t>();
    }

    std::vector<const json*> matching;  // in id order
    std::lock_guard lock(mutex_);
    const auto& rows = tables_[entity->name].rows;
    for (const auto& [id, row] : rows)
      if (filter.matches(row)) matching.push_back(&row);
    const auto id_of = [](const json* row) { return (*row)["id"].get<std::int64_t>(); };
    std::size_t first = 0, last = std::min<std::size_t>(matching.size(), page_size);  // [first, last)
    if (after) {
      first = std::upper_bound(matching.begin(), matching.end(), *after,
                               [&](std::int64_t v, const json* row) { return v < id_of(row); }) -
              matching.begin();
      last = std::min(matching.size(), first + page_size);
    } else if (before) {
      last = std::lower_bound(matching.begin(), matching.end(), *before,
                              [&](const json* row, std::int64_t v) { return id_of(row) < v; }) -
             matching.begin();
      first = last > static_cast<std::size_t>(page_size) ? last - page_size : 0;
    }

    json items = json::array();
    for (auto i = first; i < last; ++i)
      items.push_back(include.empty() ? render(*entity, *matching[i]) : render(*entity, *matching[i], include));
    const auto page_url = [&](const char* key, std::int64_t id) {
      const json p = {{"pageSize", page_size}, {key, id}};
      return root_url(req) + "V1.0/" + entity->name + "/query/next?paging=" + core::url_encode(p.dump()) +
             "&search=" + core::url_encode(search.dump());
    };
    const bool more = last < matching.size() && last > first;
    const bool earlier = first > 0 && last > first;
    return Response::json(
        {{"items", items},
         {"pageDetails",
          {{"count", items.size()},
           {"requestCount", page_size},
           {"prevPageUrl", earlier ? json(page_url("beforeId", id_of(matching[first]))) : json(nullptr)},
           {"nextPageUrl", more ? json(page_url("afterId", id_of(matching[last - 1]))) : json(nullptr)}}}});
  } catch (const QueryError& e) {
    return error(500, e.message);
  }
}

Response AutotaskFake::count(const EntitySchema& entity, const json& search) {
  try {
    const auto filter = filter_of(search, entity);
    std::int64_t n = 0;
    std::lock_guard lock(mutex_);
    for (const auto& [id, row] : tables_[entity.name].rows) n += filter.matches(row) ? 1 : 0;
    return Response::json({{"queryCount", n}});
  } catch (const QueryError& e) {
    return error(500, e.message);
  }
}

void AutotaskFake::install_api(core::http::Router& router) {
  // An entity's call: the gate counts it against that entity's endpoint; an unknown entity is 404.
  auto entity_call = [this](Work work) -> core::http::Handler {
    return [this, work](Request& req) -> awaitable<Response> {
      const std::string name(req.param("entity"));
      const auto* entity = url_entity(name);
      const std::string endpoint = entity ? entity->name : core::to_lower(name);
      Work checked = [work, known = entity != nullptr, name](Request& r) {
        return known ? work(r) : error(404, "The entity '" + name + "' does not exist.");
      };
      co_return co_await serve(req, endpoint, std::move(checked));
    };
  };
  auto query_from = [this](bool from_body) -> Work {
    return [this, from_body](Request& req) {
      const auto search = search_of(req, from_body);
      return search ? query(req, *url_entity(req.param("entity")), *search, "") : not_json();
    };
  };
  // A page URL carries the query and where to go on; a POST to it may repeat the query in its body.
  Work next = [this](Request& req) {
    auto search = search_of(req, false);
    if (search && search->empty() && req.method == core::http::Verb::post) search = search_of(req, true);
    return search ? query(req, *url_entity(req.param("entity")), *search,
                          std::string(req.query.get("paging").value_or("")))
                  : not_json();
  };
  auto count_from = [this](bool from_body) -> Work {
    return [this, from_body](Request& req) {
      const auto search = search_of(req, from_body);
      return search ? count(*url_entity(req.param("entity")), *search) : not_json();
    };
  };
  Work by_id = [this](Request& req) {
    const auto* entity = url_entity(req.param("entity"));
    const auto id = core::parse_int64(req.param("id"));
    if (!id) return error(404, "No resource was found at " + req.path + ".");
    std::lock_guard lock(mutex_);
    const auto& rows = table(entity->name).rows;
    const auto it = rows.find(*id);
    return Response::json({{"item", it == rows.end() ? json(nullptr) : render(*entity, it->second)}});
  };
  Work fields = [](Request& req) {
    const auto* entity = url_entity(req.param("entity"));
    json list = json::array();
    for (const auto& f : entity->fields) list.push_back(field_info(*entity, f));
    return Response::json({{"fields", list}});
  };
  Work udfs = [](Request&) { return Response::json({{"fields", json::array()}}); };
  Work info = [](Request& req) {
    const auto* entity = url_entity(req.param("entity"));
    return Response::json(
        {{"info",
          {{"name", entity->singular},
           {"canCreate", true},
           {"canDelete", false},
           {"canQuery", true},
           {"canUpdate", true},
           {"hasUserDefinedFields", entity->user_defined_fields},
           {"supportsWebhookCallouts", entity->name == "Tickets" || entity->name == "Companies" ||
                                           entity->name == "Contacts" || entity->name == "ConfigurationItems"}}}});
  };
  Work threshold = [this](Request&) {
    std::lock_guard lock(mutex_);
    return Response::json({{"externalRequestThreshold", options_.hourly_limit},
                           {"requestThresholdTimeframe", 60},
                           {"currentTimeframeRequestCount", this_hour_.size()}});
  };

  // Autotask's URLs are case-insensitive; clients write both V1.0 and v1.0.
  for (const std::string version : {"V1.0", "v1.0"}) {
    const std::string at = std::string(kBase) + "/" + version;
    // Zone discovery is open and outside the thread limit, as on Autotask.
    router.get(at + "/ZoneInformation", [this](Request& req) -> awaitable<Response> {
      {
        std::lock_guard lock(mutex_);
        ++requests_;
      }
      const auto user = req.query.get("user");
      if (!user || !core::iequals(*user, options_.username))
        co_return error(500, "Zone information could not be determined");
      const std::string root = root_url(req);
      co_return Response::json({{"zoneName", options_.zone_name},
                                {"url", root},
                                {"webUrl", root.substr(0, root.size() - std::string("atservicesrest/").size())},
                                {"ci", options_.ci}});
    });
    router.get(at + "/ThresholdInformation", [this, threshold](Request& req) -> awaitable<Response> {
      co_return co_await serve(req, "ThresholdInformation", threshold);
    });
    router.get(at + "/{entity}/query", entity_call(query_from(false)));
    router.post(at + "/{entity}/query", entity_call(query_from(true)));
    router.get(at + "/{entity}/query/next", entity_call(next));
    router.post(at + "/{entity}/query/next", entity_call(next));
    router.get(at + "/{entity}/query/count", entity_call(count_from(false)));
    router.post(at + "/{entity}/query/count", entity_call(count_from(true)));
    router.get(at + "/{entity}/entityInformation", entity_call(info));
    router.get(at + "/{entity}/entityInformation/fields", entity_call(fields));
    router.get(at + "/{entity}/entityInformation/userDefinedFields", entity_call(udfs));
    router.get(at + "/{entity}/{id}", entity_call(by_id));
  }
  install_attachments(router);
}

// TicketAttachments: the child collection of a ticket, and the entity's own query routes (literal
// "TicketAttachments": the generic {entity} routes serve the entities of autotask_schema.cpp).
void AutotaskFake::install_attachments(core::http::Router& router) {
  const auto& schema = ticket_attachment_schema();
  const auto call = [this](Work work) -> core::http::Handler {
    return
        [this, work](Request& req) -> awaitable<Response> { co_return co_await serve(req, "TicketAttachments", work); };
  };
  // One attachment with its bytes, as Autotask's FileQueryResultModel: {items: [...]} (empty: none).
  const auto with_data = [this, &schema](std::int64_t id, std::optional<std::int64_t> parent) {
    std::lock_guard lock(mutex_);
    const auto& rows = tables_[schema.name].rows;
    const auto it = rows.find(id);
    json items = json::array();
    if (it != rows.end() && (!parent || it->second.value("parentID", json(nullptr)) == *parent)) {
      auto item = render(schema, it->second);
      item["data"] = it->second.value("data", json(nullptr));
      items.push_back(std::move(item));
    }
    return Response::json({{"items", items}});
  };
  Work children = [this, &schema](Request& req) {
    const auto parent = core::parse_int64(req.param("id"));
    if (!core::iequals(req.param("entity"), "Tickets") || !parent)
      return error(404, "No resource was found at " + req.path + ".");
    json items = json::array();
    std::lock_guard lock(mutex_);
    for (const auto& [id, row] : tables_[schema.name].rows)
      if (row.value("parentID", json(nullptr)) == *parent) items.push_back(render(schema, row));
    const auto count = items.size();
    return Response::json(
        {{"items", std::move(items)},
         {"pageDetails",
          {{"count", count}, {"requestCount", kMaxRecords}, {"prevPageUrl", nullptr}, {"nextPageUrl", nullptr}}}});
  };
  Work child = [with_data](Request& req) {
    const auto parent = core::parse_int64(req.param("id"));
    const auto id = core::parse_int64(req.param("attachmentId"));
    if (!core::iequals(req.param("entity"), "Tickets") || !parent || !id)
      return error(404, "No resource was found at " + req.path + ".");
    return with_data(*id, parent);
  };
  Work by_id = [with_data](Request& req) {
    const auto id = core::parse_int64(req.param("id"));
    return id ? with_data(*id, std::nullopt) : error(404, "No resource was found at " + req.path + ".");
  };
  const auto query_from = [this, &schema](bool from_body) -> Work {
    return [this, &schema, from_body](Request& req) {
      const auto search = search_of(req, from_body);
      return search ? query(req, schema, *search, "") : not_json();
    };
  };
  Work next = [this, &schema](Request& req) {
    auto search = search_of(req, false);
    if (search && search->empty() && req.method == core::http::Verb::post) search = search_of(req, true);
    return search ? query(req, schema, *search, std::string(req.query.get("paging").value_or(""))) : not_json();
  };
  const auto count_from = [this, &schema](bool from_body) -> Work {
    return [this, &schema, from_body](Request& req) {
      const auto search = search_of(req, from_body);
      return search ? count(schema, *search) : not_json();
    };
  };
  for (const std::string version : {"V1.0", "v1.0"}) {
    const std::string at = std::string(kBase) + "/" + version;
    for (const std::string attachments : {"Attachments", "attachments"}) {
      router.get(at + "/{entity}/{id}/" + attachments, call(children));
      router.get(at + "/{entity}/{id}/" + attachments + "/{attachmentId}", call(child));
    }
    const std::string entity = at + "/TicketAttachments";
    router.get(entity + "/query", call(query_from(false)));
    router.post(entity + "/query", call(query_from(true)));
    router.get(entity + "/query/next", call(next));
    router.post(entity + "/query/next", call(next));
    router.get(entity + "/query/count", call(count_from(false)));
    router.post(entity + "/query/count", call(count_from(true)));
    router.get(entity + "/{id}", call(by_id));
  }
}

}  // namespace sandbox
