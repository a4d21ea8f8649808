#include "core/graph/usage_report.hpp"

#include "core/util/strings.hpp"

#include <map>
#include <optional>

namespace core::graph {

namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";
constexpr std::int64_t kMostCount = 2'147'483'647;  // the table's integer

// RFC 4180 records one at a time: fields separated by commas, records by CRLF or LF; a quoted
// field may hold commas, line breaks and doubled quotes.
class Records {
 public:
  explicit Records(std::string_view text) : text_(text) {}

  // The next record, or nullopt at the end. An unterminated quote ends at the end of the text.
  std::optional<std::vector<std::string>> next() {
    if (pos_ >= text_.size()) return std::nullopt;
    std::vector<std::string> fields(1);
    bool quoted = false;
    while (pos_ < text_.size()) {
      const char c = text_[pos_++];
      if (quoted) {
        if (c != '"') {
          fields.back() += c;
        } else if (pos_ < text_.size() && text_[pos_] == '"') {
          fields.back() += '"';
          ++pos_;
        } else {
          quoted = false;
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        fields.emplace_back();
      } else if (c == '\n') {
        break;
      } else if (c == '\r') {
        if (pos_ < text_.size() && text_[pos_] == '\n') ++pos_;
        break;
      } else {
        fields.back() += c;
      }
    }
    return fields;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

bool blank(const std::vector<std::string>& fields) { return fields.size() == 1 && core::trim(fields[0]).empty(); }

std::optional<std::int64_t> count(std::string_view text) {
  const auto t = core::trim(text);
  if (t.empty()) return 0;  // the report leaves a count empty when there was no such activity
  for (const char c : t)
    if (c < '0' || c > '9') return std::nullopt;
  if (t.size() > 10) return std::nullopt;
  const auto v = core::parse_int64(t);
  if (!v || *v > kMostCount) return std::nullopt;
  return v;
}

bool is_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9')) return false;
  const int month = (s[5] - '0') * 10 + (s[6] - '0');
  const int day = (s[8] - '0') * 10 + (s[9] - '0');
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

}  // namespace

EmailActivityReport parse_email_activity_csv(std::string_view csv) {
  if (csv.starts_with(kBom)) csv.remove_prefix(kBom.size());
  Records records(csv);
  std::optional<std::vector<std::string>> header;
  while ((header = records.next()) && blank(*header)) {
  }
  if (!header) throw UsageReportError("the usage report is empty (no header line)");

  std::map<std::string, std::size_t> column;
  for (std::size_t i = 0; i < header->size(); ++i) column.emplace(core::to_lower(core::trim((*header)[i])), i);
  const auto find = [&](std::string_view name) -> std::optional<std::size_t> {
    const auto it = column.find(std::string(name));
    return it == column.end() ? std::nullopt : std::optional(it->second);
  };
  const auto upn = find("user principal name"), send = find("send count"), receive = find("receive count"),
             refresh = find("report refresh date");
  const auto display = find("display name"), deleted = find("is deleted"), read = find("read count"),
             last = find("last activity date");
  if (!upn || !send || !receive || !refresh)
    throw UsageReportError(
        "the usage report has no User Principal Name, Send Count, Receive Count or Report Refresh Date column");

  EmailActivityReport report;
  std::size_t lines = 0;
  for (;;) {
    const auto fields = records.next();
    if (!fields) break;
    if (blank(*fields)) continue;
    if (++lines > kMostReportRows)
      throw UsageReportError("the usage report has more than " + std::to_string(kMostReportRows) + " rows");
    const auto field = [&](std::optional<std::size_t> i) -> std::string_view {
      return i && *i < fields->size() ? core::trim((*fields)[*i]) : std::string_view();
    };
    const auto in_range = [&](std::optional<std::size_t> i) { return !i || *i < fields->size(); };
    const auto sent = count(field(send)), received = count(field(receive)), opened = count(field(read));
    const auto refreshed = field(refresh);
    const auto last_activity = field(last);
    if (!in_range(upn) || !in_range(send) || !in_range(receive) || !in_range(refresh) || !sent || !received ||
        !opened || !is_date(refreshed) || (!last_activity.empty() && !is_date(last_activity)) || field(upn).empty()) {
      ++report.skipped;
      continue;
    }
    const std::string name = core::to_lower(field(upn));
    if (name.find('@') == std::string::npos) {
      ++report.concealed;
      continue;
    }
    EmailActivityRow row;
    row.user_principal_name = name;
    row.display_name = std::string(field(display));
    row.is_deleted = core::iequals(field(deleted), "true");
    row.last_activity_date = std::string(last_activity);
    row.report_refresh_date = std::string(refreshed);
    row.send = *sent;
    row.receive = *received;
    row.read = *opened;
    if (report.report_refresh_date.empty()) report.report_refresh_date = row.report_refresh_date;
    report.rows.push_back(std::move(row));
  }
  return report;
}

}  // namespace core::graph
