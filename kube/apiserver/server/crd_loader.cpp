#include "kube/apiserver/server/crd_loader.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "kube/json/yaml.hpp"
#include "kube/apiserver/server/api/internal_writes.hpp"

namespace kueuepp::kube::server {

namespace fs = std::filesystem;

namespace {

Expected<std::vector<fs::path>> manifest_files(const std::string& path) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return std::vector<fs::path>{path};
  if (!fs::is_directory(path, ec)) return fail(fmt::format("--crds {}: no such file or directory", path));
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    auto ext = entry.path().extension();
    if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json")) files.push_back(entry.path());
  }
  if (ec) return fail(fmt::format("--crds {}: {}", path, ec.message()));
  std::sort(files.begin(), files.end());
  return files;
}

Expected<std::string> read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return fail(fmt::format("cannot read {}", file.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

Expected<std::size_t> install_crds(ServerContext& ctx, const std::vector<std::string>& paths) {
  const ResourceType* crd_type = ctx.registry.find("apiextensions.k8s.io", "v1", "customresourcedefinitions");
  std::size_t installed = 0;
  for (const auto& path : paths) {
    auto files = manifest_files(path);
    if (!files) return unexpected(files.error());
    for (const auto& file : *files) {
      auto text = read_file(file);
      if (!text) return unexpected(text.error());
      auto docs = json::parse_yaml_documents(*text);
      if (!docs) return fail(fmt::format("{}: {}", file.string(), docs.error().message));
      std::vector<json::value> crds;
      for (auto& doc : *docs) {
        if (doc.is_null()) continue;
        std::string_view kind = json::get_string(doc, "kind");
        if (kind == "List") {
          if (const json::value* items = json::find(doc, "items"); items != nullptr && items->is_array()) {
            for (const auto& item : items->as_array()) crds.push_back(item);
          }
        } else {
          crds.push_back(std::move(doc));
        }
      }
      for (auto& crd : crds) {
        if (json::get_string(crd, "kind") != "CustomResourceDefinition") {
          spdlog::warn("{}: skipping a {} (only CustomResourceDefinitions are installed from --crds)", file.string(),
                       json::get_string(crd, "kind"));
          continue;
        }
        if (auto st = upsert_object(ctx, *crd_type, std::move(crd), "kueuepp-crds"); !st) {
          return fail(fmt::format("{}: {}", file.string(), st.error().message));
        }
        ++installed;
      }
    }
  }
  return installed;
}

}  // namespace kueuepp::kube::server
