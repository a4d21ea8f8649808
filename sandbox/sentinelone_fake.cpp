// The SentinelOne fake's state, the gate every API call passes (the ApiToken, latency and faults) and the
// sites and agents routes (sentinelone_fake.hpp lists them).
#include "sandbox/sentinelone_fake.hpp"

#include "core/async/sleep.hpp"
#include "core/util/digest.hpp"
#include "core/util/strings.hpp"
#include "sandbox/duo_signing.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <set>

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using nlohmann::json;

namespace {

constexpr std::string_view kBase = "/sentinelone/web/api/v2.1";
constexpr std::int64_t kS1DefaultLimit = 10;
constexpr std::int64_t kS1MaxLimit = 1000;
constexpr std::uint64_t kSmallestId = 100000000000000000ull;

// SentinelOne's error envelope {errors: [{code, detail, title}]}.
Response error(int status, int code, json detail, const char* title) {
  return Response::json({{"errors", {{{"code", code}, {"detail", std::move(detail)}, {"title", title}}}}},
                        static_cast<core::http::Status>(status));
}

Response validation(std::string detail) { return error(400, 4000010, std::move(detail), "Validation Error"); }

// The filters and paging of a list call, checked; `bad` is the 400's detail.
struct Query {
  std::int64_t limit = kS1DefaultLimit;
  std::int64_t skip = 0;
  std::optional<std::uint64_t> after;  // the cursor's position: the last id of the previous page
  bool count_only = false;
  std::optional<std::set<std::uint64_t>> site_ids;
  std::optional<std::set<std::string>> states, os_types;
  std::optional<bool> is_active;
  std::optional<std::string> name;
  std::optional<std::string> bad;
};

std::optional<std::uint64_t> parse_id(std::string_view s) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::set<std::string> list_of(std::string_view text) {
  std::set<std::string> out;
  for (const auto piece : core::split(text, ',')) {
    const auto v = core::trim(piece);
    if (!v.empty()) out.insert(core::to_lower(v));
  }
  return out;
}

// "agent_id:<id>" / "site_id:<id>", base64: an opaque position in the id order of one list.
std::string cursor_for(std::string_view kind, std::uint64_t id) {
  return core::base64(std::string(kind) + "_id:" + std::to_string(id));
}

Query query_of(const Request& req, std::string_view kind) {
  Query q;
  if (const auto v = req.query.get("limit")) {
    const auto n = core::parse_int64(*v);
    if (!n || *n < 1 || *n > kS1MaxLimit)
      q.bad = "limit: Must be between 1 and 1000.";
    else
      q.limit = *n;
  }
  if (const auto v = req.query.get("skip")) {
    const auto n = core::parse_int64(*v);
    if (!n || *n < 0 || *n > 1000)
      q.bad = "skip: Must be between 0 and 1000.";
    else
      q.skip = *n;
  }
  if (const auto v = req.query.get("cursor")) {
    const auto decoded = duo::base64_decode(*v);
    const std::string prefix = std::string(kind) + "_id:";
    const auto id = decoded && decoded->rfind(prefix, 0) == 0
                        ? parse_id(std::string_view(*decoded).substr(prefix.size()))
                        : std::nullopt;
    if (!id)
      q.bad = "Invalid cursor value received";
    else
      q.after = *id;
  }
  if (const auto v = req.query.get("countOnly")) q.count_only = core::iequals(*v, "true");
  if (const auto v = req.query.get("siteIds")) {
    std::set<std::uint64_t> ids;
    std::size_t at = 0;
    for (const auto piece : core::split(*v, ',')) {
      const auto text = core::trim(piece);
      const auto id = parse_id(text);
      if (!id)
        q.bad = "siteIds: " + std::to_string(at) + ": Not a valid integer.";
      else if (*id < kSmallestId)
        q.bad = "siteIds: " + std::to_string(at) + ": Must be greater than or equal to 100000000000000000.";
      else
        ids.insert(*id);
      ++at;
    }
    q.site_ids = std::move(ids);
  }
  if (const auto v = req.query.get("states")) q.states = list_of(*v);
  if (const auto v = req.query.get("osTypes")) q.os_types = list_of(*v);
  if (const auto v = req.query.get("isActive")) {
    if (core::iequals(*v, "true"))
      q.is_active = true;
    else if (core::iequals(*v, "false"))
      q.is_active = false;
    else
      q.bad = "isActive: Not a valid boolean.";
  }
  if (const auto v = req.query.get("name")) q.name = std::string(*v);
  return q;
}

// The page of `rows` (positions in id order) that `q` asks for, and the cursor after it.
struct Page {
  std::vector<std::size_t> rows;
  std::optional<std::string> next;
};

template <class Row>
Page page_of(const std::vector<Row>& all, const std::vector<std::size_t>& matching, const Query& q,
             std::string_view kind) {
  Page p;
  if (q.count_only) return p;
  auto it = matching.begin();
  if (q.after)
    it = std::upper_bound(matching.begin(), matching.end(), *q.after,
                          [&](std::uint64_t id, std::size_t i) { return id < all[i].id; });
  it += std::min<std::ptrdiff_t>(q.skip, matching.end() - it);
  const auto end = it + std::min<std::ptrdiff_t>(q.limit, matching.end() - it);
  p.rows.assign(it, end);
  if (end != matching.end() && !p.rows.empty()) p.next = cursor_for(kind, all[p.rows.back()].id);
  return p;
}

std::string pagination(const Page& p, std::size_t total) {
  return R"("pagination":{"nextCursor":)" + (p.next ? json(*p.next).dump() : std::string("null")) +
         R"(,"totalItems":)" + std::to_string(total) + "}";
}

}  // namespace

