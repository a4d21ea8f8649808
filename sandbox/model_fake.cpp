#include "sandbox/model_fake.hpp"

#include "core/async/sleep.hpp"
#include "core/http/bearer.hpp"
#include "core/util/strings.hpp"
#include "sandbox/control_body.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <tuple>

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using core::http::Status;
using nlohmann::json;

namespace {

Response openai_error(int status, std::string message, std::string type, json param = nullptr, json code = nullptr) {
  return Response::json(
      {{"error", {{"message", std::move(message)}, {"type", std::move(type)}, {"param", param}, {"code", code}}}},
      static_cast<Status>(status));
}

struct Rule {
  std::string label;
  std::vector<std::string> words;
};

const std::vector<Rule>& rules() {
  static const std::vector<Rule> r{
      {"phishing", {"verify your account", "confirm your password", "will be suspended"}},
      {"spam", {"lucky winner", "claim your prize", "without prescription", "a week from home"}},
      {"marketing", {"limited-time offer", "register now", "exclusive offer", "discount"}},
      {"newsletter", {"newsletter", "in this issue"}},
      {"notification", {"automated notification", "do not reply", "[alert]", "expires in"}},
      {"billing", {"invoice", "statement", "payment"}},
      {"sales", {"quote", "pricing"}},
      {"support_request", {"please help", "not working", "cannot", "problem", "issue", "help"}},
      {"personal", {"lunch", "birthday", "photos"}},
  };
  return r;
}

// A token count of the kind a tokenizer gives: about four characters a token.
int tokens(const std::string& s) { return static_cast<int>(s.size() / 4 + 1); }

constexpr std::string_view kRefusal = "I'm sorry, I cannot assist with that request.";

// `at` inside `j` when every step is there, else nullptr (a request's JSON is not ours to trust).
const json* find_path(const json& j, std::initializer_list<const char*> at) {
  const json* here = &j;
  for (const char* key : at) {
    if (!here->is_object()) return nullptr;
    const auto it = here->find(key);
    if (it == here->end()) return nullptr;
    here = &*it;
  }
  return here;
}

// mail-triage's label schema: properties label (and confidence, reasoning), no others.
bool is_triage_schema(const json* schema) {
  const json* properties = schema ? find_path(*schema, {"properties"}) : nullptr;
  if (!properties || !properties->is_object() || !properties->contains("label")) return false;
  for (const auto& [name, _] : properties->items())
    if (name != "label" && name != "confidence" && name != "reasoning") return false;
  return true;
}

// --- values from a schema ---

std::uint64_t fnv1a(std::string_view s, std::uint64_t h = 14695981039346656037ull) {
  for (const unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

bool token_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; }

// The user content without the tokens that look random (16 or more letters, digits, '-' and '_',
// a digit among them): the boundary marker a client draws for each call around untrusted text.
std::string stable_text(std::string_view user) {
  std::string out;
  out.reserve(user.size());
  for (std::size_t i = 0; i < user.size();) {
    if (!token_char(user[i])) {
      out += user[i++];
      continue;
    }
    std::size_t end = i;
    while (end < user.size() && token_char(user[end])) ++end;
    const auto token = user.substr(i, end - i);
    const bool random_looking = token.size() >= 16 && std::any_of(token.begin(), token.end(), [](char c) {
                                  return std::isdigit(static_cast<unsigned char>(c));
                                });
    if (!random_looking) out += token;
    i = end;
  }
  return out;
}

// Words for sentences: runs of letters, digits and non-ASCII characters (whole UTF-8 sequences),
// at most 24 bytes each, from the lines that are not a prompt's delimiters (<<<...>>>), without the
// field labels ("Title:").
std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> out;
  const auto word_byte = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80 || c == '\'' ||
           c == '.';
  };
  for (const auto line : core::split(text, '\n')) {
    if (line.find("<<<") != std::string_view::npos || line.find(">>>") != std::string_view::npos) continue;
    for (std::size_t i = 0; i < line.size() && out.size() < 400;) {
      if (!word_byte(line[i])) {
        ++i;
        continue;
      }
      std::size_t end = i;
      while (end < line.size() && word_byte(line[end])) ++end;
      auto word = line.substr(i, end - i);
      while (!word.empty() && (word.back() == '.' || word.back() == '\'')) word.remove_suffix(1);
      const bool label = end < line.size() && line[end] == ':';  // "Title:", "Description:"
      if (!word.empty() && word.size() <= 24 && !label) out.emplace_back(word);
      i = end;
    }
  }
  return out;
}

