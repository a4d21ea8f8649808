#include "ops_console/morning/content.hpp"

#include "ops_console/morning/settings.hpp"

#include <cstdio>

namespace ops_console::morning {

using nlohmann::json;

namespace {

constexpr std::size_t kListed = 10;  // lines of one list before "and N more"

const json& field(const json& object, const char* key) {
  static const json null;
  return object.is_object() && object.contains(key) ? object[key] : null;
}

std::string text_of(const json& v, std::string_view fallback = "?") {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  if (v.is_number()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v.get<double>());
    return buf;
  }
  return std::string(fallback);
}

std::int64_t count_of(const json& v) { return v.is_number() ? v.get<std::int64_t>() : 0; }

std::string plural(std::int64_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

std::string heading(std::string_view name) { return "*" + std::string(name) + "*\n"; }

std::string and_more(std::size_t shown, std::int64_t total, std::string_view what = "") {
  if (total <= static_cast<std::int64_t>(shown)) return "";
  return "… and " + std::to_string(total - static_cast<std::int64_t>(shown)) + " more" +
         (what.empty() ? "" : " " + std::string(what)) + "\n";
}

std::string overview(const json& f) {
  const json& o = field(f, "overview");
  if (!o.is_object()) return heading("Tickets") + "The ticket figures could not be read.\n";
  const auto day_line = [&](const char* key, std::string_view label) {
    const json& v = field(o, key);
    return "• " + std::string(label) + ": " + text_of(field(v, "yesterday")) + " yesterday (7-day average " +
           text_of(field(v, "average7")) + "), " + text_of(field(v, "today")) + " so far today\n";
  };
  const json& open = field(o, "openTotal");
  return heading("Tickets") + day_line("opened", "Opened") + day_line("resolved", "Resolved") +
         "• Open: " + text_of(field(open, "today")) + " now (" + text_of(field(open, "yesterday")) +
         " at the end of yesterday)\n";
}

std::string sla_breaches(const json& f) {
  const json& figure = field(field(f, "overview"), "slaBreaches");
  const json& list = field(f, "breaches");
  std::string out = heading("SLA breaches");
  if (!figure.is_object()) return out + "The SLA figures could not be read.\n";
  const std::int64_t now = count_of(field(figure, "today"));
  if (now == 0)
    return out + "No open ticket is past its due time (" + text_of(field(figure, "yesterday")) +
           " at the end of yesterday).\n";
  out += plural(now, "open ticket is", "open tickets are") + " past their due time (" +
         text_of(field(figure, "yesterday")) + " at the end of yesterday):\n";
  std::size_t shown = 0;
  if (list.is_array())
    for (const auto& t : list) {
      if (shown == kListed) break;
      std::string line = "• " + text_of(field(t, "ticketNumber"), "(no number)") + " " + text_of(field(t, "title"), "");
      if (const json& company = field(t, "companyName"); company.is_string()) line += " (" + text_of(company) + ")";
      out += line + ", due " + text_of(field(t, "due")) + "\n";
      ++shown;
    }
  return out + and_more(shown, now);
}

std::string integrations(const json& f) {
  const json& list = field(f, "integrations");
  std::string out = heading("Integrations");
  if (!list.is_array()) return out + "The integration states could not be read.\n";
  std::vector<const json*> failing;
  std::int64_t ok = 0, unknown = 0;
  for (const auto& i : list) {
    const std::string state = text_of(field(i, "state"), "");
    if (state == "failing") failing.push_back(&i);
    ok += state == "ok";
    unknown += state == "unknown";
  }
  if (failing.empty())
    return out + "None failing (" + std::to_string(ok) + " ok, " + std::to_string(unknown) +
           " without recorded calls).\n";
  out += std::to_string(failing.size()) + " failing:\n";
  for (const json* i : failing) {
    std::string line = "• " + text_of(field(*i, "key"));
    if (const json& error = field(*i, "lastError"); error.is_string() && !error.get<std::string>().empty())
      line += ": " + error.get<std::string>();
    if (const json& at = field(*i, "lastFailure"); at.is_string()) line += " (last failure " + text_of(at) + ")";
    out += line + "\n";
  }
  return out;
}

std::string workers(const json& f) {
  const json& list = field(f, "workers");
  std::string out = heading("Workers");
  if (!list.is_array()) return out + "The worker status could not be read.\n";
  std::vector<std::string> fine, unconfigured;
  std::string trouble;
  for (const auto& w : list) {
    const std::string name = text_of(field(w, "name"));
    if (field(w, "configured") == false) {
      unconfigured.push_back(name);
      continue;
    }
    const std::string status = text_of(field(w, "status"), "unknown");
    if (status == "ok") {
      fine.push_back(name);
      continue;
    }
    const std::int64_t in_flight = count_of(field(w, "inFlight"));
    trouble += "• " + name + ": " + status + ", " +
               plural(count_of(field(w, "failuresLastHour")), "failure", "failures") + " in the last hour, " +
               (in_flight == 0 ? std::string("nothing") : std::to_string(in_flight)) + " in flight\n";
  }
  const auto names = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& n : v) s += (s.empty() ? "" : ", ") + n;
    return s;
  };
  if (trouble.empty()) out += fine.empty() ? "No worker is configured.\n" : "All ok (" + names(fine) + ").\n";
  out += trouble;
  if (!unconfigured.empty()) out += "Not configured: " + names(unconfigured) + ".\n";
  return out;
}

