// Form 5 of docs/conventions.md ("GCC 12: default arguments and conditions count too"):
// `if (co_await f())` on a class-type result (std::optional<Session>) crashed with SIGILL in
// mail_triage/dbusers/console.cpp; the docs say a bool result has been fine.
//
// What this program finds: the console's handler had the shape of login_form() below, a
// coroutine with no local variable whose first statement is `if (co_await f()) co_return ...;`.
// In that shape g++ 12 resumes the frame at a bad resume point (its trap: SIGILL) whatever f()
// returns, bool included; give the coroutine any local variable, even an int, and the same
// condition runs correctly. The variants show both.
#include "harness.hpp"

#include <optional>

struct Session {
  std::string token = "a session token long enough for the heap";
  std::string actor = "admin key 1, also long enough for the heap";
  Counted tracked;
};

awaitable<std::optional<Session>> session_of(std::string token) {  // looks the token up
  co_await suspend();
  if (token.empty()) co_return std::nullopt;
  co_return Session{.token = token};
}

awaitable<bool> signed_in(std::string token) {
  co_await suspend();
  co_return !token.empty();
}

const std::string kToken = "a session token long enough for the heap";

// The console's login form: signed in already? Then redirect (1), else the form (2).
awaitable<int> login_form() {
  if (co_await session_of(kToken)) co_return 1;
  co_return 2;
}

awaitable<int> login_form_bool() {
  if (co_await signed_in(kToken)) co_return 1;
  co_return 2;
}

awaitable<int> login_form_with_local() {  // the same, plus one local variable
  int page = 2;
  if (co_await session_of(kToken)) co_return 1;
  co_return page;
}

awaitable<int> login_form_named() {  // the rule's fix
  const auto s = co_await session_of(kToken);
  if (s) co_return 1;
  co_return 2;
}

int main(int argc, char** argv) {
  return run_variants(argc, argv, "5 if (co_await ...)", {
#if VARIANT == 0 || VARIANT == 1
    {"optional, no local", "if (co_await session_of(t)) co_return 1;  (std::optional<Session>)",
     []() -> awaitable<bool> { co_return co_await login_form() == 1; }},
#endif
#if VARIANT == 0 || VARIANT == 2
        {"bool, no local", "if (co_await signed_in(t)) co_return 1;  (bool)",
         []() -> awaitable<bool> { co_return co_await login_form_bool() == 1; }},
#endif
#if VARIANT == 0 || VARIANT == 3
        {"optional, one local", "int page = 2; if (co_await session_of(t)) co_return 1;",
         []() -> awaitable<bool> { co_return co_await login_form_with_local() == 1; }},
#endif
#if VARIANT == 0 || VARIANT == 4
        {"named (the fix)", "const auto s = co_await session_of(t); if (s) co_return 1;",
         []() -> awaitable<bool> { co_return co_await login_form_named() == 1; }},
#endif
  });
}