std::size_t characters(std::string_view s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// `s` cut to at most `n` characters, between characters.
std::string cut_characters(std::string s, std::size_t n) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && count++ == n) {
      s.resize(i);
      break;
    }
  return s;
}

std::optional<double> number_keyword(const json& schema, const char* name) {
  const auto it = schema.find(name);
  if (it == schema.end() || !it->is_number()) return std::nullopt;
  const double d = it->get<double>();
  return std::isfinite(d) ? std::optional<double>(std::clamp(d, -1e15, 1e15)) : std::nullopt;
}

std::optional<std::int64_t> count_keyword(const json& schema, const char* name, std::int64_t cap) {
  const auto it = schema.find(name);
  if (it == schema.end() || !it->is_number_integer()) return std::nullopt;
  if (it->is_number_unsigned())
    return static_cast<std::int64_t>(std::min<std::uint64_t>(it->get<std::uint64_t>(), cap));
  return std::clamp<std::int64_t>(it->get<std::int64_t>(), 0, cap);
}

class SchemaFaker {
 public:
  explicit SchemaFaker(std::string_view user)
      : text_(stable_text(user)), words_(words_of(text_)), seed_(fnv1a(text_)) {}

  json value(const json& schema, const std::string& path, int depth) {
    if (depth > 32 || !schema.is_object()) return nullptr;
    if (const auto c = schema.find("const"); c != schema.end()) return *c;
    if (const auto e = schema.find("enum"); e != schema.end() && e->is_array() && !e->empty())
      return (*e)[hash(path, "enum") % e->size()];
    const std::string type = type_of(schema);
    if (type == "object") return object(schema, path, depth);
    if (type == "array") return array(schema, path, depth);
    if (type == "integer") return integer(schema, path);
    if (type == "number") return number(schema, path);
    if (type == "boolean") return false;
    if (type == "null") return nullptr;
    return sentence(schema, path);
  }

 private:
  std::uint64_t hash(const std::string& path, std::string_view salt) const { return fnv1a(salt, fnv1a(path, seed_)); }

  // The schema's type; the first that is not null of a list; else what its keywords suggest.
  static std::string type_of(const json& schema) {
    const auto t = schema.find("type");
    if (t != schema.end() && t->is_string()) return t->get<std::string>();
    if (t != schema.end() && t->is_array()) {
      std::string first;
      for (const auto& one : *t)
        if (one.is_string()) {
          if (one != "null") return one.get<std::string>();
          first = "null";
        }
      if (!first.empty()) return first;
    }
    if (schema.contains("properties") || schema.contains("required")) return "object";
    if (schema.contains("items") || schema.contains("minItems") || schema.contains("maxItems")) return "array";
    if (schema.contains("minimum") || schema.contains("maximum")) return "number";
    return "string";
  }

  json object(const json& schema, const std::string& path, int depth) {
    json out = json::object();
    if (const auto p = schema.find("properties"); p != schema.end() && p->is_object())
      for (const auto& [name, sub] : p->items()) out[name] = value(sub, path + "/" + name, depth + 1);
    if (const auto r = schema.find("required"); r != schema.end() && r->is_array())
      for (const auto& name : *r)
        if (name.is_string() && !out.contains(name.get<std::string>()))
          out[name.get<std::string>()] = sentence(json::object(), path + "/" + name.get<std::string>());
    return out;
  }

