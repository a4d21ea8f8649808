// The identity platform's token endpoint: client credentials only, with its error shapes.
#include "sandbox/graph_fake.hpp"

#include "core/util/strings.hpp"

namespace sandbox {

namespace asio = boost::asio;
using asio::awaitable;
using core::http::Request;
using core::http::Response;
using core::http::Status;
using nlohmann::json;

namespace {

// The token endpoint's error shape (Microsoft identity platform).
Response identity_refusal(std::string error, std::string description, int code) {
  return Response::json({{"error", std::move(error)},
                         {"error_description", "AADSTS" + std::to_string(code) + ": " + description},
                         {"error_codes", {code}},
                         {"trace_id", core::random_uuid()},
                         {"correlation_id", core::random_uuid()}},
                        Status::bad_request);
}

std::map<std::string, std::string> parse_form(std::string_view body) {
  std::map<std::string, std::string> out;
  for (auto piece : core::split(body, '&')) {
    if (piece.empty()) continue;
    const auto eq = piece.find('=');
    auto key = core::url_decode(piece.substr(0, eq), true);
    auto value = core::url_decode(eq == std::string_view::npos ? "" : piece.substr(eq + 1), true);
    if (key && value) out[*key] = *value;
  }
  return out;
}

}  // namespace

void GraphFake::install_token(core::http::Router& router) {
  // --- the identity platform's token endpoint ---
  router.post("/{tenant}/oauth2/v2.0/token", [this](Request& req) -> awaitable<Response> {
    auto form = parse_form(req.body);
    EchoSwitch echo;
    {
      std::lock_guard lock(mutex_);
      echo = faults_.echo;
    }
    // A refusal, quoting with the echo switch the client secret received (echo.hpp).
    const auto identity_error = [&](std::string error, std::string description, int code) {
      return identity_refusal(std::move(error),
                              echoes_.message(echo, std::move(description), {{"client_secret", form["client_secret"]}}),
                              code);
    };
    if (form["grant_type"] != "client_credentials")
      co_return identity_error("unsupported_grant_type",
                               "The provided value for the input parameter 'grant_type' is not valid.", 70003);
    if (!form["scope"].ends_with("/.default"))
      co_return identity_error("invalid_scope", "The provided value for the input parameter 'scope' is not valid.",
                               70011);
    if (form["client_id"] != options_.client_id)
      co_return identity_error(
          "unauthorized_client",
          "Application with identifier '" + form["client_id"] + "' was not found in the directory.", 700016);
    if (!core::constant_time_equals(form["client_secret"], options_.client_secret))
      co_return identity_error("invalid_client", "Invalid client secret provided.", 7000215);
    const std::string token = "eyJ0eXAiOiJKV1QiLCJub25jZSI6" + core::random_hex(24);
    {
      std::lock_guard lock(mutex_);
      tokens_[token] = std::chrono::steady_clock::now() + options_.token_lifetime;
      ++tokens_issued_;
    }
    co_return Response::json({{"token_type", "Bearer"},
                              {"expires_in", options_.token_lifetime.count()},
                              {"ext_expires_in", options_.token_lifetime.count()},
                              {"access_token", token}});
  });
}

}  // namespace sandbox