SentinelOneFake::SentinelOneFake(SentinelOneFakeOptions options)
    : options_(std::move(options)), token_(options_.token) {}

void SentinelOneFake::install(core::http::Router& router) {
  install_api(router);      // below
  install_control(router);  // sentinelone_fake_control.cpp
}

void SentinelOneFake::reset() {
  std::lock_guard lock(mutex_);
  data_ = {};
  token_ = options_.token;
  faults_ = {};
  requests_ = unauthorised_ = bad_requests_ = throttled_ = server_errors_ = 0;
  site_calls_ = agent_calls_ = count_calls_ = 0;
  most_in_flight_ = 0;
  serving_ = {};
  echoes_.clear();
}

void SentinelOneFake::seed(const SentinelOneFakeSeedOptions& options) {
  // Midnight today: the same options give the same rows all day.
  const auto today = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
  auto data = sentinelone::seed_data(options, std::chrono::sys_seconds(today));
  {
    std::lock_guard lock(mutex_);
    std::swap(data_, data);
  }
}

void SentinelOneFake::set_faults(SentinelOneFaults faults) {
  std::lock_guard lock(mutex_);
  faults_ = faults;
}

void SentinelOneFake::set_token(std::string token) {
  std::lock_guard lock(mutex_);
  token_ = std::move(token);
}

json SentinelOneFake::stats() const {
  std::lock_guard lock(mutex_);
  return {{"requests", requests_},
          {"unauthorized", unauthorised_},
          {"bad_requests", bad_requests_},
          {"throttled", throttled_},
          {"server_errors", server_errors_},
          {"calls", {{"sites", site_calls_}, {"agents", agent_calls_}, {"agents_count", count_calls_}}},
          {"in_flight", in_flight_},
          {"most_in_flight", most_in_flight_},
          {"serving_ms", std::chrono::duration<double, std::milli>(serving_).count()},
          {"echoed", echoes_.count()},
          {"rows", {{"sites", data_.sites.size()}, {"agents", data_.agents.size()}}}};
}

json SentinelOneFake::sites() const {
  std::lock_guard lock(mutex_);
  std::vector<int> active(data_.sites.size(), 0);
  for (const auto& a : data_.agents)
    if (a.active) ++active[a.site];
  json out = json::array();
  for (std::size_t i = 0; i < data_.sites.size(); ++i) {
    const auto& s = data_.sites[i];
    out.push_back(
        {{"id", std::to_string(s.id)},
         {"name", s.name},
         {"agents", s.agents},
         {"active_agents", active[i]},
         {"activeLicenses", s.agents},
         {"totalLicenses", s.total_licenses},
         {"_sandbox", {{"match", s.match}, {"psaName", s.psa_name.empty() ? json(nullptr) : json(s.psa_name)}}}});
  }
  return out;
}

// --- the gate ---

