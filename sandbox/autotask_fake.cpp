// The Autotask fake's state (rows, counters, switches) and the gate every API call passes:
// credentials, the hourly threshold, the per-endpoint thread limit, latency and faults.
#include "sandbox/autotask_fake.hpp"

#include "core/async/sleep.hpp"
#include "core/util/digest.hpp"
#include "core/util/strings.hpp"
#include "sandbox/autotask_rest.hpp"

#include <algorithm>
#include <stdexcept>

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using nlohmann::json;

namespace autotask {

Response error(int status, std::string message) {
  return Response::json({{"errors", {std::move(message)}}}, static_cast<core::http::Status>(status));
}

json render(const EntitySchema& entity, const json& row) {
  json out = json::object();
  for (const auto& f : entity.fields) {
    const auto it = row.find(f.name);
    out[f.name] = it == row.end() ? json(nullptr) : *it;
  }
  if (entity.user_defined_fields) out["userDefinedFields"] = json::array();
  return out;
}

json render(const EntitySchema&, const json& row, const std::vector<std::string>& include) {
  json out = {{"id", row.value("id", json(nullptr))}};
  for (const auto& name : include) {
    const auto it = row.find(name);
    out[name] = it == row.end() ? json(nullptr) : *it;
  }
  return out;
}

const EntitySchema* url_entity(std::string_view name) {
  const auto* e = find_entity(name);
  return e && core::iequals(e->name, name) ? e : nullptr;
}

const EntitySchema& ticket_attachment_schema() {
  static const EntitySchema schema = [] {
    EntitySchema e{.name = "TicketAttachments", .singular = "TicketAttachment"};
    using T = FieldType;
    const std::pair<const char*, FieldType> fields[] = {{"id", T::long_integer},
                                                        {"parentID", T::long_integer},
                                                        {"ticketID", T::integer},
                                                        {"title", T::string},
                                                        {"fullPath", T::string},
                                                        {"contentType", T::string},
                                                        {"attachmentType", T::string},
                                                        {"fileSize", T::decimal},
                                                        {"publish", T::integer},
                                                        {"attachDate", T::date_time},
                                                        {"attachedByContactID", T::long_integer},
                                                        {"attachedByResourceID", T::long_integer},
                                                        {"creatorType", T::integer},
                                                        {"opportunityID", T::long_integer}};
    for (const auto& [name, type] : fields) e.fields.push_back({.name = name, .type = type});
    e.fields.front().required = e.fields.front().read_only = true;
    return e;
  }();
  return schema;
}

}  // namespace autotask

namespace {

const autotask::EntitySchema& schema_of(const std::string& entity) {
  const auto* e = autotask::url_entity(entity);
  if (!e) throw std::invalid_argument("unknown Autotask entity '" + entity + "'");
  return *e;
}

// A row's fields under their canonical names; throws std::invalid_argument for one the entity
// does not have.
json canonical(const autotask::EntitySchema& entity, const json& fields) {
  if (!fields.is_object()) throw std::invalid_argument("a row must be a JSON object");
  json out = json::object();
  for (const auto& [key, value] : fields.items()) {
    const auto* f = entity.field(key);
    if (!f) throw std::invalid_argument("Unable to find " + key + " in the " + entity.singular + " Entity.");
    out[f->name] = value;
  }
  return out;
}

}  // namespace

AutotaskFake::AutotaskFake(AutotaskFakeOptions options) : options_(std::move(options)) {}

void AutotaskFake::install(core::http::Router& router) {
  install_api(router);      // autotask_fake_api.cpp
  install_control(router);  // autotask_fake_control.cpp
}

AutotaskFake::Table& AutotaskFake::table(const std::string& entity) { return tables_[schema_of(entity).name]; }

const AutotaskFake::Table& AutotaskFake::table(const std::string& entity) const {
  static const Table kEmpty;
  const auto it = tables_.find(schema_of(entity).name);
  return it == tables_.end() ? kEmpty : it->second;
}

