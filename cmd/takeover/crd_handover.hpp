#pragma once

// Kueue's CRDs replaced in place by kueuepp's (updated, never deleted), their
// status.storedVersions trimmed once every object is stored as v1beta2, and, for a
// rollback, Kueue's CRDs put back (the objects first moved to Kueue's storage version
// when Kueue's CRDs do not serve v1beta2).

#include <map>
#include <string>

#include "cmd/takeover/takeover_context.hpp"
#include "kube/takeover/takeover_checks.hpp"

namespace kueuepp::cmd::takeover {

/// Every Kueue CRD (of the kinds kueuepp serves and those it does not) as installed.
Expected<kube::takeover::InstalledCrds> read_kueue_crds(TakeoverContext& ctx);

/// The CustomResourceDefinitions in the YAML files of `dir`, by name.
Expected<std::map<std::string, json::value>> read_crd_manifests(const std::string& dir);

/// The clientConfig kueuepp's CRDs convert through (from kueuepp's live webhook
/// configuration, kube/takeover/crd_replacement.hpp).
Expected<json::value> kueuepp_conversion_client_config(TakeoverContext& ctx);

/// The takeover's step: each CRD of a kind kueuepp serves made kueuepp's (those that
/// are already are left alone), then waited for until it serves v1beta2.
Status replace_crds(TakeoverContext& ctx);

/// The takeover's step: status.storedVersions set to [v1beta2] on kueuepp's CRDs.
Status trim_stored_versions(TakeoverContext& ctx);

/// --rollback: Kueue's CRDs from options.kueue_crds_dir put back.
Status restore_kueue_crds(TakeoverContext& ctx);

}  // namespace kueuepp::cmd::takeover
