// The reported-message parser: GMime 3 reads the MIME structure, the headers, the address lists
// and the encoded words; the rest (links, Authentication-Results, the pasted header block, the
// bounds) is plain string work here. Every GMime object made here is unref'd by a Ref; GMime is
// initialised once and never shut down (its type registry lives as long as the process).
#include "ops_console/phishing/message.hpp"

#include "core/util/digest.hpp"

#include <gmime/gmime.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <mutex>
#include <set>
#include <utility>

namespace ops_console::phishing {

namespace {

// --- GMime ownership ---

struct Unref {
  void operator()(void* object) const {
    if (object) g_object_unref(object);
  }
};
template <class T>
using Ref = std::unique_ptr<T, Unref>;

struct GFree {
  void operator()(void* p) const { g_free(p); }
};
using GText = std::unique_ptr<char, GFree>;

struct DateUnref {
  void operator()(GDateTime* d) const {
    if (d) g_date_time_unref(d);
  }
};

void init_gmime() {
  static std::once_flag once;
  std::call_once(once, [] { g_mime_init(); });
}

// --- strings ---

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }
char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
std::string lowercase(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = lower(c);
  return out;
}
bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower(x) == lower(y); });
}
bool istarts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}
std::size_t ifind(std::string_view haystack, std::string_view needle, std::size_t from = 0) {
  if (needle.empty() || haystack.size() < needle.size()) return std::string_view::npos;
  for (std::size_t i = from; i + needle.size() <= haystack.size(); ++i)
    if (iequals(haystack.substr(i, needle.size()), needle)) return i;
  return std::string_view::npos;
}
std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

