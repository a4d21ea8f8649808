#pragma once
// The mail platform's e-mail activity report, as Microsoft Graph's
// `GET /v1.0/reports/getEmailActivityUserDetail(date=YYYY-MM-DD)` downloads it
// (learn.microsoft.com/graph/api/reportroot-getemailactivityuserdetail): a CSV file, UTF-8 with a
// byte-order mark, one header line and a line per user:
//
//   Report Refresh Date,User Principal Name,Display Name,Is Deleted,Deleted Date,Last Activity Date,
//   Send Count,Receive Count,Read Count,Meeting Created Count,Meeting Interacted Count,
//   Assigned Products,Report Period
//
// Columns are found by their header (any order, any case; unknown ones ignored), fields follow
// RFC 4180 (quotes, doubled quotes, commas and line breaks inside quotes). Pure: no I/O, so the
// fuzz target fuzz/fuzz_usage_report.cpp runs it as is.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace core::graph {

struct EmailActivityRow {
  std::string user_principal_name;  // lowercased
  std::string display_name;
  bool is_deleted = false;
  std::string last_activity_date;   // YYYY-MM-DD or empty
  std::string report_refresh_date;  // YYYY-MM-DD
  std::int64_t send = 0;
  std::int64_t receive = 0;
  std::int64_t read = 0;
};

struct EmailActivityReport {
  std::vector<EmailActivityRow> rows;
  std::string report_refresh_date;  // the first row's; empty without rows
  std::size_t skipped = 0;          // data lines that were not a well-formed row
  std::size_t concealed = 0;        // rows whose user name is concealed (a hash, not an address)
};

struct UsageReportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline constexpr std::size_t kMostReportRows = 500'000;

// Throws UsageReportError when there is no header line with the columns read (User Principal
// Name, Send Count, Receive Count, Report Refresh Date), or more than kMostReportRows lines. A data
// line with a missing column, a count that is not a whole number from 0 to 2^31-1, or a date that is
// not YYYY-MM-DD is skipped (and counted); a user name without '@' (the tenant's "concealed names"
// report setting) is counted in `concealed` and left out.
EmailActivityReport parse_email_activity_csv(std::string_view csv);

}  // namespace core::graph
