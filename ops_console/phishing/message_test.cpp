// The reported-message parser on the mails users of the seeded MSP report (sandbox/phishing_mails.hpp):
// encoded-word subjects, Received chains, Authentication-Results, links of text and HTML parts,
// attachments and their hashes, the pasted header block, and what is not a message.
#include "ops_console/phishing/message.hpp"
#include "sandbox/phishing_mails.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace {

using namespace ops_console::phishing;
using sandbox::phishing::reported_mail;

TEST(ReportedMessage, ReadsAMultipartAlternativeLureWithItsHeadersAndLinks) {
  const auto m = parse_message(reported_mail("m365-password").raw);
  EXPECT_EQ(m.subject, "\xE2\x9A\xA0 Action required: your password expires today");  // =?UTF-8?B?...?=
  ASSERT_EQ(m.from.size(), 1u);
  EXPECT_EQ(m.from[0].address, "no-reply@microsoft-365-support.example");  // lowercased
  EXPECT_EQ(m.from[0].name, "Microsoft 365 Support");
  ASSERT_EQ(m.reply_to.size(), 1u);
  EXPECT_EQ(m.reply_to[0].address, "helpdesk.verify@proton-mailer.example");
  EXPECT_EQ(m.return_path, "bounce-7731@m365-secure-login.example");
  EXPECT_EQ(m.message_id, "20260414081227.4431@microsoft-365-support.example");
  EXPECT_EQ(m.date, "2026-04-14T08:12:27Z");
  EXPECT_EQ(m.spf, "fail");
  EXPECT_EQ(m.dkim, "none");
  EXPECT_EQ(m.dmarc, "fail");
  ASSERT_EQ(m.received.size(), 2u);  // topmost first, without the date after ';'
  EXPECT_EQ(m.received[0],
            "from mail.m365-secure-login.example (mail.m365-secure-login.example [203.0.113.45]) by "
            "mx1.contoso-legal.example (Postfix) with ESMTPS id 4Xk2Lm0QzRz9sTg for <j.parker@contoso-legal.example>");
  EXPECT_TRUE(m.received[1].starts_with("from [10.8.0.12] (unknown [198.51.100.23])"));
  // The text part's link (quoted-printable soft breaks joined), the HTML part's hrefs (entities
  // decoded); not the doctype, the xmlns, the image or the commented-out tracker.
  EXPECT_EQ(m.urls, (std::vector<std::string>{
                        "https://login.m365-secure-login.example/keep?u=j.parker%40contoso-legal.example",
                        "https://login.m365-secure-login.example/keep?u=j.parker%40contoso-legal.example&t=88412",
                        "https://privacy.m365-secure-login.example/statement"}));
  EXPECT_TRUE(m.attachments.empty());
  EXPECT_NE(m.text.find("expires today."), std::string::npos);  // the text part is the readable body
  EXPECT_FALSE(m.headers_only);
}

TEST(ReportedMessage, HashesAttachmentsAndReadsTheLinksOfAnHtmlOne) {
  const auto m = parse_message(reported_mail("invoice-html").raw);
  EXPECT_EQ(m.subject, "Overdue invoice INV-20931 - final notice");
  ASSERT_EQ(m.attachments.size(), 1u);
  EXPECT_EQ(m.attachments[0].name, "INV-20931.html");
  EXPECT_EQ(m.attachments[0].content_type, "text/html");
  EXPECT_EQ(m.attachments[0].sha256, "83ed396ac0c83448a73435a837aff696a8b2024a2765823d00ec95751fbde8c7");
  EXPECT_EQ(m.attachments[0].size, 496u);
  EXPECT_EQ(m.urls, std::vector<std::string>{"https://secure-docs.northbridge-remit.example/view/inv-20931.php"});
  EXPECT_EQ(m.reply_to.at(0).address, "payments@northbridge-remit.example");
  EXPECT_EQ(m.spf + " " + m.dkim + " " + m.dmarc, "pass pass pass");
  EXPECT_EQ(m.received.size(), 2u);

  const auto pdf = parse_message(reported_mail("supplier-pdf").raw);
  ASSERT_EQ(pdf.attachments.size(), 1u);
  EXPECT_EQ(pdf.attachments[0].name, "Invoice-5521.pdf");
  EXPECT_EQ(pdf.attachments[0].content_type, "application/pdf");
  EXPECT_EQ(pdf.attachments[0].sha256, "93e31154c364805a3ef8c904bc257f5ef77600c31b67d392704cd6e1e9cd0657");
  EXPECT_TRUE(pdf.urls.empty());
}

