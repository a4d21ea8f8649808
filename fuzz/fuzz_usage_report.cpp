// The mail platform's e-mail activity report (a CSV file from Graph's download URL): any bytes are
// read without a crash, and every row kept has an address and counts within the table's integer.
#include "core/graph/usage_report.hpp"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto report = core::graph::parse_email_activity_csv(text);
    for (const auto& row : report.rows)
      if (row.user_principal_name.find('@') == std::string::npos || row.send < 0 || row.receive < 0 || row.read < 0 ||
          row.send > 2'147'483'647 || row.receive > 2'147'483'647 || row.read > 2'147'483'647 ||
          row.report_refresh_date.size() != 10)
        std::abort();
    if (report.rows.size() + report.skipped + report.concealed > core::graph::kMostReportRows) std::abort();
  } catch (const core::graph::UsageReportError&) {
  }
  return 0;
}