  json array(const json& schema, const std::string& path, int depth) {
    const auto min = count_keyword(schema, "minItems", 100).value_or(0);
    const auto max = count_keyword(schema, "maxItems", 100).value_or(100);
    const auto n = std::max<std::int64_t>(min, std::min<std::int64_t>(2, max));
    const auto items = schema.find("items");
    const json item_schema = items != schema.end() && items->is_object() ? *items : json::object();
    json out = json::array();
    for (std::int64_t i = 0; i < n; ++i) out.push_back(value(item_schema, path + "/" + std::to_string(i), depth + 1));
    return out;
  }

  json integer(const json& schema, const std::string& path) const {
    const auto min = number_keyword(schema, "minimum"), max = number_keyword(schema, "maximum");
    const auto lo = static_cast<std::int64_t>(min ? std::ceil(*min) : max ? std::floor(*max) - 10 : 0);
    const auto hi = std::max(lo, static_cast<std::int64_t>(max ? std::floor(*max) : lo + 10));
    const auto span = static_cast<std::uint64_t>(std::min<std::int64_t>(hi - lo, 1'000'000)) + 1;
    return lo + static_cast<std::int64_t>(hash(path, "integer") % span);
  }

  json number(const json& schema, const std::string& path) const {
    const auto min = number_keyword(schema, "minimum"), max = number_keyword(schema, "maximum");
    const double lo = min ? *min : max ? *max - 1 : 0;
    const double hi = std::max(lo, max ? *max : lo + 1);
    const double fraction = static_cast<double>(hash(path, "number") % 1001) / 1000.0;
    return std::clamp(std::round((lo + (hi - lo) * fraction) * 100) / 100, lo, hi);
  }