void AutotaskFake::reset() {
  std::lock_guard lock(mutex_);
  tables_.clear();
  endpoints_.clear();
  this_hour_.clear();
  faults_ = {};
  requests_ = refused_credentials_ = refused_hourly_ = sequence_number_ = callouts_ = 0;
  echoes_.clear();
}

void AutotaskFake::seed(const autotask::SeedCounts& counts) {
  auto rows = autotask::seed_rows(counts, core::now());
  std::lock_guard lock(mutex_);
  tables_.clear();
  for (auto& [entity, list] : rows) {
    auto& t = tables_[entity];
    for (auto& row : list) {
      const auto id = row["id"].get<std::int64_t>();
      t.next_id = std::max(t.next_id, id + 1);
      t.rows.emplace(id, std::move(row));
    }
  }
}

json AutotaskFake::add_locked(const std::string& entity, json row, const std::string& now) {
  const auto& schema = schema_of(entity);
  row = canonical(schema, row);
  auto& t = table(entity);
  if (!row.contains("id") || row["id"].is_null()) row["id"] = t.next_id;
  if (!row["id"].is_number_integer()) throw std::invalid_argument("id must be an integer");
  const auto id = row["id"].get<std::int64_t>();
  if (!schema.last_modified.empty() && (!row.contains(schema.last_modified) || row[schema.last_modified].is_null()))
    row[schema.last_modified] = now;
  t.next_id = std::max(t.next_id, id + 1);
  t.rows[id] = row;
  return autotask::render(schema, row);
}

json AutotaskFake::add(const std::string& entity, json row) {
  const auto now = autotask::format_time(core::now());
  std::lock_guard lock(mutex_);
  return add_locked(entity, std::move(row), now);
}

std::optional<json> AutotaskFake::update(const std::string& entity, std::int64_t id, const json& fields) {
  const auto& schema = schema_of(entity);
  auto changes = canonical(schema, fields);
  if (changes.contains("id") && changes["id"] != id) throw std::invalid_argument("the id of a row cannot change");
  // A change is activity: the field an incremental sync filters on moves to now, unless the
  // caller sets it (a test building a history).
  if (!schema.last_modified.empty() && !changes.contains(schema.last_modified))
    changes[schema.last_modified] = autotask::format_time(core::now());
  std::lock_guard lock(mutex_);
  auto& t = table(entity);
  const auto it = t.rows.find(id);
  if (it == t.rows.end()) return std::nullopt;
  it->second.update(changes);
  return autotask::render(schema, it->second);
}

bool AutotaskFake::remove(const std::string& entity, std::int64_t id) {
  const auto now = autotask::format_time(core::now());
  std::lock_guard lock(mutex_);
  auto& rows = table(entity).rows;
  const auto it = rows.find(id);
  if (it == rows.end()) return false;
  // A deleted ticket leaves a DeletedTicketLogs row, as in Autotask.
  if (schema_of(entity).name == "Tickets") {
    json log{{"ticketID", id},
             {"ticketNumber", it->second.value("ticketNumber", json(nullptr))},
             {"ticketTitle", it->second.value("title", json(nullptr))},
             {"deletedByResourceID", nullptr},
             {"deletedDateTime", now}};
    add_locked("DeletedTicketLogs", std::move(log), now);
  }
  rows.erase(it);
  return true;
}

std::vector<json> AutotaskFake::rows(const std::string& entity) const {
  const auto& schema = schema_of(entity);
  std::lock_guard lock(mutex_);
  std::vector<json> out;
  for (const auto& [id, row] : table(entity).rows) out.push_back(autotask::render(schema, row));
  return out;
}

std::optional<json> AutotaskFake::row(const std::string& entity, std::int64_t id) const {
  const auto& schema = schema_of(entity);
  std::lock_guard lock(mutex_);
  const auto& t = table(entity);
  const auto it = t.rows.find(id);
  if (it == t.rows.end()) return std::nullopt;
  return autotask::render(schema, it->second);
}

