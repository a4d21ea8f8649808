#include "mail_triage/classifier/rules.hpp"

#include "core/util/strings.hpp"

#include <algorithm>
#include <map>

namespace mail_triage::classifier {

namespace {

struct Signal {
  std::string label;
  std::vector<std::string> phrases;  // in subject or body, lowercased
  int weight;
};

// Phrases worth a few points each; a phrase in the subject counts double.
const std::vector<Signal>& signals() {
  static const std::vector<Signal> s{
      {"phishing",
       {"verify your account", "confirm your password", "unusual sign-in", "password expires", "will be suspended",
        "mailbox is full", "update your payment details", "wire transfer"},
       4},
      {"spam",
       {"you have won", "lucky winner", "claim your prize", "without prescription", "from home", "100% free", "act now",
        "crypto profit"},
       4},
      {"marketing",
       {"% off", "limited-time", "exclusive offer", "webinar", "register now", "discount", "special offer",
        "last chance"},
       2},
      {"newsletter", {"newsletter", "in this issue", "digest", "weekly roundup"}, 3},
      {"notification",
       {"automated notification", "do not reply", "[alert]", "backup job", "completed successfully", "expires in",
        "message center"},
       3},
      {"billing", {"invoice", "statement", "payment", "receipt", "amount due", "credit note"}, 3},
      {"sales", {"quote", "pricing", "proposal", "interested in your", "looking for an it partner"}, 3},
      {"support_request",
       {"not working", "cannot", "can't", "does not work", "error", "please help", "issue", "problem", "is slow",
        "very slow", "set up an account", "is missing", "broken"},
       2},
      {"personal", {"lunch", "birthday", "weekend", "dinner", "family"}, 2},
  };
  return s;
}

// The mailbox name before the @ says a lot about automated senders.
const std::vector<std::pair<std::string, std::string>>& local_parts() {
  static const std::vector<std::pair<std::string, std::string>> l{
      {"noreply", "notification"},  {"no-reply", "notification"},      {"donotreply", "notification"},
      {"alerts", "notification"},   {"notifications", "notification"}, {"billing", "billing"},
      {"invoices", "billing"},      {"accounts", "billing"},           {"news", "newsletter"},
      {"newsletter", "newsletter"}, {"offers", "marketing"},           {"marketing", "marketing"},
  };
  return l;
}

std::size_t count(const std::string& text, const std::string& phrase) {
  std::size_t n = 0;
  for (auto pos = text.find(phrase); pos != std::string::npos; pos = text.find(phrase, pos + phrase.size())) ++n;
  return n;
}

}  // namespace

Classification classify_by_rules(const Mail& mail, const std::optional<SenderHints>& hints) {
  const std::string subject = core::to_lower(mail.subject);
  const std::string body = core::to_lower(mail.body.substr(0, 20'000));
  std::map<std::string, int> score;
  std::vector<std::string> why;

  for (const auto& signal : signals())
    for (const auto& phrase : signal.phrases) {
      const auto in_subject = count(subject, phrase), in_body = std::min<std::size_t>(count(body, phrase), 2);
      if (in_subject + in_body == 0) continue;
      score[signal.label] += signal.weight * static_cast<int>(2 * in_subject + in_body);
      why.push_back("\"" + phrase + "\"");
    }
  const auto precedence = mail.headers.find("precedence");
  const bool bulk = mail.headers.contains("list-unsubscribe") ||
                    (precedence != mail.headers.end() && core::iequals(precedence->second, "bulk"));
  if (bulk) {
    score["newsletter"] += 4;
    score["marketing"] += 3;
    why.push_back("bulk-mail headers");
  }
  const std::string local = core::to_lower(mail.from_address.substr(0, mail.from_address.find('@')));
  for (const auto& [name, label] : local_parts())
    if (local == name) {
      score[label] += 4;
      why.push_back("sender mailbox \"" + name + "\"");
    }
  if (mail.has_attachments && score.contains("billing")) score["billing"] += 2;
  if (hints)
    for (const auto& type : hints->email_types)
      if (is_label(core::to_lower(type))) {
        score[core::to_lower(type)] += 3;
        why.push_back("sender profile lists " + type);
      }

  std::vector<std::pair<int, std::string>> ranked;
  for (const auto& [label, points] : score) ranked.emplace_back(points, label);
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;  // ties: by name, so runs repeat
  });
  Classification c{.model = "rules"};
  if (ranked.empty()) {
    c.label = "other";
    c.confidence = 0.5;
    c.reasoning = "No rule matched.";
    return c;
  }
  const int best = ranked[0].first, runner_up = ranked.size() > 1 ? ranked[1].first : 0;
  c.label = ranked[0].second;
  c.confidence = std::min(0.95, 0.5 + 0.04 * best + 0.04 * (best - runner_up));
  c.reasoning = "Signals: ";
  for (std::size_t i = 0; i < why.size() && i < 6; ++i) c.reasoning += (i ? ", " : "") + why[i];
  c.reasoning += ".";
  return c;
}

boost::asio::awaitable<Classification> RulesClassifier::classify(Mail mail, std::optional<SenderHints> hints) {
  co_return classify_by_rules(mail, hints);
}

}  // namespace mail_triage::classifier