  // A short sentence from the user content, within minLength..maxLength characters.
  std::string sentence(const json& schema, const std::string& path) const {
    std::string s;
    if (words_.empty()) {
      s = "No details were given.";
    } else {
      const std::size_t windows = words_.size() > 8 ? words_.size() - 7 : 1;  // 8 words where there are
      const auto start = hash(path, "sentence") % windows;
      for (std::size_t i = 0; i < 8 && start + i < words_.size(); ++i) s += (s.empty() ? "" : " ") + words_[start + i];
      s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
      s += ".";
    }
    const auto min = static_cast<std::size_t>(count_keyword(schema, "minLength", 10'000).value_or(0));
    const auto max = static_cast<std::size_t>(count_keyword(schema, "maxLength", 10'000).value_or(10'000));
    for (std::size_t i = 0; characters(s) < min; ++i)
      s += " " + (words_.empty() ? "detail" : words_[i % words_.size()]);
    return cut_characters(std::move(s), max);
  }

  std::string text_;
  std::vector<std::string> words_;
  std::uint64_t seed_;
};

}  // namespace

json fake_from_schema(const json& schema, std::string_view user) { return SchemaFaker(user).value(schema, "", 0); }

std::pair<std::string, double> fake_label(const std::string& text) {
  const std::string lower = core::to_lower(text);
  for (const auto& rule : rules())
    for (const auto& word : rule.words)
      if (lower.find(word) != std::string::npos) return {rule.label, 0.9};
  return {"other", 0.55};
}

void ModelFake::reset() {
  std::lock_guard lock(mutex_);
  faults_ = {};
  requests_.clear();
  count_ = most_in_flight_ = 0;
  echoes_.clear();
}

void ModelFake::set_faults(ModelFaults faults) {
  std::lock_guard lock(mutex_);
  faults_ = std::move(faults);
}

int ModelFake::request_count() const {
  std::lock_guard lock(mutex_);
  return count_;
}

json ModelFake::requests() const {
  std::lock_guard lock(mutex_);
  return {{"count", count_}, {"most_in_flight", most_in_flight_}, {"requests", json(requests_)}};
}

void ModelFake::install(core::http::Router& router) {
  router.post("/v1/chat/completions", [this](Request& req) -> awaitable<Response> {
    // With the echo switch, an error quotes the key received (echo.hpp).
    const auto said = [&](std::string message) {
      EchoSwitch echo;
      {
        std::lock_guard lock(mutex_);
        echo = faults_.echo;
      }
      const auto key = core::http::bearer_token(req.header("authorization"));
      return echoes_.message(echo, std::move(message), {{"Authorization", key ? std::string(*key) : std::string()}});
    };
    if (!options_.api_key.empty() &&
        !core::constant_time_equals(req.header("authorization"), "Bearer " + options_.api_key))
      co_return openai_error(401, said("Incorrect API key provided."), "invalid_request_error", nullptr,
                             "invalid_api_key");
    const auto body = json::parse(req.body, nullptr, false);
    if (!body.is_object())
      co_return openai_error(400, "We could not parse the JSON body of your request.", "invalid_request_error");
    if (!body.contains("model") || !body["model"].is_string())
      co_return openai_error(400, "you must provide a model parameter", "invalid_request_error", "model");
    if (!body.contains("messages") || !body["messages"].is_array() || body["messages"].empty())
      co_return openai_error(400, "'messages' must be a non-empty array", "invalid_request_error", "messages");
    std::string system, user;
    for (const auto& m : body["messages"]) {
      if (!m.is_object() || !m.contains("content") || !m["content"].is_string()) continue;
      (m.value("role", "") == "system" ? system : user) += m["content"].get<std::string>();
    }
    const json format = body.value("response_format", json::object());
    const std::string format_type = format.is_object() && format.contains("type") && format["type"].is_string()
                                        ? format["type"].get<std::string>()
                                        : "text";
    const std::string model = body["model"].get<std::string>();

    // What this call answers, decided under the lock so that each count is used up once.
    ModelFaults faults;
    bool unknown_model = false, garbage = false, refusal = false;
    {
      std::lock_guard lock(mutex_);
      ++count_;
      most_in_flight_ = std::max(most_in_flight_, ++in_flight_);
      requests_.push_back({{"model", model},
                           {"temperature", body.value("temperature", json())},
                           {"response_format", format_type},
                           {"system", system},
                           {"user", user}});
      if (requests_.size() > 1000) requests_.pop_front();
      faults = faults_;
      unknown_model = std::find(faults_.unknown_models.begin(), faults_.unknown_models.end(), model) !=
                      faults_.unknown_models.end();
      const bool format_refused = format_type == "json_schema" && faults_.reject_json_schema;
      if (!unknown_model && faults_.fail > 0) {
        --faults_.fail;
      } else if (!unknown_model && !format_refused) {
        if (faults_.invalid_json > 0)
          --faults_.invalid_json, garbage = true;
        else if (faults_.refuse > 0)
          --faults_.refuse, refusal = true;
      }
    }
    struct Leave {
      ModelFake* self;
      ~Leave() {
        std::lock_guard lock(self->mutex_);
        --self->in_flight_;
      }
    } leave{this};

    co_await core::async::sleep_for(faults.latency);
    if (unknown_model)
      co_return openai_error(404, "The model `" + model + "` does not exist or you do not have access to it.",
                             "invalid_request_error", nullptr, "model_not_found");
    if (faults.fail > 0) {
      if (faults.status == 429) {
        auto res = openai_error(429, "Rate limit reached for requests", "requests", nullptr, "rate_limit_exceeded");
        res.headers.set("Retry-After", std::to_string(faults.retry_after));
        co_return res;
      }
      co_return openai_error(faults.status, said("The server had an error while processing your request."),
                             "server_error");
    }
    if (format_type == "json_schema" && faults.reject_json_schema)
      co_return openai_error(
          400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
          "invalid_request_error", "response_format");
    if (format_type == "json_object" && core::to_lower(system + user).find("json") == std::string::npos)
      co_return openai_error(
          400, "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
          "invalid_request_error", "messages");

    const json* schema = format_type == "json_schema" ? find_path(format, {"json_schema", "schema"}) : nullptr;
    std::string content;
    if (schema && schema->is_object() && !is_triage_schema(schema)) {
      content = garbage ? "Sure! Here is my analysis of the ticket." : fake_from_schema(*schema, user).dump();
    } else {
      // The labels the caller's schema allows; the keyword reading picks among them.
      auto [label, confidence] = fake_label(user);
      const json* allowed = schema ? find_path(*schema, {"properties", "label", "enum"}) : nullptr;
      if (allowed && allowed->is_array() && !allowed->empty() &&
          std::find(allowed->begin(), allowed->end(), label) == allowed->end()) {
        label = allowed->back().is_string() ? allowed->back().get<std::string>() : "other";
        confidence = 0.5;
      }
      content =
          json{
              {"label", label}, {"confidence", confidence}, {"reasoning", "The message reads like " + label + " mail."}}
              .dump();
      if (garbage) content = "Sure! Here is the classification: " + label;
    }
    const std::string completion = refusal ? std::string(kRefusal) : content;
    json message = {{"role", "assistant"}, {"content", content}, {"refusal", nullptr}};
    if (refusal) message = {{"role", "assistant"}, {"content", nullptr}, {"refusal", kRefusal}};
    const std::string prompt = system + user;
    co_return Response::json({{"id", "chatcmpl-" + core::random_hex(12)},
                              {"object", "chat.completion"},
                              {"created", std::chrono::duration_cast<std::chrono::seconds>(
                                              std::chrono::system_clock::now().time_since_epoch())
                                              .count()},
                              {"model", model},
                              {"choices", {{{"index", 0}, {"message", message}, {"finish_reason", "stop"}}}},
                              {"usage",
                               {{"prompt_tokens", tokens(prompt)},
                                {"completion_tokens", tokens(completion)},
                                {"total_tokens", tokens(prompt) + tokens(completion)}}}});
  });

  router.post("/_sandbox/model/reset", [this](Request&) -> awaitable<Response> {
    reset();
    co_return Response::empty();
  });
  router.put("/_sandbox/model/faults", [this](Request& req) -> awaitable<Response> {
    const auto body = body_of(req);
    if (!body.is_object()) co_return openai_error(400, "body must be a JSON object", "invalid_request_error");
    ModelFaults f;
    int latency = 0;
    const std::tuple<const char*, int, int, int*> numbers[] = {{"latency_ms", 0, 600'000, &latency},
                                                               {"fail", 0, 1'000'000, &f.fail},
                                                               {"status", 400, 599, &f.status},
                                                               {"retry_after", 0, 86'400, &f.retry_after},
                                                               {"invalid_json", 0, 1'000'000, &f.invalid_json},
                                                               {"refuse", 0, 1'000'000, &f.refuse}};
    for (const auto& [name, lo, hi, target] : numbers)
      if (auto bad = read_int(body, name, lo, hi, *target)) co_return openai_error(400, *bad, "invalid_request_error");
    f.latency = std::chrono::milliseconds(latency);
    if (body.contains("reject_json_schema")) {
      if (!body["reject_json_schema"].is_boolean())
        co_return openai_error(400, "reject_json_schema must be true or false", "invalid_request_error");
      f.reject_json_schema = body["reject_json_schema"].get<bool>();
    }
    if (body.contains("unknown_models")) {
      const auto& models = body["unknown_models"];
      if (!models.is_array() || !std::all_of(models.begin(), models.end(), [](const json& m) { return m.is_string(); }))
        co_return openai_error(400, "unknown_models must be an array of model names", "invalid_request_error");
      f.unknown_models = models.get<std::vector<std::string>>();
    }
    if (auto bad = read_echo_switch(body, f.echo)) co_return openai_error(400, *bad, "invalid_request_error");
    set_faults(std::move(f));
    co_return Response::empty();
  });
  router.get("/_sandbox/model/requests",
             [this](Request&) -> awaitable<Response> { co_return Response::json(requests()); });
}

}  // namespace sandbox