// The length of the valid UTF-8 character at s[i] (no overlong forms, surrogates or code points
// past U+10FFFF, as PostgreSQL requires); 0 when the bytes there are not one.
std::size_t utf8_char(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  std::size_t n;
  char32_t cp, min;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2, cp = c & 0x1F, min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3, cp = c & 0x0F, min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4, cp = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

// `s` as valid UTF-8 of at most `max` bytes, whole characters: invalid bytes become U+FFFD,
// control characters spaces (newlines kept when `lines`), runs of spaces one, ends trimmed.
std::string clean(std::string_view s, std::size_t max = kMaxValue, bool lines = false) {
  std::string out;
  out.reserve(std::min(s.size(), max));
  bool space = false;
  for (std::size_t i = 0; i < s.size();) {
    const auto n = utf8_char(s, i);
    std::string_view piece;
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (n == 1 && (c < 0x20 || c == 0x7F)) {
      if (lines && c == '\n') {
        while (!out.empty() && out.back() == ' ') out.pop_back();
        if (!out.empty() && !(out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n'))
          out += '\n';
        space = false;
      } else {
        space = !out.empty() && out.back() != '\n';
      }
      ++i;
      continue;
    }
    if (c == ' ') {
      space = !out.empty() && out.back() != '\n';
      ++i;
      continue;
    }
    piece = n == 0 ? std::string_view("\xEF\xBF\xBD") : s.substr(i, n);
    if (out.size() + (space ? 1 : 0) + piece.size() > max) break;
    if (space) out += ' ';
    space = false;
    out += piece;
    i += n == 0 ? 1 : n;
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

std::string domain_of(std::string_view address) {
  const auto at = address.rfind('@');
  return at == std::string_view::npos ? std::string() : lowercase(address.substr(at + 1));
}

// An address as stored: cleaned, lowercased, "" unless it has a local part and a domain.
std::string address_value(std::string_view raw) {
  auto a = lowercase(clean(raw));
  const auto at = a.rfind('@');
  if (at == std::string::npos || at == 0 || at + 1 == a.size() || a.find(' ') != std::string::npos) return "";
  return a;
}

// Appends `value` unless it is empty, already there, or the list is full.
void add_unique(std::vector<std::string>& list, std::string value, std::size_t max) {
  if (value.empty() || list.size() >= max) return;
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(std::move(value));
}

// --- links ---

bool url_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u <= 0x20 || u >= 0x7F) return false;
  return std::string_view("<>\"'`{}|\\^").find(c) == std::string_view::npos;
}

// Cleans up a link found in text or an attribute: cut at whitespace, without the punctuation
// that ends the sentence around it; "" unless it is an http(s) URL with a host.
std::string link_value(std::string_view s) {
  s = trim(s);
  std::size_t end = 0;
  while (end < s.size() && url_char(s[end])) ++end;
  s = s.substr(0, end);
  const bool parens = s.find('(') != std::string_view::npos;
  while (!s.empty() &&
         (std::string_view(".,;:!?]}").find(s.back()) != std::string_view::npos || (s.back() == ')' && !parens)))
    s.remove_suffix(1);
  if (s.size() > kMaxValue || url_domain(s).empty()) return "";
  return std::string(s);
}

// Every http(s) URL in plain text.
void scan_text_links(std::string_view text, std::vector<std::string>& urls) {
  for (std::size_t pos = ifind(text, "http"); pos != std::string_view::npos; pos = ifind(text, "http", pos + 4)) {
    const auto rest = text.substr(pos);
    if (!istarts_with(rest, "http://") && !istarts_with(rest, "https://")) continue;
    add_unique(urls, link_value(rest), kMaxUrls);
  }
}

// HTML character references: the named ones mail uses, and numeric ones.
std::string decode_entities(std::string_view s) {
  static const std::pair<std::string_view, std::string_view> kNamed[] = {{"amp", "&"},   {"lt", "<"},   {"gt", ">"},
                                                                         {"quot", "\""}, {"apos", "'"}, {"nbsp", " "}};
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    const auto semi = s.find(';', i);
    if (semi == std::string_view::npos || semi - i > 10) {
      out += '&';
      continue;
    }
    const auto name = s.substr(i + 1, semi - i - 1);
    bool done = false;
    if (!name.empty() && name[0] == '#') {
      const bool hex = name.size() > 1 && (name[1] == 'x' || name[1] == 'X');
      const auto digits = name.substr(hex ? 2 : 1);
      char32_t cp = 0;
      bool ok = !digits.empty();
      for (const char c : digits) {
        int d = c >= '0' && c <= '9'          ? c - '0'
                : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
                : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10
                                              : -1;
        if (d < 0 || cp > 0x10FFFF) {
          ok = false;
          break;
        }
        cp = cp * (hex ? 16 : 10) + static_cast<char32_t>(d);
      }
      if (ok && cp > 0 && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF)) {
        append_utf8(out, cp);
        done = true;
      }
    } else {
      for (const auto& [n, v] : kNamed)
        if (iequals(name, n)) {
          out += v;
          done = true;
          break;
        }
    }
    if (done)
      i = semi;
    else
      out += '&';
  }
  return out;
}

// An attribute's value in a tag's text ("a href=\"...\" class=x"), or nullopt.
std::optional<std::string> attribute(std::string_view tag, std::string_view name) {
  for (std::size_t pos = ifind(tag, name); pos != std::string_view::npos; pos = ifind(tag, name, pos + 1)) {
    if (pos == 0 || !is_space(tag[pos - 1])) continue;
    auto i = pos + name.size();
    while (i < tag.size() && is_space(tag[i])) ++i;
    if (i >= tag.size() || tag[i] != '=') continue;
    ++i;
    while (i < tag.size() && is_space(tag[i])) ++i;
    if (i >= tag.size()) return std::nullopt;
    if (tag[i] == '"' || tag[i] == '\'') {
      const auto close = tag.find(tag[i], i + 1);
      return std::string(tag.substr(i + 1, (close == std::string_view::npos ? tag.size() : close) - i - 1));
    }
    auto end = i;
    while (end < tag.size() && !is_space(tag[end]) && tag[end] != '>') ++end;
    return std::string(tag.substr(i, end - i));
  }
  return std::nullopt;
}

// The visible text of an HTML part (without comments, scripts and styles; block ends as
// newlines), and its links: the href and form action attributes, then URLs in the text.
std::string scan_html(std::string_view html, std::vector<std::string>& urls) {
  std::string text;
  std::vector<std::string> found;
  std::size_t i = 0;
  while (i < html.size()) {
    if (html[i] != '<') {
      const auto next = html.find('<', i);
      text.append(html.substr(i, next == std::string_view::npos ? std::string_view::npos : next - i));
      i = next == std::string_view::npos ? html.size() : next;
      continue;
    }
    if (html.substr(i).starts_with("<!--")) {
      const auto close = html.find("-->", i + 4);
      i = close == std::string_view::npos ? html.size() : close + 3;
      continue;
    }
    // The tag runs to the first '>' outside quotes.
    auto end = i + 1;
    char quote = 0;
    while (end < html.size() && (quote || html[end] != '>')) {
      if (quote && html[end] == quote)
        quote = 0;
      else if (!quote && (html[end] == '"' || html[end] == '\''))
        quote = html[end];
      ++end;
    }
    const auto tag = html.substr(i + 1, end - i - 1);
    i = end < html.size() ? end + 1 : html.size();
    std::size_t n = !tag.empty() && tag[0] == '/' ? 1 : 0;  // a closing tag keeps its slash
    while (n < tag.size() && !is_space(tag[n]) && tag[n] != '/') ++n;
    const auto name = lowercase(tag.substr(0, n));
    if (name == "script" || name == "style") {
      const auto close = ifind(html, "</" + name, i);
      i = close == std::string_view::npos ? html.size() : close;
      continue;
    }
    for (const char* attr : {"href", "action"})
      if (const auto value = attribute(tag, attr)) found.push_back(link_value(decode_entities(*value)));
    if (name == "br" || name == "p" || name == "/p" || name == "div" || name == "/div" || name == "tr" ||
        name == "li" || name == "/h1" || name == "/h2" || name == "/h3" || name == "/table")
      text += '\n';
  }
  for (auto& url : found) add_unique(urls, std::move(url), kMaxUrls);
  text = decode_entities(text);
  scan_text_links(text, urls);
  return text;
}

// --- headers ---

// A Received header's hop: "from X by Y with Z id W for <R>", without the date after ';'.
std::string hop_of(std::string_view value) {
  const auto semi = value.rfind(';');
  return clean(semi == std::string_view::npos ? value : value.substr(0, semi));
}

// The results of the methods in an Authentication-Results value ("mx; spf=fail (...) smtp.x=y;
// dkim=none; dmarc=fail action=quarantine"), those not known yet.
void read_authentication_results(std::string_view value, ReportedMessage& m) {
  const auto v = clean(value);
  std::size_t start = 0;
  while (start <= v.size()) {
    auto semi = v.find(';', start);
    if (semi == std::string::npos) semi = v.size();
    const auto piece = trim(std::string_view(v).substr(start, semi - start));
    start = semi + 1;
    const auto eq = piece.find('=');
    if (eq == std::string_view::npos) continue;
    const auto method = lowercase(trim(piece.substr(0, eq)));
    std::string result;
    for (auto k = eq + 1;
         k < piece.size() && ((piece[k] >= 'a' && piece[k] <= 'z') || (piece[k] >= 'A' && piece[k] <= 'Z')); ++k)
      result += lower(piece[k]);
    if (result.empty()) continue;
    std::string* slot = method == "spf" ? &m.spf : method == "dkim" ? &m.dkim : method == "dmarc" ? &m.dmarc : nullptr;
    if (slot && slot->empty()) *slot = result.substr(0, 20);
  }
}

void read_mailboxes(InternetAddressList* list, std::vector<Mailbox>& out, int depth = 0) {
  if (!list || depth > 2) return;
  const int n = internet_address_list_length(list);
  for (int i = 0; i < n && out.size() < 20; ++i) {
    InternetAddress* a = internet_address_list_get_address(list, i);
    if (INTERNET_ADDRESS_IS_GROUP(a)) {
      read_mailboxes(internet_address_group_get_members(INTERNET_ADDRESS_GROUP(a)), out, depth + 1);
      continue;
    }
    if (!INTERNET_ADDRESS_IS_MAILBOX(a)) continue;
    const char* addr = internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(a));
    auto address = address_value(addr ? addr : "");
    if (address.empty()) continue;
    const char* name = internet_address_get_name(a);
    if (std::none_of(out.begin(), out.end(), [&](const Mailbox& m) { return m.address == address; }))
      out.push_back({clean(name ? name : ""), std::move(address)});
  }
}

