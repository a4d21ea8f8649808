#include "core/config/config.hpp"

#include "core/util/secrets.hpp"
#include "core/util/strings.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <arpa/inet.h>
#include <unistd.h>  // environ (a GNU extension there)

namespace core::config {
namespace {

bool valid_name(std::string_view name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::string unquote_double(std::string_view v, std::size_t line) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] != '\\') {
      out.push_back(v[i]);
      continue;
    }
    if (++i == v.size()) throw ConfigError(".env line " + std::to_string(line) + ": dangling backslash");
    switch (v[i]) {
      case 'n':
        out.push_back('\n');
        break;
      case 't':
        out.push_back('\t');
        break;
      case '"':
        out.push_back('"');
        break;
      case '\\':
        out.push_back('\\');
        break;
      default:
        out.push_back('\\');
        out.push_back(v[i]);
    }
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> parse_dotenv(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t line_no = 0;
  for (auto line : split(text, '\n')) {
    ++line_no;
    line = trim(line);
    if (line.empty() || line.front() == '#') continue;
    if (line.starts_with("export ")) line = trim(line.substr(7));
    const auto eq = line.find('=');
    const auto where = ".env line " + std::to_string(line_no);
    if (eq == std::string_view::npos) throw ConfigError(where + ": expected NAME=value");
    const auto name = trim(line.substr(0, eq));
    if (!valid_name(name)) throw ConfigError(where + ": invalid variable name");
    auto value = trim(line.substr(eq + 1));
    std::string parsed;
    if (!value.empty() && (value.front() == '"' || value.front() == '\'')) {
      const char quote = value.front();
      const auto close = value.rfind(quote);
      if (close == 0) throw ConfigError(where + ": unterminated quote");
      const auto rest = trim(value.substr(close + 1));
      if (!rest.empty() && rest.front() != '#') throw ConfigError(where + ": text after closing quote");
      const auto inner = value.substr(1, close - 1);
      parsed = quote == '"' ? unquote_double(inner, line_no) : std::string(inner);
    } else {
      const auto hash = value.find(" #");
      parsed = std::string(trim(value.substr(0, hash)));
    }
    out.emplace_back(std::string(name), std::move(parsed));
  }
  return out;
}

Environment load_environment() {
  Environment env;
  const char* file = std::getenv("ENV_FILE");
  const std::string path = file && *file ? file : ".env";
  std::ifstream in(path);
  if (in) {
    std::stringstream text;
    text << in.rdbuf();
    for (auto& [k, v] : parse_dotenv(text.str())) env[k] = v;
  } else if (file && *file) {
    throw ConfigError("ENV_FILE: cannot read " + path);
  }
  for (char** e = environ; e && *e; ++e) {
    std::string_view kv(*e);
    const auto eq = kv.find('=');
    if (eq != std::string_view::npos) env[std::string(kv.substr(0, eq))] = std::string(kv.substr(eq + 1));
  }
  return env;
}

std::optional<std::string> Reader::raw(std::string_view name) const {
  const auto it = env_.find(name);
  if (it == env_.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

void Reader::describe(std::string_view name, std::string_view fallback, std::string_view meaning) {
  described_.push_back({std::string(name), std::string(fallback), std::string(meaning)});
}

std::optional<Reader::HostPort> Reader::host_port(std::string_view name, std::string_view fallback,
                                                  std::string_view meaning) {
  describe(name, fallback.empty() ? "(off)" : fallback, meaning);
  const auto it = env_.find(name);
  const std::string text = it == env_.end() ? std::string(fallback) : it->second;
  if (text.empty()) return std::nullopt;
  const auto colon = text.rfind(':');
  std::string host = colon == std::string::npos ? std::string() : text.substr(0, colon);
  const bool bracketed = host.size() >= 2 && host.front() == '[' && host.back() == ']';
  if (bracketed) host = host.substr(1, host.size() - 2);
  const auto port = colon == std::string::npos ? std::nullopt : parse_int64(std::string_view(text).substr(colon + 1));
  unsigned char address[16];
  const bool ip =
      bracketed ? inet_pton(AF_INET6, host.c_str(), address) == 1 : inet_pton(AF_INET, host.c_str(), address) == 1;
  if (!ip || !port || *port < 0 || *port > 65535) {
    if (!describing_)
      fail(name, "'" + text +
                     "' is not an IP address and a port (127.0.0.1:9464, [::1]:9464); set it empty to turn this off");
    return std::nullopt;
  }
  return HostPort{host, static_cast<std::uint16_t>(*port)};
}

void Reader::fail(std::string_view name, std::string_view message) {
  errors_.push_back(std::string(name) + ": " + std::string(message));
}

std::string Reader::string(std::string_view name, std::string_view fallback, std::string_view meaning) {
  describe(name, fallback, meaning);
  return raw(name).value_or(std::string(fallback));
}

std::string Reader::required(std::string_view name, std::string_view meaning) {
  describe(name, "(required)", meaning);
  auto v = raw(name);
  if (!v && !describing_) fail(name, "is required");
  return v.value_or("");
}

std::string Reader::url(std::string_view name, std::string_view fallback, std::string_view meaning, UrlEnd end) {
  std::string v = string(name, fallback, meaning);
  if (v.empty()) return v;
  const auto scheme = v.starts_with("https://") ? 8u : v.starts_with("http://") ? 7u : 0u;
  if (scheme == 0 || v.size() == scheme || v[scheme] == '/') {
    fail(name, "must be an absolute http(s) URL");
    return v;
  }
  if (end != UrlEnd::as_given)
    while (v.ends_with('/')) v.pop_back();
  if (end == UrlEnd::one_slash) v += '/';
  return v;
}

std::string Reader::secret(std::string_view name, std::string_view meaning) {
  describe(name, "(secret, unset)", meaning);
  auto value = raw(name).value_or("");
  core::secrets::remember(value, core::secrets::Kind::configured);  // masked in every log line from now on
  return value;
}

std::vector<std::string> Reader::secret_list(std::string_view name, std::string_view meaning) {
  const auto text = secret(name, meaning);
  std::vector<std::string> out;
  for (auto piece : split(text, ','))
    if (auto t = trim(piece); !t.empty()) {
      out.emplace_back(t);
      core::secrets::remember(t, core::secrets::Kind::configured);  // each one alone, as a caller sends it
    }
  return out;
}

std::int64_t Reader::integer(std::string_view name, std::int64_t fallback, std::string_view meaning, IntRange range) {
  describe(name, std::to_string(fallback), meaning);
  const auto v = raw(name);
  if (!v) return fallback;
  const auto n = parse_int64(trim(*v));
  if (!n) {
    fail(name, "'" + *v + "' is not a whole number");
    return fallback;
  }
  if (*n < range.min || *n > range.max) {
    fail(name, std::to_string(*n) + " is outside " + std::to_string(range.min) + ".." + std::to_string(range.max));
    return fallback;
  }
  return *n;
}

double Reader::decimal(std::string_view name, double fallback, std::string_view meaning, double min, double max) {
  std::ostringstream shown;
  shown << fallback;
  describe(name, shown.str(), meaning);
  const auto v = raw(name);
  if (!v) return fallback;
  const auto text = trim(*v);
  double n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty() || !std::isfinite(n)) {
    fail(name, "'" + *v + "' is not a number");
    return fallback;
  }
  if (n < min || n > max) {
    std::ostringstream range;
    range << n << " is outside " << min << ".." << max;
    fail(name, range.str());
    return fallback;
  }
  return n;
}

bool Reader::boolean(std::string_view name, bool fallback, std::string_view meaning) {
  describe(name, fallback ? "true" : "false", meaning);
  const auto v = raw(name);
  if (!v) return fallback;
  const auto s = to_lower(trim(*v));
  if (s == "true" || s == "1" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "0" || s == "no" || s == "off") return false;
  fail(name, "'" + *v + "' is not a boolean (true/false)");
  return fallback;
}

std::string Reader::one_of(std::string_view name, std::string_view fallback, std::vector<std::string> allowed,
                           std::string_view meaning) {
  std::string choices;
  for (const auto& a : allowed) choices += (choices.empty() ? "" : "|") + a;
  describe(name, fallback, std::string(meaning) + " (" + choices + ")");
  const auto v = raw(name);
  if (!v) return std::string(fallback);
  for (const auto& a : allowed)
    if (a == *v) return a;
  fail(name, "'" + *v + "' is not one of " + choices);
  return std::string(fallback);
}

std::vector<std::string> Reader::list(std::string_view name, std::string_view fallback, std::string_view meaning) {
  const auto text = string(name, fallback, meaning);
  std::vector<std::string> out;
  for (auto piece : split(text, ','))
    if (auto t = trim(piece); !t.empty()) out.emplace_back(t);
  return out;
}

void Reader::finish() const {
  if (errors_.empty()) return;
  std::string msg = "invalid configuration:";
  for (const auto& e : errors_) msg += "\n  " + e;
  throw ConfigError(msg);
}

std::string format_help(const std::vector<Described>& vars) {
  std::size_t width = 0;
  for (const auto& v : vars) width = std::max(width, v.name.size());
  std::string out;
  for (const auto& v : vars) {
    out += "  " + v.name + std::string(width - v.name.size() + 2, ' ') + v.meaning;
    out += v.default_value.empty() ? " [default: unset]\n" : " [default: " + v.default_value + "]\n";
  }
  return out;
}

}  // namespace core::config