json AutotaskFake::attach(std::int64_t ticket_id, const std::string& title, const std::string& content_type,
                          std::string_view bytes) {
  const auto now = autotask::format_time(core::now());
  std::lock_guard lock(mutex_);
  if (!table("Tickets").rows.contains(ticket_id)) throw std::invalid_argument("no ticket " + std::to_string(ticket_id));
  auto& t = tables_[autotask::ticket_attachment_schema().name];
  const auto id = t.next_id++;
  json row{{"id", id},
           {"parentID", ticket_id},
           {"ticketID", ticket_id},
           {"title", title},
           {"fullPath", title},
           {"contentType", content_type},
           {"attachmentType", "FILE_ATTACHMENT"},
           {"fileSize", bytes.size()},
           {"publish", 1},
           {"attachDate", now},
           {"attachedByContactID", nullptr},
           {"attachedByResourceID", nullptr},
           {"creatorType", 1},
           {"opportunityID", nullptr},
           {"data", core::base64(bytes)}};
  t.rows[id] = row;
  return autotask::render(autotask::ticket_attachment_schema(), row);
}

std::vector<json> AutotaskFake::attachments(std::int64_t ticket_id) const {
  std::lock_guard lock(mutex_);
  std::vector<json> out;
  const auto it = tables_.find(autotask::ticket_attachment_schema().name);
  if (it == tables_.end()) return out;
  for (const auto& [id, row] : it->second.rows)
    if (row.value("parentID", json(nullptr)) == ticket_id)
      out.push_back(autotask::render(autotask::ticket_attachment_schema(), row));
  return out;
}

void AutotaskFake::set_faults(AutotaskFaults faults) {
  std::lock_guard lock(mutex_);
  faults_ = std::move(faults);
}

json AutotaskFake::stats() const {
  std::lock_guard lock(mutex_);
  json entities = json::object();
  std::int64_t refused_threads = 0;
  for (const auto& e : autotask::entities()) {
    const auto t = tables_.find(e.name);
    const auto p = endpoints_.find(e.name);
    const Endpoint ep = p == endpoints_.end() ? Endpoint{} : p->second;
    entities[e.name] = {{"rows", t == tables_.end() ? 0 : t->second.rows.size()},
                        {"requests", ep.requests},
                        {"in_flight", ep.in_flight},
                        {"most_in_flight", ep.most_in_flight},
                        {"refused", ep.refused}};
  }
  for (const auto& [name, ep] : endpoints_) refused_threads += ep.refused;
  const auto hour_ago = std::chrono::steady_clock::now() - std::chrono::hours(1);
  const auto this_hour = std::count_if(this_hour_.begin(), this_hour_.end(), [&](auto t) { return t > hour_ago; });
  return {{"requests", requests_},
          {"requests_this_hour", this_hour},
          {"hourly_limit", options_.hourly_limit},
          {"refused_credentials", refused_credentials_},
          {"refused_threads", refused_threads},
          {"refused_hourly", refused_hourly_},
          {"webhooks_sent", callouts_},
          {"echoed", echoes_.count()},
          {"entities", entities}};
}

// --- the gate ---

struct AutotaskFake::Thread {
  AutotaskFake& fake;
  std::string endpoint;
  bool admitted = false;

  Thread(AutotaskFake& f, std::string e) : fake(f), endpoint(std::move(e)) {
    std::lock_guard lock(fake.mutex_);
    auto& ep = fake.endpoints_[endpoint];
    ++ep.requests;
    if (ep.in_flight >= fake.options_.threads_per_endpoint) {
      ++ep.refused;
      return;
    }
    admitted = true;
    ep.most_in_flight = std::max(ep.most_in_flight, ++ep.in_flight);
  }
  ~Thread() {
    if (!admitted) return;
    std::lock_guard lock(fake.mutex_);
    --fake.endpoints_[endpoint].in_flight;
  }
  Thread(const Thread&) = delete;
  Thread& operator=(const Thread&) = delete;
};

