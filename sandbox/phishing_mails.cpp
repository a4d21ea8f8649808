#include "sandbox/phishing_mails.hpp"

#include <stdexcept>

namespace sandbox::phishing {

namespace {

// The text with CRLF line ends, as mail is stored in .eml files.
std::string crlf(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 20);
  for (const char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

constexpr std::string_view kM365Password = R"eml(Return-Path: <bounce-7731@m365-secure-login.example>
Received: from mail.m365-secure-login.example (mail.m365-secure-login.example [203.0.113.45])
	by mx1.contoso-legal.example (Postfix) with ESMTPS id 4Xk2Lm0QzRz9sTg
	for <j.parker@contoso-legal.example>; Tue, 14 Apr 2026 08:12:31 +0000 (UTC)
Received: from [10.8.0.12] (unknown [198.51.100.23])
	by mail.m365-secure-login.example (Postfix) with ESMTPSA id 8F2C11A0
	for <j.parker@contoso-legal.example>; Tue, 14 Apr 2026 08:12:29 +0000 (UTC)
Authentication-Results: mx1.contoso-legal.example;
	spf=fail (sender IP is 203.0.113.45) smtp.mailfrom=m365-secure-login.example;
	dkim=none (message not signed) header.d=none;
	dmarc=fail action=quarantine header.from=microsoft-365-support.example
From: "Microsoft 365 Support" <No-Reply@Microsoft-365-Support.example>
Reply-To: "IT Helpdesk" <helpdesk.verify@proton-mailer.example>
To: "Jamie Parker" <j.parker@contoso-legal.example>
Subject: =?UTF-8?B?4pqgIEFjdGlvbiByZXF1aXJlZDogeW91ciBwYXNzd29yZCBleHBpcmVzIHRvZGF5?=
Date: Tue, 14 Apr 2026 08:12:27 +0000
Message-ID: <20260414081227.4431@microsoft-365-support.example>
MIME-Version: 1.0
Content-Type: multipart/alternative; boundary="=_alt_5f3c9d"

This is a multi-part message in MIME format.

--=_alt_5f3c9d
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: quoted-printable

Microsoft 365

Your password for j.parker@contoso-legal.example expires today.

To keep your current password, confirm your account within 24 hours:
https://login.m365-secure-login.example/keep?u=3Dj.parker%40contoso-legal.ex=
ample

If you do nothing, your mailbox will be suspended.

Microsoft 365 Support Team
--=_alt_5f3c9d
Content-Type: text/html; charset=UTF-8
Content-Transfer-Encoding: quoted-printable

<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3=
.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns=3D"http://www.w3.org/1999/xhtml"><head>
<style>a { color: #0078d4; }</style></head>
<body>
<img src=3D"https://cdn.m365-secure-login.example/assets/ms-logo.png" alt=3D=
"Microsoft">
<p>Your password for <b>j.parker@contoso-legal.example</b> expires <b>today</=
b>.</p>
<p><a href=3D"https://login.m365-secure-login.example/keep?u=3Dj.parker%40co=
ntoso-legal.example&amp;t=3D88412">Keep my current password</a></p>
<p>If you do nothing, your mailbox will be suspended.</p>
<p style=3D"font-size:11px">Microsoft respects your privacy. Read our <a href=
=3D"https://privacy.m365-secure-login.example/statement">privacy statement</a>=
.</p>
<!-- tracking: https://track.unrelated.example/open -->
</body></html>
--=_alt_5f3c9d--
)eml";

constexpr std::string_view kMailboxQuota = R"eml(Return-Path: <admin@mailbox-quota.example>
Received: from out-04.mailbox-quota.example (out-04.mailbox-quota.example [203.0.113.88])
	by mx1.contoso-legal.example (Postfix) with ESMTP id 7YtR2Qm1Pz
	for <a.osei@contoso-legal.example>; Wed, 15 Apr 2026 10:03:12 +0000 (UTC)
Authentication-Results: mx1.contoso-legal.example;
	spf=softfail (domain of transitioning admin@mailbox-quota.example does not designate 203.0.113.88 as permitted sender) smtp.mailfrom=admin@mailbox-quota.example;
	dkim=fail (signature verification failed) header.d=mailbox-quota.example;
	dmarc=fail action=none header.from=mailbox-quota.example
From: Mailbox Administrator <admin@mailbox-quota.example>
To: a.osei@contoso-legal.example
Subject: Your mailbox is 98% full
Date: Wed, 15 Apr 2026 10:03:09 +0000
Message-ID: <q-20260415100309-77@mailbox-quota.example>
MIME-Version: 1.0
Content-Type: text/plain; charset="us-ascii"
Content-Transfer-Encoding: 7bit

Dear user,

Your mailbox has reached 98% of its quota. Incoming messages will be
returned to their senders from today.

Increase your storage now (free of charge):
https://login.m365-secure-login.example/quota?id=a.osei.

Mail Administrator
)eml";

constexpr std::string_view kInvoiceHtml = R"eml(Return-Path: <accounts@northbridge-invoicing.example>
Received: from mta2.northbridge-invoicing.example (mta2.northbridge-invoicing.example [192.0.2.141])
	by mx1.contoso-legal.example (Postfix) with ESMTPS id 2BcD9Lp0Xy
	for <finance@contoso-legal.example>; Thu, 16 Apr 2026 14:27:45 +0000 (UTC)
Received: from localhost (localhost [127.0.0.1])
	by mta2.northbridge-invoicing.example (Postfix) with ESMTP id 55AA01C2
	for <finance@contoso-legal.example>; Thu, 16 Apr 2026 14:27:44 +0000 (UTC)
Authentication-Results: mx1.contoso-legal.example;
	spf=pass smtp.mailfrom=northbridge-invoicing.example;
	dkim=pass header.d=northbridge-invoicing.example header.s=s1;
	dmarc=pass action=none header.from=northbridge-invoicing.example
From: "Northbridge Accounts Payable" <accounts@northbridge-invoicing.example>
Reply-To: payments@northbridge-remit.example
To: finance@contoso-legal.example
Subject: Overdue invoice INV-20931 - final notice
Date: Thu, 16 Apr 2026 14:27:40 +0000
Message-ID: <inv20931.1776349660@northbridge-invoicing.example>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="----=_Part_20931_1"

------=_Part_20931_1
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: 7bit

Hello,

Our records show invoice INV-20931 (GBP 4,870.00) is 30 days overdue.
Please find the invoice attached and settle it today to avoid a late fee.

Kind regards,
Accounts Payable
------=_Part_20931_1
Content-Type: text/html; name="INV-20931.html"
Content-Disposition: attachment; filename="INV-20931.html"
Content-Transfer-Encoding: base64

PCFET0NUWVBFIGh0bWw+CjxodG1sPjxoZWFkPjx0aXRsZT5Ob3J0aGJyaWRnZSBJbnZvaWNpbmcg
LSBTZWN1cmUgRG9jdW1lbnQ8L3RpdGxlPjwvaGVhZD4KPGJvZHkgc3R5bGU9ImZvbnQtZmFtaWx5
OlNlZ29lIFVJLEFyaWFsIj4KPGgyPkludm9pY2UgSU5WLTIwOTMxIGlzIHByb3RlY3RlZDwvaDI+
CjxwPlNpZ24gaW4gd2l0aCB5b3VyIHdvcmsgZS1tYWlsIHRvIHZpZXcgdGhlIGRvY3VtZW50Ljwv
cD4KPGZvcm0gbWV0aG9kPSJwb3N0IiBhY3Rpb249Imh0dHBzOi8vc2VjdXJlLWRvY3Mubm9ydGhi
cmlkZ2UtcmVtaXQuZXhhbXBsZS92aWV3L2ludi0yMDkzMS5waHAiPgo8aW5wdXQgdHlwZT0iZW1h
aWwiIG5hbWU9ImxvZ2luIiBwbGFjZWhvbGRlcj0ibmFtZUBjb21wYW55LmNvbSI+CjxpbnB1dCB0
eXBlPSJwYXNzd29yZCIgbmFtZT0icGFzc3dkIj4KPGJ1dHRvbiB0eXBlPSJzdWJtaXQiPlZpZXcg
aW52b2ljZTwvYnV0dG9uPgo8L2Zvcm0+CjwvYm9keT48L2h0bWw+Cg==
------=_Part_20931_1--
)eml";

constexpr std::string_view kDocusign = R"eml(Return-Path: <bounces+2291@mailer.docusign-envelopes.example>
Received: from mailer.docusign-envelopes.example (mailer.docusign-envelopes.example [198.51.100.201])
	by mx1.contoso-legal.example (Postfix) with ESMTPS id 0PqW8Ee3Rt
	for <m.chen@contoso-legal.example>; Fri, 17 Apr 2026 09:41:05 +0000 (UTC)
Authentication-Results: mx1.contoso-legal.example;
	spf=pass smtp.mailfrom=mailer.docusign-envelopes.example;
	dkim=pass header.d=docusign-envelopes.example;
	dmarc=fail action=quarantine header.from=docusign.example
From: "DocuSign via HR Team" <dse_na4@docusign.example>
Reply-To: "HR Team" <hr-team@docusign-envelopes.example>
To: <m.chen@contoso-legal.example>
Subject: =?UTF-8?Q?Completed:_Please_review_=E2=80=9CQ3_Salary_Adjustments=E2=80=9D?=
Date: Fri, 17 Apr 2026 09:41:01 +0000
Message-ID: <c0ffee12-77aa-4b1e-9d3f-20260417ds@docusign-envelopes.example>
MIME-Version: 1.0
Content-Type: multipart/alternative; boundary="b1_ds_8812"

--b1_ds_8812
Content-Type: text/plain; charset=UTF-8

HR Team sent you a document to review and sign.

REVIEW DOCUMENT: https://docusign-envelopes.example/Signing/EmailStart.aspx?a=7f3e&env=Q3-2026

Do not share this email.
--b1_ds_8812
Content-Type: text/html; charset=UTF-8
Content-Transfer-Encoding: quoted-printable

<html><body style=3D"background:#eaeaea">
<table width=3D"100%"><tr><td align=3D"center">
<div style=3D"background:#1e4ca1;color:#fff;padding:24px">HR Team sent you a d=
ocument to review and sign.</div>
<a href=3D'https://docusign-envelopes.example/Signing/EmailStart.aspx?a=3D7f3=
e&amp;env=3DQ3-2026' style=3D"background:#ffc423;padding:10px">REVIEW DOCUMEN=
T</a>
</td></tr></table>
</body></html>
--b1_ds_8812--
)eml";