// --- parts ---

struct Collector {
  ReportedMessage& message;
  std::string plain, html_text;
  std::exception_ptr error;
};

std::string decoded_content(GMimePart* part) {
  GMimeDataWrapper* content = g_mime_part_get_content(part);
  if (!content) return "";
  Ref<GMimeStream> out(g_mime_stream_mem_new());
  g_mime_data_wrapper_write_to_stream(content, out.get());
  GByteArray* bytes = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(out.get()));
  return bytes && bytes->len ? std::string(reinterpret_cast<const char*>(bytes->data), bytes->len) : "";
}

std::string content_type_of(GMimeObject* object) {
  GMimeContentType* type = g_mime_object_get_content_type(object);
  if (!type) return "application/octet-stream";
  GText mime(g_mime_content_type_get_mime_type(type));
  return mime ? lowercase(clean(mime.get(), 200)) : "application/octet-stream";
}

void add_attachment(ReportedMessage& m, const char* name, std::string content_type, std::string_view bytes) {
  if (m.attachments.size() >= kMaxAttachments) return;
  m.attachments.push_back({.name = clean(name ? name : ""),
                           .content_type = std::move(content_type),
                           .sha256 = core::sha256_hex(bytes),
                           .size = bytes.size()});
}

void read_part(GMimeObject* object, Collector& c) {
  auto& m = c.message;
  if (GMIME_IS_MESSAGE_PART(object)) {
    // A message inside the message (a forward as attachment): an attachment, hashed as written.
    GMimeMessage* inner = g_mime_message_part_get_message(GMIME_MESSAGE_PART(object));
    std::string bytes;
    if (inner) {
      Ref<GMimeStream> out(g_mime_stream_mem_new());
      g_mime_object_write_to_stream(GMIME_OBJECT(inner), nullptr, out.get());
      GByteArray* array = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(out.get()));
      if (array && array->len) bytes.assign(reinterpret_cast<const char*>(array->data), array->len);
    }
    const char* name = g_mime_object_get_content_disposition_parameter(object, "filename");
    if (!name) name = g_mime_object_get_content_type_parameter(object, "name");
    add_attachment(m, name, content_type_of(object), bytes);
    return;
  }
  if (!GMIME_IS_PART(object)) return;  // a multipart: its children come on their own
  GMimePart* part = GMIME_PART(object);
  const char* filename = g_mime_part_get_filename(part);
  const bool attached = g_mime_part_is_attachment(part) || (filename && *filename);
  GMimeContentType* type = g_mime_object_get_content_type(object);
  const bool html = type && g_mime_content_type_is_type(type, "text", "html");
  const bool plain = type && g_mime_content_type_is_type(type, "text", "plain");
  if (!attached && (html || plain) && GMIME_IS_TEXT_PART(object)) {
    GText text(g_mime_text_part_get_text(GMIME_TEXT_PART(object)));
    const std::string_view body = text ? std::string_view(text.get()) : std::string_view();
    if (html) {
      c.html_text += scan_html(body, m.urls);
      c.html_text += '\n';
    } else {
      scan_text_links(body, m.urls);
      c.plain += body;
      c.plain += '\n';
    }
    return;
  }
  const auto bytes = decoded_content(part);
  add_attachment(m, filename, content_type_of(object), bytes);
  if (html) scan_html(bytes, m.urls);  // an HTML attachment's links and form targets count too
}

