// Where the ServiceAccount token keys come from: the data directory keeps the key it made
// on first start (so tokens stay valid across restarts), a signing key file must hold a
// private key, and key files add keys that verify.

#include <sys/stat.h>

#include <fstream>

#include "kube/apiserver/server/service_account_keys.hpp"
#include "tests/kube/apiserver/server/server_fixture.hpp"

namespace kueuepp::kube::server::testing {
namespace {

TEST(ServiceAccountKeys, TheDataDirectoryKeepsTheKeyItMade) {
  TempDir dir;
  auto first = load_service_account_keys("", {}, dir.path());
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_TRUE(first->signing_key.can_sign());
  struct stat st {};
  ASSERT_EQ(::stat(dir.file("pki/service-account.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto again = load_service_account_keys("", {}, dir.path());
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->signing_key.key_id(), first->signing_key.key_id());
  // Without a data directory, each start has a key of its own.
  EXPECT_NE(load_service_account_keys("", {}, "")->signing_key.key_id(), first->signing_key.key_id());
}

TEST(ServiceAccountKeys, ASigningKeyFileMustHoldAPrivateKey) {
  TempDir dir;
  auto made = auth::JwsKey::generate();
  ASSERT_TRUE(made);
  std::ofstream(dir.file("sa.key")) << *made->private_pem();
  auto loaded = load_service_account_keys(dir.file("sa.key"), {dir.file("sa.key")}, "");
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(loaded->signing_key.key_id(), made->key_id());
  ASSERT_EQ(loaded->verification_keys.size(), 1u);

  std::ofstream(dir.file("public.pem")) << "# not a key\n";
  auto refused = load_service_account_keys(dir.file("public.pem"), {}, "");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, dir.file("public.pem") + ": holds no PEM private key, public key or certificate");
  auto missing = load_service_account_keys("", {dir.file("nope.pem")}, "");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "cannot read the key file " + dir.file("nope.pem"));
}

}  // namespace
}  // namespace kueuepp::kube::server::testing