constexpr std::string_view kNewsletter = R"eml(Return-Path: <bounce-news@mail.lexisweekly.example>
Received: from mail.lexisweekly.example (mail.lexisweekly.example [192.0.2.15])
	by mx1.contoso-legal.example (Postfix) with ESMTPS id 6HnJ4Ka8Wq
	for <j.parker@contoso-legal.example>; Mon, 13 Apr 2026 07:00:04 +0000 (UTC)
Authentication-Results: mx1.contoso-legal.example;
	spf=pass smtp.mailfrom=mail.lexisweekly.example;
	dkim=pass header.d=lexisweekly.example header.s=news;
	dmarc=pass action=none header.from=lexisweekly.example
From: Lexis Weekly <news@lexisweekly.example>
To: j.parker@contoso-legal.example
Subject: Lexis Weekly: this week in employment law
Date: Mon, 13 Apr 2026 07:00:00 +0000
Message-ID: <weekly-2026-15.j.parker@lexisweekly.example>
List-Unsubscribe: <https://www.lexisweekly.example/unsubscribe?u=j.parker>
MIME-Version: 1.0
Content-Type: multipart/alternative; boundary="lw-2026-15"

--lw-2026-15
Content-Type: text/plain; charset=UTF-8

This week: holiday pay after the appeal ruling, and what changes in May.
Read online: https://www.lexisweekly.example/issues/2026-15
--lw-2026-15
Content-Type: text/html; charset=UTF-8

