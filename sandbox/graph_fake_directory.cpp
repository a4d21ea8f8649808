// Graph's directory photos and the e-mail activity usage report (graph_fake.hpp says what they
// follow), behind the token and the fault switches, and the report's pre-authenticated download.
#include "sandbox/graph_fake.hpp"

#include "core/util/strings.hpp"
#include "sandbox/graph_error.hpp"
#include "sandbox/seed_random.hpp"

#include <chrono>

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using core::http::Status;
using nlohmann::json;

namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";
constexpr auto kDownloadLifetime = std::chrono::minutes(5);
constexpr int kReportDaysKept = 28;  // "Only support data for the past 28 days."
constexpr std::string_view kColumns =
    "Report Refresh Date,User Principal Name,Display Name,Is Deleted,Deleted Date,Last Activity Date,Send Count,"
    "Receive Count,Read Count,Meeting Created Count,Meeting Interacted Count,Assigned Products,Report Period";

std::string date_text(std::chrono::sys_days day) {
  const std::chrono::year_month_day ymd(day);
  char out[11];
  std::snprintf(out, sizeof out, "%04d-%02u-%02u", static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                static_cast<unsigned>(ymd.day()));
  return out;
}

std::optional<std::chrono::sys_days> parse_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return std::nullopt;
  const auto y = core::parse_int64(s.substr(0, 4)), m = core::parse_int64(s.substr(5, 2)),
             d = core::parse_int64(s.substr(8, 2));
  if (!y || !m || !d) return std::nullopt;
  const std::chrono::year_month_day ymd{std::chrono::year(static_cast<int>(*y)),
                                        std::chrono::month(static_cast<unsigned>(*m)),
                                        std::chrono::day(static_cast<unsigned>(*d))};
  if (!ymd.ok()) return std::nullopt;
  return std::chrono::sys_days(ymd);
}

std::chrono::sys_days today() { return std::chrono::floor<std::chrono::days>(core::now()); }

// A CSV field, quoted when it must be (RFC 4180).
std::string csv_field(const std::string& v) {
  if (v.find_first_of(",\"\r\n") == std::string::npos) return v;
  std::string out = "\"";
  for (const char c : v) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) line += (i ? "," : "") + csv_field(fields[i]);
  return line + "\r\n";
}

}  // namespace

std::string GraphFake::object_id(const std::string& upn) {
  auto& id = directory_[upn];
  if (id.empty()) id = core::random_uuid();
  return id;
}

std::optional<std::string> GraphFake::directory_user(const std::string& ref) const {
  const std::string key = core::to_lower(ref);
  if (directory_.contains(key) || mailboxes_.contains(key)) return key;
  for (const auto& [upn, id] : directory_)
    if (id == key) return upn;
  return std::nullopt;
}

std::string GraphFake::add_directory_user(const std::string& upn) {
  std::lock_guard lock(mutex_);
  return object_id(core::to_lower(upn));
}

std::string GraphFake::set_photo(const std::string& user, std::string content_type, std::string bytes) {
  std::lock_guard lock(mutex_);
  const std::string upn = directory_user(user).value_or(core::to_lower(user));
  photos_[upn] = {std::move(content_type), std::move(bytes)};
  return object_id(upn);
}

void GraphFake::remove_photo(const std::string& user) {
  std::lock_guard lock(mutex_);
  if (const auto upn = directory_user(user)) photos_.erase(*upn);
}

void GraphFake::add_usage(const std::string& date, UsageDay usage) {
  std::lock_guard lock(mutex_);
  usage.user = core::to_lower(usage.user);
  object_id(usage.user);
  usage_[date][usage.user] = std::move(usage);
}

