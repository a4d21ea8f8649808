#pragma once
// Reported mails (issue 21): what users of a seeded MSP forward to the help desk as "is this
// phishing?", as the .eml attachments the Autotask fake's seed puts on their tickets, and as
// the headers one user pasted into a ticket's description. Written as the mails such users
// receive: Received chains, Authentication-Results as Postfix and Exchange Online write them,
// encoded-word subjects, multipart/alternative with HTML links, an HTML attachment that posts a
// password form; every domain under .example.
//
//   m365-password   credential phishing, HTML with links to login.m365-secure-login.example
//   mailbox-quota   another sender, text only, linking to the same login.m365-secure-login.example:
//                   one campaign with m365-password (shared URL domain)
//   invoice-html    an "overdue invoice" with an HTML attachment whose form posts to a lookalike
//   docusign        a document-signing lure, Q-encoded subject, HTML links
//   newsletter      benign: a newsletter that passes SPF, DKIM and DMARC
//   supplier-pdf    benign: a supplier's invoice PDF, authenticated
// and pasted_headers_description(): a "PayPal" lure's headers, pasted under a sentence and
// above a signature.
#include <string>
#include <vector>

namespace sandbox::phishing {

struct ReportedMail {
  std::string key;           // "m365-password" (above)
  std::string subject;       // decoded, as a reader sees it
  std::string file_name;     // the attachment's title on the ticket ("... .eml")
  std::string content_type;  // the attachment's contentType ("message/rfc822"; one is application/octet-stream)
  std::string raw;           // the message, CRLF line ends
  bool phishing = true;      // false: a benign mail a user reported anyway
};

// The six mails above, in that order.
const std::vector<ReportedMail>& reported_mails();
const ReportedMail& reported_mail(const std::string& key);  // throws std::out_of_range

// A ticket description with pasted headers (From, Received, Return-Path, Authentication-Results,
// Message-ID ...) between a sentence and a signature.
const std::string& pasted_headers_description();

}  // namespace sandbox::phishing
