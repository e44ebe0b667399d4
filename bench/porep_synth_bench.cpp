// SPDX-License-Identifier: Apache-2.0
// PoRep partition witness synthesis: wall time, core-seconds (user + system
// CPU of the process) and peak RSS for one StackedDRG partition.
//
//   porep-synth-bench [--sector-size 32GiB] [--threads 2] [--repeats 3]
//                     [--challenges N] [--mode fresh|fast|coded|sequential|count|composition|shape]
//                     [--input random|generated]
//
// fresh: stacked_porep_witness_into a newly allocated, uninitialized
// assignment (2 MiB-aligned, MADV_HUGEPAGE), so the run pays the first
// touch of every page inside the worker threads: the end-to-end cost for
// an engine that owns its buffers; fast: the same into a std::vector
// assignment allocated (and zero-filled, timed separately) once before the
// runs; coded: stacked_porep_coded_witness, the coded witness
// (groth16/coded_witness.hpp, what the GPU prover uploads) synthesized
// straight into per-challenge coded blocks and joined, never the plain
// assignment: its wall and core time include coding every value and the
// join, and its peak RSS (run it alone: the figure is the process's) shows
// that only the coded size is held (the blocks plus the joined form);
// sequential: r1cs::make_witness (the gadget path into witness_cs,
// one thread); count: counting_cs of the blank circuit; composition: the
// fast witness, then how many aux values are 0, 1 or other; shape: the
// r1cs_shape of the blank circuit (matrices, densities) and its build time.
// The input is partition 0 of a C1 from the synthetic generator
// (porep_generator.hpp: real graph, replica_id and challenges, consistent
// labels and paths; --input generated, the default), or a random partition
// of the right shape (--input random: random rows, paths and indices; it
// does not satisfy the circuit, which the witness does not need). Every aux
// value is computed as for a real partition either way, so the timing is
// that of a real one. Prints median/min/max over the repeats.
#include <sys/mman.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <cuzk/circuits/porep_generator.hpp>
#include <cuzk/circuits/stacked_porep.hpp>
#include <cuzk/circuits/stacked_porep_coded.hpp>
#include <cuzk/circuits/stacked_porep_witness.hpp>
#include <cuzk/r1cs/r1cs.hpp>

namespace {

using namespace cuzk;
using ff::fr;

double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + 1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

double peak_rss_gib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_maxrss) / (1024.0 * 1024.0);  // ru_maxrss is in KiB
}

gadgets::merkle_path random_path(const gadgets::merkle_tree_shape& shape, std::mt19937_64& rng) {
  gadgets::merkle_path p;
  for (std::size_t l = 0; l < shape.levels(); ++l) {
    p.indices.push_back(std::uint32_t(rng() % shape.arity(l)));
    for (std::size_t j = 0; j + 1 < shape.arity(l); ++j) p.siblings.push_back(fr::random(rng));
  }
  return p;
}

circuits::stacked_porep_circuit random_partition(const circuits::stacked_porep_params& p, std::mt19937_64& rng) {
  circuits::stacked_porep_circuit c{
      p, fr::random(rng), fr::random(rng), fr::random(rng), fr::random(rng), fr::random(rng), {}};
  for (std::size_t i = 0; i < p.challenges; ++i) {
    circuits::stacked_challenge_witness w;
    w.challenge = rng() % p.nodes;
    w.data_leaf = fr::random(rng);
    w.comm_d_path = random_path(p.tree_d_shape(), rng);
    w.comm_r_last_path = random_path(p.tree_shape, rng);
    w.comm_c_path = random_path(p.tree_shape, rng);
    for (auto* cols : {&w.drg_parents, &w.exp_parents}) {
      const std::size_t n = cols == &w.drg_parents ? circuits::stacked_drg_degree : circuits::stacked_exp_degree;
      for (std::size_t j = 0; j < n; ++j) {
        circuits::stacked_column_witness col;
        for (std::size_t l = 0; l < p.layers; ++l) col.rows.push_back(fr::random(rng));
        col.path = random_path(p.tree_shape, rng);
        cols->push_back(std::move(col));
      }
    }
    c.proofs.push_back(std::move(w));
  }
  return c;
}

// An uninitialized Fr array on 2 MiB pages where the kernel allows it.
struct fr_buffer {
  struct deleter {
    void operator()(fr* p) const noexcept { std::free(p); }
  };
  std::unique_ptr<fr[], deleter> data;
  std::size_t size = 0;
  explicit fr_buffer(std::size_t n) : size(n) {
    constexpr std::size_t huge = std::size_t(2) << 20;
    const std::size_t bytes = (n * sizeof(fr) + huge - 1) / huge * huge;
    void* p = std::aligned_alloc(huge, bytes);
    if (!p) throw std::bad_alloc();
    madvise(p, bytes, MADV_HUGEPAGE);
    data.reset(static_cast<fr*>(p));
  }
  std::span<fr> span() const { return {data.get(), size}; }
};

