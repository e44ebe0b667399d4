// SPDX-License-Identifier: Apache-2.0
#pragma once
// The .shape file: one r1cs::r1cs_shape stored on disk, so a daemon start
// reads the shape of a large circuit instead of synthesizing the blank
// circuit again (the 32 GiB PoRep shape is 8.9 GiB and takes 77-85 s to
// build on one thread). Written by this build for this build's machines:
// the payload is the vectors' memory as is (little-endian, Fr in Montgomery
// form), not a portable interchange format.
//
// Layout (all integers little-endian):
//   0    8  magic "cuzkshap"
//   8    4  format version (shape_file_format_version)
//   12   4  shape version (circuit_info::shape_version of the circuit)
//   16   4  length L of the circuit id (at most 256)
//   20   4  log2 of the digest chunk size (26: 64 MiB)
//   24   8  num_inputs        32  8  num_aux        40  8  num_constraints
//   48   8  number of dictionary coefficients
//   56   8  nnz of A          64  8  nnz of B       72  8  nnz of C
//   80   8  payload bytes
//   88  32  digest
//   120  L  circuit id (UTF-8, no terminator)
//   then the payload, sections back to back, no padding:
//     coeffs (32 bytes each); for A, B, C: row_ptr (u64, rows + 1), cols
//     (u32, nnz), coeff_ids (u32, nnz); the density masks a_aux (num_aux
//     bits), b_input (num_inputs bits), b_aux (num_aux bits), each as u64
//     words, bit i of word i/64.
// Digest: SHA-256 over header bytes [0, 88), the circuit id, then the
// SHA-256 of each chunk of the payload (chunks of 2^log2 bytes, the last one
// shorter), in order. Any flipped bit of the header or payload changes it;
// the chunks are hashed in parallel, so checking costs a fraction of the
// read (SHA-NI: ~2 GB/s per core).
//
// Reading checks, before it allocates anything, that the header is whole,
// that the counts fit (variables < 2^32, sizes without overflow) and that
// the file holds exactly header + payload bytes; then it reads the payload
// with large parallel preads straight into the vectors (no per-element
// parsing), checks the digest, and then the structure: every row_ptr
// monotone from 0 to nnz, columns strictly increasing within a row and below
// num_variables, coefficient ids below the dictionary size, coefficients
// reduced (< p) with [0] = 1 and [1] = -1, density masks with no bit past
// their variable count and equal to the masks the columns of A and B imply. A file that fails any check throws io::format_error
// (kind "shape") naming the path, the section, the byte offset and the
// problem, so a corrupt file can never produce a shape.
//
// Costs (bench/shape_file_bench.cpp, the 185 MB 2 KiB PoRep shape, idle
// 2-core dev VM, file in the page cache, median of 3): read with every
// check 213 ms (about two CPU-seconds per GB: SHA-256 at ~1.8 GB/s per
// core, the zero-filled vectors, the structure and density passes), write
// 284 ms with the fsync; a read from disk adds the disk's time.

#include <cstdint>
#include <filesystem>
#include <string>

#include <cuzk/r1cs/shape.hpp>

namespace cuzk::io {

inline constexpr std::uint32_t shape_file_format_version = 1;

/// Which shape a file holds: the circuit and the revision of its constraints.
struct shape_key {
  std::string circuit_id;
  std::uint32_t shape_version = 0;
  friend bool operator==(const shape_key&, const shape_key&) = default;
};

/// The header of a .shape file, decoded and checked (sizes agree with the
/// file's length), payload not read.
struct shape_file_header {
  shape_key key;
  std::uint64_t num_inputs = 0, num_aux = 0, num_constraints = 0, num_coeffs = 0;
  std::uint64_t nnz_a = 0, nnz_b = 0, nnz_c = 0;
  std::uint64_t payload_bytes = 0;
};

/// Writes |shape| under |key| to |path| atomically (a temporary in the same
/// folder, fsync, rename). Throws std::invalid_argument for a shape this
/// format cannot hold (2^32 or more variables, density masks of other
/// lengths than num_aux / num_inputs, a malformed CSR), io::format_error
/// naming |path| when the file cannot be written.
void write_shape_file(const std::filesystem::path& path, const r1cs::r1cs_shape& shape, const shape_key& key);

/// Reads and checks the header only (cheap: one 120-byte read and a stat).
shape_file_header read_shape_file_header(const std::filesystem::path& path);

/// Reads the whole file and checks it (see above); throws io::format_error
/// when it is malformed or corrupt, or when it holds another key than
/// |expected| (a stale file).
r1cs::r1cs_shape read_shape_file(const std::filesystem::path& path, const shape_key& expected);

}  // namespace cuzk::io