void on_part(GMimeObject*, GMimeObject* part, gpointer data) {
  auto& c = *static_cast<Collector*>(data);
  if (c.error) return;
  try {  // nothing may unwind through GMime's C frames
    read_part(part, c);
  } catch (...) {
    c.error = std::current_exception();
  }
}

// --- the pasted header block ---

// "Name" of a line "Name: value" (a header field name: letters, digits, '-'), or "".
std::string_view header_name(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && i < 80 &&
         ((line[i] >= 'A' && line[i] <= 'Z') || (line[i] >= 'a' && line[i] <= 'z') ||
          (i > 0 && ((line[i] >= '0' && line[i] <= '9') || line[i] == '-'))))
    ++i;
  if (i == 0 || i >= line.size() || line[i] != ':') return {};
  if (i + 1 < line.size() && line[i + 1] != ' ' && line[i + 1] != '\t') return {};
  return line.substr(0, i);
}

bool mail_header(std::string_view name) {
  static const std::set<std::string, std::less<>> kKnown{"received",
                                                         "return-path",
                                                         "from",
                                                         "to",
                                                         "cc",
                                                         "subject",
                                                         "date",
                                                         "message-id",
                                                         "reply-to",
                                                         "sender",
                                                         "delivered-to",
                                                         "authentication-results",
                                                         "received-spf",
                                                         "dkim-signature",
                                                         "mime-version",
                                                         "content-type",
                                                         "thread-topic",
                                                         "thread-index",
                                                         "x-originating-ip",
                                                         "x-mailer",
                                                         "importance",
                                                         "list-unsubscribe"};
  const auto n = lowercase(name);
  return kKnown.contains(n) || n.starts_with("x-") || n.starts_with("arc-");
}

