#include "cmd/takeover/storage_migration.hpp"

#include <spdlog/spdlog.h>

#include <condition_variable>
#include <mutex>
#include <vector>

#include "kube/takeover/crd_replacement.hpp"
#include "kube/webhook/crd_conversion_registration.hpp"

namespace kueuepp::cmd::takeover {

namespace {

using kube::client::Object;
using kube::client::ResourceDescriptor;

/// Writes in flight, and the objects whose write must be done again one by one.
class WriteWindow {
 public:
  explicit WriteWindow(int limit) : limit_(limit) {}

  void send(kube::client::Client& client, const ResourceDescriptor& resource, Object object) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return in_flight_ < limit_; });
    ++in_flight_;
    lock.unlock();
    kube::client::WriteOptions options;
    options.answer_unread = true;
    std::string ns(object.namespace_name());
    std::string name(object.name());
    client.update(
        resource, std::move(object),
        [this, ns = std::move(ns), name = std::move(name)](kube::client::Result<Object> written) {
          std::lock_guard guard(mu_);
          --in_flight_;
          if (written) {
            ++written_;
          } else if (!written.error().is_not_found()) {
            again_.push_back({ns, name, written.error()});
          }
          cv_.notify_all();
        },
        options);
  }

  struct Again {
    std::string ns;
    std::string name;
    kube::client::ApiError error;
  };

  /// Waits for every write in flight; answers those to do again.
  std::vector<Again> drain() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return in_flight_ == 0; });
    return std::exchange(again_, {});
  }

  std::size_t written() {
    std::lock_guard guard(mu_);
    return written_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int limit_;
  int in_flight_ = 0;
  std::size_t written_ = 0;
  std::vector<Again> again_;
};

/// One object read afresh and written back, until no newer object interferes.
Expected<bool> rewrite_one(TakeoverContext& ctx, const ResourceDescriptor& resource, const WriteWindow::Again& again) {
  std::string what = std::string(resource.kind) + " " + (again.ns.empty() ? "" : again.ns + "/") + again.name;
  if (!again.error.is_conflict() && !again.error.is_retryable()) {
    return unexpected(api_failure("rewriting " + what, again.error));
  }
  kube::client::ApiError last = again.error;
  for (int attempt = 0; attempt < 10; ++attempt) {
    auto live = ctx.api.get(resource, again.ns, again.name);
    if (!live && live.error().is_not_found()) return false;
    if (!live) return unexpected(api_failure("reading " + what, live.error()));
    auto written = ctx.api.update(resource, std::move(*live));
    if (written) return true;
    if (written.error().is_not_found()) return false;
    if (!written.error().is_conflict() && !written.error().is_retryable()) {
      return unexpected(api_failure("rewriting " + what, written.error()));
    }
    last = written.error();
  }
  return unexpected(api_failure("rewriting " + what + " (10 attempts)", last));
}

bool stores_only_v1beta2(const json::value& crd) {
  auto versions = kube::takeover::crd_versions(crd);
  return versions.stored_versions == std::vector<std::string>{"v1beta2"};
}

}  // namespace

Expected<std::size_t> rewrite_every_object(TakeoverContext& ctx, const kube::takeover::KueueKind& kind,
                                           std::string_view version) {
  const ResourceDescriptor resource = kueue_resource(kind, version);
  WriteWindow window(ctx.options.parallel_writes);
  std::size_t again_written = 0;
  kube::client::ListOptions page;
  page.limit = ctx.options.page_size;
  for (;;) {
    auto list = ctx.api.list(resource, "", page);
    if (!list && list.error().is_gone()) {
      // The continue token expired: start over (writing an object twice is harmless).
      spdlog::warn("listing {}: the continue token expired; listing again from the start", kind.plural);
      page.continue_token.clear();
      continue;
    }
    if (!list) return unexpected(api_failure("listing " + std::string(kind.plural), list.error()));
    for (auto& item : list->items) window.send(ctx.api.client(), resource, std::move(item));
    for (const auto& again : window.drain()) {
      auto done = rewrite_one(ctx, resource, again);
      if (!done) return unexpected(done.error());
      again_written += *done ? 1 : 0;
    }
    if (list->continue_token.empty()) break;
    page.continue_token = list->continue_token;
  }
  return window.written() + again_written;
}

Status migrate_storage(TakeoverContext& ctx) {
  for (const auto& kind : kube::takeover::kueue_kinds()) {
    if (!kind.served_by_kueuepp()) continue;
    auto crd = ctx.api.get(kube::webhook::resources::kCustomResourceDefinition, "", kind.crd_name());
    if (!crd) return unexpected(api_failure("reading CRD " + kind.crd_name(), crd.error()));
    if (stores_only_v1beta2(crd->json())) {
      std::fprintf(ctx.out, "migrate-storage: %s: every object is stored as v1beta2 already\n", kind.crd_name().c_str());
      continue;
    }
    if (!kube::takeover::is_kueuepp_crd(crd->json())) {
      return fail("CRD " + kind.crd_name() + " does not store v1beta2 yet: run kueuepp takeover again (its crds step "
                  "comes first)");
    }
    const auto start = std::chrono::steady_clock::now();
    auto written = rewrite_every_object(ctx, kind, "v1beta2");
    if (!written) return unexpected(written.error());
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    std::fprintf(ctx.out, "migrate-storage: %s: %zu objects rewritten as v1beta2 in %lld ms\n", kind.crd_name().c_str(),
                 *written, static_cast<long long>(ms.count()));
  }
  return {};
}

}  // namespace kueuepp::cmd::takeover
