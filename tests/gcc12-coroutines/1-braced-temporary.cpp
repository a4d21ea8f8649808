// Form 1 of docs/conventions.md (GCC 12 rule 1): a braced temporary inside a co_await
// expression, `co_await send({.url = u})`, with an aggregate that holds std::strings. In the
// services this destroyed the temporary twice: heap corruption.
#include "harness.hpp"

struct Outbound {  // like an outbound HTTP request: an aggregate of strings
  std::string method = "POST";
  std::string url;
  std::string body;
  Counted tracked;
};

awaitable<std::size_t> send(const Outbound& r) {  // by const reference
  co_await suspend();
  co_return r.url.size() + r.body.size();
}

awaitable<std::size_t> send_by_value(Outbound r) {  // by value
  co_await suspend();
  co_return r.url.size() + r.body.size();
}

struct Client {  // a member function, as the services call it
  awaitable<std::size_t> send(const Outbound& r) {
    co_await suspend();
    co_return r.url.size();
  }
};

const std::string kUrl = "https://graph.example.invalid/v1.0/users/someone/messages";
const std::string kBody = "a request body long enough to be allocated on the heap";

int main(int argc, char** argv) {
  return run_variants(argc, argv, "1 braced temporary", {
#if VARIANT == 0 || VARIANT == 1
    {"const-ref", "co_await send({.url = u, .body = b}), send(const Outbound&)",
     []() -> awaitable<bool> {
       const std::string u = kUrl, b = kBody;
       const auto n = co_await send({.url = u, .body = b});
       co_return n == u.size() + b.size();
     }},
#endif
#if VARIANT == 0 || VARIANT == 2
        {"by-value", "co_await send_by_value({.url = u, .body = b}), send_by_value(Outbound)",
         []() -> awaitable<bool> {
           const std::string u = kUrl, b = kBody;
           const auto n = co_await send_by_value({.url = u, .body = b});
           co_return n == u.size() + b.size();
         }},
#endif
#if VARIANT == 0 || VARIANT == 3
        {"member", "co_await client.send({.url = u}), Client::send(const Outbound&)",
         []() -> awaitable<bool> {
           Client client;
           const std::string u = kUrl;
           const auto n = co_await client.send({.url = u});
           co_return n == u.size();
         }},
#endif
#if VARIANT == 0 || VARIANT == 4
        {"named (the fix)", "Outbound r{.url = u}; co_await send(r)", []() -> awaitable<bool> {
           const std::string u = kUrl;
           Outbound r{.url = u};
           const auto n = co_await send(r);
           co_return n == u.size();
         }},
#endif
  });
}
