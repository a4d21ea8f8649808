#include "ops_console/accounting/oauth.hpp"

#include <gtest/gtest.h>

namespace {

using ops_console::accounting::jwt_claim;
using ops_console::accounting::pkce_challenge;

// RFC 7636, appendix B: the verifier and the S256 challenge of its example.
TEST(Oauth, ThePkceChallengeIsTheRfcExamplesS256) {
  EXPECT_EQ(pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
}

TEST(Oauth, AJwtClaimIsReadFromThePayload) {
  // {"alg":"none"} . {"authentication_event_id":"a1b2","n":3} . (no signature)
  const std::string token = "eyJhbGciOiJub25lIn0.eyJhdXRoZW50aWNhdGlvbl9ldmVudF9pZCI6ImExYjIiLCJuIjozfQ.";
  EXPECT_EQ(jwt_claim(token, "authentication_event_id"), "a1b2");
  EXPECT_FALSE(jwt_claim(token, "n"));  // not a string
  EXPECT_FALSE(jwt_claim(token, "sub"));
  EXPECT_FALSE(jwt_claim("opaque-token", "sub"));
  EXPECT_FALSE(jwt_claim("a.!!!.c", "sub"));
  EXPECT_FALSE(jwt_claim("a.bm90IGpzb24.c", "sub"));  // "not json"
  EXPECT_FALSE(jwt_claim("", "sub"));
}

}  // namespace