TEST(ReportedMessage, DecodesAQEncodedSubjectAndSingleQuotedLinks) {
  const auto m = parse_message(reported_mail("docusign").raw);
  EXPECT_EQ(m.subject, "Completed: Please review \xE2\x80\x9CQ3 Salary Adjustments\xE2\x80\x9D");
  EXPECT_EQ(m.from.at(0).address, "dse_na4@docusign.example");
  EXPECT_EQ(m.dmarc, "fail");
  EXPECT_EQ(m.urls,
            std::vector<std::string>{"https://docusign-envelopes.example/Signing/EmailStart.aspx?a=7f3e&env=Q3-2026"});
  // A plain-text-only mail: its link without the full stop after it.
  const auto quota = parse_message(reported_mail("mailbox-quota").raw);
  EXPECT_EQ(quota.urls, std::vector<std::string>{"https://login.m365-secure-login.example/quota?id=a.osei"});
  EXPECT_EQ(quota.spf + " " + quota.dkim, "softfail fail");
  EXPECT_FALSE(quota.date.has_value() && quota.date->empty());
}

TEST(ReportedMessage, IndicatorsAreLowercasedAndUnique) {
  const auto list = indicators(parse_message(reported_mail("m365-password").raw));
  const auto values = [&](const std::string& kind) {
    std::vector<std::string> out;
    for (const auto& i : list)
      if (i.kind == kind) out.push_back(i.value);
    return out;
  };
  EXPECT_EQ(values("sender_address"), std::vector<std::string>{"no-reply@microsoft-365-support.example"});
  EXPECT_EQ(values("sender_domain"), std::vector<std::string>{"microsoft-365-support.example"});
  EXPECT_EQ(values("reply_to_domain"), std::vector<std::string>{"proton-mailer.example"});
  EXPECT_EQ(values("return_path_domain"), std::vector<std::string>{"m365-secure-login.example"});
  EXPECT_EQ(values("url").size(), 3u);
  EXPECT_EQ(values("url_domain"),
            (std::vector<std::string>{"login.m365-secure-login.example", "privacy.m365-secure-login.example"}));
  EXPECT_EQ(values("spf"), std::vector<std::string>{"fail"});
  EXPECT_EQ(values("dkim"), std::vector<std::string>{"none"});
  EXPECT_EQ(values("dmarc"), std::vector<std::string>{"fail"});
  EXPECT_EQ(values("received_hop").size(), 2u);
  EXPECT_TRUE(values("attachment_sha256").empty());
  for (std::size_t i = 0; i < list.size(); ++i)
    for (std::size_t k = i + 1; k < list.size(); ++k) EXPECT_FALSE(list[i] == list[k]) << list[i].value;

  const auto invoice = indicators(parse_message(reported_mail("invoice-html").raw));
  EXPECT_NE(std::find(invoice.begin(), invoice.end(), Indicator{"attachment_name", "INV-20931.html"}), invoice.end());
  EXPECT_NE(
      std::find(invoice.begin(), invoice.end(),
                Indicator{"attachment_sha256", "83ed396ac0c83448a73435a837aff696a8b2024a2765823d00ec95751fbde8c7"}),
      invoice.end());
}

