#include "kube/client/kubeconfig.hpp"

#include <cstdlib>
#include <filesystem>

#include "core/base64.hpp"
#include "kube/client/detail/files.hpp"
#include "kube/json/yaml.hpp"

namespace kueuepp::kube::client {

namespace {

namespace fs = std::filesystem;

std::string string_field(const json::value& v, std::string_view key) {
  return std::string(json::get_string(v, key));
}

bool bool_field(const json::value& v, std::string_view key) {
  const json::value* f = json::find(v, key);
  return f != nullptr && f->is_bool() && f->get_bool();
}

std::string resolve_path(std::string_view path, std::string_view file_path) {
  if (path.empty()) return {};
  fs::path p{std::string(path)};
  if (p.is_absolute() || file_path.empty()) return p.string();
  return (fs::path(std::string(file_path)).parent_path() / p).lexically_normal().string();
}

Expected<std::string> decoded_field(const json::value& v, std::string_view key,
                                    std::string_view where) {
  const std::string_view text = json::get_string(v, key);
  if (text.empty()) return std::string();
  auto decoded = core::base64_decode_lenient(text);
  if (!decoded) {
    return fail(std::string(where) + ": field " + std::string(key) +
                " is not valid base64; it must hold the base64 of a PEM file");
  }
  return std::move(*decoded);
}

// Iterates a kubeconfig list (`clusters: [{name: x, cluster: {...}}]`), calling
// `add(name, body)` for each named entry.
template <class Add>
Status for_each_named(const json::value& doc, std::string_view list, std::string_view body_key,
                      std::string_view file_path, Add add) {
  const json::value* entries = json::find(doc, list);
  if (entries == nullptr || entries->is_null()) return {};
  if (!entries->is_array()) {
    return fail("kubeconfig " + std::string(file_path) + ": " + std::string(list) +
                " must be a list");
  }
  for (const json::value& entry : entries->get_array()) {
    const std::string name = string_field(entry, "name");
    if (name.empty()) {
      return fail("kubeconfig " + std::string(file_path) + ": an entry of " + std::string(list) +
                  " has no name");
    }
    static const json::value empty = json::object{};
    const json::value* body = json::find(entry, body_key);
    const std::string where = "kubeconfig " + std::string(file_path) + " " +
                              std::string(body_key) + " \"" + name + "\"";
    if (Status s = add(name, body != nullptr && body->is_object() ? *body : empty, where); !s) {
      return s;
    }
  }
  return {};
}

Expected<std::string> pem_from(const std::string& data, const std::string& path,
                               std::string_view what, std::string_view source) {
  if (!data.empty()) return data;
  if (path.empty()) return std::string();
  auto content = detail::read_file(path);
  if (!content) {
    return fail(std::string(source) + ": cannot load the " + std::string(what) + ": " +
                content.error().message);
  }
  return std::move(*content);
}

}  // namespace

Expected<Kubeconfig> parse_kubeconfig(std::string_view yaml, std::string_view file_path) {
  auto doc = json::parse_yaml(yaml);
  if (!doc) {
    return fail("kubeconfig " + std::string(file_path) + " is not valid YAML: " +
                doc.error().message);
  }
  Kubeconfig out;
  if (doc->is_null()) return out;  // an empty file is a valid, empty kubeconfig
  if (!doc->is_object()) {
    return fail("kubeconfig " + std::string(file_path) + " must be a YAML mapping");
  }
  out.current_context = string_field(*doc, "current-context");

  Status s = for_each_named(*doc, "clusters", "cluster", file_path,
      [&](const std::string& name, const json::value& c, const std::string& where) -> Status {
        KubeconfigCluster cluster;
        cluster.server = string_field(c, "server");
        cluster.certificate_authority =
            resolve_path(json::get_string(c, "certificate-authority"), file_path);
        auto ca = decoded_field(c, "certificate-authority-data", where);
        if (!ca) return unexpected(ca.error());
        cluster.certificate_authority_data = std::move(*ca);
        cluster.insecure_skip_tls_verify = bool_field(c, "insecure-skip-tls-verify");
        cluster.tls_server_name = string_field(c, "tls-server-name");
        out.clusters.emplace(name, std::move(cluster));
        return {};
      });
  if (!s) return unexpected(s.error());

  s = for_each_named(*doc, "users", "user", file_path,
      [&](const std::string& name, const json::value& u, const std::string& where) -> Status {
        KubeconfigUser user;
        user.client_certificate = resolve_path(json::get_string(u, "client-certificate"), file_path);
        user.client_key = resolve_path(json::get_string(u, "client-key"), file_path);
        auto cert = decoded_field(u, "client-certificate-data", where);
        if (!cert) return unexpected(cert.error());
        user.client_certificate_data = std::move(*cert);
        auto key = decoded_field(u, "client-key-data", where);
        if (!key) return unexpected(key.error());
        user.client_key_data = std::move(*key);
        user.token = string_field(u, "token");
        user.token_file = resolve_path(json::get_string(u, "tokenFile"), file_path);
        user.has_unsupported_auth = json::find(u, "exec") != nullptr ||
                                    json::find(u, "auth-provider") != nullptr ||
                                    json::find(u, "username") != nullptr;
        out.users.emplace(name, std::move(user));
        return {};
      });
  if (!s) return unexpected(s.error());

  s = for_each_named(*doc, "contexts", "context", file_path,
      [&](const std::string& name, const json::value& c, const std::string&) -> Status {
        out.contexts.emplace(name, KubeconfigContext{string_field(c, "cluster"),
                                                     string_field(c, "user"),
                                                     string_field(c, "namespace")});
        return {};
      });
  if (!s) return unexpected(s.error());
  return out;
}

Kubeconfig merge_kubeconfigs(const std::vector<Kubeconfig>& configs) {
  Kubeconfig merged;
  for (const Kubeconfig& c : configs) {
    // map::insert keeps an existing key: the first file to set a name wins.
    merged.clusters.insert(c.clusters.begin(), c.clusters.end());
    merged.users.insert(c.users.begin(), c.users.end());
    merged.contexts.insert(c.contexts.begin(), c.contexts.end());
    if (merged.current_context.empty()) merged.current_context = c.current_context;
  }
  return merged;
}

Expected<ClientConfig> resolve_kubeconfig(const Kubeconfig& config, std::string_view context,
                                          std::string_view source) {
  const std::string context_name =
      context.empty() ? config.current_context : std::string(context);
  if (context_name.empty()) {
    return fail(std::string(source) +
                ": no current-context is set; set one (kubectl config use-context) or pass a "
                "context explicitly");
  }
  auto ctx = config.contexts.find(context_name);
  if (ctx == config.contexts.end()) {
    return fail(std::string(source) + ": context \"" + context_name + "\" does not exist");
  }
  auto cluster = config.clusters.find(ctx->second.cluster);
  if (cluster == config.clusters.end()) {
    return fail(std::string(source) + ": context \"" + context_name + "\" names cluster \"" +
                ctx->second.cluster + "\", which does not exist");
  }
  if (cluster->second.server.empty()) {
    return fail(std::string(source) + ": cluster \"" + ctx->second.cluster + "\" has no server");
  }

  ClientConfig out;
  out.source = std::string(source) + " context " + context_name;
  out.server = cluster->second.server;
  out.tls_server_name = cluster->second.tls_server_name;
  out.insecure_skip_tls_verify = cluster->second.insecure_skip_tls_verify;
  if (!ctx->second.namespace_name.empty()) out.default_namespace = ctx->second.namespace_name;
  auto ca = pem_from(cluster->second.certificate_authority_data,
                     cluster->second.certificate_authority, "certificate authority", out.source);
  if (!ca) return unexpected(ca.error());
  out.ca_pem = std::move(*ca);

  if (!ctx->second.user.empty()) {
    auto user = config.users.find(ctx->second.user);
    if (user == config.users.end()) {
      return fail(out.source + ": user \"" + ctx->second.user + "\" does not exist");
    }
    const KubeconfigUser& u = user->second;
    auto cert = pem_from(u.client_certificate_data, u.client_certificate, "client certificate",
                         out.source);
    if (!cert) return unexpected(cert.error());
    auto key = pem_from(u.client_key_data, u.client_key, "client key", out.source);
    if (!key) return unexpected(key.error());
    if (cert->empty() != key->empty()) {
      return fail(out.source + ": user \"" + ctx->second.user +
                  "\" has a client certificate without a key (or a key without a certificate)");
    }
    out.client_certificate_pem = std::move(*cert);
    out.client_key_pem = std::move(*key);
    out.token = u.token;
    out.token_file = u.token_file;
    if (u.has_unsupported_auth && out.token.empty() && out.token_file.empty() &&
        out.client_certificate_pem.empty()) {
      return fail(out.source + ": user \"" + ctx->second.user +
                  "\" authenticates with exec, auth-provider or basic auth, which kueuepp does "
                  "not support; use a token, tokenFile or client certificate");
    }
  }
  return out;
}

EnvLookup process_environment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

Expected<ClientConfig> load_kubeconfig(const KubeconfigLoadOptions& options) {
  auto load_one = [](const std::string& path) -> Expected<Kubeconfig> {
    auto text = detail::read_file(path);
    if (!text) return unexpected(text.error());
    return parse_kubeconfig(*text, path);
  };

  if (!options.explicit_path.empty()) {
    auto config = load_one(options.explicit_path);
    if (!config) return unexpected(config.error());
    return resolve_kubeconfig(*config, options.context, "kubeconfig " + options.explicit_path);
  }

  std::vector<std::string> paths;
  if (auto env = options.env("KUBECONFIG"); env && !env->empty()) {
    std::string_view rest = *env;
    while (!rest.empty()) {
      const std::size_t colon = rest.find(':');
      std::string_view item = rest.substr(0, colon);
      if (!item.empty()) paths.emplace_back(item);
      rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
    }
  } else if (auto home = options.env("HOME"); home && !home->empty()) {
    paths.push_back(*home + "/.kube/config");
  }

  std::vector<Kubeconfig> configs;
  std::string source = "kubeconfig";
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!fs::exists(path, ec)) continue;  // kubectl skips missing KUBECONFIG entries
    auto config = load_one(path);
    if (!config) return unexpected(config.error());
    configs.push_back(std::move(*config));
    source += " " + path;
  }
  if (configs.empty()) {
    return fail("no kubeconfig found (looked at: " +
                (paths.empty() ? std::string("nothing; HOME and KUBECONFIG are unset")
                               : [&] {
                                   std::string all;
                                   for (const auto& p : paths) all += (all.empty() ? "" : ", ") + p;
                                   return all;
                                 }()) +
                "); pass --kubeconfig or set KUBECONFIG");
  }
  return resolve_kubeconfig(merge_kubeconfigs(configs), options.context, source);
}

}  // namespace kueuepp::kube::client