struct stats {
  double median, min, max;
};
stats summarize(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

int usage() {
  std::fprintf(stderr,
               "usage: porep-synth-bench [--sector-size 32GiB] [--threads N] [--repeats N] [--challenges N] "
               "[--mode fresh|fast|coded|sequential|count|composition|shape] [--input generated|random]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string size_arg = "32GiB", mode = "fresh", input = "generated";
  unsigned threads = 2, repeats = 3;
  long challenges = -1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return usage();
    const char* v = argv[++i];
    if (a == "--sector-size") size_arg = v;
    else if (a == "--threads") threads = unsigned(std::atoi(v));
    else if (a == "--repeats") repeats = unsigned(std::max(1, std::atoi(v)));
    else if (a == "--challenges") challenges = std::atol(v);
    else if (a == "--mode") mode = v;
    else if (a == "--input") input = v;
    else return usage();
  }
  const std::optional<std::uint64_t> size = circuits::parse_sector_size(size_arg);
  if (!size) return usage();
  circuits::stacked_porep_params p = circuits::stacked_porep_params_for_size(*size);
  if (challenges > 0) p.challenges = std::size_t(challenges);

  std::mt19937_64 rng(42);
  circuits::stacked_porep_circuit c;
  if (input == "random") {
    c = random_partition(p, rng);
  } else if (input == "generated") {
    const io::seal_proof_info* info = io::find_seal_proof_by_size(*size);
    if (!info) return usage();
    const auto g0 = std::chrono::steady_clock::now();
    io::c1_output c1 = circuits::generate_synthetic_porep(*info, 42).c1;
    c1.partitions.resize(1);
    c1.partitions[0].resize(std::min(c1.partitions[0].size(), p.challenges));
    c = circuits::stacked_porep_circuit_from_c1(p, c1, 0);
    std::printf("generated C1 (%s, partition 0) in %.2f s\n", std::string(info->name).c_str(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - g0).count());
  } else {
    return usage();
  }
  const circuits::stacked_witness_layout layout = circuits::stacked_witness_layout_for(p);
  std::printf("porep %s: %zu challenges, %u layers; %zu inputs, %zu aux (%zu per challenge); mode %s, %u threads\n",
              size_arg.c_str(), p.challenges, p.layers, layout.num_inputs(), layout.num_aux(), layout.challenge_aux,
              mode.c_str(), threads);

  std::vector<fr> inputs, aux;
  if (mode == "fast") {
    const double t0 = cpu_seconds();
    const auto w0 = std::chrono::steady_clock::now();
    inputs.resize(layout.num_inputs());
    aux.resize(layout.num_aux());
    std::printf("allocate + zero the assignment: %.2f s wall, %.2f core-s\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count(), cpu_seconds() - t0);
  }
  std::vector<double> walls, cores;
  for (unsigned r = 0; r < repeats; ++r) {
    const double c0 = cpu_seconds();
    const auto w0 = std::chrono::steady_clock::now();
    std::size_t check = 0;
    if (mode == "fresh") {
      const fr_buffer in(layout.num_inputs()), out(layout.num_aux());
      circuits::stacked_porep_witness_into(c, layout, in.span(), out.span(), threads);
      check = out.size;
    } else if (mode == "fast") {
      circuits::stacked_porep_witness_into(c, layout, inputs, aux, threads);
      check = aux.size();
    } else if (mode == "coded") {
      const std::optional<groth16::coded_witness> cw =
          circuits::stacked_porep_coded_witness(c, layout, ~std::size_t(0), threads);
      if (r == 0)
        std::printf("coded witness: %zu values, %zu other, %.1f MB (plain: %.1f MB)\n", cw->size, cw->others.size(),
                    1e-6 * double(cw->bytes()), 1e-6 * double(cw->size * sizeof(fr)));
      check = cw->size - layout.num_inputs();
    } else if (mode == "sequential") {
      const r1cs::witness_cs w = r1cs::make_witness(c, layout.num_inputs(), layout.num_aux());
      check = w.num_aux();
    } else if (mode == "composition") {
      // How many witness values are 0, 1 or anything else: the GPU MSMs sum
      // the 1s by plain additions and run Pippenger over the rest only.
      inputs.resize(layout.num_inputs());
      aux.resize(layout.num_aux());
      circuits::stacked_porep_witness_into(c, layout, inputs, aux, threads);
      std::size_t zeros = 0, ones = 0;
      for (const fr& v : aux) {
        if (v.is_zero()) ++zeros;
        else if (v == fr::one()) ++ones;
      }
      std::printf("aux composition: %zu zero (%.1f%%), %zu one (%.1f%%), %zu other (%.1f%%)\n", zeros,
                  100.0 * double(zeros) / double(aux.size()), ones, 100.0 * double(ones) / double(aux.size()),
                  aux.size() - zeros - ones, 100.0 * double(aux.size() - zeros - ones) / double(aux.size()));
      check = aux.size();
    } else if (mode == "shape") {
      const r1cs::r1cs_shape sh = r1cs::make_shape(circuits::blank_stacked_porep_circuit(p));
      std::printf(
          "shape: %zu constraints, nnz A %zu B %zu C %zu, A aux density %zu, B input density %zu, "
          "B aux density %zu, %zu coefficients\n",
          sh.num_constraints, sh.a.nnz(), sh.b.nnz(), sh.c.nnz(), sh.a_aux_density.count(), sh.b_input_density.count(),
          sh.b_aux_density.count(), sh.coeffs.size());
      check = sh.num_aux;
    } else if (mode == "count") {
      r1cs::counting_cs cs;
      r1cs::synthesize_circuit(circuits::blank_stacked_porep_circuit(p), cs);
      check = cs.num_aux();
    } else {
      return usage();
    }
    walls.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count());
    cores.push_back(cpu_seconds() - c0);
    std::printf("run %u: %.3f s wall, %.3f core-s (%zu aux)\n", r, walls.back(), cores.back(), check);
  }
  const stats w = summarize(walls), k = summarize(cores);
  std::printf("wall:   median %.3f s  min %.3f  max %.3f\n", w.median, w.min, w.max);
  std::printf("cores:  median %.3f core-s  min %.3f  max %.3f\n", k.median, k.min, k.max);
  std::printf("peak RSS: %.2f GiB\n", peak_rss_gib());
  return 0;
}