void GraphFake::seed_usage(int users, int days, std::uint32_t seed, const std::string& domain) {
  // Microsoft's demo tenant's people, then numbered.
  static const std::vector<std::pair<std::string, std::string>> kPeople{{"adele.vance", "Adele Vance"},
                                                                        {"alex.wilber", "Alex Wilber"},
                                                                        {"diego.siciliani", "Diego Siciliani"},
                                                                        {"grady.archie", "Grady Archie"},
                                                                        {"isaiah.langer", "Isaiah Langer"},
                                                                        {"johanna.lorenz", "Johanna Lorenz"},
                                                                        {"lee.gu", "Lee Gu"},
                                                                        {"lidia.holloway", "Lidia Holloway"},
                                                                        {"lynne.robbins", "Lynne Robbins"},
                                                                        {"megan.bowen", "Megan Bowen"},
                                                                        {"miriam.graham", "Miriam Graham"},
                                                                        {"nestor.wilke", "Nestor Wilke"},
                                                                        {"patti.fernandez", "Patti Fernandez"},
                                                                        {"pradeep.gupta", "Pradeep Gupta"}};
  SeedRandom random(seed);
  const auto last = today() - std::chrono::days(1);
  for (int u = 0; u < users; ++u) {
    const auto& [name, display] = kPeople[static_cast<std::size_t>(u) % kPeople.size()];
    const std::string suffix = u < static_cast<int>(kPeople.size()) ? "" : std::to_string(u / kPeople.size() + 1);
    const int busy = random.between(1, 4);  // how much this person mails
    for (int d = 0; d < days; ++d) {
      const auto day = last - std::chrono::days(d);
      const bool weekend = std::chrono::weekday(day).c_encoding() % 6 == 0;
      if (weekend && !random.chance(0.2)) continue;
      UsageDay usage;
      usage.user = name + suffix + "@" + domain;
      usage.display_name = display + (suffix.empty() ? "" : " " + suffix);
      usage.send = random.between(0, weekend ? 2 : 8 * busy);
      usage.receive = random.between(weekend ? 0 : 10, weekend ? 10 : 20 * busy);
      usage.read = usage.receive * random.between(50, 100) / 100;
      usage.meeting_created = random.chance(0.3) ? random.between(1, 2) : 0;
      usage.meeting_interacted = random.between(0, 4);
      add_usage(date_text(day), std::move(usage));
    }
  }
}

void GraphFake::set_report_lag(int days) {
  std::lock_guard lock(mutex_);
  report_lag_days_ = days;
}

