// Form 4 of docs/conventions.md ("GCC 12: default arguments and conditions count too"): a
// defaulted class-type parameter of a coroutine is a temporary of the co_await expression that
// calls it. `co_await list_page(db, s, req)` with `const CreateForm& form = {}` destroyed the
// default twice (free(): invalid pointer) in mail_triage/dbusers/console.cpp.
//
// The coroutines below return `Page`, an alias: scripts/lint rejects `awaitable<...> f(... = {})`
// in project code, and this program has to contain exactly that.
#include "harness.hpp"

struct Session {
  std::string token = "a session token long enough for the heap";
  std::string actor = "admin key 1, also long enough for the heap";
};

struct CreateForm {  // the form values of a refused create
  std::string username, level = "read_only, padded out to live on the heap", description;
  Counted tracked;
};

using Page = awaitable<std::size_t>;

Page list_page(const Session& s, const std::string& path, const CreateForm& form = {}) {
  co_await suspend();  // the SELECT of the users
  co_return s.actor.size() + path.size() + form.level.size();
}

Page list_page_by_value(const Session& s, const std::string& path, CreateForm form = {}) {
  co_await suspend();
  co_return s.actor.size() + path.size() + form.level.size();
}

const std::size_t kExpected = Session{}.actor.size() + std::string("/dbusers").size() + CreateForm{}.level.size();

int main(int argc, char** argv) {
  return run_variants(argc, argv, "4 defaulted parameter", {
#if VARIANT == 0 || VARIANT == 1
    {"const-ref", "co_await list_page(s, path) with const CreateForm& form = {}",
     []() -> awaitable<bool> {
       const Session s;
       const std::string path = "/dbusers";
       const auto n = co_await list_page(s, path);
       co_return n == kExpected;
     }},
#endif
#if VARIANT == 0 || VARIANT == 2
        {"by-value", "co_await list_page_by_value(s, path) with CreateForm form = {}",
         []() -> awaitable<bool> {
           const Session s;
           const std::string path = "/dbusers";
           const auto n = co_await list_page_by_value(s, path);
           co_return n == kExpected;
         }},
#endif
#if VARIANT == 0 || VARIANT == 3
        {"named (the fix)", "const CreateForm form; co_await list_page(s, path, form)", []() -> awaitable<bool> {
           const Session s;
           const std::string path = "/dbusers";
           const CreateForm form;
           const auto n = co_await list_page(s, path, form);
           co_return n == kExpected;
         }},
#endif
  });
}