awaitable<Response> SentinelOneFake::serve(Request& req, std::int64_t& calls, Work work) {
  const auto header = core::trim(req.header("Authorization"));
  const bool has_scheme = header.size() > 9 && core::starts_with_icase(header, "apitoken ");
  const std::string given(has_scheme ? core::trim(header.substr(9)) : std::string_view());
  SentinelOneFaults faults;
  bool allowed = false;
  {
    std::lock_guard lock(mutex_);
    ++requests_;
    faults.echo = faults_.echo;
    allowed = has_scheme && core::constant_time_equals(given, token_);
    if (!allowed) {
      ++unauthorised_;
    } else {
      ++calls;
      faults = faults_;
      if (faults_.throttle > 0) {
        --faults_.throttle;
        ++throttled_;
      } else if (faults_.server_errors > 0) {
        --faults_.server_errors;
        ++server_errors_;
      }
      most_in_flight_ = std::max(most_in_flight_, ++in_flight_);
    }
  }
  // With the echo switch, an error's detail quotes the token received (echo.hpp).
  const auto detail = [&]() -> json {
    std::string said = echoes_.message(faults.echo, "", {{"ApiToken", given}});
    return said.empty() ? json(nullptr) : json(std::move(said));
  };
  if (!allowed) co_return error(401, 4010010, detail(), "Authentication Failed");
  struct Leave {
    SentinelOneFake& fake;
    ~Leave() {
      std::lock_guard lock(fake.mutex_);
      --fake.in_flight_;
    }
  } leave{*this};

  co_await core::async::sleep_for(faults.latency);
  if (faults.throttle > 0) {
    auto res = error(429, 4290010, nullptr, "Too Many Requests");
    res.headers.set("Retry-After", std::to_string(faults.retry_after));
    co_return res;
  }
  if (faults.server_errors > 0)
    co_return error(faults.status, faults.status * 10'000 + 10, detail(),
                    faults.status == 503 ? "Service Unavailable" : "Internal Server Error");
  Response res;
  {
    const auto started = std::chrono::steady_clock::now();
    std::lock_guard lock(mutex_);
    res = work(req);
    if (res.status == core::http::Status::bad_request) ++bad_requests_;
    serving_ += std::chrono::steady_clock::now() - started;
  }
  co_return res;
}

Response SentinelOneFake::list_sites(const Request& req) {
  const auto q = query_of(req, "site");
  if (q.bad) return validation(*q.bad);
  std::vector<std::size_t> matching;
  std::int64_t active = 0, total = 0;
  for (std::size_t i = 0; i < data_.sites.size(); ++i) {
    const auto& s = data_.sites[i];
    if (q.site_ids && !q.site_ids->count(s.id)) continue;
    if (q.states && !q.states->count("active")) continue;  // every seeded site is active
    if (q.name && *q.name != s.name) continue;
    matching.push_back(i);
    active += s.agents;
    total += s.total_licenses;
  }
  const auto page = page_of(data_.sites, matching, q, "site");
  std::string body = R"({"data":{"allSites":{"activeLicenses":)" + std::to_string(active) + R"(,"totalLicenses":)" +
                     std::to_string(total) + R"(},"sites":[)";
  for (std::size_t k = 0; k < page.rows.size(); ++k) {
    if (k > 0) body += ',';
    body += data_.sites[page.rows[k]].json;
  }
  body += "]}," + pagination(page, matching.size()) + "}";
  return Response::json_text(std::move(body));
}

namespace {

template <class Q>
std::vector<std::size_t> matching_agents(const sentinelone::Data& d, const Q& q) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < d.agents.size(); ++i) {
    const auto& a = d.agents[i];
    if (q.site_ids && !q.site_ids->count(d.sites[a.site].id)) continue;
    if (q.is_active && *q.is_active != a.active) continue;
    if (q.os_types && !q.os_types->count(a.os_type)) continue;
    out.push_back(i);
  }
  return out;
}

}  // namespace

Response SentinelOneFake::list_agents(const Request& req) {
  const auto q = query_of(req, "agent");
  if (q.bad) return validation(*q.bad);
  const auto matching = matching_agents(data_, q);
  const auto page = page_of(data_.agents, matching, q, "agent");
  std::string body = R"({"data":[)";
  for (std::size_t k = 0; k < page.rows.size(); ++k) {
    if (k > 0) body += ',';
    body += data_.agents[page.rows[k]].json;
  }
  body += "]," + pagination(page, matching.size()) + "}";
  return Response::json_text(std::move(body));
}

Response SentinelOneFake::count_agents(const Request& req) {
  const auto q = query_of(req, "agent");
  if (q.bad) return validation(*q.bad);
  return Response::json({{"data", {{"total", matching_agents(data_, q).size()}}}});
}

void SentinelOneFake::install_api(core::http::Router& router) {
  const std::string at(kBase);
  router.get(at + "/sites", [this](Request& req) -> awaitable<Response> {
    co_return co_await serve(req, site_calls_, [this](const Request& r) { return list_sites(r); });
  });
  router.get(at + "/agents", [this](Request& req) -> awaitable<Response> {
    co_return co_await serve(req, agent_calls_, [this](const Request& r) { return list_agents(r); });
  });
  router.get(at + "/agents/count", [this](Request& req) -> awaitable<Response> {
    co_return co_await serve(req, count_calls_, [this](const Request& r) { return count_agents(r); });
  });
}

}  // namespace sandbox
