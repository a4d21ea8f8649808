#include "ops_console/mfa/duo_users.hpp"

#include "core/util/strings.hpp"

namespace ops_console::mfa {

using nlohmann::json;

namespace {

// Depths: 1 the envelope, 2 its members (response's array, metadata's object), 3 a user, 4+
// what a user nests.
class UsersSax final : public nlohmann::json_sax<json> {
 public:
  explicit UsersSax(const std::set<std::string>& statuses) : statuses_(statuses) {}

  bool null() override { return scalar(nullptr); }
  bool boolean(bool v) override { return scalar(v); }
  bool number_integer(number_integer_t v) override { return scalar(v); }
  bool number_unsigned(number_unsigned_t v) override { return scalar(v); }
  bool number_float(number_float_t v, const string_t&) override { return scalar(v); }
  bool string(string_t& v) override { return scalar(std::move(v)); }
  bool binary(binary_t&) override { return true; }

  bool start_object(std::size_t) override {
    ++depth_;
    if (depth_ == 3 && in_response_) user_ = json::object();
    return true;
  }
  bool end_object() override {
    if (depth_ == 3 && in_response_) {
      ++page_.read;
      const auto status = user_.find("status");
      if (statuses_.empty() ||
          (status != user_.end() && status->is_string() && statuses_.contains(status->get<std::string>())))
        page_.users.push_back(std::move(user_));
    }
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    ++depth_;
    if (depth_ == 2 && top_key_ == "response") in_response_ = saw_response_ = true;
    return true;
  }
  bool end_array() override {
    if (depth_ == 2) in_response_ = false;
    --depth_;
    return true;
  }
  bool key(string_t& k) override {
    if (depth_ == 1) top_key_ = k;
    if (depth_ == 2) metadata_key_ = k;
    if (depth_ == 3) user_key_ = k;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

  bool ok() const { return stat_ok_ && saw_response_; }
  DuoUsersPage take() { return std::move(page_); }

 private:
  bool scalar(json v) {
    if (depth_ == 1 && top_key_ == "stat") stat_ok_ = v.is_string() && v.get<std::string>() == "OK";
    if (depth_ == 2 && top_key_ == "metadata" && metadata_key_ == "next_offset") {
      if (v.is_number_integer()) page_.next_offset = v.get<std::int64_t>();
      if (v.is_string()) page_.next_offset = core::parse_int64(v.get<std::string>());
    }
    if (depth_ == 3 && in_response_) user_[user_key_] = std::move(v);
    return true;
  }

  const std::set<std::string>& statuses_;
  int depth_ = 0;
  bool in_response_ = false, saw_response_ = false, stat_ok_ = false;
  std::string top_key_, metadata_key_, user_key_;
  json user_;
  DuoUsersPage page_;
};

}  // namespace

std::optional<DuoUsersPage> parse_users_page(std::string_view body, const std::set<std::string>& statuses) {
  UsersSax sax(statuses);
  if (!json::sax_parse(body, &sax) || !sax.ok()) return std::nullopt;
  return sax.take();
}

}  // namespace ops_console::mfa