std::string users(const json& list, std::string_view label) {
  std::string out;
  std::size_t shown = 0;
  if (!list.is_array()) return out;
  for (const auto& u : list) {
    if (shown == kListed) break;
    std::string line = "• " + std::string(label) + ": " + text_of(field(u, "user"), "(no username)");
    std::string who;
    if (const json& name = field(u, "realname"); name.is_string() && !name.get<std::string>().empty())
      who = name.get<std::string>();
    if (const json& account = field(u, "account"); account.is_string())
      who += (who.empty() ? "" : ", ") + account.get<std::string>();
    out += line + (who.empty() ? "" : " (" + who + ")") + "\n";
    ++shown;
  }
  return out + and_more(shown, static_cast<std::int64_t>(list.size()), "in " + std::string(label));
}

std::string mfa(const json& f) {
  const json& m = field(f, "mfa");
  std::string out = heading("MFA");
  const std::string state = text_of(field(m, "state"), "");
  if (state == "notConfigured") return out + "Not configured: the MFA_* settings are unset.\n";
  if (state == "off") return out + "The MFA integration is switched off.\n";
  if (state != "ok")
    return out + "The flagged users could not be read: " + text_of(field(m, "error"), "unknown") + "\n";
  const json& bypass = field(m, "bypass");
  const json& disabled = field(m, "disabled");
  const auto n_bypass = static_cast<std::int64_t>(bypass.is_array() ? bypass.size() : 0);
  const auto n_disabled = static_cast<std::int64_t>(disabled.is_array() ? disabled.size() : 0);
  if (n_bypass + n_disabled == 0)
    out += "No user in bypass or disabled.\n";
  else
    out += plural(n_bypass, "user", "users") + " in bypass, " + std::to_string(n_disabled) + " disabled:\n" +
           users(bypass, "bypass") + users(disabled, "disabled");
  if (const json& failed = field(m, "failedAccounts"); failed.is_array())
    for (const auto& a : failed)
      out += "Account " + text_of(field(a, "name")) + " could not be read: " + text_of(field(a, "error")) + "\n";
  return out;
}

}  // namespace

Rendered render(const json& figures, const std::vector<std::string>& sections) {
  Rendered r{.title = "Morning summary, " + text_of(field(figures, "dateText"), text_of(field(figures, "date")))};
  r.text = "_Figures at " + text_of(field(figures, "time")) + " " + text_of(field(figures, "timezone")) + "._\n";
  for (const auto& s : sections) {
    std::string part;
    if (s == "overview") part = overview(figures);
    if (s == "slaBreaches") part = sla_breaches(figures);
    if (s == "integrations") part = integrations(figures);
    if (s == "workers") part = workers(figures);
    if (s == "mfa") part = mfa(figures);
    if (!part.empty()) r.text += "\n" + part;
  }
  while (!r.text.empty() && r.text.back() == '\n') r.text.pop_back();
  return r;
}

Rendered test_message(const std::string& webhook_name, const std::string& timezone) {
  return {.title = "Morning summary: test",
          .text = "The webhook \"" + webhook_name + "\" is set up: the morning summary arrives here at " +
                  std::string(kSendAt) + " Monday to Friday (" + timezone + ")."};
}

}  // namespace ops_console::morning
