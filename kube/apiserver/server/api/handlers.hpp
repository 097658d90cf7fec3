#pragma once

// The request handlers for resources, one per verb. The dispatcher
// (api_handler.cpp) resolves the resource and calls one of these.

#include "kube/apiserver/server/api/resource_request.hpp"

namespace kueuepp::kube::server {

void handle_get(const RequestPtr& r);
void handle_list(const RequestPtr& r);
void handle_watch(const RequestPtr& r);
void handle_create(const RequestPtr& r);
void handle_update(const RequestPtr& r);
void handle_patch(const RequestPtr& r);
void handle_delete(const RequestPtr& r);
void handle_delete_collection(const RequestPtr& r);

}  // namespace kueuepp::kube::server
