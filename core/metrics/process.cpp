#include "core/metrics/process.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace core::metrics {

namespace {

// The fields of /proc/self/stat after the command name (which may hold spaces): index 0 is the
// state, the third field of proc(5).
std::vector<std::string> stat_fields() {
  std::ifstream in("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  std::vector<std::string> fields;
  if (close == std::string::npos) return fields;
  std::istringstream rest(text.substr(close + 1));
  for (std::string f; rest >> f;) fields.push_back(f);
  return fields;
}

double stat_field(const std::vector<std::string>& fields, std::size_t proc5_number) {
  const std::size_t i = proc5_number - 3;
  return i < fields.size() ? std::stod(fields[i]) : 0;
}

// The boot time, seconds since the epoch (/proc/stat's btime).
double boot_time_seconds() {
  std::ifstream in("/proc/stat");
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("btime ")) return std::stod(line.substr(6));
  return 0;
}

double open_fds() {
  std::error_code ec;
  double n = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end; it.increment(ec)) ++n;
  return n;
}

}  // namespace

void register_process_metrics(Registry& registry) {
  static const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  static const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  registry.callback("process_cpu_seconds_total", "User and system CPU time the process has used, in seconds",
                    Type::counter, [](Samples& out) {
                      const auto f = stat_fields();
                      out.add({}, (stat_field(f, 14) + stat_field(f, 15)) / ticks);
                    });
  registry.callback("process_resident_memory_bytes", "Resident memory of the process, in bytes", Type::gauge,
                    [](Samples& out) { out.add({}, stat_field(stat_fields(), 24) * page); });
  registry.callback("process_virtual_memory_bytes", "Virtual memory of the process, in bytes", Type::gauge,
                    [](Samples& out) { out.add({}, stat_field(stat_fields(), 23)); });
  registry.callback("process_open_fds", "Open file descriptors of the process", Type::gauge,
                    [](Samples& out) { out.add({}, open_fds()); });
  registry.callback("process_max_fds", "The process's limit of open file descriptors", Type::gauge, [](Samples& out) {
    rlimit limit{};
    getrlimit(RLIMIT_NOFILE, &limit);
    out.add({}, static_cast<double>(limit.rlim_cur));
  });
  static const double start = boot_time_seconds() + stat_field(stat_fields(), 22) / ticks;
  registry.callback("process_start_time_seconds", "When the process started, in seconds since the Unix epoch",
                    Type::gauge, [](Samples& out) { out.add({}, start); });
}

void register_build_info(Registry& registry, std::string_view service) {
  std::string prefix(service);
  for (auto& c : prefix)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) c = '_';
  registry.callback(prefix + "_build_info", "The service's version and the commit it was built from (always 1)",
                    Type::gauge, [](Samples& out) {
                      out.add({{"version", std::string(build_version())}, {"commit", std::string(build_commit())}}, 1);
                    });
}

}  // namespace core::metrics
