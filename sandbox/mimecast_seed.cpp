// The Mimecast fake's demo tenant and its rows as the API renders them (mimecast_seed.hpp).
#include "sandbox/mimecast_seed.hpp"

#include "core/util/strings.hpp"
#include "sandbox/seed_random.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

namespace sandbox::mimecast {

using nlohmann::json;

namespace {

constexpr const char* kDomain = "northwind-it.example";

const std::vector<std::pair<std::string, std::string>>& people() {
  static const std::vector<std::pair<std::string, std::string>> all{
      {"Alex", "Morgan"},  {"Priya", "Shah"},    {"Tom", "Becker"},   {"Mia", "Lindqvist"}, {"Omar", "Haddad"},
      {"Grace", "Okafor"}, {"Lukas", "Novak"},   {"Hana", "Sato"},    {"Ben", "Carter"},    {"Sofia", "Rossi"},
      {"Ivan", "Petrov"},  {"Chloe", "Dubois"},  {"Noah", "Fischer"}, {"Lena", "Kowalski"}, {"Sam", "Whitfield"},
      {"Aisha", "Bello"},  {"Jonas", "Berg"},    {"Elena", "Garcia"}, {"Ravi", "Iyer"},     {"Kate", "Murphy"},
      {"Mateo", "Silva"},  {"Nina", "Hoffmann"}, {"Yusuf", "Demir"},  {"Zoe", "Martin"}};
  return all;
}

struct External {
  const char* email;
  const char* name;
};

const std::vector<External>& externals() {
  static const std::vector<External> all{{"billing@contoso-supplies.example", "Contoso Supplies Billing"},
                                         {"noreply@parcel-tracking.example", "Parcel Tracking"},
                                         {"invoices@fabrikam.example", "Fabrikam Accounts"},
                                         {"security-alert@micros0ft-support.example", "Microsoft Account Team"},
                                         {"ceo@northwind-it-mail.example", "Dana Whitaker"},
                                         {"offers@deals-daily.example", "Deals Daily"},
                                         {"hr@adatum.example", "Adatum HR"},
                                         {"support@litware.example", "Litware Support"},
                                         {"newsletter@tailspin.example", "Tailspin Toys News"},
                                         {"payments@wingtip-bank.example", "Wingtip Bank"},
                                         {"it-helpdesk@proseware.example", "Proseware IT"},
                                         {"docs-share@fileshare-online.example", "Document Share"}};
  return all;
}

struct Reason {
  const char* reason;
  const char* code;
  const char* policy;
};

const std::vector<Reason>& reasons() {
  static const std::vector<Reason> all{
      {"Spam Signature", "spam_signature", "Moderate Spam Detection"},
      {"Spam Signature", "spam_signature", "Default Inbound Spam Policy"},
      {"Impersonation Protection", "impersonation_protection", "High-Confidence Impersonation Protection"},
      {"Attachment Protection", "attachment_protection", "Inbound Attachment Protect Definition"},
      {"Dangerous File Type", "dangerous_file_type", "Attachment Management - Block Executables"},
      {"Content Examination", "content_examination", "Outbound DLP - Card Numbers"},
      {"Policy Hold", "policy_hold", "Hold External Auto-Forwards"}};
  return all;
}

const std::vector<std::string>& subjects() {
  static const std::vector<std::string> all{"Invoice {n} overdue - action required",
                                            "Your parcel could not be delivered",
                                            "Re: Q{n} budget review",
                                            "Password expires today",
                                            "Urgent wire transfer request",
                                            "Shared document: Contract_{n}.pdf",
                                            "Weekly newsletter #{n}",
                                            "Payment confirmation {n}",
                                            "Meeting notes - project {n}",
                                            "Your mailbox is almost full",
                                            "Updated bank details for invoice {n}",
                                            "Holiday rota {n}",
                                            "Security alert: unusual sign-in",
                                            "Order {n} shipped",
                                            "Re: onboarding checklist"};
  return all;
}

std::string subject_of(SeedRandom& rng) {
  std::string s = rng.pick(subjects());
  if (const auto at = s.find("{n}"); at != std::string::npos) s.replace(at, 3, std::to_string(rng.between(100, 9999)));
  return s;
}

// Mimecast's ids are long opaque base64url strings ("eNpVj21LhEAUhf_LfN2VnRl1RpclCN..."); these keep the shape.
std::string opaque_id(SeedRandom& rng, std::size_t length = 48) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out = "eNo";
  for (std::size_t i = 0; i < length; ++i) out += kAlphabet[rng.next() % 64];
  return out;
}

std::string ip_of(SeedRandom& rng) {
  // Documentation ranges only (RFC 5737).
  static const std::vector<std::string> nets{"192.0.2.", "198.51.100.", "203.0.113."};
  return rng.pick(nets) + std::to_string(rng.between(1, 254));
}

json address(const Address& a) { return {{"emailAddress", a.email}, {"displayableName", a.name}}; }

std::string day_of(std::int64_t ms) {
  const auto t = core::Timestamp(std::chrono::milliseconds(ms));
  return core::format_rfc3339(t).substr(0, 10);
}

}  // namespace

