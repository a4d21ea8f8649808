#pragma once
// Shared by the reproductions of docs/conventions.md "GCC 12 coroutine rules" (see ./run).
//
// Counted records every construction and destruction by address, so an object destroyed twice
// (or destroyed without having been built) is seen even when the sanitizers see nothing. Its
// payload is a heap string: destroyed twice, ASan reports a double free.
//
// run_variants() runs each variant as its own coroutine on its own io_context, exactly as the
// services do (co_spawn on an io_context, awaitable<T>), then checks the counts. With an
// argument it runs only the variant of that name. Exit 0: every variant behaved; exit 1: a
// count was wrong (the program prints which).
//
// Each variant sits inside `#if VARIANT == 0 || VARIANT == n`: when g++ rejects the whole
// program, ./run compiles it once per variant (-DVARIANT=n) to see which ones it rejects.
#include <utility>  // Boost 1.74's awaitable.hpp misses it (the project adds -include utility)

#include <boost/asio.hpp>

#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <set>
#include <string>
#include <vector>

#ifndef VARIANT
#define VARIANT 0  // all of them
#endif

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;

struct Counted {
  static inline std::set<const void*> live;
  static inline int made = 0, destroyed = 0, bad = 0;
  std::string payload = "a string long enough to be on the heap, not in the SSO buffer";

  Counted() { built(); }
  Counted(const Counted& other) : payload(other.payload) { built(); }
  Counted(Counted&& other) noexcept : payload(std::move(other.payload)) { built(); }
  Counted& operator=(const Counted&) = default;
  Counted& operator=(Counted&&) = default;
  ~Counted() {
    ++destroyed;
    if (live.erase(this) == 0) {
      ++bad;
      std::fprintf(stderr, "Counted at %p destroyed twice (or never built)\n", static_cast<const void*>(this));
    }
  }
  void built() {
    ++made;
    live.insert(this);
  }
};

// What a database round trip does to a coroutine: it suspends, and resumes from the io_context.
inline awaitable<void> suspend() { co_await asio::post(co_await asio::this_coro::executor, use_awaitable); }

struct Variant {
  const char* name;
  const char* what;                       // the code under test, as written in the program
  std::function<awaitable<bool>()> body;  // false: the coroutine saw a wrong value
};

inline int run_variants(int argc, char** argv, const char* form, const std::vector<Variant>& variants) {
  int failures = 0, ran = 0;
  for (const auto& v : variants) {
    if (argc > 1 && std::strcmp(argv[1], v.name) != 0) continue;
    ++ran;
    Counted::live.clear();
    Counted::made = Counted::destroyed = Counted::bad = 0;
    bool value_ok = false;
    asio::io_context io;
    asio::co_spawn(io, v.body(), [&](std::exception_ptr e, bool ok) {
      if (e) std::rethrow_exception(e);
      value_ok = ok;
    });
    io.run();
    const bool counts_ok = Counted::made == Counted::destroyed && Counted::bad == 0 && Counted::live.empty();
    std::printf("%s / %s: %s\n  Counted built %d, destroyed %d, destroyed twice %d, alive %zu; values %s => %s\n", form,
                v.name, v.what, Counted::made, Counted::destroyed, Counted::bad, Counted::live.size(),
                value_ok ? "right" : "WRONG",
                !counts_ok  ? "WRONG COUNT"
                : !value_ok ? "WRONG VALUE"
                            : "ok");
    if (!counts_ok || !value_ok) ++failures;
  }
  if (ran == 0) {
    std::fprintf(stderr, "no variant named %s\n", argc > 1 ? argv[1] : "");
    return 2;
  }
  return failures == 0 ? 0 : 1;
}
