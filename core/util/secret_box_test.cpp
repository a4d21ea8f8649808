#include "core/util/secret_box.hpp"

#include <gtest/gtest.h>

namespace {

constexpr const char* kKey = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";  // base64 of 32 ASCII bytes
constexpr const char* kOtherKey = "ZmVkY2JhOTg3NjU0MzIxMGZlZGNiYTk4NzY1NDMyMTA=";

TEST(SecretBox, SealsAndOpensWithTheSameKey) {
  const auto box = core::SecretBox::from_base64(kKey);
  ASSERT_TRUE(box);
  const std::string sealed = box->seal("refresh-token-of-the-org");
  EXPECT_TRUE(sealed.starts_with("v1."));
  EXPECT_EQ(sealed.find("refresh-token"), std::string::npos);
  EXPECT_EQ(box->unseal(sealed), "refresh-token-of-the-org");
  EXPECT_NE(box->seal("refresh-token-of-the-org"), sealed);  // a fresh nonce each time
  EXPECT_EQ(box->unseal(box->seal("")), "");
}

TEST(SecretBox, AnotherKeyOrATamperedBoxOpensNothing) {
  const auto box = core::SecretBox::from_base64(kKey);
  const auto other = core::SecretBox::from_base64(kOtherKey);
  ASSERT_TRUE(box && other);
  std::string sealed = box->seal("secret");
  EXPECT_FALSE(other->unseal(sealed));
  sealed[sealed.size() - 5] = sealed[sealed.size() - 5] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(box->unseal(sealed));
  EXPECT_FALSE(box->unseal("v1.short"));
  EXPECT_FALSE(box->unseal("secret"));
  EXPECT_FALSE(box->unseal(""));
}

TEST(SecretBox, TheKeyIsExactly32BytesOfBase64) {
  EXPECT_TRUE(core::SecretBox::from_base64("MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY"));  // unpadded
  EXPECT_TRUE(core::SecretBox::from_base64(std::string(kKey) + "\n"));
  EXPECT_FALSE(core::SecretBox::from_base64("MDEyMzQ1Njc4OWFiY2RlZg=="));  // 16 bytes
  EXPECT_FALSE(core::SecretBox::from_base64("not base64 at all!"));
  EXPECT_FALSE(core::SecretBox::from_base64(""));
}

}  // namespace
