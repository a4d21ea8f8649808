#include "core/json/kept.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

namespace core::json {

namespace {

using nlohmann::json;

// Writes what it is told to keep as it reads: a stack of the open containers says where each
// event is, and a skipped value (a field not kept) is read to its end without a byte written.
class KeptWriter final : public nlohmann::json_sax<json> {
 public:
  KeptWriter(const Kept& kept, std::size_t reserve) : kept_(kept) { out_.reserve(reserve); }
  std::string take() { return std::move(out_); }

  bool null() override { return scalar("null"); }
  bool boolean(bool value) override { return scalar(value ? "true" : "false"); }
  bool number_integer(number_integer_t value) override { return scalar(std::to_string(value)); }
  bool number_unsigned(number_unsigned_t value) override { return scalar(std::to_string(value)); }
  bool number_float(number_float_t, const string_t& text) override { return scalar(text); }  // as written
  bool string(string_t& value) override {
    if (!value_starts()) return !open_.empty();
    append_string(value);
    return true;
  }
  bool binary(binary_t&) override { return false; }  // not in JSON text

  bool start_object(std::size_t) override { return open(true); }
  bool end_object() override { return close('}'); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_array() override { return close(']'); }

  bool key(string_t& name) override {
    if (skipped_from_ != 0) return true;
    const auto depth = open_.size();
    const bool item_field = depth == 2 && !open_[0].object && open_[1].object;
    const bool nested_field = depth == 4 && !open_[0].object && open_[1].object && !open_[2].object && open_[3].object;
    if ((item_field && !keeps(kept_.fields, name)) || (nested_field && !keeps(kept_.nested, name))) {
      skip_next_ = true;
      return true;
    }
    separate();
    append_string(name);
    out_ += ':';
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  struct Open {
    bool object;
    bool empty = true;
  };

  static bool keeps(const std::vector<std::string>& names, const std::string& name) {
    return names.empty() || std::find(names.begin(), names.end(), name) != names.end();
  }

  // Whether the value that starts now is written (and its separator is); false while skipping.
  bool value_starts() {
    if (skipped_from_ != 0) return false;
    if (skip_next_) {
      skip_next_ = false;
      return false;
    }
    if (open_.empty()) return false;  // a top-level scalar: not a list
    if (!open_.back().object) separate();
    return true;
  }
  void separate() {
    if (!open_.back().empty) out_ += ',';
    open_.back().empty = false;
  }

  bool scalar(std::string_view text) {
    if (!value_starts()) return !open_.empty();
    out_ += text;
    return true;
  }

  bool open(bool object) {
    if (open_.empty()) {
      if (object) return false;  // the top level must be a list
      open_.push_back({false});
      out_ += '[';
      return true;
    }
    const bool written = value_starts();
    open_.push_back({object});
    if (!written) {
      if (skipped_from_ == 0) skipped_from_ = open_.size();
      return true;
    }
    out_ += object ? '{' : '[';
    return true;
  }

  bool close(char bracket) {
    const auto depth = open_.size();
    open_.pop_back();
    if (skipped_from_ != 0) {
      if (depth == skipped_from_) skipped_from_ = 0;
      return true;
    }
    out_ += bracket;
    return true;
  }

  void append_string(const std::string& s) {
    out_ += '"';
    for (const char c : s) {
      switch (c) {
        case '"':
          out_ += "\\\"";
          break;
        case '\\':
          out_ += "\\\\";
          break;
        case '\n':
          out_ += "\\n";
          break;
        case '\r':
          out_ += "\\r";
          break;
        case '\t':
          out_ += "\\t";
          break;
        case '\b':
          out_ += "\\b";
          break;
        case '\f':
          out_ += "\\f";
          break;
        default:
          if (static_cast<unsigned char>(c) < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
            out_ += escaped;
          } else {
            out_ += c;  // UTF-8, checked by the lexer
          }
      }
    }
    out_ += '"';
  }

  const Kept& kept_;
  std::string out_;
  std::vector<Open> open_;
  bool skip_next_ = false;        // the next value belongs to a field not kept
  std::size_t skipped_from_ = 0;  // the depth of the container being skipped; 0: none
};

}  // namespace

std::optional<std::string> kept_items(std::string_view text, const Kept& kept) {
  KeptWriter writer(kept, text.size() / 2);
  if (!json::sax_parse(text, &writer)) return std::nullopt;
  return writer.take();
}

}  // namespace core::json
