#pragma once
// The /dbusers console as a browser without JavaScript uses it: a cookie jar and a form poster
// over one service, and what a test reads from its pages. Shared by the console's tests and the
// service contract's deployed-role test (tests/service_test.cpp).
#include "core/testing/testing.hpp"
#include "core/util/strings.hpp"

#include <map>
#include <regex>
#include <string>

namespace mail_triage::testing {

struct Browser {
  std::uint16_t port;
  std::map<std::string, std::string> cookies;
  std::map<std::string, std::string> extra_headers;

  core::testing::HttpResponse request(const std::string& method, const std::string& path,
                                      const std::string& body = "") {
    auto headers = extra_headers;
    std::string jar;
    for (const auto& [k, v] : cookies) jar += (jar.empty() ? "" : "; ") + k + "=" + v;
    if (!jar.empty()) headers["Cookie"] = jar;
    if (method == "POST") headers["Content-Type"] = "application/x-www-form-urlencoded";
    auto res = core::testing::http(port, method, path, body, headers);
    const std::string set = res.header("set-cookie");
    for (const auto line : core::split(set, '\n')) {
      if (line.empty()) continue;
      const auto eq = line.find('='), semi = line.find(';');
      const std::string name(line.substr(0, eq)), value(line.substr(eq + 1, semi - eq - 1));
      if (line.find("Max-Age=0") != std::string_view::npos)
        cookies.erase(name);
      else
        cookies[name] = value;
    }
    return res;
  }
  core::testing::HttpResponse get(const std::string& path) { return request("GET", path); }
  core::testing::HttpResponse post(const std::string& path, const std::map<std::string, std::string>& fields) {
    std::string body;
    for (const auto& [k, v] : fields)
      body += (body.empty() ? "" : "&") + core::url_encode(k) + "=" + core::url_encode(v);
    return request("POST", path, body);
  }
};

// The value of the first hidden csrf field of a page ("" when there is none).
inline std::string csrf_of(const std::string& html) {
  std::smatch m;
  return std::regex_search(html, m, std::regex(R"re(name="csrf" value="([^"]*)")re")) ? m[1].str() : "";
}

// The text of the element with this id ("" when there is none).
inline std::string element(const std::string& html, const std::string& id) {
  std::smatch m;
  return std::regex_search(html, m, std::regex("id=\"" + id + "\">([^<]*)<")) ? m[1].str() : "";
}

}  // namespace mail_triage::testing
