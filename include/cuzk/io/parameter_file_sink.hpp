// SPDX-License-Identifier: Apache-2.0
#pragma once
// io::parameter_file_writer as the sink of groth16::download_queries: the
// queries of parameters held in VRAM (a GPU setup) stream into a .params
// file chunk by chunk, in file order, never whole on the host. Header-only;
// the writer keeps the section bookkeeping (a chunk out of order throws its
// std::logic_error).
#include <cstddef>
#include <span>

#include <cuzk/groth16/query_transfer_gpu.hpp>
#include <cuzk/io/params.hpp>

namespace cuzk::io {

class parameter_file_sink final : public groth16::query_sink {
 public:
  explicit parameter_file_sink(parameter_file_writer& w) : _w(w) {}
  void put_g1(groth16::query_id, std::size_t, std::span<const ec::g1_affine> pts) override { _w.append_g1(pts); }
  void put_g2(std::size_t, std::span<const ec::g2_affine> pts) override { _w.append_g2(pts); }

 private:
  parameter_file_writer& _w;
};

}  // namespace cuzk::io
