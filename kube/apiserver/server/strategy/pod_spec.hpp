#pragma once

// PodSpec defaulting and validation shared by Pods and the pod templates of Jobs and
// Deployments (k8s.io/kubernetes/pkg/apis/core/v1 defaults, the subset of core
// validation that matters to batch workloads).

#include <string>
#include <string_view>

#include "kube/json/json.hpp"
#include "kube/apiserver/server/api/field_error.hpp"

namespace kueuepp::kube::server {

/// Fills PodSpec defaults (dnsPolicy, restartPolicy when `default_restart_policy`,
/// terminationGracePeriodSeconds, securityContext, schedulerName, volume file modes,
/// container terminationMessage*, imagePullPolicy, resources, port protocols, probe
/// timings and httpGet path/scheme, env fieldRef apiVersion).
void default_pod_spec(json::object& spec, bool default_restart_policy);

/// A pod template: metadata.creationTimestamp null plus default_pod_spec. Jobs leave
/// restartPolicy to their own validation (which refuses the "Always" kube-apiserver
/// would default); Deployments get "Always".
void default_pod_template(json::object& tmpl, bool default_restart_policy = false);

/// Validates a PodSpec at `path` ("spec" or "spec.template.spec"): containers present
/// and well-formed, unique names, images, restartPolicy values.
FieldErrors validate_pod_spec(const json::value* spec, const std::string& path);

/// The QoS class kube-apiserver records for a pod: Guaranteed, Burstable or BestEffort.
std::string qos_class(const json::object& spec);

}  // namespace kueuepp::kube::server
