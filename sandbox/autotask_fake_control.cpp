// The control routes under /_sandbox/autotask (autotask_fake.hpp lists them), and the webhook
// callout Autotask would send: signed with HMAC-SHA1 of the exact bytes posted.
#include "sandbox/autotask_fake.hpp"
#include "sandbox/control_body.hpp"

#include "core/http/client.hpp"
#include "core/util/digest.hpp"
#include "core/util/strings.hpp"
#include "sandbox/autotask_rest.hpp"

#include <sodium.h>
#include <boost/asio/this_coro.hpp>

#include <stdexcept>

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using core::http::Status;
using nlohmann::json;

namespace {

// .NET's default JSON encoder, which Autotask's callouts come from, writes &, <, >, ', +, `, " and
// every non-ASCII character inside strings as \uXXXX; the signature covers those bytes, so a
// receiver must verify the raw body, never a re-serialised one (n8n-nodes-autotask re-escapes to
// cope). This rewrites nlohmann's output into that form.
std::string dotnet_escaped(const std::string& dumped) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  const auto unicode = [](std::string& out, unsigned cp) {
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(cp >> shift) & 0xF];
  };
  std::string out;
  bool in_string = false;
  for (std::size_t i = 0; i < dumped.size(); ++i) {
    const auto c = static_cast<unsigned char>(dumped[i]);
    if (!in_string) {
      out += static_cast<char>(c);
      in_string = c == '"';
      continue;
    }
    if (c == '\\' && i + 1 < dumped.size()) {
      const char next = dumped[i + 1];
      if (next == '"') {
        unicode(out, '"');
      } else if (next == 'u' && i + 5 < dumped.size()) {
        out += "\\u";
        for (std::size_t k = i + 2; k < i + 6; ++k)
          out += static_cast<char>(std::toupper(static_cast<unsigned char>(dumped[k])));
        i += 4;
      } else {
        out += '\\';
        out += next;
      }
      ++i;
    } else if (c == '"') {
      out += '"';
      in_string = false;
    } else if (c == '&' || c == '<' || c == '>' || c == '\'' || c == '+' || c == '`') {
      unicode(out, c);
    } else if (c >= 0x80) {  // UTF-8 (valid: dumped with invalid bytes replaced) to UTF-16 escapes
      const int len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
      unsigned cp = c & (len == 4 ? 0x07 : len == 3 ? 0x0F : 0x1F);
      for (int k = 1; k < len && i + k < dumped.size(); ++k) cp = (cp << 6) | (dumped[i + k] & 0x3F);
      i += len - 1;
      if (cp > 0xFFFF) {
        cp -= 0x10000;
        unicode(out, 0xD800 + (cp >> 10));
        unicode(out, 0xDC00 + (cp & 0x3FF));
      } else {
        unicode(out, cp);
      }
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// Webhook Fields carry strings only (../shared/vendors.md); names as in the vendors.md example
// ("Status"), values as .NET prints them.
std::string field_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  return v.dump();
}

std::string pascal(std::string name) {
  if (!name.empty()) name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
  return name;
}

Response bad_request(const std::string& message) { return autotask::error(400, message); }

}  // namespace

