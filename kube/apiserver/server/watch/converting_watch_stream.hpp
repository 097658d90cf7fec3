#pragma once

// The events of one watch whose objects the CRD's conversion webhook converts (a watch
// opened on a version objects are not stored in): each event waits for its conversion,
// and events (bookmarks too) reach the client in the order they happened, one
// conversion at a time. A conversion that fails ends the watch with an ERROR event
// carrying the failure, as kube-apiserver ends a watch it cannot encode for.

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>

#include "kube/apiserver/server/api/media.hpp"
#include "kube/apiserver/server/http/http_types.hpp"
#include "kube/apiserver/server/registry/resource_type.hpp"
#include "kube/apiserver/server/store/stored_object.hpp"

namespace kueuepp::kube::server {

class ConvertingWatchStream : public std::enable_shared_from_this<ConvertingWatchStream> {
 public:
  ConvertingWatchStream(std::shared_ptr<StreamSink> sink, ResourceTypePtr view, Representation rep,
                        std::string include_object);

  /// Queues an event of `object` (converted when it needs it). False once the stream
  /// has ended (closed, too far behind, or a conversion failed).
  bool event(std::string_view type, ObjectPtr object);
  /// Queues bytes that need no conversion (a bookmark) behind the events before them.
  bool raw(std::shared_ptr<const std::string> bytes);
  bool ended() const { return ended_; }

 private:
  struct Entry {
    std::string type;
    ObjectPtr object;
    std::shared_ptr<const std::string> bytes;  ///< null until converted
  };
  /// Sends the ready events at the front, then starts converting the first that is not.
  void pump();
  void end(std::shared_ptr<const std::string> last);

  std::shared_ptr<StreamSink> sink_;
  ResourceTypePtr view_;
  Representation rep_;
  std::string include_object_;
  std::deque<Entry> queue_;
  bool converting_ = false;
  bool ended_ = false;
};

}  // namespace kueuepp::kube::server