bool transport_header(std::string_view name) {
  const auto n = lowercase(name);
  return n == "received" || n == "return-path" || n == "authentication-results" || n == "message-id" ||
         n == "dkim-signature";
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    auto line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    start = end + 1;
  }
  return out;
}

// The first header block of `text` with a From and a transport header, as a message's header
// section (CRLF, folded continuation lines, a blank line after it); nullopt when there is none.
std::optional<std::string> header_block(std::string_view text) {
  const auto lines = lines_of(text.substr(0, 64 * 1024));
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto first = header_name(lines[i]);
    if (first.empty() || !mail_header(first)) continue;
    std::string block;
    bool from = false, transport = false;
    std::size_t k = i;
    for (; k < lines.size() && !trim(lines[k]).empty(); ++k) {
      const auto name = header_name(lines[k]);
      if (!name.empty() && !is_space(lines[k][0])) {
        from = from || iequals(name, "from");
        transport = transport || transport_header(name);
        block += lines[k];
      } else {
        block += ' ';  // a continuation, folded whatever the paste did to its indentation
        block += trim(lines[k]);
      }
      block += "\r\n";
    }
    if (from && transport) return block + "\r\n";
    i = k;
  }
  return std::nullopt;
}

}  // namespace

std::string url_domain(std::string_view url) {
  std::size_t scheme;
  if (istarts_with(url, "http://"))
    scheme = 7;
  else if (istarts_with(url, "https://"))
    scheme = 8;
  else
    return "";
  auto authority = url.substr(scheme);
  authority = authority.substr(0, authority.find_first_of("/?#\\"));
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
  std::string_view host;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return "";
    host = authority.substr(0, close + 1);
  } else {
    host = authority.substr(0, authority.find(':'));
  }
  while (!host.empty() && host.back() == '.') host.remove_suffix(1);
  if (host.empty() || host.size() > 253) return "";
  for (const char c : host)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
          c == '_' || c == '[' || c == ']' || c == ':'))
      return "";
  return lowercase(host);
}