std::string AutotaskFake::echoed_message(const Request& req, std::string message) {
  EchoSwitch echo;
  {
    std::lock_guard lock(mutex_);
    echo = faults_.echo;
  }
  return echoes_.message(echo, std::move(message),
                         {{"Secret", std::string(req.header("Secret"))},
                          {"ApiIntegrationCode", std::string(req.header("ApiIntegrationCode"))}});
}

std::optional<Response> AutotaskFake::refuse_credentials(const Request& req) {
  const auto code = req.header("ApiIntegrationCode");
  const auto user = req.header("UserName");
  const auto secret = req.header("Secret");
  const auto refuse = [&](int status, std::string message) {
    return autotask::error(status, echoed_message(req, std::move(message)));
  };
  if (code.empty() || user.empty() || secret.empty())
    return refuse(401, "Authentication failed: the ApiIntegrationCode, UserName and Secret headers are required.");
  if (!core::iequals(user, options_.username))
    return refuse(options_.observed_auth_errors ? 500 : 401,
                  "Authentication failed: the UserName or Secret is not valid.");
  if (code != options_.integration_code)
    return refuse(options_.observed_auth_errors ? 500 : 401,
                  "Authentication failed: the ApiIntegrationCode is not valid.");
  if (!core::constant_time_equals(secret, options_.secret))
    return refuse(401, "Authentication failed: the UserName or Secret is not valid.");
  return std::nullopt;
}

awaitable<Response> AutotaskFake::serve(Request& req, std::string endpoint, Work work) {
  auto refused = refuse_credentials(req);
  {
    std::lock_guard lock(mutex_);
    ++requests_;
    if (refused) ++refused_credentials_;
  }
  if (refused) co_return std::move(*refused);

  // The hourly threshold counts every accepted call of the integration, whatever its endpoint.
  AutotaskFaults faults;
  std::size_t used = 0;
  bool over_hour = false;
  {
    std::lock_guard lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    while (!this_hour_.empty() && this_hour_.front() <= now - std::chrono::hours(1)) this_hour_.pop_front();
    if (static_cast<std::int64_t>(this_hour_.size()) >= options_.hourly_limit) {
      over_hour = true;
      ++refused_hourly_;
    } else {
      this_hour_.push_back(now);
    }
    used = this_hour_.size();
    faults = faults_;
    if (!faults_.entity.empty() && !core::iequals(faults_.entity, endpoint)) {
      faults.throttle = faults.server_errors = 0;
      faults.latency = {};
    } else if (faults_.throttle > 0) {
      --faults_.throttle;
    } else if (faults_.server_errors > 0) {
      --faults_.server_errors;
    }
  }
  if (over_hour)
    co_return autotask::error(429, "The API request threshold of " + std::to_string(options_.hourly_limit) +
                                       " requests per hour has been exceeded.");

  Thread thread(*this, endpoint);
  if (!thread.admitted)
    co_return autotask::error(429, "The Autotask API thread threshold of " +
                                       std::to_string(options_.threads_per_endpoint) +
                                       " threads has been exceeded for the " + endpoint + " endpoint.");

  // Autotask slows every call once half of the hour's allowance is used, more from three quarters.
  auto delay = std::chrono::duration_cast<std::chrono::steady_clock::duration>(faults.latency);
  if (options_.usage_latency && used * 4 >= static_cast<std::size_t>(options_.hourly_limit) * 3)
    delay += std::chrono::seconds(1);
  else if (options_.usage_latency && used * 2 >= static_cast<std::size_t>(options_.hourly_limit))
    delay += std::chrono::milliseconds(500);
  co_await core::async::sleep_for(delay);

  if (faults.throttle > 0) {
    auto res = autotask::error(429, "The Autotask API thread threshold of " +
                                        std::to_string(options_.threads_per_endpoint) + " threads has been exceeded.");
    res.headers.set("Retry-After", std::to_string(faults.retry_after));
    co_return res;
  }
  if (faults.server_errors > 0)
    co_return autotask::error(faults.status,
                              echoed_message(req, faults.status == 503 ? "The service is temporarily unavailable."
                                                                       : "An unexpected error has occurred."));
  co_return work(req);
}

}  // namespace sandbox