<html><body><h1>Lexis Weekly</h1>
<p>This week: holiday pay after the appeal ruling, and what changes in May.</p>
<p><a href="https://www.lexisweekly.example/issues/2026-15">Read online</a> |
<a href="https://www.lexisweekly.example/unsubscribe?u=j.parker">Unsubscribe</a></p>
</body></html>
--lw-2026-15--
)eml";

constexpr std::string_view kSupplierPdf = R"eml(Return-Path: <ar@fabrikam-supplies.example>
Received: from smtp.fabrikam-supplies.example (smtp.fabrikam-supplies.example [192.0.2.60])
	by mx1.contoso-legal.example (Postfix) with ESMTPS id 3KkP7Ue2Mn
	for <finance@contoso-legal.example>; Tue, 14 Apr 2026 12:15:22 +0000 (UTC)
Authentication-Results: mx1.contoso-legal.example;
	spf=pass smtp.mailfrom=fabrikam-supplies.example;
	dkim=pass header.d=fabrikam-supplies.example;
	dmarc=pass action=none header.from=fabrikam-supplies.example
From: Fabrikam Accounts Receivable <ar@fabrikam-supplies.example>
To: finance@contoso-legal.example
Subject: Invoice 5521 for April office supplies
Date: Tue, 14 Apr 2026 12:15:18 +0000
Message-ID: <inv-5521@fabrikam-supplies.example>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="fab-5521"

