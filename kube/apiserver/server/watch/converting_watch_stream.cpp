#include "kube/apiserver/server/watch/converting_watch_stream.hpp"

#include <spdlog/spdlog.h>

#include "kube/apiserver/server/api/api_error.hpp"
#include "kube/apiserver/server/api/object_encoding.hpp"
#include "kube/apiserver/server/api/webhook_conversion.hpp"

namespace kueuepp::kube::server {

ConvertingWatchStream::ConvertingWatchStream(std::shared_ptr<StreamSink> sink, ResourceTypePtr view,
                                             Representation rep, std::string include_object)
    : sink_(std::move(sink)), view_(std::move(view)), rep_(rep), include_object_(std::move(include_object)) {}

bool ConvertingWatchStream::event(std::string_view type, ObjectPtr object) {
  if (ended_) return false;
  Entry e{std::string(type), std::move(object), nullptr};
  if (rep_ == Representation::PartialMetadata || !needs_webhook_conversion(*e.object, *view_)) {
    e.bytes = watch_event_line(e.type, *e.object, *view_, rep_, include_object_);
  }
  queue_.push_back(std::move(e));
  pump();
  return !ended_;
}

bool ConvertingWatchStream::raw(std::shared_ptr<const std::string> bytes) {
  if (ended_) return false;
  queue_.push_back(Entry{{}, nullptr, std::move(bytes)});
  pump();
  return !ended_;
}

void ConvertingWatchStream::end(std::shared_ptr<const std::string> last) {
  ended_ = true;
  queue_.clear();
  if (!sink_->closed()) sink_->finish(std::move(last));
}

void ConvertingWatchStream::pump() {
  while (!ended_ && !queue_.empty() && queue_.front().bytes) {
    if (!sink_->write(queue_.front().bytes)) {
      if (!sink_->closed()) spdlog::warn("watch of {} ended: the client is not reading fast enough", view_->plural);
      end(sink_->closed() ? nullptr : error_line(to_status(gone("too old resource version: the watch fell too far behind"))));
      return;
    }
    queue_.pop_front();
  }
  if (ended_ || converting_ || queue_.empty()) return;
  converting_ = true;
  std::weak_ptr<ConvertingWatchStream> weak = weak_from_this();
  convert_for_view({queue_.front().object}, *view_, [weak](ApiResult<std::vector<json::value>> converted) {
    auto self = weak.lock();
    if (!self || self->ended_) return;
    self->converting_ = false;
    if (!converted) {
      spdlog::warn("watch of {} ended: {}", self->view_->plural, converted.error().message);
      self->end(error_line(to_status(converted.error())));
      return;
    }
    Entry& front = self->queue_.front();
    front.bytes = watch_event_line(front.type, converted->front(), *self->view_, self->rep_, self->include_object_,
                                   front.object->rv);
    self->pump();
  });
}

}  // namespace kueuepp::kube::server