std::string date_text(core::Timestamp t) { return core::format_rfc3339(t).substr(0, 19) + "+0000"; }

std::optional<core::Timestamp> parse_date(std::string_view text) {
  std::string s(core::trim(text));
  // "+0000" / "-0500" at the end: RFC 3339 wants "+00:00".
  if (s.size() > 5) {
    const auto tail = s.substr(s.size() - 5);
    if ((tail[0] == '+' || tail[0] == '-') &&
        std::all_of(tail.begin() + 1, tail.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      s.insert(s.size() - 2, ":");
  }
  return core::parse_rfc3339(s);
}

std::optional<core::Timestamp> parse_siem_date(std::string_view text) { return parse_date(text); }

Data seed_data(const MimecastFakeSeedOptions& options, core::Timestamp now, const std::string& caller) {
  SeedRandom rng(options.seed);
  Data d;
  const auto minute_now = std::chrono::floor<std::chrono::minutes>(now);

  // Internal users: the API user first, then people of the tenant.
  std::vector<Address> internal{{caller, "Northwind Helpdesk"}};
  for (int i = 0; i < options.users; ++i) {
    const auto& [first, last] = people()[static_cast<std::size_t>(i) % people().size()];
    std::string local = core::to_lower(first) + "." + core::to_lower(last);
    if (i >= static_cast<int>(people().size())) local += std::to_string(i / people().size() + 1);
    internal.push_back({local + "@" + kDomain, first + " " + last});
  }
  for (const auto& a : internal) d.users.push_back(a.email);
  const auto internal_user = [&]() -> const Address& {
    return internal.size() > 1 ? internal[1 + rng.next() % (internal.size() - 1)] : internal[0];
  };
  const auto external = [&]() {
    const auto& e = rng.pick(externals());
    return Address{e.email, e.name};
  };
  const auto within_week = [&]() {
    return core::Timestamp(minute_now - std::chrono::minutes(rng.between(5, 7 * 24 * 60 - 5)) +
                           std::chrono::seconds(rng.between(0, 59)));
  };

  // Held messages: mostly inbound spam, impersonation and attachments; some outbound DLP holds.
  for (int i = 0; i < options.held; ++i) {
    Held h;
    h.id = opaque_id(rng);
    h.received = within_week();
    const bool outbound = rng.chance(0.15) && i % 10 != 0;  // every 10th: inbound to the API user
    h.subject = subject_of(rng);
    h.has_attachments = rng.chance(0.35);
    h.size = rng.between(2'000, h.has_attachments ? 2'500'000 : 90'000);
    if (outbound) {
      const auto& r = reasons()[5 + rng.next() % 2];
      h.reason = r.reason, h.reason_code = r.code, h.policy_info = r.policy;
      h.from = internal_user();
      h.to = external();
      h.route = "outbound";
    } else {
      const auto& r = reasons()[rng.next() % 5];
      h.reason = r.reason, h.reason_code = r.code, h.policy_info = r.policy;
      h.from = external();
      h.to = i % 10 == 0 ? internal[0] : internal_user();
      h.route = "inbound";
      if (h.reason_code == "impersonation_protection") h.from_header = {h.from.email, internal_user().name};
    }
    d.held.push_back(std::move(h));
  }
  std::stable_sort(d.held.begin(), d.held.end(), [](const Held& a, const Held& b) { return a.received > b.received; });

  // Tracked emails, with the statuses message tracking shows.
  for (int i = 0; i < options.tracked; ++i) {
    Tracked t;
    t.id = opaque_id(rng, 56);
    t.received = within_week();
    t.subject = subject_of(rng);
    t.sender_ip = ip_of(rng);
    t.attachments = rng.chance(0.3);
    t.size = rng.between(3'000, t.attachments ? 3'000'000 : 120'000);
    const auto pick = rng.between(1, 100);
    const double route_pick = rng.unit();
    if (route_pick < 0.7) {
      t.route = "inbound";
      t.from = external();
      t.to = {internal_user()};
    } else if (route_pick < 0.9) {
      t.route = "outbound";
      t.from = internal_user();
      t.to = {external()};
    } else {
      t.route = "internal";
      t.from = internal_user();
      t.to = {internal_user()};
    }
    if (rng.chance(0.1)) t.to.push_back(internal_user());
    if (pick <= 50) {
      t.status = "delivered", t.spam_score = rng.between(0, 4), t.info = "Message delivered";
    } else if (pick <= 65) {
      t.status = "archived", t.spam_score = rng.between(0, 6), t.info = "Message delivered and archived";
    } else if (pick <= 77) {
      t.status = "held", t.spam_score = rng.between(5, 15), t.info = "Held for review: Spam Signature";
    } else if (pick <= 90) {
      t.status = "rejected", t.spam_score = rng.between(10, 30),
      t.info = "Rejected: Message contains undesirable content";
    } else {
      t.status = "bounced", t.spam_score = rng.between(0, 3), t.info = "Bounced: 550 5.1.1 Recipient address rejected";
    }
    if (t.route != "inbound") t.spam_score = std::min(t.spam_score, 2);
    t.detection_level = t.spam_score >= 10 ? "aggressive" : "moderate";
    t.message_id = "<" + opaque_id(rng, 12).substr(3) + "@" + t.from.email.substr(t.from.email.find('@') + 1) + ">";
    d.tracked.push_back(std::move(t));
  }
  std::stable_sort(d.tracked.begin(), d.tracked.end(),
                   [](const Tracked& a, const Tracked& b) { return a.received > b.received; });

  // SIEM receipt events: `days` whole UTC days before today, about ten messages a user a day.
  const auto midnight = std::chrono::floor<std::chrono::days>(now);
  for (int back = options.days; back >= 1; --back) {
    const auto day_start = std::chrono::time_point_cast<std::chrono::milliseconds>(midnight - std::chrono::days(back));
    const int messages = static_cast<int>(internal.size()) * rng.between(6, 12);
    for (int m = 0; m < messages; ++m) {
      Event e;
      e.timestamp_ms = (day_start + std::chrono::milliseconds(rng.between(0, 86'399'999))).time_since_epoch().count();
      const double pick = rng.unit();
      if (pick < 0.55) {
        e.direction = "Inbound", e.sender = external().email, e.recipient = internal_user().email;
      } else if (pick < 0.85) {
        e.direction = "Outbound", e.sender = internal_user().email, e.recipient = external().email;
      } else {
        e.direction = "Internal", e.sender = internal_user().email, e.recipient = internal_user().email;
      }
      if (rng.chance(0.05)) (e.direction == "Outbound" ? e.sender : e.recipient) = internal[0].email;
      e.subject = subject_of(rng);
      e.aggregate_id = opaque_id(rng, 22).substr(3) + "_" + std::to_string(e.timestamp_ms / 1000);
      e.processing_id = opaque_id(rng, 43).substr(3) + "_" + std::to_string(e.timestamp_ms / 1000);
      e.message_id = "<" + opaque_id(rng, 16).substr(3) + "@" + e.sender.substr(e.sender.find('@') + 1) + ">";
      e.sender_ip = ip_of(rng);
      e.attachments = rng.chance(0.2) ? rng.between(1, 3) : 0;
      e.spam_score = e.direction == "Inbound" ? rng.between(0, 4) : 0;
      d.events.push_back(std::move(e));
    }
  }
  std::stable_sort(d.events.begin(), d.events.end(),
                   [](const Event& a, const Event& b) { return a.timestamp_ms < b.timestamp_ms; });
  return d;
}

json render(const Held& h) {
  std::string reason_id;
  for (const char c : h.reason)
    if (c != ' ') reason_id += c;
  const Address header = h.from_header.email.empty() ? h.from : h.from_header;
  return {{"id", h.id},
          {"dateReceived", date_text(h.received)},
          {"reason", h.reason},
          {"reasonId", reason_id},
          {"reasonCode", h.reason_code},
          {"policyInfo", h.policy_info},
          {"from", address(h.from)},
          {"fromHeader", address(header)},
          {"to", address(h.to)},
          {"toHeader", address(h.to)},
          {"subject", h.subject},
          {"route", h.route},
          {"hasAttachments", h.has_attachments},
          {"size", h.size}};
}

json render(const Tracked& t) {
  json to = json::array();
  for (const auto& a : t.to) to.push_back(address(a));
  return {{"id", t.id},
          {"status", t.status},
          {"fromEnv", {{"emailAddress", t.from_envelope.empty() ? t.from.email : t.from_envelope}}},
          {"fromHdr", address(t.from)},
          {"to", to},
          {"received", date_text(t.received)},
          {"sent", date_text(t.received - std::chrono::seconds(4))},
          {"subject", t.subject},
          {"senderIP", t.sender_ip},
          {"attachments", t.attachments},
          {"route", t.route},
          {"info", t.info}};
}

json render_info(const Tracked& t) {
  json to = json::array();
  for (const auto& a : t.to) to.push_back(a.email);
  const bool inbound = t.route == "inbound";
  const auto check = [](bool allow, const char* info) { return json{{"allow", allow}, {"info", info}}; };
  const std::string decision = t.spam_score >= 10 ? "spam" : t.spam_score >= 5 ? "suspected" : "clean";
  const std::string risk = t.spam_score >= 10 ? "high" : t.spam_score >= 5 ? "moderate" : "negligible";
  const json delivered = t.status == "delivered" || t.status == "archived"
                             ? json{{"deliveryEvent", "Delivered to the recipient's mail server"},
                                    {"processingServer", "eu-smtp-o-1"},
                                    {"messageExpiresIn", 0}}
                             : json(nullptr);
  return {{"id", t.id},
          {"status", t.status},
          {"deliveredMessage", delivered},
          {"recipientInfo",
           {{"messageInfo",
             {{"fromEnvelope", t.from_envelope.empty() ? t.from.email : t.from_envelope},
              {"fromHeader", t.from.email},
              {"subject", t.subject},
              {"to", to},
              {"cc", json::array()},
              {"sent", date_text(t.received - std::chrono::seconds(4))},
              {"processed", date_text(t.received + std::chrono::seconds(2))},
              {"attachments", json::array()},
              {"transmissionInfo", t.info}}},
            {"recipientMetaInfo",
             {{"remoteHost", t.sender_ip},
              {"receiptEvent", t.status == "rejected" ? "Rejected" : "Accepted"},
              {"spamEvent", decision == "clean" ? "Not Spam" : "Spam"},
              {"binaryEmailSize", t.size},
              {"transmissionSize", t.size},
              {"encryptionInfo", "TLSv1.2"}}}}},
          {"retentionInfo",
           {{"currentPurgeDate", date_text(t.received + std::chrono::days(3650))},
            {"purgeBasedOn", "received"},
            {"retentionAdjustmentDays", 0}}},
          {"spamInfo",
           {{"spamScore", t.spam_score},
            {"detectionLevel", t.detection_level},
            {"spamProcessingDetail",
             {{"spf", check(!inbound || t.spam_score < 10, inbound ? "pass" : "not_checked")},
              {"dkim", check(true, inbound ? "pass" : "not_checked")},
              {"dmarc", check(!inbound || t.spam_score < 10, inbound ? "pass" : "not_checked")},
              {"rbl", check(t.spam_score < 20, t.spam_score < 20 ? "allow" : "listed")},
              {"greyEmail", t.spam_score >= 5},
              {"permittedSender", check(true, "none")},
              {"managedSender", check(true, "none")},
              {"spamVerdict",
               {{"decision", decision}, {"risk", risk}, {"description", ""}, {"categories", json::array()}}}}}}}};
}

json render(const Event& e, const std::string& account_id) {
  return {{"aggregateId", e.aggregate_id},
          {"processingId", e.processing_id},
          {"accountId", account_id},
          {"timestamp", e.timestamp_ms},
          {"eventType", "receipt"},
          {"direction", e.direction},
          {"senderEnvelope", e.sender},
          {"senderHeader", e.sender},
          {"recipients", e.recipient},
          {"messageId", e.message_id},
          {"subject", e.subject},
          {"action", "Acc"},
          {"subType", "Allow"},
          {"senderIp", e.sender_ip},
          {"numberAttachments", std::to_string(e.attachments)},
          {"spamScore", std::to_string(e.spam_score)},
          {"spamDetectionLevel", "0"},
          {"tlsVersion", "TLSv1.2"},
          {"tlsCipher", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"}};
}

json count_events(const std::vector<Event>& events, const std::vector<std::string>& users) {
  std::set<std::string> internal;
  for (const auto& u : users) internal.insert(core::to_lower(u));
  std::map<std::pair<std::string, std::string>, std::pair<std::int64_t, std::int64_t>> sums;  // (user, day)
  for (const auto& e : events) {
    const auto day = day_of(e.timestamp_ms);
    const auto sender = core::to_lower(e.sender), recipient = core::to_lower(e.recipient);
    if ((e.direction == "Outbound" || e.direction == "Internal") && internal.contains(sender))
      ++sums[{sender, day}].first;
    if ((e.direction == "Inbound" || e.direction == "Internal") && internal.contains(recipient))
      ++sums[{recipient, day}].second;
  }
  json out = json::array();
  for (const auto& [key, value] : sums)
    out.push_back({{"user", key.first}, {"day", key.second}, {"sent", value.first}, {"received", value.second}});
  return out;
}

}  // namespace sandbox::mimecast
