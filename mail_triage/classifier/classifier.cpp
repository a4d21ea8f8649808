#include "mail_triage/classifier/classifier.hpp"

#include <algorithm>
#include <utility>

namespace mail_triage::classifier {

namespace {

const std::vector<std::pair<std::string, std::string>>& table() {
  static const std::vector<std::pair<std::string, std::string>> t{
      {"support_request", "a customer or user asks for technical help or reports a fault"},
      {"billing", "invoices, statements, payment reminders and receipts"},
      {"sales", "enquiries about buying services, quotes, pricing, proposals"},
      {"notification", "automated messages from systems: monitoring alerts, backup reports, service notices"},
      {"newsletter", "subscribed newsletters and digests"},
      {"marketing", "promotions, offers, webinar and event invitations"},
      {"spam", "unsolicited bulk mail with no legitimate purpose"},
      {"phishing", "attempts to steal credentials or money, impersonation, malicious links"},
      {"personal", "private mail to a staff member"},
      {"other", "anything that fits none of the labels above"},
  };
  return t;
}

}  // namespace

const std::vector<std::string>& labels() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& [name, _] : table()) out.push_back(name);
    return out;
  }();
  return names;
}

std::string_view describe(std::string_view label) {
  for (const auto& [name, text] : table())
    if (name == label) return text;
  return {};
}

bool is_label(std::string_view s) { return std::find(labels().begin(), labels().end(), s) != labels().end(); }

}  // namespace mail_triage::classifier
