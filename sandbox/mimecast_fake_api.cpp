// Mimecast API 2.0's endpoints behind the gate of mimecast_fake.cpp: the held queue and its release, message
// finder (search and message info) and the SIEM event stream (mimecast_fake.hpp has the rules and sources).
#include "core/util/strings.hpp"
#include "sandbox/mimecast_fake.hpp"
#include "sandbox/mimecast_rest.hpp"

#include <algorithm>
#include <set>

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using core::http::Status;
using nlohmann::json;

namespace {

constexpr std::size_t kDefaultPageSize = 25;
constexpr std::size_t kMimecastMaxPageSize = 500;
constexpr std::size_t kSiemDefaultPageSize = 100;

struct Page {
  std::size_t offset = 0;
  std::size_t size = kDefaultPageSize;
};

// A number, or a string of digits ("100": clients send both).
std::optional<std::int64_t> integer_of(const json& v) {
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_string()) return core::parse_int64(v.get<std::string>());
  return std::nullopt;
}

std::string page_token(const std::string& kind, std::size_t offset) { return kind + "_" + std::to_string(offset); }

// meta.pagination's pageSize and pageToken; the fail entry's code and message when they are malformed.
std::optional<std::pair<std::string, std::string>> paging_of(const json& meta, const std::string& kind, Page& page) {
  const auto p = meta.find("pagination");
  if (p == meta.end() || !p->is_object()) return std::nullopt;
  if (const auto size = p->find("pageSize"); size != p->end() && !size->is_null()) {
    const auto n = integer_of(*size);
    if (!n || *n < 1 || *n > static_cast<std::int64_t>(kMimecastMaxPageSize))
      return std::pair{std::string("err_validation_value_not_allowed"),
                       "pageSize must be between 1 and " + std::to_string(kMimecastMaxPageSize)};
    page.size = static_cast<std::size_t>(*n);
  }
  if (const auto token = p->find("pageToken"); token != p->end() && !token->is_null()) {
    const std::string t = token->is_string() ? token->get<std::string>() : "";
    const auto prefix = kind + "_";
    const auto n = t.starts_with(prefix) ? core::parse_int64(std::string_view(t).substr(prefix.size())) : std::nullopt;
    if (!n || *n < 0)
      return std::pair{std::string("err_invalid_page_token"), std::string("The pageToken is not valid.")};
    page.offset = static_cast<std::size_t>(*n);
  }
  return std::nullopt;
}

json pagination_of(const std::string& kind, const Page& page, std::size_t total) {
  json p = {{"pageSize", page.size}, {"totalCount", total}};
  if (page.offset + page.size < total) p["next"] = page_token(kind, page.offset + page.size);
  if (page.offset > 0) p["previous"] = page_token(kind, page.offset > page.size ? page.offset - page.size : 0);
  return p;
}

// A date field of a data item: absent (nullopt, no error), or parsed; `error` set when it does not parse.
std::optional<core::Timestamp> date_field(const json& item, const char* name, std::string& error) {
  const auto it = item.find(name);
  if (it == item.end() || it->is_null()) return std::nullopt;
  const auto parsed = it->is_string() ? mimecast::parse_date(it->get<std::string>()) : std::nullopt;
  if (!parsed) error = std::string(name) + " must be a date such as 2011-12-03T10:15:30+0000";
  return parsed;
}

bool contains_icase(std::string_view haystack, std::string_view needle) {
  return core::to_lower(haystack).find(core::to_lower(needle)) != std::string::npos;
}

// An address, or a domain ("example.com" matches user@example.com and user@mail.example.com).
bool address_matches(std::string_view address, std::string_view wanted) {
  const auto a = core::to_lower(address), w = core::to_lower(core::trim(wanted));
  if (w.empty()) return true;
  if (w.find('@') != std::string::npos) return a == w;
  return a.ends_with("@" + w) || a.ends_with("." + w);
}

const std::set<std::string>& siem_types() {
  static const std::set<std::string> all{"receipt",
                                         "process",
                                         "delivery",
                                         "av",
                                         "spam",
                                         "internal email protect",
                                         "impersonation protect",
                                         "url protect",
                                         "attachment protect",
                                         "journal"};
  return all;
}

}  // namespace

