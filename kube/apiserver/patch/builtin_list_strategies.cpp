// The list strategies and atomic objects of the built-in kinds the product touches.
//
// Facts from k8s.io/api and k8s.io/apimachinery (meta/v1) Go types: the strategic merge
// tags `patchStrategy`/`patchMergeKey` and the server-side apply markers `+listType`,
// `+listMapKey`, `+structType=atomic`, `+mapType=atomic`. They are kept as a small type
// graph (one entry per Go struct, only the fields that lead to a non-atomic list or an
// atomic object), so a Pod template is described once and shared by Job and Pod.
//
// Lists not listed here are atomic for both (that is what an unannotated list is, and
// what `+listType=atomic` without a patch strategy means). Lists nested inside an atomic
// list are never consulted, so they are not listed either (e.g. containerStatuses).

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "kube/apiserver/patch/patch.hpp"

namespace kueuepp::kube::patch {
namespace {

enum class L : std::uint8_t { Atomic, Set, Map };

// One list strategy: kind, up to two keys, and the schema default of the second key.
struct Tag {
  L kind = L::Atomic;
  std::string_view key1 = {};
  std::string_view key2 = {};
  std::string_view key2_default = {};
};

struct Type;

struct Field {
  std::string_view name;
  const Type* type = nullptr;  ///< the object's (or the list element's) own fields
  Tag smp = {};                ///< strategic merge patch
  Tag ssa = {};                ///< server-side apply
  bool atomic = false;         ///< the object (or each list element) is atomic for apply
};

struct Type {
  std::span<const Field> fields;
};

constexpr Tag kSet{L::Set};
constexpr Tag by(std::string_view key) { return Tag{L::Map, key}; }

// A list merged the same way by both mechanisms.
constexpr Field list(std::string_view name, Tag tag, const Type* type = nullptr, bool atomic_elements = false) {
  return Field{name, type, tag, tag, atomic_elements};
}
constexpr Field object(std::string_view name, const Type* type) { return Field{name, type}; }
constexpr Field atomic(std::string_view name) { return Field{name, nullptr, {}, {}, true}; }

// ---- meta/v1 -------------------------------------------------------------------------

constexpr std::array kObjectMetaFields{
    list("finalizers", kSet),
    list("ownerReferences", by("uid"), nullptr, /*atomic OwnerReference*/ true),
};
constexpr Type kObjectMeta{kObjectMetaFields};

// ---- core/v1: containers -------------------------------------------------------------

constexpr std::array kEnvVarSourceFields{
    atomic("fieldRef"), atomic("resourceFieldRef"), atomic("configMapKeyRef"), atomic("secretKeyRef"),
};
constexpr Type kEnvVarSource{kEnvVarSourceFields};
constexpr std::array kEnvVarFields{object("valueFrom", &kEnvVarSource)};
constexpr Type kEnvVar{kEnvVarFields};

constexpr std::array kResourceRequirementsFields{
    // +listType=map +listMapKey=name, but no patch strategy: replaced by strategic merge.
    Field{"claims", nullptr, {}, by("name")},
};
constexpr Type kResourceRequirements{kResourceRequirementsFields};

constexpr std::array kContainerFields{
    // patchMergeKey containerPort; apply keys containerPort+protocol (protocol defaults to TCP).
    Field{"ports", nullptr, by("containerPort"), Tag{L::Map, "containerPort", "protocol", "TCP"}},
    list("env", by("name"), &kEnvVar),
    object("resources", &kResourceRequirements),
    list("volumeMounts", by("mountPath")),
    list("volumeDevices", by("devicePath")),
};
constexpr Type kContainer{kContainerFields};

// ---- core/v1: volumes ----------------------------------------------------------------

constexpr std::array kSecretRefFields{atomic("secretRef")};
constexpr Type kWithSecretRef{kSecretRefFields};
constexpr std::array kCSIVolumeSourceFields{atomic("nodePublishSecretRef")};
constexpr Type kCSIVolumeSource{kCSIVolumeSourceFields};

constexpr std::array kPersistentVolumeClaimSpecFields{atomic("selector"), atomic("dataSource")};
constexpr Type kPersistentVolumeClaimSpec{kPersistentVolumeClaimSpecFields};
constexpr std::array kPersistentVolumeClaimTemplateFields{
    object("metadata", &kObjectMeta),
    object("spec", &kPersistentVolumeClaimSpec),
};
constexpr Type kPersistentVolumeClaimTemplate{kPersistentVolumeClaimTemplateFields};
constexpr std::array kEphemeralVolumeSourceFields{object("volumeClaimTemplate", &kPersistentVolumeClaimTemplate)};
constexpr Type kEphemeralVolumeSource{kEphemeralVolumeSourceFields};

constexpr std::array kVolumeFields{
    object("iscsi", &kWithSecretRef),  object("rbd", &kWithSecretRef),     object("flexVolume", &kWithSecretRef),
    object("cinder", &kWithSecretRef), object("cephfs", &kWithSecretRef),  object("scaleIO", &kWithSecretRef),
    object("storageos", &kWithSecretRef), object("csi", &kCSIVolumeSource),
    object("ephemeral", &kEphemeralVolumeSource),
};
constexpr Type kVolume{kVolumeFields};

// ---- core/v1: pods -------------------------------------------------------------------

constexpr std::array kNodeAffinityFields{atomic("requiredDuringSchedulingIgnoredDuringExecution")};
constexpr Type kNodeAffinity{kNodeAffinityFields};
constexpr std::array kAffinityFields{object("nodeAffinity", &kNodeAffinity)};
constexpr Type kAffinity{kAffinityFields};

constexpr std::array kTopologySpreadConstraintFields{atomic("labelSelector")};
constexpr Type kTopologySpreadConstraint{kTopologySpreadConstraintFields};

constexpr std::array kPodSpecFields{
    // patchStrategy "merge,retainKeys": $retainKeys comes in the patch itself.
    list("volumes", by("name"), &kVolume),
    list("initContainers", by("name"), &kContainer),
    list("containers", by("name"), &kContainer),
    list("ephemeralContainers", by("name"), &kContainer),
    list("imagePullSecrets", by("name"), nullptr, /*atomic LocalObjectReference*/ true),
    atomic("nodeSelector"),  // +mapType=atomic
    object("affinity", &kAffinity),
    list("hostAliases", by("ip")),
    Field{"topologySpreadConstraints", &kTopologySpreadConstraint, by("topologyKey"),
          Tag{L::Map, "topologyKey", "whenUnsatisfiable"}},
    list("schedulingGates", by("name")),
    list("resourceClaims", by("name")),
    object("resources", &kResourceRequirements),
};
constexpr Type kPodSpec{kPodSpecFields};

constexpr std::array kPodTemplateSpecFields{object("metadata", &kObjectMeta), object("spec", &kPodSpec)};
constexpr Type kPodTemplateSpec{kPodTemplateSpecFields};

constexpr std::array kPodStatusFields{
    list("conditions", by("type")),
    Field{"hostIPs", nullptr, by("ip"), {}},  // +listType=atomic despite the patch strategy
    list("podIPs", by("ip")),
    list("resourceClaimStatuses", by("name")),
};
constexpr Type kPodStatus{kPodStatusFields};

constexpr std::array kPodFields{
    object("metadata", &kObjectMeta),
    object("spec", &kPodSpec),
    object("status", &kPodStatus),
};
constexpr Type kPod{kPodFields};

// ---- batch/v1 ------------------------------------------------------------------------

constexpr std::array kJobSpecFields{
    atomic("selector"),  // LabelSelector
    object("template", &kPodTemplateSpec),
};
constexpr Type kJobSpec{kJobSpecFields};

constexpr std::array kUncountedTerminatedPodsFields{
    Field{"succeeded", nullptr, {}, kSet},
    Field{"failed", nullptr, {}, kSet},
};
constexpr Type kUncountedTerminatedPods{kUncountedTerminatedPodsFields};

constexpr std::array kJobStatusFields{
    Field{"conditions", nullptr, by("type"), {}},  // +listType=atomic for apply
    object("uncountedTerminatedPods", &kUncountedTerminatedPods),
};
constexpr Type kJobStatus{kJobStatusFields};

constexpr std::array kJobFields{
    object("metadata", &kObjectMeta),
    object("spec", &kJobSpec),
    object("status", &kJobStatus),
};
constexpr Type kJob{kJobFields};

// ---- the other kinds -----------------------------------------------------------------

constexpr std::array kNamespaceStatusFields{list("conditions", by("type"))};
constexpr Type kNamespaceStatus{kNamespaceStatusFields};
constexpr std::array kNamespaceFields{object("metadata", &kObjectMeta), object("status", &kNamespaceStatus)};
constexpr Type kNamespace{kNamespaceFields};

constexpr std::array kServiceAccountFields{
    object("metadata", &kObjectMeta),
    list("secrets", by("name"), nullptr, /*atomic ObjectReference*/ true),
};
constexpr Type kServiceAccount{kServiceAccountFields};

constexpr std::array kCoreEventFields{
    object("metadata", &kObjectMeta), atomic("involvedObject"), atomic("related"),
};
constexpr Type kCoreEvent{kCoreEventFields};

constexpr std::array kEventsV1EventFields{
    object("metadata", &kObjectMeta), atomic("regarding"), atomic("related"),
};
constexpr Type kEventsV1Event{kEventsV1EventFields};

// Every object has metadata: ConfigMap, Lease, PriorityClass and unknown kinds alike.
constexpr std::array kAnyObjectFields{object("metadata", &kObjectMeta)};
constexpr Type kAnyObject{kAnyObjectFields};

struct Kind {
  std::string_view group;
  std::string_view kind;
  const Type* type;
};
constexpr std::array kKinds{
    Kind{"batch", "Job", &kJob},
    Kind{"", "Pod", &kPod},
    Kind{"", "Namespace", &kNamespace},
    Kind{"", "ServiceAccount", &kServiceAccount},
    Kind{"", "Event", &kCoreEvent},
    Kind{"events.k8s.io", "Event", &kEventsV1Event},
    // ConfigMap, coordination.k8s.io Lease, scheduling.k8s.io PriorityClass: no list or
    // atomic object besides their metadata.
};

const Type* root_type(std::string_view group, std::string_view kind) {
  for (const auto& k : kKinds) {
    if (k.group == group && k.kind == kind) return k.type;
  }
  return &kAnyObject;
}

// The field at the end of `path`, or nullptr when the path leaves the table.
const Field* find_field(const Type* root, FieldPath path) {
  const Type* type = root;
  const Field* found = nullptr;
  for (const std::string& segment : path) {
    if (type == nullptr) return nullptr;
    found = nullptr;
    for (const Field& f : type->fields) {
      if (f.name == segment) {
        found = &f;
        break;
      }
    }
    if (found == nullptr) return nullptr;
    type = found->type;
  }
  return found;
}

ListStrategy to_strategy(const Tag& tag) {
  ListStrategy s;
  switch (tag.kind) {
    case L::Atomic:
      return s;
    case L::Set:
      s.kind = ListStrategy::Kind::Set;
      return s;
    case L::Map:
      s.kind = ListStrategy::Kind::Map;
      s.keys.emplace_back(tag.key1);
      if (!tag.key2.empty()) s.keys.emplace_back(tag.key2);
      if (!tag.key2_default.empty()) s.key_defaults[tag.key2] = tag.key2_default;
      return s;
  }
  return s;
}

}  // namespace

ListStrategyResolver builtin_list_strategies(std::string_view group, std::string_view kind) {
  const Type* root = root_type(group, kind);
  return [root](FieldPath path) {
    const Field* f = find_field(root, path);
    return f != nullptr ? to_strategy(f->smp) : ListStrategy{};
  };
}

ListStrategyResolver builtin_apply_list_strategies(std::string_view group, std::string_view kind) {
  const Type* root = root_type(group, kind);
  return [root](FieldPath path) {
    const Field* f = find_field(root, path);
    return f != nullptr ? to_strategy(f->ssa) : ListStrategy{};
  };
}

AtomicObjectResolver builtin_atomic_objects(std::string_view group, std::string_view kind) {
  const Type* root = root_type(group, kind);
  return [root](FieldPath path) {
    const Field* f = find_field(root, path);
    return f != nullptr && f->atomic;
  };
}

}  // namespace kueuepp::kube::patch
