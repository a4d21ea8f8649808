// A Tactical RMM agent's history (ops_console/rmm/history.hpp): any JSON is read without an
// exception, and an exit code found is the retcode of a script_run entry of that script.
#include "ops_console/rmm/history.hpp"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using nlohmann::json;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto history = json::parse(text, nullptr, false);
  if (history.is_discarded()) return 0;
  for (const std::int64_t script : {1, 7}) {
    const auto code = ops_console::rmm::script_exit_code(history, script);
    if (!code) continue;
    bool found = false;
    for (const auto& h : history)
      if (h.is_object() && h.contains("type") && h["type"] == "script_run" && h.contains("script") &&
          h["script"] == script && h.contains("script_results") && h["script_results"].is_object() &&
          h["script_results"].contains("retcode") && h["script_results"]["retcode"] == *code)
        found = true;
    if (!found) std::abort();
  }
  return 0;
}