void GraphFake::install_directory(core::http::Router& router) {
  // The photo's bytes, or Graph's 404s.
  router.get("/v1.0/users/{mailbox}/photo/$value", [this](Request& req) -> awaitable<Response> {
    if (auto refused = co_await gate(req)) co_return std::move(*refused);
    const std::string ref(req.param("mailbox"));
    std::lock_guard lock(mutex_);
    ++photo_requests_;
    const auto upn = directory_user(ref);
    if (!upn)
      co_return graph_error(
          404, "Request_ResourceNotFound",
          "Resource '" + ref + "' does not exist or one of its queried reference-property objects are not present.");
    const auto it = photos_.find(*upn);
    if (it == photos_.end())
      co_return graph_error(404, "ImageNotFound",
                            "Exception of type 'Microsoft.Fast.Profile.Core.Exception.ImageNotFoundException' was "
                            "thrown.");
    Response res;
    res.headers.set("Content-Type", it->second.content_type);
    res.headers.set("ETag", "\"" + std::to_string(std::hash<std::string>{}(it->second.bytes)) + "\"");
    res.body = it->second.bytes;
    co_return res;
  });

  // The report functions: a 302 to the CSV.
  router.get("/v1.0/reports/{function}", [this](Request& req) -> awaitable<Response> {
    if (auto refused = co_await gate(req)) co_return std::move(*refused);
    const std::string function(req.param("function"));
    const auto open = function.find('(');
    if (open == std::string::npos || function.back() != ')' || function.substr(0, open) != "getEmailActivityUserDetail")
      co_return graph_error(400, "BadRequest", "Resource not found for the segment '" + function + "'.");
    const std::string argument = function.substr(open + 1, function.size() - open - 2);
    const auto now = today();
    std::vector<std::vector<std::string>> rows;
    std::string csv;
    {
      std::lock_guard lock(mutex_);
      ++report_requests_;
      const auto refreshed = now - std::chrono::days(report_lag_days_);
      const std::string refresh = date_text(refreshed);
      const auto row = [&](const UsageDay& u, const std::string& last, const std::string& period) {
        rows.push_back({refresh, u.user, u.display_name, "False", "", last, std::to_string(u.send),
                        std::to_string(u.receive), std::to_string(u.read), std::to_string(u.meeting_created),
                        std::to_string(u.meeting_interacted), u.assigned_products, period});
      };
      if (argument.starts_with("date=")) {
        const std::string text = argument.substr(5);
        const auto day = parse_date(text);
        if (!day) co_return graph_error(400, "BadRequest", "Invalid date value specified: " + text + ".");
        if (*day < now - std::chrono::days(kReportDaysKept) || *day > now)
          co_return graph_error(400, "InvalidArgument",
                                "Invalid date value specified: " + text + ". Only support data for the past " +
                                    std::to_string(kReportDaysKept) + " days.");
        if (*day <= refreshed)
          if (const auto it = usage_.find(text); it != usage_.end())
            for (const auto& [upn, u] : it->second) row(u, text, "1");
      } else if (argument.starts_with("period=")) {
        const std::string period = argument.substr(7);
        int days = 0;
        for (const int n : {7, 30, 90, 180})
          if (period == "'D" + std::to_string(n) + "'") days = n;
        if (days == 0) co_return graph_error(400, "BadRequest", "Invalid period value specified: " + period + ".");
        std::map<std::string, std::pair<UsageDay, std::string>> sums;  // upn → totals, last activity
        for (auto day = refreshed - std::chrono::days(days - 1); day <= refreshed; day += std::chrono::days(1)) {
          const std::string text = date_text(day);
          const auto it = usage_.find(text);
          if (it == usage_.end()) continue;
          for (const auto& [upn, u] : it->second) {
            auto& [sum, last] = sums[upn];
            if (sum.user.empty())
              sum = UsageDay{.user = u.user, .display_name = u.display_name, .assigned_products = u.assigned_products};
            sum.send += u.send;
            sum.receive += u.receive;
            sum.read += u.read;
            sum.meeting_created += u.meeting_created;
            sum.meeting_interacted += u.meeting_interacted;
            last = text;
          }
        }
        for (const auto& [upn, entry] : sums) row(entry.first, entry.second, std::to_string(days));
      } else {
        co_return graph_error(400, "BadRequest", "Either the period or the date parameter must be set.");
      }
      csv = std::string(kBom) + std::string(kColumns) + "\r\n";
      for (const auto& r : rows) csv += csv_line(r);
    }
    const std::string token = core::random_base64url(24);
    {
      std::lock_guard lock(mutex_);
      const auto now_steady = std::chrono::steady_clock::now();
      std::erase_if(downloads_, [&](const auto& d) { return d.second.until < now_steady; });
      downloads_[token] = {std::move(csv), now_steady + kDownloadLifetime};
    }
    Response res = Response::text("", Status::found, "text/plain");
    res.headers.set("Location", "http://" + std::string(req.header("host")) + "/data/download/" + token);
    co_return res;
  });

  // The pre-authenticated download: no token, valid a few minutes.
  router.get("/data/download/{token}", [this](Request& req) -> awaitable<Response> {
    std::lock_guard lock(mutex_);
    ++downloads_served_;
    if (!req.header("authorization").empty()) ++downloads_with_token_;
    if (download_errors_ > 0) {  // the storage behind the URL fails: Azure Storage's XML error
      --download_errors_;
      const std::string message = echoes_.message(faults_.echo, "The server is currently unable to receive requests.",
                                                  {{"token", std::string(req.param("token"))}});
      co_return Response::text("<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>ServerBusy</Code><Message>" +
                                   message + "</Message></Error>",
                               Status::service_unavailable, "application/xml");
    }
    const auto it = downloads_.find(std::string(req.param("token")));
    if (it == downloads_.end() || it->second.until < std::chrono::steady_clock::now())
      co_return Response::text("The specified blob does not exist.", Status::not_found, "text/plain");
    co_return Response::text(it->second.csv, Status::ok, "application/octet-stream");
  });
}

}  // namespace sandbox