void MimecastFake::install_api(core::http::Router& router) {
  const auto api = [this](std::string endpoint, Work work) -> core::http::Handler {
    return
        [this, endpoint, work](Request& req) -> awaitable<Response> { co_return co_await serve(req, endpoint, work); };
  };

  // --- the held queue ---
  router.post("/mimecast/api/gateway/get-hold-message-list",
              api("/api/gateway/get-hold-message-list", [this](const Call& c) -> Response {
                const auto& item = c.item;
                bool admin = false;
                if (const auto a = item.find("admin"); a != item.end() && !a->is_null()) {
                  if (a->is_boolean())
                    admin = a->get<bool>();
                  else if (a->is_string() && (a->get<std::string>() == "true" || a->get<std::string>() == "false"))
                    admin = a->get<std::string>() == "true";
                  else
                    return mimecast::envelope_error(Status::ok, "err_validation_value_not_allowed",
                                                    "admin: Field must be one of [true, false]", item);
                }
                if (admin && !admin_) {
                  ++forbidden_;
                  return mimecast::envelope_error(
                      Status::forbidden, "app_forbidden",
                      "Access denied: the application's user is not permitted to view held messages for all "
                      "recipients.",
                      item);
                }
                std::string error;
                const auto start = date_field(item, "start", error);
                const auto end = date_field(item, "end", error);
                if (!error.empty())
                  return mimecast::envelope_error(Status::ok, "err_validation_invalid_date", error, item);
                std::string field = "all", value;
                if (const auto s = item.find("searchBy"); s != item.end() && s->is_object()) {
                  field = s->value("fieldName", "all");
                  value = s->value("value", "");
                  static const std::set<std::string> kFields{"all", "subject", "sender", "recipient", "reason_code"};
                  if (!kFields.contains(field))
                    return mimecast::envelope_error(
                        Status::ok, "err_validation_value_not_allowed",
                        "fieldName: Field must be one of [all, subject, sender, recipient, reason_code]", item);
                }
                Page page;
                if (const auto bad = paging_of(c.meta, "held", page))
                  return mimecast::envelope_error(Status::ok, bad->first, bad->second, item);

                const auto caller = core::to_lower(options_.caller_email);
                const auto matches = [&](const mimecast::Held& h) {
                  if (value.empty()) return true;
                  const auto header = h.from_header.email.empty() ? h.from : h.from_header;
                  const bool subject = contains_icase(h.subject, value);
                  const bool sender = contains_icase(h.from.email, value) || contains_icase(header.email, value) ||
                                      contains_icase(h.from.name, value);
                  const bool recipient = contains_icase(h.to.email, value) || contains_icase(h.to.name, value);
                  const bool reason = contains_icase(h.reason_code, value) || contains_icase(h.reason, value);
                  if (field == "subject") return subject;
                  if (field == "sender") return sender;
                  if (field == "recipient") return recipient;
                  if (field == "reason_code") return reason;
                  return subject || sender || recipient || reason;
                };
                std::vector<const mimecast::Held*> rows;
                for (const auto& h : data_.held) {
                  if (h.released) continue;
                  if (!admin && core::to_lower(h.to.email) != caller) continue;
                  if ((start && h.received < *start) || (end && h.received > *end)) continue;
                  if (matches(h)) rows.push_back(&h);
                }
                json items = json::array();
                for (auto i = page.offset; i < rows.size() && i < page.offset + page.size; ++i)
                  items.push_back(mimecast::render(*rows[i]));
                return mimecast::ok(std::move(items), pagination_of("held", page, rows.size()));
              }));

  router.post("/mimecast/api/gateway/hold-release", api("/api/gateway/hold-release", [this](const Call& c) -> Response {
                const auto& item = c.item;
                const auto id = item.find("id");
                if (id == item.end() || !id->is_string() || id->get<std::string>().empty())
                  return mimecast::envelope_error(Status::ok, "err_validation_null", "id: may not be null", item);
                const auto it = std::find_if(data_.held.begin(), data_.held.end(), [&](const mimecast::Held& h) {
                  return h.id == id->get_ref<const std::string&>();
                });
                if (it == data_.held.end() || it->released)
                  return mimecast::envelope_error(
                      Status::ok, "err_hold_release_failed",
                      "The message could not be released: it is not in the hold queue (unknown, or released already).",
                      item);
                if (!admin_ && !core::iequals(it->to.email, options_.caller_email)) {
                  ++forbidden_;
                  return mimecast::envelope_error(Status::forbidden, "app_forbidden",
                                                  "Access denied: the application's user may release only its own "
                                                  "held messages.",
                                                  item);
                }
                it->released = true;
                ++released_;
                return mimecast::ok(json::array({{{"id", it->id}, {"release", true}}}));
              }));

  // --- message finder ---
  router.post(
      "/mimecast/api/message-finder/search", api("/api/message-finder/search", [this](const Call& c) -> Response {
        const auto& item = c.item;
        std::string error;
        const auto start_field = date_field(item, "start", error);
        const auto end_field = date_field(item, "end", error);
        if (!error.empty()) return mimecast::envelope_error(Status::ok, "err_validation_invalid_date", error, item);
        const auto now = core::now();
        const auto end = end_field.value_or(now);
        const auto start = start_field.value_or(end - std::chrono::days(1));
        // "Start date has a ~30 day cap ... strict to the day": a start 30 days back already fails.
        if (start <= now - std::chrono::days(30))
          return mimecast::envelope_error(Status::ok, "err_track_and_trace_invalid_start_date",
                                          "The start date must be within the last 30 days.", item);
        if (end < start)
          return mimecast::envelope_error(Status::ok, "err_track_and_trace_invalid_end_date",
                                          "The end date must not be before the start date.", item);
        static const json kNone = json::object();
        const auto o = item.find("advancedTrackAndTraceOptions");
        const json& options = o != item.end() && o->is_object() ? *o : kNone;
        const auto text = [&](const char* name) {
          const auto it = options.find(name);
          return it != options.end() && it->is_string() ? it->get<std::string>() : std::string();
        };
        const std::string from = text("from"), to = text("to"), subject = text("subject"), ip = text("senderIP");
        std::set<std::string> routes;
        if (const auto r = options.find("route"); r != options.end() && !r->is_null()) {
          std::vector<json> values;
          if (r->is_array())
            values.assign(r->begin(), r->end());
          else
            values.push_back(*r);
          for (const auto& v : values) {
            const std::string route = v.is_string() ? core::to_lower(v.get<std::string>()) : "";
            if (route != "inbound" && route != "outbound" && route != "internal")
              return mimecast::envelope_error(Status::ok, "err_validation_value_not_allowed",
                                              "route: Field must be one of [inbound, outbound, internal]", item);
            routes.insert(route);
          }
        }
        const std::string message_id = item.value("messageId", "");
        json found = json::array();
        for (const auto& t : data_.tracked) {
          if (t.received < start || t.received > end) continue;
          if (!message_id.empty() && t.message_id != message_id) continue;
          const auto envelope = t.from_envelope.empty() ? t.from.email : t.from_envelope;
          if (!from.empty() && !address_matches(envelope, from) && !address_matches(t.from.email, from)) continue;
          if (!to.empty() &&
              std::none_of(t.to.begin(), t.to.end(), [&](const auto& a) { return address_matches(a.email, to); }))
            continue;
          if (!subject.empty() && !contains_icase(t.subject, subject)) continue;
          if (!ip.empty() && t.sender_ip != ip) continue;
          if (!routes.empty() && !routes.contains(t.route)) continue;
          found.push_back(mimecast::render(t));
        }
        return mimecast::ok(json::array({{{"trackedEmails", std::move(found)}}}));
      }));

  router.post("/mimecast/api/message-finder/get-message-info",
              api("/api/message-finder/get-message-info", [this](const Call& c) -> Response {
                const auto& item = c.item;
                const auto id = item.find("id");
                if (id == item.end() || !id->is_string() || id->get<std::string>().empty())
                  return mimecast::envelope_error(Status::ok, "err_validation_null", "id: may not be null", item);
                for (const auto& t : data_.tracked)
                  if (t.id == id->get_ref<const std::string&>())
                    return mimecast::ok(json::array({mimecast::render_info(t)}));
                return mimecast::envelope_error(Status::ok, "err_message_not_found", "No message has that id.", item);
              }));

  // --- the SIEM event stream: the message-count feed ---
  router.get("/mimecast/siem/v1/events/cg", [this](Request& req) -> awaitable<Response> {
    co_return co_await serve_plain(req, "/siem/v1/events/cg", [this](Request& r) -> Response {
      const auto bad = [](std::string message) {
        auto res = mimecast::gateway_error(Status::bad_request, "invalid_parameter", message);
        mimecast::rate_headers(res);
        return res;
      };
      bool receipts = true;
      const auto types = r.query.get("types") ? r.query.get("types") : r.query.get("type");
      if (types && !core::trim(*types).empty()) {
        receipts = false;
        for (const auto piece : core::split(*types, ',')) {
          const auto type = core::to_lower(core::trim(piece));
          if (!siem_types().contains(type)) return bad("types: '" + type + "' is not an event type");
          receipts = receipts || type == "receipt";
        }
      }
      std::size_t size = kSiemDefaultPageSize;
      if (const auto p = r.query.get("pageSize")) {
        const auto n = core::parse_int64(*p);
        if (!n || *n < 1 || *n > static_cast<std::int64_t>(kMimecastMaxPageSize))
          return bad("pageSize must be between 1 and " + std::to_string(kMimecastMaxPageSize));
        size = static_cast<std::size_t>(*n);
      }
      // The range and position: from nextPage ("siem_<offset>_<from ms>_<to ms>") or the date parameters.
      std::size_t offset = 0;
      std::int64_t from_ms = 0, to_ms = 0;
      if (const auto next = r.query.get("nextPage")) {
        const auto parts = core::split(*next, '_');
        std::optional<std::int64_t> o, f, t;
        if (parts.size() == 4 && parts[0] == "siem")
          o = core::parse_int64(parts[1]), f = core::parse_int64(parts[2]), t = core::parse_int64(parts[3]);
        if (!o || !f || !t || *o < 0) return bad("nextPage is not a valid token");
        offset = static_cast<std::size_t>(*o), from_ms = *f, to_ms = *t;
      } else {
        const auto ms = [](core::Timestamp t) {
          return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
        };
        const auto now = core::now();
        std::optional<core::Timestamp> from = now - std::chrono::days(1), to = now;
        if (const auto s = r.query.get("dateRangeStartsAt")) from = mimecast::parse_siem_date(*s);
        if (const auto e = r.query.get("dateRangeEndsAt")) to = mimecast::parse_siem_date(*e);
        if (!from || !to)
          return bad("dateRangeStartsAt and dateRangeEndsAt must be dates such as 2025-01-01T00:00:00.000Z");
        if (*to <= *from) return bad("dateRangeEndsAt must be after dateRangeStartsAt");
        from_ms = ms(*from), to_ms = ms(*to);
      }
      std::vector<const mimecast::Event*> events;
      if (receipts)
        for (const auto& e : data_.events)
          if (e.timestamp_ms >= from_ms && e.timestamp_ms < to_ms) events.push_back(&e);
      json value = json::array();
      auto i = offset;
      for (; i < events.size() && i < offset + size; ++i)
        value.push_back(mimecast::render(*events[i], options_.account_id));
      const auto served = value.size();
      auto res = Response::json({{"value", std::move(value)},
                                 {"@nextPage", "siem_" + std::to_string(std::max(i, offset)) + "_" +
                                                   std::to_string(from_ms) + "_" + std::to_string(to_ms)},
                                 {"pageSize", served},
                                 {"isCaughtUp", i >= events.size()}});
      mimecast::rate_headers(res);
      return res;
    });
  });
}

}  // namespace sandbox
