#pragma once
// A page of Duo's GET /admin/v1/users read without building the whole document: only the users
// whose status is asked for are kept, each with its top-level scalar fields (user_id, username,
// realname, email, status, is_enrolled, last_login, notes, ...; nested phones, groups and tokens
// are skipped). A page of 300 users is mostly what the flagged view throws away: building it all
// as JSON cost the console ten times what the fake spent rendering it (bench/RESULTS.md). Pure,
// fuzzed (fuzz/fuzz_duo_users.cpp).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace ops_console::mfa {

struct DuoUsersPage {
  nlohmann::json users = nlohmann::json::array();  // those kept, in page order
  std::int64_t read = 0;                           // every user of the page
  std::optional<std::int64_t> next_offset;         // metadata.next_offset, when there is one
};

// nullopt when the body is not {stat: "OK", response: [...]} (malformed JSON included).
// `statuses` empty: every user is kept.
std::optional<DuoUsersPage> parse_users_page(std::string_view body, const std::set<std::string>& statuses);

}  // namespace ops_console::mfa
