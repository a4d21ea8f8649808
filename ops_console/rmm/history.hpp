#pragma once
// A Tactical RMM agent's history (GET /agents/{agent_id}/history/), read without I/O (the client,
// ./tactical.hpp, uses it; fuzz/fuzz_rmm_history.cpp fuzzes it).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>

namespace ops_console::rmm {

// The exit code of the newest run of `script_id` in the history: script_results.retcode of the
// entry {type: "script_run", script: script_id} with the highest integer id (an id that is not an
// integer counts as 0). Nothing when there is no such entry or its retcode is not an integer
// that fits an int. Any JSON is accepted: entries of another shape are skipped.
std::optional<int> script_exit_code(const nlohmann::json& history, std::int64_t script_id);

}  // namespace ops_console::rmm