--fab-5521
Content-Type: text/plain; charset=UTF-8

Please find invoice 5521 attached, payable within 30 days to the usual account.
--fab-5521
Content-Type: application/pdf; name="Invoice-5521.pdf"
Content-Disposition: attachment; filename="Invoice-5521.pdf"
Content-Transfer-Encoding: base64

JVBERi0xLjQKMSAwIG9iaiA8PCAvVHlwZSAvQ2F0YWxvZyAvUGFnZXMgMiAwIFIgPj4gZW5kb2Jq
CjIgMCBvYmogPDwgL1R5cGUgL1BhZ2VzIC9LaWRzIFtdIC9Db3VudCAwID4+IGVuZG9iagp0cmFp
bGVyIDw8IC9Sb290IDEgMCBSID4+CiUlRU9GCg==
--fab-5521--
)eml";

constexpr std::string_view kPastedDescription =
    R"txt(Hi, I received the e-mail below this afternoon and did not click anything. I copied its headers from Outlook (File > Properties):

Received: from smtp.paypa1-security.example (smtp.paypa1-security.example [192.0.2.77])
by mx1.contoso-legal.example with ESMTP id 9QWErTy1
for <finance@contoso-legal.example>; Mon, 13 Apr 2026 16:40:02 +0000
Authentication-Results: mx1.contoso-legal.example; spf=fail smtp.mailfrom=paypa1-security.example; dkim=none; dmarc=fail header.from=paypal-notices.example
Return-Path: <bounce@paypa1-security.example>
From: "PayPal" <service@paypal-notices.example>
Reply-To: <resolution-center@paypa1-security.example>
To: finance@contoso-legal.example
Subject: Your account access has been limited
Date: Mon, 13 Apr 2026 16:39:58 +0000
Message-ID: <a81f-4410-9c2e@paypal-notices.example>

Thanks,
Dana Whitfield
Finance)txt";

}  // namespace

const std::vector<ReportedMail>& reported_mails() {
  static const std::vector<ReportedMail> all{
      {"m365-password", "\xE2\x9A\xA0 Action required: your password expires today",
       "Action required your password expires today.eml", "message/rfc822", crlf(kM365Password), true},
      {"mailbox-quota", "Your mailbox is 98% full", "Your mailbox is 98 full.eml", "application/octet-stream",
       crlf(kMailboxQuota), true},
      {"invoice-html", "Overdue invoice INV-20931 - final notice", "Overdue invoice INV-20931 - final notice.eml",
       "message/rfc822", crlf(kInvoiceHtml), true},
      {"docusign", "Completed: Please review \xE2\x80\x9CQ3 Salary Adjustments\xE2\x80\x9D",
       "Completed Please review Q3 Salary Adjustments.eml", "message/rfc822", crlf(kDocusign), true},
      {"newsletter", "Lexis Weekly: this week in employment law", "Lexis Weekly.eml", "message/rfc822",
       crlf(kNewsletter), false},
      {"supplier-pdf", "Invoice 5521 for April office supplies", "Invoice 5521 for April office supplies.eml",
       "message/rfc822", crlf(kSupplierPdf), false}};
  return all;
}

const ReportedMail& reported_mail(const std::string& key) {
  for (const auto& m : reported_mails())
    if (m.key == key) return m;
  throw std::out_of_range("no reported mail '" + key + "'");
}

const std::string& pasted_headers_description() {
  static const std::string text(kPastedDescription);
  return text;
}

}  // namespace sandbox::phishing
