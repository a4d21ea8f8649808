#pragma once
// CLASSIFIER=rules: an offline, deterministic classifier (the default without LLM_BASE_URL).
// It scores each label from signals a person would use: bulk-mail headers (List-Unsubscribe,
// Precedence), the sender's mailbox name (noreply, alerts, billing ...), phrases in the subject
// and body, attachments, and the sender profile's email types. The best score wins; the margin
// over the runner-up sets the confidence, so a message with no clear signal lands below the
// review threshold as `other`.
#include "mail_triage/classifier/classifier.hpp"

namespace mail_triage::classifier {

class RulesClassifier : public Classifier {
 public:
  boost::asio::awaitable<Classification> classify(Mail mail, std::optional<SenderHints> hints) override;
};

// The synchronous core of the rules classifier.
Classification classify_by_rules(const Mail& mail, const std::optional<SenderHints>& hints);

}  // namespace mail_triage::classifier
