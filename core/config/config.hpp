#pragma once
// Configuration from environment variables (and an optional .env file).
//
// A service declares its variables once, in a function that reads them through a Reader:
//
//   Settings read(core::config::Reader& r) {
//     return {.port = r.integer("PORT", 8080, "TCP port", {.min = 0, .max = 65535}), ...};
//   }
//
// The same function serves `--help` (Reader in describe mode collects name, default, meaning)
// and start-up (Reader collects every invalid value, then finish() reports them all at once).
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace core::config {

using Environment = std::map<std::string, std::string, std::less<>>;

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Parses the text of a .env file: `KEY=value`, `export KEY=value`, blank lines, `# comments`,
// values in single quotes (literal) or double quotes (\n, \", \\ escapes). Throws ConfigError
// naming the line of anything else.
std::vector<std::pair<std::string, std::string>> parse_dotenv(std::string_view text);

// The process environment, with the .env file (ENV_FILE, or ./.env when present) underneath:
// a variable set in the environment wins over the same name in the file.
Environment load_environment();

struct Described {
  std::string name;
  std::string default_value;  // as shown in --help; empty means "unset"
  std::string meaning;
};

struct IntRange {
  std::int64_t min = INT64_MIN;
  std::int64_t max = INT64_MAX;
};

class Reader {
 public:
  explicit Reader(Environment env) : env_(std::move(env)) {}
  static Reader describing() {
    Reader r{{}};
    r.describing_ = true;
    return r;
  }

  std::string string(std::string_view name, std::string_view fallback, std::string_view meaning);
  // Required: an empty or missing value is an error (unless describing).
  std::string required(std::string_view name, std::string_view meaning);
  std::int64_t integer(std::string_view name, std::int64_t fallback, std::string_view meaning, IntRange range = {});
  // A decimal number within [min, max] ("0.15", "2").
  double decimal(std::string_view name, double fallback, std::string_view meaning, double min, double max);
  bool boolean(std::string_view name, bool fallback, std::string_view meaning);
  std::string one_of(std::string_view name, std::string_view fallback, std::vector<std::string> allowed,
                     std::string_view meaning);
  // Comma-separated; pieces trimmed; empty pieces dropped.
  std::vector<std::string> list(std::string_view name, std::string_view fallback, std::string_view meaning);
  // Marks a declared-but-secret value: shown in --help as "(secret)", never echoed in errors, and
  // remembered by core::secrets (masked in every log line and quoted upstream text).
  std::string secret(std::string_view name, std::string_view meaning);
  // A comma-separated list of secrets (keys): read as secret(), and each piece remembered alone.
  std::vector<std::string> secret_list(std::string_view name, std::string_view meaning);

  // How url() leaves the end of the URL: as given, without trailing slashes (a client that appends
  // "/path"), or with exactly one (a client that appends relative paths).
  enum class UrlEnd { as_given, no_slash, one_slash };
  // An absolute http(s) URL with a host, or empty (unset: the integration is not configured);
  // anything else is an error naming the variable ("must be an absolute http(s) URL").
  std::string url(std::string_view name, std::string_view fallback, std::string_view meaning,
                  UrlEnd end = UrlEnd::no_slash);

  // An IP address and a port, `127.0.0.1:9464` or `[::1]:9464`. Unset: `fallback` (empty for
  // none); set to the empty string: nullopt, the listener is off. Anything else is an error naming
  // the variable.
  struct HostPort {
    std::string host;  // without brackets
    std::uint16_t port = 0;
  };
  std::optional<HostPort> host_port(std::string_view name, std::string_view fallback, std::string_view meaning);

  // Adds an error found by a cross-field check of the caller's own.
  void fail(std::string_view name, std::string_view message);

  // Throws ConfigError listing every invalid variable, one per line.
  void finish() const;

  const std::vector<Described>& described() const { return described_; }
  bool is_describing() const { return describing_; }

 private:
  std::optional<std::string> raw(std::string_view name) const;
  void describe(std::string_view name, std::string_view fallback, std::string_view meaning);

  Environment env_;
  bool describing_ = false;
  std::vector<Described> described_;
  std::vector<std::string> errors_;
};

// Formats the variables for --help: aligned name, default, meaning.
std::string format_help(const std::vector<Described>& vars);

}  // namespace core::config
