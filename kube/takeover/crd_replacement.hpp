#pragma once

// Kueue's CRDs changed in place (updated, never deleted: deleting a CRD deletes every
// object of its kind): to kueuepp's for the takeover, back to Kueue's for a rollback.

#include <string_view>

#include "core/expected.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::takeover {

/// The clientConfig of the conversion webhook of kueuepp's CRDs, taken from kueuepp's
/// live MutatingWebhookConfiguration (its first webhook): the same Service or URL host
/// and the caBundle kueuepp's controller wrote there, at path /convert. Fails, saying
/// what to do, when there is no caBundle yet (kueuepp's webhook server has not started).
Expected<json::value> conversion_client_config(const json::value& mutating_configuration);

/// `live` (Kueue's CRD) made kueuepp's: `ours`' spec with its conversion webhook at
/// `client_config`, on `live`'s metadata (an update of the same object) without
/// cert-manager's CA injection annotation (that CA is Kueue's). The selectableFields of
/// each of `live`'s versions are kept where `ours` declares none for that version: a
/// cluster whose CRDs have them serves them, and field selectors users rely on keep
/// working.
Expected<json::value> replacement_crd(const json::value& live, const json::value& ours,
                                      const json::value& client_config);

/// `live` with `theirs`' spec (a rollback to Kueue's CRD), on `live`'s metadata.
Expected<json::value> restored_crd(const json::value& live, const json::value& theirs);

/// `crd` with `version` as its storage version (every other served version stays).
Expected<json::value> with_storage_version(const json::value& crd, std::string_view version);

/// Whether `crd` stores v1beta2, serves v1beta1 beside it and converts through a
/// webhook at /convert: kueuepp's CRD (or Kueue's made kueuepp's).
bool is_kueuepp_crd(const json::value& crd);

/// The CRD's name and the version it names as storage.
std::string_view crd_name(const json::value& crd);

}  // namespace kueuepp::kube::takeover
