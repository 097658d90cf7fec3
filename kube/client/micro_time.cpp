#include "kube/client/micro_time.hpp"

#include "core/model/time.hpp"

namespace kueuepp::kube::client {

using namespace std::chrono;

std::string format_time(TimePoint t) { return core::format_rfc3339(floor<microseconds>(t)); }
std::string format_micro_time(TimePoint t) { return core::format_rfc3339_micro(floor<microseconds>(t)); }

std::optional<TimePoint> parse_time(std::string_view text) {
  auto f = core::scan_rfc3339(text);
  if (!f || f->separator == ' ' || !f->in_range()) return std::nullopt;
  // In seconds first: system_clock's nanosecond time points only span 1678–2261, and
  // an out-of-range time must be rejected, not wrapped around.
  const sys_seconds utc = f->utc_seconds();
  const auto earliest = ceil<seconds>(system_clock::time_point::min()) + seconds{1};
  const auto latest = floor<seconds>(system_clock::time_point::max()) - seconds{1};
  if (utc < earliest || utc > latest) return std::nullopt;
  return time_point_cast<system_clock::duration>(utc) +
         duration_cast<system_clock::duration>(nanoseconds(f->nanos));
}

}  // namespace kueuepp::kube::client
