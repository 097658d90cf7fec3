#include "kube/takeover/takeover_checks.hpp"

#include "kube/conversion/kueue_conversion.hpp"
#include "kube/objects/decoders.hpp"

namespace kueuepp::kube::takeover {

namespace {

constexpr std::string_view kFixOrDelete =
    "correct it (kubectl edit) or delete it, then run kueuepp takeover again";

Refusal decode_refusal(const json::value& object, const Error& error) {
  return {conversion::describe_object(object), "kueuepp would not accept it: " + error.message, std::string(kFixOrDelete)};
}

template <class Decoded>
void add_decode_refusal(std::vector<Refusal>& out, const json::value& object, const Expected<Decoded>& decoded) {
  if (!decoded) out.push_back(decode_refusal(object, decoded.error()));
}

}  // namespace

std::string Refusal::describe() const { return object + ": " + reason + "; to go on: " + remedy; }

std::vector<Refusal> check_installed_crds(const InstalledCrds& crds) {
  std::vector<Refusal> out;
  for (const KueueKind& kind : kueue_kinds()) {
    if (!kind.served_by_kueuepp()) continue;
    const std::string name = kind.crd_name();
    auto it = crds.find(name);
    if (it == crds.end() || !it->second) {
      out.push_back({"CRD " + name, "is not installed, so this cluster does not hold Kueue's objects",
                     "install kueuepp with kubectl apply -k deploy/ (there is nothing to take over), or install "
                     "Kueue's CRDs first"});
      continue;
    }
    CrdVersions versions = crd_versions(*it->second);
    if (!versions.serves("v1beta1") && !versions.serves("v1beta2")) {
      out.push_back({"CRD " + name, "serves neither v1beta1 nor v1beta2 of kueue.x-k8s.io",
                     "upgrade Kueue to v0.14 or later before the takeover"});
    } else if (versions.storage != "v1beta1" && versions.storage != "v1beta2") {
      out.push_back({"CRD " + name, "stores version \"" + versions.storage + "\", which kueuepp does not read",
                     "upgrade Kueue to v0.14 or later before the takeover"});
    }
    for (const std::string& stored : versions.stored_versions) {
      if (stored != "v1beta1" && stored != "v1beta2") {
        out.push_back({"CRD " + name, "has objects stored as " + stored + " (status.storedVersions)",
                       "migrate them with Kueue's own upgrade to v0.14 or later first"});
      }
    }
  }
  return out;
}

std::optional<Refusal> check_unserved_kind(const KueueKind& kind, std::size_t count,
                                           const std::vector<std::string>& names) {
  if (count == 0) return std::nullopt;
  std::string object = std::to_string(count) + " " + std::string(kind.kind) + (count == 1 ? "" : "s");
  if (!names.empty()) {
    object += " (";
    for (std::size_t i = 0; i < names.size(); ++i) object += (i ? ", " : "") + names[i];
    object += count > names.size() ? ", ...)" : ")";
  }
  return Refusal{object, "kueuepp does not implement " + std::string(kind.unsupported_feature),
                 "delete them if they are no longer used, or keep Kueue"};
}

std::vector<Refusal> check_object(const KueueKind& kind, const json::value& object) {
  std::vector<Refusal> out;
  auto converted = conversion::convert_kueue_object(object, conversion::kKueueV1beta2);
  if (!converted) {
    out.push_back(decode_refusal(object, converted.error()));
    return out;
  }
  const json::value& v1beta2 = *converted;
  if (kind.kind == "ResourceFlavor") {
    auto flavor = kube::decode_resource_flavor(v1beta2);
    add_decode_refusal(out, object, flavor);
    if (flavor && flavor->topology_name) {
      out.push_back({conversion::describe_object(object),
                     "sets spec.topologyName, and kueuepp does not implement topology-aware scheduling",
                     "remove spec.topologyName (kubectl edit), or keep Kueue"});
    }
  } else if (kind.kind == "ClusterQueue") {
    auto queue = kube::decode_cluster_queue(v1beta2);
    add_decode_refusal(out, object, queue);
    if (queue) {
      for (const std::string& what : queue->unsupported) {
        out.push_back({conversion::describe_object(object), what, "remove that field (kubectl edit), or keep Kueue"});
      }
    }
  } else if (kind.kind == "Cohort") {
    add_decode_refusal(out, object, kube::decode_cohort(v1beta2));
  } else if (kind.kind == "LocalQueue") {
    add_decode_refusal(out, object, kube::decode_local_queue(v1beta2));
  } else if (kind.kind == "WorkloadPriorityClass") {
    add_decode_refusal(out, object, kube::decode_workload_priority_class(v1beta2));
  } else if (kind.kind == "AdmissionCheck") {
    add_decode_refusal(out, object, kube::decode_admission_check(v1beta2));
  } else if (kind.kind == "Workload") {
    add_decode_refusal(out, object, kube::decode_workload(v1beta2));
  }
  return out;
}

}  // namespace kueuepp::kube::takeover
