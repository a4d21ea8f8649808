// Form 3 of docs/conventions.md ("GCC 12: no lambda temporaries inside co_await either"):
// `co_await async_initiate<...>([state](auto handler) {...}, use_awaitable)` destroyed the
// lambda twice, so its shared_ptr capture was released once too often and the state was freed
// while still in use. core/async/join.hpp and semaphore.hpp name the lambda first.
#include "harness.hpp"

#include <memory>

struct State {  // like JoinState: shared by the waiter and whoever wakes it
  Counted tracked;
  std::function<void()> waiter;
};

// Resumes the waiting coroutine later, from the io_context, as a finished task would.
template <class Handler>
void park(const std::shared_ptr<State>& state, Handler handler) {
  auto shared = std::make_shared<Handler>(std::move(handler));
  state->waiter = [shared] {
    auto ex = asio::get_associated_executor(*shared);
    asio::post(ex, std::move(*shared));
  };
}

awaitable<void> wake_soon(std::shared_ptr<State> state) {
  co_await suspend();
  auto wake = std::move(state->waiter);
  wake();
}

int main(int argc, char** argv) {
  return run_variants(argc, argv, "3 lambda temporary", {
#if VARIANT == 0 || VARIANT == 1
    {"parked", "co_await async_initiate<..., void()>([state](auto h) { park(state, h); }, use_awaitable)",
     []() -> awaitable<bool> {
       auto state = std::make_shared<State>();
       asio::co_spawn(co_await asio::this_coro::executor, wake_soon(state), asio::detached);
       co_await asio::async_initiate<const asio::use_awaitable_t<>&, void()>(
           [state](auto handler) { park(state, std::move(handler)); }, use_awaitable);
       co_return state.use_count() == 1;
     }},
#endif
#if VARIANT == 0 || VARIANT == 2
        {"immediate", "co_await async_initiate<..., void()>([state](auto h) { post(h); }, use_awaitable)",
         []() -> awaitable<bool> {
           auto state = std::make_shared<State>();
           co_await asio::async_initiate<const asio::use_awaitable_t<>&, void()>(
               [state](auto handler) {
                 auto ex = asio::get_associated_executor(handler);
                 asio::post(ex, std::move(handler));
               },
               use_awaitable);
           co_return state.use_count() == 1;
         }},
#endif
#if VARIANT == 0 || VARIANT == 3
        {"named (the fix)", "auto wait = [state](auto h) {...}; co_await async_initiate<...>(wait, use_awaitable)",
         []() -> awaitable<bool> {
           auto state = std::make_shared<State>();
           asio::co_spawn(co_await asio::this_coro::executor, wake_soon(state), asio::detached);
           auto wait = [state](auto handler) { park(state, std::move(handler)); };
           co_await asio::async_initiate<const asio::use_awaitable_t<>&, void()>(wait, use_awaitable);
           co_return state.use_count() == 2;  // `wait` still holds one
         }},
#endif
  });
}