ReportedMessage parse_message(std::string_view raw) {
  if (raw.starts_with("\xEF\xBB\xBF")) raw.remove_prefix(3);  // a byte-order mark some tools write
  if (raw.starts_with("From ")) {                             // an mbox separator line
    const auto nl = raw.find('\n');
    raw = nl == std::string_view::npos ? std::string_view() : raw.substr(nl + 1);
  }
  if (trim(raw).empty()) throw ParseError("the message is empty");
  init_gmime();
  Ref<GMimeStream> stream(g_mime_stream_mem_new_with_buffer(raw.data(), raw.size()));
  Ref<GMimeParser> parser(g_mime_parser_new_with_stream(stream.get()));
  Ref<GMimeMessage> message(g_mime_parser_construct_message(parser.get(), nullptr));
  if (!message) throw ParseError("it is not an e-mail message");
  GMimeObject* object = GMIME_OBJECT(message.get());
  GMimeHeaderList* headers = g_mime_object_get_header_list(object);
  const int count = headers ? g_mime_header_list_get_count(headers) : 0;
  if (count == 0) throw ParseError("it is not an e-mail message: it has no header");

  ReportedMessage m;
  const char* subject = g_mime_message_get_subject(message.get());
  m.subject = clean(subject ? subject : "");
  read_mailboxes(g_mime_message_get_from(message.get()), m.from);
  read_mailboxes(g_mime_message_get_reply_to(message.get()), m.reply_to);
  read_mailboxes(g_mime_message_get_to(message.get()), m.to);
  const char* id = g_mime_message_get_message_id(message.get());
  m.message_id = clean(id ? id : "");
  if (GDateTime* date = g_mime_message_get_date(message.get())) {
    std::unique_ptr<GDateTime, DateUnref> utc(g_date_time_to_utc(date));
    if (utc) {
      GText text(g_date_time_format(utc.get(), "%Y-%m-%dT%H:%M:%SZ"));
      if (text) m.date = std::string(text.get());
    }
  }
  bool return_path_seen = false;
  for (int i = 0; i < count; ++i) {
    GMimeHeader* header = g_mime_header_list_get_header_at(headers, i);
    const char* name = header ? g_mime_header_get_name(header) : nullptr;
    const char* value = header ? g_mime_header_get_value(header) : nullptr;
    if (!name || !value) continue;
    if (iequals(name, "Received")) {
      add_unique(m.received, hop_of(value), kMaxHops);
    } else if (iequals(name, "Authentication-Results")) {
      read_authentication_results(value, m);
    } else if (iequals(name, "Return-Path") && !return_path_seen) {
      return_path_seen = true;
      auto v = trim(value);
      if (v.starts_with('<')) v.remove_prefix(1);
      if (v.ends_with('>')) v.remove_suffix(1);
      m.return_path = address_value(v);
    }
  }

  Collector collector{.message = m};
  g_mime_message_foreach(message.get(), on_part, &collector);
  if (collector.error) std::rethrow_exception(collector.error);
  m.text = clean(collector.plain.empty() ? collector.html_text : collector.plain, kMaxText, true);
  return m;
}

std::optional<std::string> pasted_header_block(std::string_view description) { return header_block(description); }

bool has_pasted_headers(std::string_view description) { return header_block(description).has_value(); }

ReportedMessage parse_pasted_headers(std::string_view description) {
  const auto block = header_block(description);
  if (!block) throw ParseError("the description carries no pasted header block (From and a transport header)");
  auto m = parse_message(*block);
  m.headers_only = true;
  m.text.clear();
  return m;
}

std::vector<Indicator> indicators(const ReportedMessage& m) {
  std::vector<Indicator> out;
  std::set<std::pair<std::string, std::string>> seen;
  const auto add = [&](const char* kind, std::string value) {
    if (value.empty() || !seen.emplace(kind, value).second) return;
    out.push_back({kind, std::move(value)});
  };
  for (const auto& a : m.from) add("sender_address", a.address);
  for (const auto& a : m.from) add("sender_domain", domain_of(a.address));
  for (const auto& a : m.reply_to) add("reply_to_address", a.address);
  for (const auto& a : m.reply_to) add("reply_to_domain", domain_of(a.address));
  add("return_path_address", m.return_path);
  add("return_path_domain", domain_of(m.return_path));
  for (const auto& u : m.urls) add("url", u);
  for (const auto& u : m.urls) add("url_domain", url_domain(u));
  for (const auto& a : m.attachments) add("attachment_sha256", a.sha256);
  for (const auto& a : m.attachments) add("attachment_name", a.name);
  add("spf", m.spf);
  add("dkim", m.dkim);
  add("dmarc", m.dmarc);
  for (const auto& h : m.received) add("received_hop", h);
  return out;
}

}  // namespace ops_console::phishing