TEST(ReportedMessage, ReadsPastedHeadersAndTellsThemFromAForwardedMailsLines) {
  const auto& description = sandbox::phishing::pasted_headers_description();
  ASSERT_TRUE(has_pasted_headers(description));
  const auto m = parse_pasted_headers(description);
  EXPECT_TRUE(m.headers_only);
  EXPECT_EQ(m.subject, "Your account access has been limited");
  EXPECT_EQ(m.from.at(0).address, "service@paypal-notices.example");
  EXPECT_EQ(m.reply_to.at(0).address, "resolution-center@paypa1-security.example");
  EXPECT_EQ(m.return_path, "bounce@paypa1-security.example");
  EXPECT_EQ(m.spf + " " + m.dkim + " " + m.dmarc, "fail none fail");
  // The Received header lost its folding whitespace in the paste: its lines are joined again.
  EXPECT_EQ(m.received, std::vector<std::string>{
                            "from smtp.paypa1-security.example (smtp.paypa1-security.example [192.0.2.77]) by "
                            "mx1.contoso-legal.example with ESMTP id 9QWErTy1 for <finance@contoso-legal.example>"});
  EXPECT_TRUE(m.urls.empty());
  EXPECT_TRUE(m.text.empty());  // the signature after the blank line is not part of it

  const std::string forwarded =
      "FYI\n\n-----Original Message-----\nFrom: Jo Bloggs <jo@example.com>\nSent: Monday, 13 April 2026 09:00\n"
      "To: Help Desk <help@msp.example>\nSubject: printer\n\nThe printer is jammed again.";
  EXPECT_FALSE(has_pasted_headers(forwarded));
  EXPECT_FALSE(has_pasted_headers("The printer on the 2nd floor is jammed."));
  EXPECT_FALSE(has_pasted_headers(""));
  EXPECT_THROW(parse_pasted_headers(forwarded), ParseError);
  // A block needs its From: a Received line alone is not a reported message.
  EXPECT_FALSE(has_pasted_headers("Received: from a by b; Mon, 13 Apr 2026 16:40:02 +0000\nSubject: x\n"));
}

TEST(ReportedMessage, RefusesWhatIsNotAMessageAndBoundsWhatIs) {
  EXPECT_THROW(parse_message(""), ParseError);
  EXPECT_THROW(parse_message("   \r\n  "), ParseError);
  EXPECT_THROW(parse_message("%PDF-1.4\n%\xE2\xE3\xCF\xD3\n1 0 obj\n"), ParseError);
  EXPECT_THROW(parse_message("just a sentence, no header at all"), ParseError);
  // An mbox "From " line before the headers is skipped.
  EXPECT_EQ(parse_message("From - Mon Apr 13 16:40:02 2026\r\nSubject: hi\r\n\r\nbody").subject, "hi");

  // Raw 8-bit bytes that are not UTF-8 come out as valid UTF-8; a huge link is dropped; links
  // and addresses stop at their bounds.
  std::string raw = "From: Someone <Some.One@Example.COM>\r\nSubject: caf\xE9 \xFF\xFE\r\n\r\n";
  raw += "https://long.example/" + std::string(5000, 'a') + "\r\n";
  for (int i = 0; i < 150; ++i) raw += "https://host" + std::to_string(i) + ".example/\r\n";
  const auto m = parse_message(raw);
  EXPECT_EQ(m.from.at(0).address, "some.one@example.com");
  for (std::size_t i = 0; i < m.subject.size(); ++i) EXPECT_NE(static_cast<unsigned char>(m.subject[i]), 0xFF);
  EXPECT_EQ(m.urls.size(), kMaxUrls);
  EXPECT_EQ(m.urls.front(), "https://host0.example/");
  EXPECT_LE(m.text.size(), kMaxText);
}

TEST(ReportedMessage, UrlDomainIsTheLowercasedHost) {
  EXPECT_EQ(url_domain("https://User@Login.Example:8443/x?y"), "login.example");
  EXPECT_EQ(url_domain("HTTP://sub.host.example./"), "sub.host.example");
  EXPECT_EQ(url_domain("https://[2001:db8::1]:443/a"), "[2001:db8::1]");
  EXPECT_EQ(url_domain("http://host.example?q=1"), "host.example");
  EXPECT_EQ(url_domain("mailto:someone@example.com"), "");
  EXPECT_EQ(url_domain("https:///nohost"), "");
  EXPECT_EQ(url_domain("https://bad%20host/"), "");
}

}  // namespace
