#pragma once

// Every object of a Kueue kind read and written back unchanged, so the API server
// stores it in the CRD's storage version (what kube-storage-version-migrator does): a
// page at a time (limit/continue), so 50,000 Workloads never make one list, with a
// bounded number of writes in flight; a write that meets a newer object (409) is done
// again on the object read afresh, one that meets none (404) is done already.

#include <cstddef>
#include <string_view>

#include "cmd/takeover/takeover_context.hpp"

namespace kueuepp::cmd::takeover {

/// Rewrites every object of `kind` through `version`; answers how many were written.
Expected<std::size_t> rewrite_every_object(TakeoverContext& ctx, const kube::takeover::KueueKind& kind,
                                           std::string_view version);

/// The takeover's step: each kind kueuepp serves whose CRD does not yet record only
/// v1beta2 in status.storedVersions is rewritten (its CRD must store v1beta2 already).
Status migrate_storage(TakeoverContext& ctx);

}  // namespace kueuepp::cmd::takeover
