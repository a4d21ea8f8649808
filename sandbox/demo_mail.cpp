#include "sandbox/demo_mail.hpp"

#include <random>
#include <string>

namespace sandbox {

namespace {

struct Kind {
  std::vector<std::pair<std::string, std::string>> senders;  // address, name
  std::vector<std::string> subjects;
  std::vector<std::string> bodies;
  bool bulk = false;  // carries List-Unsubscribe
  bool attachments = false;
};

const std::vector<Kind>& kinds() {
  static const std::vector<Kind> k{
      {// support requests from customers
       {{"anna.meyer@contoso.example", "Anna Meyer"},
        {"it@fabrikam.example", "Fabrikam IT"},
        {"j.smith@northwind.example", "John Smith"},
        {"office@adatum.example", "Adatum Office"}},
       {"Printer on the second floor is not working", "Cannot connect to the VPN since this morning",
        "Outlook keeps asking for my password", "New starter on Monday - please set up an account",
        "Laptop very slow after the update", "Shared drive S: is missing"},
       {"Hi team,\n\nsince this morning the problem persists and several colleagues are affected. "
        "Could you please help as soon as possible?\n\nThanks,\n",
        "Hello,\n\nwe need help with this issue, it is blocking our work. Can someone call me back?\n\nBest "
        "regards,\n"}},
      {// invoices and statements from vendors
       {{"billing@pax8.example", "Pax8 Billing"},
        {"invoices@dell.example", "Dell Invoicing"},
        {"accounts@telco.example", "Telco Accounts"}},
       {"Invoice INV-10234 for October", "Your monthly statement is ready", "Payment received - thank you",
        "Invoice 2026-0456 is due in 7 days"},
       {"Dear customer,\n\nplease find attached your invoice. The amount due will be debited on the due date. "
        "Payment terms: 30 days.\n\nAccounts receivable\n"},
       false,
       true},
      {// sales enquiries from prospects
       {{"ceo@brightdental.example", "Dr. Laura Chen"}, {"info@harbour-logistics.example", "Harbour Logistics"}},
       {"Quote request for 25 Microsoft 365 Business Premium licences", "Interested in your managed backup service",
        "Pricing for a managed firewall"},
       {"Hello,\n\nwe are looking for an IT partner and would like a quote and pricing for your services. "
        "Could we schedule a call next week?\n\nKind regards,\n"}},
      {// monitoring and platform notifications
       {{"noreply@backup.example", "Backup Service"},
        {"alerts@monitoring.example", "RMM Alerts"},
        {"no-reply@microsoft.example", "Microsoft 365 Message center"}},
       {"Backup job completed successfully", "[Alert] Disk space low on SRV-FS01", "Weekly message center digest",
        "Certificate for vpn.contoso.example expires in 14 days"},
       {"This is an automated notification. Job status: success. No action is required.\n\nDo not reply to this "
        "message.\n"}},
      {// newsletters
       {{"news@cloudweekly.example", "Cloud Weekly"}, {"newsletter@securitydigest.example", "Security Digest"}},
       {"This week in cloud security", "Monthly product update", "Your November newsletter"},
       {"In this issue: five things we learned this month, upcoming events and the latest release notes.\n\n"
        "You receive this newsletter because you subscribed. Unsubscribe at any time.\n"},
       true},
      {// marketing
       {{"offers@saasdeals.example", "SaaS Deals"}, {"events@vendorcon.example", "VendorCon"}},
       {"Last chance: 40% off annual plans", "Webinar invitation: zero trust in 30 minutes",
        "Exclusive offer for partners"},
       {"Don't miss out! Register now for our limited-time offer and save big. Special discount for MSPs.\n\n"
        "Unsubscribe from marketing emails.\n"},
       true},
      {// spam
       {{"winner@lucky-prize.example", "Prize Department"}, {"deals@cheap-pills.example", "Pharmacy"}},
       {"You have won a prize!!!", "Make $5000 a week from home", "Cheap meds without prescription"},
       {"Congratulations! You have been selected as our lucky winner. Claim your prize now, act fast, "
        "100% free, no risk!\n"}},
      {// phishing
       {{"security@micros0ft-support.example", "Microsoft Security"},
        {"it-helpdesk@contoso-login.example", "IT Helpdesk"}},
       {"Your mailbox is full - verify your account now", "Unusual sign-in activity: confirm your password",
        "Action required: your password expires today"},
       {"Dear user,\n\nwe detected unusual activity. Click here to verify your account and confirm your password "
        "within 24 hours or your mailbox will be suspended.\n\nhttp://micros0ft-support.example/login\n"}},
      {// personal
       {{"tom.baker@gmail.example", "Tom Baker"}, {"mum@family.example", "Mum"}},
       {"Lunch on Friday?", "Happy birthday!", "Photos from the weekend"},
       {"Hey, are you free for lunch on Friday? Let me know.\n\nCheers\n"}},
  };
  return k;
}

// Relative volume of each kind in an MSP's shared inbox.
const std::vector<double> kWeights{30, 8, 4, 20, 10, 8, 8, 5, 3};

}  // namespace

std::vector<FakeMessage> demo_mail(int count, std::uint32_t seed, core::Timestamp now) {
  std::mt19937 rng(seed);
  std::discrete_distribution<std::size_t> pick_kind(kWeights.begin(), kWeights.end());
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<FakeMessage> out;
  out.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    const Kind& kind = kinds()[pick_kind(rng)];
    const auto& [address, name] = kind.senders[rng() % kind.senders.size()];
    FakeMessage m;
    m.from_address = address;
    m.from_name = name;
    m.subject = kind.subjects[rng() % kind.subjects.size()];
    m.body = kind.bodies[rng() % kind.bodies.size()] + name;
    m.received_at = now - std::chrono::microseconds(static_cast<std::int64_t>(unit(rng) * 20 * 86'400e6));
    m.is_read = unit(rng) < 0.25;
    m.has_attachments = kind.attachments;
    if (kind.bulk) {
      const std::string domain = address.substr(address.find('@') + 1);
      m.headers = {{"List-Unsubscribe", "<https://" + domain + "/unsubscribe?u=" + std::to_string(i) + ">"},
                   {"List-Unsubscribe-Post", "List-Unsubscribe=One-Click"},
                   {"Precedence", "bulk"}};
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace sandbox
