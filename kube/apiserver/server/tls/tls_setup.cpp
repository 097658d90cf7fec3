#include "kube/apiserver/server/tls/tls_setup.hpp"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include "kube/apiserver/server/persist/files.hpp"
#include "kube/apiserver/server/tls/certificates.hpp"
#include "kube/tls/client_certificate.hpp"

namespace kueuepp::kube::server {

namespace fs = std::filesystem;

namespace {

Status write_private(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return fail(fmt::format("cannot write {}", path));
  out << content;
  out.close();
  ::chmod(path.c_str(), 0600);
  return {};
}

}  // namespace

Expected<CertificateSet> load_or_make_certificates(const std::string& dir, const std::string& stem,
                                                   const std::function<Expected<CertificateSet>()>& make) {
  if (dir.empty()) return make();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return fail(fmt::format("cannot create {}: {}", dir, ec.message()));
  std::string names[] = {dir + "/" + stem + "-ca.crt", dir + "/" + stem + "-ca.key", dir + "/" + stem + ".crt",
                         dir + "/" + stem + ".key"};
  bool present = true;
  for (const auto& n : names) present = present && fs::exists(n, ec);
  if (present) {
    auto ca = read_whole_file(names[0]);
    auto ca_key = read_whole_file(names[1]);
    auto crt = read_whole_file(names[2]);
    auto key = read_whole_file(names[3]);
    if (!ca || !ca_key || !crt || !key) return fail(fmt::format("cannot read the {} certificates in {}", stem, dir));
    return CertificateSet{*ca, *ca_key, *crt, *key};
  }
  auto made = make();
  if (!made) return made;
  std::string contents[] = {made->ca_cert_pem, made->ca_key_pem, made->server_cert_pem, made->server_key_pem};
  for (int i = 0; i < 4; ++i) {
    if (auto st = write_private(names[i], contents[i]); !st) return unexpected(st.error());
  }
  spdlog::info("generated the {} certificates in {}", stem, dir);
  return made;
}

namespace {

Expected<CertificateSet> load_or_generate(const std::string& data_dir, const std::string& token, std::string& stored) {
  const std::vector<std::string> hosts{"127.0.0.1", "::1", "localhost"};
  if (data_dir.empty()) return generate_certificates(hosts);
  std::string pki = data_dir + "/pki";
  std::error_code ec;
  fs::create_directories(pki, ec);
  if (ec) return fail(fmt::format("cannot create {}: {}", pki, ec.message()));
  std::string names[] = {pki + "/ca.crt", pki + "/ca.key", pki + "/apiserver.crt", pki + "/apiserver.key"};
  bool present = true;
  for (const auto& n : names) present = present && fs::exists(n, ec);
  CertificateSet set;
  if (present) {
    auto ca = read_whole_file(names[0]);
    auto ca_key = read_whole_file(names[1]);
    auto crt = read_whole_file(names[2]);
    auto key = read_whole_file(names[3]);
    if (!ca || !ca_key || !crt || !key) return fail(fmt::format("cannot read the certificates in {}", pki));
    set = CertificateSet{*ca, *ca_key, *crt, *key};
  } else {
    auto made = generate_certificates(hosts);
    if (!made) return made;
    set = std::move(*made);
    std::string contents[] = {set.ca_cert_pem, set.ca_key_pem, set.server_cert_pem, set.server_key_pem};
    for (int i = 0; i < 4; ++i) {
      if (auto st = write_private(names[i], contents[i]); !st) return unexpected(st.error());
    }
    spdlog::info("generated a CA and a serving certificate in {}", pki);
  }
  std::string token_path = pki + "/token";
  if (fs::exists(token_path, ec)) {
    auto t = read_whole_file(token_path);
    if (t) stored = *t;
  } else if (!token.empty()) {
    if (auto st = write_private(token_path, token); !st) return unexpected(st.error());
    stored = token;
  }
  return set;
}

}  // namespace

Expected<TlsSetup> make_tls(const std::string& data_dir, const std::string& token, const std::string& client_ca_pem) {
  TlsSetup setup;
  auto certs = load_or_generate(data_dir, token, setup.stored_token);
  if (!certs) return unexpected(certs.error());
  namespace ssl = boost::asio::ssl;
  setup.context = std::make_unique<ssl::context>(ssl::context::tls_server);
  boost::system::error_code ec;
  setup.context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                                 ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1,
                             ec);
  setup.context->use_certificate_chain(boost::asio::buffer(certs->server_cert_pem), ec);
  if (!ec) setup.context->use_private_key(boost::asio::buffer(certs->server_key_pem), ssl::context::pem, ec);
  if (ec) return fail(fmt::format("loading the serving certificate: {}", ec.message()));
  if (!client_ca_pem.empty()) kube::tls::request_client_certificates(setup.context->native_handle(), client_ca_pem);
  setup.ca_pem = certs->ca_cert_pem;
  return setup;
}

}  // namespace kueuepp::kube::server
