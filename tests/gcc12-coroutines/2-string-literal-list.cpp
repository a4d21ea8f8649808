// Form 2 of docs/conventions.md (GCC 12 rule 2): an initializer list of string literals inside
// a co_await expression, such as nlohmann::json{{"k", "v"}} as an argument. g++ 12 rejected it
// ("array used as initializer"); core::db::Pool::query takes its arguments by value for the
// same reason. A compile error is the g++ 12 outcome this program records.
#include "harness.hpp"

#include <nlohmann/json.hpp>

awaitable<std::size_t> post_json(nlohmann::json body) {  // like a JSON API call
  co_await suspend();
  co_return body.dump().size();
}

awaitable<std::size_t> labels(std::vector<std::string> names) {
  co_await suspend();
  co_return names.size();
}

template <class... Args>
awaitable<std::size_t> query(std::string_view sql, const Args&... args) {  // Pool::query, by reference
  co_await suspend();
  co_return sql.size() + (std::string_view(args).size() + ... + 0);
}

int main(int argc, char** argv) {
  return run_variants(argc, argv, "2 string-literal list", {
#if VARIANT == 0 || VARIANT == 1
    {"json", R"(co_await post_json(nlohmann::json{{"k", "v"}}))",
     []() -> awaitable<bool> {
       const auto n = co_await post_json(nlohmann::json{{"k", "v"}});
       co_return n == std::string(R"({"k":"v"})").size();
     }},
#endif
#if VARIANT == 0 || VARIANT == 2
        {"vector", R"(co_await labels({"inbox", "spam", "archive"}))",
         []() -> awaitable<bool> {
           const auto n = co_await labels({"inbox", "spam", "archive"});
           co_return n == 3;
         }},
#endif
#if VARIANT == 0 || VARIANT == 3
        {"query-literal", R"(co_await query("SELECT $1", "abc"), query(sv, const Args&...))",
         []() -> awaitable<bool> {
           const auto n = co_await query("SELECT $1", "abc");
           co_return n == 12;
         }},
#endif
#if VARIANT == 0 || VARIANT == 4
        {"named (the fix)", R"(const nlohmann::json body{{"k", "v"}}; co_await post_json(body))",
         []() -> awaitable<bool> {
           const nlohmann::json body{{"k", "v"}};
           const auto n = co_await post_json(body);
           co_return n == std::string(R"({"k":"v"})").size();
         }},
#endif
  });
}
