// SPDX-License-Identifier: Apache-2.0
#pragma once
// stage_timer: the TIMELINE lines of one pipeline stage of one partition
// (SYNTH_START/SYNTH_END, GPU_START/GPU_LENT/GPU_END, FINALIZE), written in
// one place so that every stage brackets itself the same way: the start
// event when the stage begins (none for a stage that reports only its end),
// events in between with the stage's detail, and the end event with the
// fields the stage measured, once, at end() or when the timer goes out of
// scope. A stage that fails or is cancelled leaves by an exception: then no
// end event is written (the job's failure is logged by the job table), so
// an end line always means the stage's work was done. Cost: the detail
// strings, as the events themselves.
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <utility>

#include <cuzk/engine/event_log.hpp>

namespace cuzk::engine {

class stage_timer {
 public:
  struct event_names {
    const char* start;  ///< null: the stage writes only its end event
    const char* end;
  };
  /// Emits |names.start| (if any) with |detail| ("partition=3", ...).
  stage_timer(event_log& log, std::string job_id, event_names names, std::string detail)
      : _log(log), _job(std::move(job_id)), _names(names), _detail(std::move(detail)) {
    if (_names.start) _log.emit(_names.start, _job, _detail);
  }
  stage_timer(const stage_timer&) = delete;
  stage_timer& operator=(const stage_timer&) = delete;
  ~stage_timer() {
    if (std::uncaught_exceptions() == _unwinding) end();
  }

  /// An event inside the stage: the stage's detail plus |extra| (",k=v").
  void event(const char* name, std::string_view extra) const { _log.emit(name, _job, _detail + std::string(extra)); }
  /// Appends ",|key|=|value|" to the end event's detail.
  void add(std::string_view key, std::string_view value) { _fields.append(",").append(key).append("=").append(value); }
  void add(std::string_view key, std::uint64_t value) { add(key, std::to_string(value)); }
  /// Leaves without the end event: a partition cancelled inside a batch
  /// whose other partitions went on (its stage's work was not done).
  void abandon() noexcept { _ended = true; }
  /// Emits the end event now; later calls and the destructor do nothing.
  void end() noexcept {
    if (_ended) return;
    _ended = true;
    try {
      _log.emit(_names.end, _job, _detail + _fields);
    } catch (...) {  // no memory for the line: the stage's result matters more
    }
  }

 private:
  event_log& _log;
  const std::string _job;
  const event_names _names;
  const std::string _detail;
  std::string _fields;
  bool _ended = false;
  const int _unwinding = std::uncaught_exceptions();
};

}  // namespace cuzk::engine