awaitable<AutotaskCalloutResult> AutotaskFake::send_webhook(AutotaskCallout callout) {
  const auto* entity = autotask::find_entity(callout.entity_type);
  json fields = json::object();
  std::int64_t sequence = 0, person = 0;
  {
    std::lock_guard lock(mutex_);
    if (callout.fields) {
      for (const auto& [key, value] : callout.fields->items())
        if (!value.is_null()) fields[key] = field_text(value);
    } else if (entity && callout.action != "Delete") {
      // Without a list, every field the row has: Autotask sends those the webhook subscribes to.
      const auto& rows = table(entity->name).rows;
      if (const auto it = rows.find(callout.id); it != rows.end())
        for (const auto& [key, value] : it->second.items())
          if (key != "id" && !value.is_null()) fields[pascal(key)] = field_text(value);
    }
    sequence = callout.sequence_number ? *callout.sequence_number : ++sequence_number_;
    const auto& resources = table("Resources").rows;
    person = callout.person_id ? *callout.person_id : resources.empty() ? 29682885 : resources.begin()->first;
    ++callouts_;
  }
  // Autotask's member order; nlohmann's ordered_json keeps it.
  nlohmann::ordered_json payload;
  payload["Action"] = callout.action;
  payload["Guid"] = options_.webhook_guid;
  payload["EntityType"] = entity ? entity->singular : callout.entity_type;
  payload["Id"] = callout.id;
  payload["Fields"] = nlohmann::ordered_json::parse(fields.dump());
  payload["EventTime"] = autotask::format_time(core::now()).substr(0, 19) + "Z";
  payload["SequenceNumber"] = sequence;
  payload["PersonID"] = person;

  AutotaskCalloutResult result;
  result.sent = dotnet_escaped(payload.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  result.signature = "sha1=" + core::hmac_sha1_base64(callout.secret, result.sent);

  // One attempt: Autotask's own retries (about two minutes) are the caller's to imitate.
  const auto executor = co_await asio::this_coro::executor;
  core::http::ClientOptions options;
  options.total_timeout = std::chrono::seconds(10);
  options.max_retries = 0;
  const core::http::Client client(executor, options);
  core::http::OutboundRequest request{
      .method = "POST",
      .url = callout.url,
      .headers = {{"Content-Type", "application/json; charset=utf-8"}, {"X-Hook-Signature", result.signature}},
      .body = result.sent,
      .retry_transport_errors = false};
  try {
    const auto response = co_await client.send(std::move(request));
    result.status = response.status;
    result.body = response.body.substr(0, 4096);
  } catch (const std::exception& e) {
    result.error = e.what();
  }
  co_return result;
}

void AutotaskFake::install_control(core::http::Router& router) {
  router.post("/_sandbox/autotask/reset", [this](Request&) -> awaitable<Response> {
    reset();
    co_return Response::empty();
  });

  router.post("/_sandbox/autotask/seed", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return bad_request("body must be a JSON object");
    autotask::SeedCounts counts;
    const std::pair<const char*, int*> numbers[] = {{"companies", &counts.companies},
                                                    {"contacts", &counts.contacts},
                                                    {"resources", &counts.resources},
                                                    {"tickets", &counts.tickets},
                                                    {"time_entries", &counts.time_entries},
                                                    {"projects", &counts.projects},
                                                    {"tasks", &counts.tasks},
                                                    {"contracts", &counts.contracts},
                                                    {"configuration_items", &counts.configuration_items},
                                                    {"tag_groups", &counts.tag_groups},
                                                    {"tags", &counts.tags},
                                                    {"ticket_tags", &counts.ticket_tags},
                                                    {"days", &counts.days}};
    for (const auto& [name, target] : numbers) {
      if (!body.contains(name)) continue;
      if (!body[name].is_number_integer() || body[name].get<int>() < 0 || body[name].get<int>() > 100'000)
        co_return bad_request(std::string(name) + " must be an integer 0..100000");
      *target = body[name].get<int>();
    }
    if (body.contains("seed")) {
      if (!body["seed"].is_number_unsigned()) co_return bad_request("seed must be a non-negative integer");
      counts.seed = body["seed"].get<std::uint32_t>();
    }
    if (counts.days < 1) co_return bad_request("days must be at least 1");
    seed(counts);
    const auto now = stats();
    json made = json::object();
    for (const auto& e : autotask::entities()) made[e.name] = now["entities"][e.name]["rows"];
    co_return Response::json(made, Status::created);
  });

  router.get("/_sandbox/autotask/entities/{entity}", [this](Request& req) -> awaitable<Response> {
    const auto* entity = autotask::url_entity(req.param("entity"));
    if (!entity) co_return autotask::error(404, "no such entity");
    co_return Response::json({{"items", rows(entity->name)}});
  });

  router.post("/_sandbox/autotask/entities/{entity}", [this](Request& req) -> awaitable<Response> {
    const auto* entity = autotask::url_entity(req.param("entity"));
    if (!entity) co_return autotask::error(404, "no such entity");
    const auto body = body_of(req);
    try {
      co_return Response::json({{"item", add(entity->name, body)}}, Status::created);
    } catch (const std::invalid_argument& e) {
      co_return bad_request(e.what());
    }
  });

  router.patch("/_sandbox/autotask/entities/{entity}/{id}", [this](Request& req) -> awaitable<Response> {
    const auto* entity = autotask::url_entity(req.param("entity"));
    const auto id = core::parse_int64(req.param("id"));
    if (!entity || !id) co_return autotask::error(404, "no such row");
    const auto body = body_of(req);
    try {
      const auto changed = update(entity->name, *id, body);
      if (!changed) co_return autotask::error(404, "no such row");
      co_return Response::json({{"item", *changed}});
    } catch (const std::invalid_argument& e) {
      co_return bad_request(e.what());
    }
  });

  router.del("/_sandbox/autotask/entities/{entity}/{id}", [this](Request& req) -> awaitable<Response> {
    const auto* entity = autotask::url_entity(req.param("entity"));
    const auto id = core::parse_int64(req.param("id"));
    if (!entity || !id || !remove(entity->name, *id)) co_return autotask::error(404, "no such row");
    co_return Response::empty();
  });

  // A file attached to a ticket (a reported .eml for the phishing tests): `raw` as its bytes, or
  // `data` in base64.
  router.post("/_sandbox/autotask/tickets/{id}/attachments", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    const auto ticket = core::parse_int64(req.param("id"));
    if (!body.is_object() || !body.contains("title") || !body["title"].is_string() ||
        !(body.contains("raw") ? body["raw"].is_string() : body.contains("data") && body["data"].is_string()))
      co_return bad_request("body must be {title, contentType?, raw | data (base64)}");
    std::string bytes;
    if (body.contains("raw")) {
      bytes = body["raw"].get<std::string>();
    } else {
      const auto data = body["data"].get<std::string>();
      bytes.resize(data.size());
      std::size_t size = 0;
      const char* end = nullptr;
      if (!data.empty() && (sodium_base642bin(reinterpret_cast<unsigned char*>(bytes.data()), bytes.size(), data.data(),
                                              data.size(), "\r\n", &size, &end, sodium_base64_VARIANT_ORIGINAL) != 0 ||
                            end != data.data() + data.size()))
        co_return bad_request("data must be base64");
      bytes.resize(size);
    }
    try {
      co_return Response::json({{"item", attach(ticket.value_or(0), body["title"].get<std::string>(),
                                                body.value("contentType", "message/rfc822"), bytes)}},
                               Status::created);
    } catch (const std::invalid_argument& e) {
      co_return autotask::error(404, e.what());
    }
  });

  router.get("/_sandbox/autotask/tickets/{id}/attachments", [this](Request& req) -> awaitable<Response> {
    co_return Response::json({{"items", attachments(core::parse_int64(req.param("id")).value_or(0))}});
  });

  router.put("/_sandbox/autotask/faults", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return bad_request("body must be a JSON object");
    AutotaskFaults f;
    f.throttle = body.value("throttle", 0);
    f.retry_after = body.value("retry_after", 1);
    f.server_errors = body.value("server_errors", 0);
    f.status = body.value("status", 503);
    f.latency = std::chrono::milliseconds(body.value("latency_ms", 0));
    f.entity = body.value("entity", "");
    if (f.status < 500 || f.status > 599) co_return bad_request("status must be a 5xx");
    if (const auto bad = read_echo_switch(body, f.echo)) co_return bad_request(*bad);
    set_faults(f);
    co_return Response::empty();
  });

  router.get("/_sandbox/autotask/stats",
             [this](Request&) -> awaitable<Response> { co_return Response::json(stats()); });

  router.post("/_sandbox/autotask/webhooks/send", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object() || !body.contains("url") || !body["url"].is_string() || !body.contains("id") ||
        !body["id"].is_number_integer())
      co_return bad_request(
          "body must be {url, secret, entity_type, id, action, fields?, sequence_number?, person_id?}");
    AutotaskCallout callout;
    callout.url = body["url"].get<std::string>();
    callout.secret = body.value("secret", "");
    callout.entity_type = body.value("entity_type", "Ticket");
    callout.id = body["id"].get<std::int64_t>();
    const std::string action = body.value("action", "Update");
    for (const char* known : {"Create", "Update", "Delete"})
      if (core::iequals(action, known)) callout.action = known;
    if (!core::iequals(action, callout.action)) co_return bad_request("action must be Create, Update or Delete");
    if (body.contains("fields")) {
      if (!body["fields"].is_object()) co_return bad_request("fields must be an object");
      callout.fields = body["fields"];
    }
    if (body.contains("sequence_number") && body["sequence_number"].is_number_integer())
      callout.sequence_number = body["sequence_number"].get<std::int64_t>();
    if (body.contains("person_id") && body["person_id"].is_number_integer())
      callout.person_id = body["person_id"].get<std::int64_t>();
    const auto result = co_await send_webhook(std::move(callout));
    json answer = {
        {"status", result.status}, {"body", result.body}, {"sent", result.sent}, {"signature", result.signature}};
    if (!result.error.empty()) answer["error"] = result.error;
    co_return Response::json(answer);
  });
}

}  // namespace sandbox
