#pragma once
// The process figures every Prometheus client library reports, read from /proc/self at scrape
// time: process_resident_memory_bytes, process_virtual_memory_bytes, process_cpu_seconds_total,
// process_open_fds, process_max_fds, process_start_time_seconds; and `<service>_build_info`.
#include "core/metrics/metrics.hpp"

#include <string_view>

namespace core::metrics {

void register_process_metrics(Registry& registry);

// `<prefix>_build_info{version, commit} 1` (prefix: the service's name with '-' as '_').
void register_build_info(Registry& registry, std::string_view service);

// The version and commit compiled in (CMake's configure step; "unknown" outside a git checkout).
std::string_view build_version();
std::string_view build_commit();

}  // namespace core::metrics
