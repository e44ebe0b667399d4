// SPDX-License-Identifier: Apache-2.0
#pragma once
// synthesis_pacer: how many partitions may hold a witness at once
// (synthesizing, synthesized and waiting, or on a device), so that every
// device stays busy and no more witnesses exist than that needs.
//
// The rule, per circuit id, from running averages (EWMA) of the measured
// synthesis time Ts and device time Tg of one partition:
//   in_flight = clamp(ceil(D * Ts / Tg), 1, synthesis workers)
//     syntheses running side by side deliver one partition every Tg / D,
//     which is what D devices consume;
//   lookahead = in_flight + Q
//     Q = the GPU queue depth (pipeline.max_gpu_queue_depth, default the
//     device workers + 1): the partitions on the device workers and ready
//     behind them, which absorb jitter in both stages;
//   with cross-sector batching (a device proves K partitions of the circuit
//   in one pass, K recorded by the device workers: record_batch):
//   lookahead = in_flight + max(Q, K * (D + 1))
//     each of the D devices holds a pass of K witnesses until the pass
//     returns, and one more pass of K fills meanwhile (one worker gathers
//     per circuit at a time); with only Q, a batch larger than the queue
//     never fills and every pass runs short after max_batch_wait;
//   lookahead = min(lookahead, partitions the memory budget can hold)
//     (the budget blocks an acquire past its total anyway; the cap keeps
//     syntheses from starting only to wait for memory).
// Before a circuit is measured the averages start from the 32 GiB PoRep on
// the 16-core H200 host (Ts 4.5 s with several in parallel, Tg 1.5 s: three
// in flight per device); the first measurement replaces the start value.
// Measured example: that host, one device, two workers per device (Q = 3):
// lookahead 3 + 3 = 6 partitions (~25 GB of witnesses) against up to
// 8 synthesis workers + 3 queued + 2 on the device workers = 13 before.
// (Since the CUDA backend's coded form replaces a prepared witness, the
// queued and device-side holders keep ~90 MB each: ~13 GB instead of 25;
// with the PoRep witness synthesized straight into that form, a holder is
// charged ~0.16 GB (0.33 GB while it synthesizes) with B_G2 on the device,
// and the budget's cap on the lookahead is sized with that charge.)
// Cost: a map lookup and a few flops per decision; not thread-safe (the
// engine calls it under its mutex).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace cuzk::engine {

class synthesis_pacer {
 public:
  /// Weight of a new sample: the average follows a change within ~4
  /// partitions (under half a 32 GiB PoRep) and one slow partition moves it
  /// by a quarter.
  static constexpr double alpha = 0.25;
  static constexpr double start_synthesis_ms = 4500, start_device_ms = 1500;

  struct rates {
    double synthesis_ms = start_synthesis_ms, device_ms = start_device_ms;
    std::uint64_t synthesis_samples = 0, device_samples = 0;
  };
  struct limits {
    std::size_t devices = 1;        ///< devices (the CPU backend's virtual devices too)
    std::size_t synth_workers = 1;  ///< pipeline.max_parallel_synthesis (resolved)
    std::size_t queue_depth = 1;    ///< pipeline.max_gpu_queue_depth (resolved)
  };

  void record_synthesis(const std::string& circuit, double ms) {
    rates& r = _rates[circuit];
    r.synthesis_ms = r.synthesis_samples++ ? r.synthesis_ms + alpha * (ms - r.synthesis_ms) : ms;
  }
  void record_device(const std::string& circuit, double ms) {
    rates& r = _rates[circuit];
    r.device_ms = r.device_samples++ ? r.device_ms + alpha * (ms - r.device_ms) : ms;
  }
  /// |k| partitions of |circuit| go to a device in one pass (1: no batching).
  void record_batch(const std::string& circuit, std::size_t k) { _batch[circuit] = std::max<std::size_t>(1, k); }
  std::size_t batch_of(const std::string& circuit) const {
    const auto it = _batch.find(circuit);
    return it == _batch.end() ? 1 : it->second;
  }
  rates rates_of(const std::string& circuit) const {
    const auto it = _rates.find(circuit);
    return it == _rates.end() ? rates{} : it->second;
  }
  const std::map<std::string, rates>& all() const noexcept { return _rates; }

  /// Syntheses in flight that keep |l.devices| devices fed.
  static std::size_t in_flight(const rates& r, const limits& l) {
    const double need = double(std::max<std::size_t>(1, l.devices)) * r.synthesis_ms / std::max(r.device_ms, 0.1);
    const double capped = std::min(std::ceil(need), double(std::max<std::size_t>(1, l.synth_workers)));
    return std::max<std::size_t>(1, std::size_t(capped));
  }
  /// Witness holders allowed for |circuit|; |budget_fit| = partitions of it
  /// the memory budget can hold (0: not known yet, no cap).
  std::size_t lookahead(const std::string& circuit, const limits& l, std::size_t budget_fit) const {
    const std::size_t k = batch_of(circuit);
    const std::size_t device_side =
        k > 1 ? std::max(l.queue_depth, k * (std::max<std::size_t>(1, l.devices) + 1)) : l.queue_depth;
    std::size_t n = in_flight(rates_of(circuit), l) + device_side;
    if (budget_fit > 0) n = std::min(n, budget_fit);
    return std::max<std::size_t>(1, n);
  }

 private:
  std::map<std::string, rates> _rates;
  std::map<std::string, std::size_t> _batch;
};

}  // namespace cuzk::engine
