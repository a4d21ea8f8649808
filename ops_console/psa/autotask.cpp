#include "ops_console/psa/autotask.hpp"

#include "core/async/semaphore.hpp"
#include "core/async/sleep.hpp"
#include "core/util/secrets.hpp"
#include "core/util/strings.hpp"
#include "ops_console/psa/request_budget.hpp"

#include <sodium.h>

#include <map>
#include <mutex>

namespace ops_console::psa {

using boost::asio::awaitable;
using nlohmann::json;

namespace {

constexpr int kPageSize = 500;           // Autotask's MaxRecords limit
constexpr std::size_t kPerEndpoint = 3;  // Autotask's concurrent threads per integration and endpoint

// "https://host:port" of a URL: where the credentials may be sent.
std::string origin_of(std::string_view url) {
  const auto scheme = url.find("://");
  if (scheme == std::string_view::npos) return "";
  const auto path = url.find('/', scheme + 3);
  return core::to_lower(std::string(url.substr(0, path)));
}

// The PSA's own words for a failure ({"errors": ["..."]}), short, or the status alone.
std::string psa_reason(const core::http::OutboundResponse& res) {
  const auto body = json::parse(res.body, nullptr, false);
  std::string reason;
  if (body.is_object() && body.contains("errors") && body["errors"].is_array())
    for (const auto& e : body["errors"])
      if (e.is_string()) reason += (reason.empty() ? "" : "; ") + e.get<std::string>();
  // The PSA may quote the headers it was sent (the secret, the integration code): masked, then cut.
  reason = core::secrets::quote(reason, 300);
  return reason.empty() ? "HTTP " + std::to_string(res.status) : "HTTP " + std::to_string(res.status) + ": " + reason;
}

PsaError failure(std::string what, int status) {
  PsaError e(std::move(what));
  e.status = status;
  return e;
}

// An attachment's fields as TicketAttachments renders them (null or missing: empty).
TicketAttachment attachment_of(const json& item) {
  const auto text = [&](const char* key) {
    const auto it = item.find(key);
    return it != item.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const auto number = [&](const char* key) -> std::int64_t {
    const auto it = item.find(key);
    return it != item.end() && it->is_number() ? it->get<std::int64_t>() : 0;
  };
  return {.id = number("id"),
          .title = text("title"),
          .full_path = text("fullPath"),
          .content_type = text("contentType"),
          .attachment_type = text("attachmentType"),
          .file_size = number("fileSize")};
}

}  // namespace

PsaSettings read_psa_settings(core::config::Reader& env) {
  PsaSettings s;
  s.base_url = env.url("PSA_BASE_URL", "",
                       "the PSA's REST root for its zone, as Autotask's zone discovery returns it "
                       "(unset with the other PSA_ credentials: the PSA is not configured)",
                       core::config::Reader::UrlEnd::one_slash);
  s.username = env.string("PSA_USERNAME", "", "the PSA API user's user name");
  s.secret = env.secret("PSA_SECRET", "the PSA API user's secret");
  s.integration_code = env.secret("PSA_INTEGRATION_CODE", "the PSA API tracking identifier (ApiIntegrationCode)");
  s.webhook_secret = env.secret("PSA_WEBHOOK_SECRET", "the PSA webhooks' secret; unset: signatures are not checked");
  s.sync_interval = std::chrono::minutes(
      env.integer("PSA_SYNC_INTERVAL_MINUTES", 5, "minutes between incremental PSA syncs; 0: no schedule", {0, 1440}));
  s.window_days = static_cast<int>(env.integer(
      "PSA_SYNC_WINDOW_DAYS", 90, "days of tickets the first full sync copies, besides every open ticket", {1, 3650}));
  s.requests_per_hour = static_cast<int>(env.integer(
      "PSA_REQUESTS_PER_HOUR", 9000, "the PSA requests this instance sends in an hour at most", {100, 10'000}));
  const int set = !s.base_url.empty() + !s.username.empty() + !s.secret.empty() + !s.integration_code.empty();
  if (set != 0 && set != 4)
    env.fail("PSA_BASE_URL",
             "PSA_BASE_URL, PSA_USERNAME, PSA_SECRET and PSA_INTEGRATION_CODE are set together or not at all");
  return s;
}

struct AutotaskClient::State {
  PsaSettings settings;
  std::string origin;
  core::http::Client http;
  mutable std::mutex mutex;
  std::map<std::string, std::unique_ptr<core::async::Semaphore>> endpoints;
  RequestBudget budget;
  integrations::Health health;

  State(boost::asio::any_io_executor executor, PsaSettings s, integrations::Health h)
      : settings(std::move(s)),
        origin(origin_of(settings.base_url)),
        http(std::move(executor), {.total_timeout = settings.timeout, .max_retries = 4, .integration = "psa"}),
        budget(static_cast<std::size_t>(settings.requests_per_hour)),
        health(std::move(h)) {}

  core::async::Semaphore& endpoint(const std::string& name) {
    std::lock_guard lock(mutex);
    auto& slot = endpoints[name];
    if (!slot) slot = std::make_unique<core::async::Semaphore>(kPerEndpoint);
    return *slot;
  }

  // How long to wait before one more request fits in the hour's budget; records it when it does.
  std::chrono::steady_clock::duration take_budget() {
    std::lock_guard lock(mutex);
    return budget.take(std::chrono::steady_clock::now());
  }
};

AutotaskClient::AutotaskClient(boost::asio::any_io_executor executor, PsaSettings settings, integrations::Health health)
    : state_(std::make_shared<State>(std::move(executor), std::move(settings), std::move(health))) {}

AutotaskClient::~AutotaskClient() = default;

// One request: within the endpoint's three and the hour's budget. Returns the parsed body, or
// null for a 404; throws PsaError for any other failure.
awaitable<json> AutotaskClient::call(std::string endpoint, std::string method, std::string url, std::string body) {
  const auto state = state_;  // alive across the waits
  if (origin_of(url) != state->origin)
    throw failure("the PSA named a page outside its own address; the sync stops there", 0);
  auto permit = co_await state->endpoint(endpoint).acquire();
  for (auto wait = state->take_budget(); wait.count() > 0; wait = state->take_budget())
    co_await core::async::sleep_for(std::chrono::duration_cast<std::chrono::milliseconds>(wait));
  // The request alone is recorded (not the waits for a slot and the budget): its outcome and latency.
  co_return co_await state->health.observe<json>("psa", [&]() -> awaitable<json> {
    core::http::OutboundRequest request{.method = std::move(method),
                                        .url = std::move(url),
                                        .headers = {{"ApiIntegrationCode", state->settings.integration_code},
                                                    {"UserName", state->settings.username},
                                                    {"Secret", state->settings.secret},
                                                    {"Accept", "application/json"},
                                                    {"Content-Type", "application/json"}},
                                        .body = std::move(body),
                                        .retry_transport_errors = true};  // reads, even when POSTed
    core::http::OutboundResponse res;
    try {
      res = co_await state->http.send(std::move(request));
    } catch (const core::http::TransportError& e) {
      throw failure("the PSA could not be reached (" + endpoint + "): " + e.what(), 0);
    }
    if (res.status == 404) co_return json(nullptr);
    if (!res.ok()) throw failure("the PSA refused " + endpoint + ": " + psa_reason(res), res.status);
    auto parsed = json::parse(res.body, nullptr, false);
    if (parsed.is_discarded())
      throw failure("the PSA answered " + endpoint + " with a body that is not JSON", res.status);
    co_return parsed;
  });
}

awaitable<std::int64_t> AutotaskClient::query_all(std::string entity, json query, PageHandler on_page) {
  query["MaxRecords"] = kPageSize;
  std::string url = state_->settings.base_url + "V1.0/" + entity + "/query";
  std::string method = "POST", body = query.dump();
  std::int64_t total = 0;
  while (!url.empty()) {
    const json page = co_await call(entity, method, url, body);
    if (!page.is_object() || !page.contains("items") || !page["items"].is_array())
      throw failure("the PSA answered " + entity + "/query without items", 200);
    total += static_cast<std::int64_t>(page["items"].size());
    co_await on_page(page["items"]);
    url.clear();
    if (const auto details = page.find("pageDetails"); details != page.end() && details->is_object()) {
      const auto next = details->find("nextPageUrl");
      if (next != details->end() && next->is_string()) url = next->get<std::string>();
    }
    method = "GET";  // the next page's URL carries the query
    body.clear();
  }
  co_return total;
}

awaitable<std::optional<json>> AutotaskClient::get(std::string entity, std::int64_t id) {
  const std::string url = state_->settings.base_url + "V1.0/" + entity + "/" + std::to_string(id);
  const json found = co_await call(entity, "GET", url, "");
  if (!found.is_object() || !found.contains("item") || !found["item"].is_object()) co_return std::nullopt;
  co_return found["item"];
}

awaitable<json> AutotaskClient::fields(std::string entity) {
  const std::string url = state_->settings.base_url + "V1.0/" + entity + "/entityInformation/fields";
  const json found = co_await call(entity, "GET", url, "");
  if (!found.is_object() || !found.contains("fields") || !found["fields"].is_array())
    throw failure("the PSA answered " + entity + "/entityInformation/fields without fields", 200);
  co_return found["fields"];
}

awaitable<std::vector<TicketAttachment>> AutotaskClient::ticket_attachments(std::int64_t ticket_id) {
  const std::string url = state_->settings.base_url + "V1.0/Tickets/" + std::to_string(ticket_id) + "/Attachments";
  const json found = co_await call("TicketAttachments", "GET", url, "");
  std::vector<TicketAttachment> out;
  if (found.is_null()) co_return out;  // 404: no such ticket
  if (!found.is_object() || !found.contains("items") || !found["items"].is_array())
    throw failure("the PSA answered Tickets/" + std::to_string(ticket_id) + "/Attachments without items", 200);
  for (const auto& item : found["items"])
    if (item.is_object()) out.push_back(attachment_of(item));
  co_return out;
}

awaitable<std::optional<TicketAttachment>> AutotaskClient::attachment(std::int64_t ticket_id,
                                                                      std::int64_t attachment_id) {
  const std::string where = "Tickets/" + std::to_string(ticket_id) + "/Attachments/" + std::to_string(attachment_id);
  const json found = co_await call("TicketAttachments", "GET", state_->settings.base_url + "V1.0/" + where, "");
  const json* item = nullptr;
  if (found.is_object() && found.contains("items") && found["items"].is_array() && !found["items"].empty() &&
      found["items"][0].is_object())
    item = &found["items"][0];
  else if (found.is_object() && found.contains("item") && found["item"].is_object())
    item = &found["item"];
  if (!item) co_return std::nullopt;
  auto out = attachment_of(*item);
  const auto data = item->find("data");
  const std::string encoded = data != item->end() && data->is_string() ? data->get<std::string>() : "";
  out.data.resize(encoded.size());
  std::size_t size = 0;
  const char* end = nullptr;
  if (!encoded.empty() &&
      (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data.data()), out.data.size(), encoded.data(),
                         encoded.size(), " \r\n", &size, &end, sodium_base64_VARIANT_ORIGINAL) != 0 ||
       end != encoded.data() + encoded.size()))
    throw failure("the PSA sent the data of " + where + " in a form that is not base64", 200);
  out.data.resize(size);
  co_return out;
}

}  // namespace ops_console::psa
