// SPDX-License-Identifier: Apache-2.0
#pragma once
// Filecoin Groth16 parameter files: .vk, .params and .meta, byte for byte as
// bellperson writes them (VerifyingKey::write, Parameters::write) and as
// rust-fil-proofs' paramcache names and checks them. Format notes:
// docs/FORMATS.md §1.
//
// Layout (no header, no magic, no padding, nothing after the last section):
//   .vk      alpha_g1 G1 | beta_g1 G1 | beta_g2 G2 | gamma_g2 G2 | delta_g1 G1
//            | delta_g2 G2 | u32be ic_len | ic_len x G1          868 + 96 ic_len B
//   .params  the .vk layout, then five vectors, each u32be len | len x point:
//            h (G1), l (G1), a (G1), b_g1 (G1), b_g2 (G2)
// Points are uncompressed ZCash encodings (G1 96 B, G2 192 B; §3 there).
// .meta is the JSON {"sector_size":N} that paramcache writes next to them.
//
// Reading happens in two steps. parameter_layout walks the length fields of
// a byte image (normally a read-only mmap, mapped_parameter_file) and yields
// named sections { name, offset, count, point_size, bytes } without decoding
// a single point, so the engine can hand raw sections to the GPU loader.
// Every length is checked against the bytes left before anything is used:
// a truncated file, a length field claiming more than the file holds, and
// trailing bytes after the last section all throw io::format_error naming the
// section and the byte offset, e.g.
//   params file 'x.params': section 'l' at byte offset 123456: truncated:
//   12 points need 1152 bytes, 512 left
// Decoding (read_parameters, read_verifying_key, decode_*) then turns every
// section into affine points with the batch decoders of ec/serialization.hpp,
// all sections at once on oneTBB. A rejected point names its section, its
// index and the decode rule it broke. As bellperson does, the six fixed vk
// points may be the point at infinity, while every point of ic, h, l, a,
// b_g1 and b_g2 must not be (bellperson's readers reject them; the prover
// relies on the density-filtered queries holding no infinity).
//
// Checks: canonical coordinates and the curve equation are always checked
// (a few multiplications per point); read_options::check_points adds the
// prime-order subgroup check (about 50x the cost of the rest, so off only
// for files whose digest was verified). The file digest (parameters.json,
// BLAKE2b-512 truncated to 16 bytes) is checked when asked.
//
// Cost: writing is one from-Montgomery conversion per coordinate, done in
// parallel chunks through a fixed buffer (the 45 GiB 32 GiB-PoRep file never
// sits in memory). Parsing the layout is O(number of sections). Decoding
// without the subgroup check is a few field multiplications per point; the
// subgroup check costs ~80x more (bench/params_bench.cpp, 2^16 constraints,
// 328 k points, 37 MB, 2 busy cores: 0.8 s unchecked, 67 s checked), so a
// production file should be checked once (digest) and then read unchecked.
// Hashing streams the file in 4 MiB reads (~300 MB/s).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <cuzk/groth16/keys.hpp>
#include <cuzk/io/format_error.hpp>
#include <cuzk/io/mapped_file.hpp>

namespace cuzk::io {

/// Bytes of a .vk without its IC points (6 points + the ic length field).
inline constexpr std::size_t vk_fixed_size = 868;

/// Size of a .vk file with |ic_len| IC points.
constexpr std::uint64_t verifying_key_file_size(std::uint64_t ic_len) { return vk_fixed_size + 96 * ic_len; }

/// Which layout a byte image holds.
enum class parameter_file_kind : std::uint8_t {
  verifying_key,  ///< .vk: the 7 vk sections
  parameters,     ///< .params: the 7 vk sections, then h, l, a, b_g1, b_g2
};

/// One named run of same-sized points inside a parameter file.
struct section {
  /// "alpha_g1", "beta_g1", "beta_g2", "gamma_g2", "delta_g1", "delta_g2",
  /// "ic", "h", "l", "a", "b_g1" or "b_g2" (static storage).
  std::string_view name;
  /// Byte offset of the first point (after the length field, if any).
  std::uint64_t offset = 0;
  /// Number of points (1 for the six fixed vk points).
  std::uint64_t count = 0;
  /// 96 (G1) or 192 (G2).
  std::size_t point_size = 0;
  /// count * point_size bytes of the image.
  std::span<const std::uint8_t> bytes;

  bool is_g2() const { return point_size == 192; }
};

/// The section layout of a .vk or .params image, parsed without decoding
/// points. Non-owning: |bytes| must outlive it.
class parameter_layout {
 public:
  /// Walks the layout of |bytes|; throws format_error on truncation, length
  /// overflow or trailing bytes. |label| names the file in messages.
  static parameter_layout parse(std::span<const std::uint8_t> bytes, parameter_file_kind kind,
                                std::string_view label = "<memory>");

  parameter_file_kind kind() const { return _kind; }
  /// The whole image.
  std::span<const std::uint8_t> bytes() const { return _bytes; }
  /// Path or label used in error messages.
  const std::string& label() const { return _label; }
  /// All sections in file order (7 for .vk, 12 for .params).
  std::span<const section> sections() const { return _sections; }
  /// The section called |name|, or nullptr.
  const section* find(std::string_view name) const noexcept;
  /// The section called |name|; throws std::out_of_range when absent.
  const section& at(std::string_view name) const;

 private:
  parameter_file_kind _kind = parameter_file_kind::parameters;
  std::span<const std::uint8_t> _bytes;
  std::string _label;
  std::vector<section> _sections;
};

/// A parameter file mapped read-only (RAII, move-only) with its layout.
class mapped_parameter_file {
 public:
  /// Maps |path| and parses its layout; throws format_error when the file
  /// cannot be opened or mapped, or is malformed.
  explicit mapped_parameter_file(const std::filesystem::path& path,
                                 parameter_file_kind kind = parameter_file_kind::parameters);
  mapped_parameter_file(mapped_parameter_file&& other) noexcept = default;
  mapped_parameter_file& operator=(mapped_parameter_file&& other) noexcept = default;
  mapped_parameter_file(const mapped_parameter_file&) = delete;
  mapped_parameter_file& operator=(const mapped_parameter_file&) = delete;
  ~mapped_parameter_file() = default;

  const std::filesystem::path& path() const { return _path; }
  std::uint64_t size() const { return _map.size(); }
  std::span<const std::uint8_t> bytes() const { return _map.bytes(); }
  /// mapped_file::drop_pages on this file's mapping.
  void drop_pages(std::uint64_t offset, std::uint64_t len) const noexcept { _map.drop_pages(offset, len); }
  const parameter_layout& layout() const { return _layout; }
  std::span<const section> sections() const { return _layout.sections(); }
  const section* find(std::string_view name) const noexcept { return _layout.find(name); }
  const section& at(std::string_view name) const { return _layout.at(name); }

 private:
  std::filesystem::path _path;
  mapped_file _map;
  parameter_layout _layout;
};

// ---- reading ---------------------------------------------------------------

struct read_options {
  /// Prime-order subgroup check of every point (canonical coordinates and
  /// the curve equation are always checked).
  bool check_points = true;
  /// Verify the file's BLAKE2b digest against |parameters_json_path| first.
  bool check_digest = false;
  /// parameters.json to look the digest up in; required with check_digest.
  std::string parameters_json_path{};
};

/// Decodes the vk sections of |layout| (a .vk or a .params image).
groth16::verifying_key decode_verifying_key(const parameter_layout& layout, const read_options& opt = {});
/// Decodes every section of a .params |layout|.
groth16::parameters decode_parameters(const parameter_layout& layout, const read_options& opt = {});

/// Decodes points [first, first + out.size()) of section |s| of |layout|
/// (G1 sections into |out|; the G2 overload for b_g2 and the G2 vk points),
/// with decode_parameters' checks and error messages (indices relative to the
/// whole section). Parallel over the host threads. For loaders that move a
/// file to a device in chunks without decoding all of it at once. Throws
/// std::out_of_range past the section's end, std::invalid_argument for a
/// section of the other group, format_error for a bad point.
void decode_section_range(const parameter_layout& layout, const section& s, std::uint64_t first,
                          std::span<ec::g1_affine> out, const read_options& opt = {});
void decode_section_range(const parameter_layout& layout, const section& s, std::uint64_t first,
                          std::span<ec::g2_affine> out, const read_options& opt = {});

/// Reads and decodes a .params file (mmap, parallel decode).
groth16::parameters read_parameters(const std::filesystem::path& path, const read_options& opt = {});
/// Reads and decodes a .vk file.
groth16::verifying_key read_verifying_key(const std::filesystem::path& path, const read_options& opt = {});
/// Decodes a .vk image held in memory (check_digest is not available here).
groth16::verifying_key read_verifying_key(std::span<const std::uint8_t> bytes, const read_options& opt = {},
                                          std::string_view label = "<memory>");

// ---- writing ---------------------------------------------------------------

/// Writes |vk| in the .vk layout. Throws std::length_error when ic has more
/// than 2^32 - 1 points and std::runtime_error when the stream fails.
void write_verifying_key(const groth16::verifying_key& vk, std::ostream& out);
void write_verifying_key(const groth16::verifying_key& vk, const std::filesystem::path& path);
/// Writes |params| in the .params layout, streaming through a fixed buffer.
void write_parameters(const groth16::parameters& params, std::ostream& out);
void write_parameters(const groth16::parameters& params, const std::filesystem::path& path);
/// A .params file written front to back from chunks (gen-params from a GPU
/// setup: the queries never sit on the host whole). The counts are fixed at
/// construction; the points then arrive in file order (h, l, a, b_g1, b_g2),
/// each section's in order, in chunks of any size. The file is written under
/// a temporary name next to |path| and renamed onto it by finish(); a writer
/// destroyed before finish() removes the temporary file. Same bytes as
/// write_parameters for the same parameters.
class parameter_file_writer {
 public:
  struct counts {
    std::uint64_t h = 0, l = 0, a = 0, b_g1 = 0, b_g2 = 0;
  };
  /// Creates the temporary file and writes the verifying key. Throws
  /// format_error when it cannot be created, std::length_error for a count
  /// over the u32 length field.
  parameter_file_writer(const std::filesystem::path& path, const groth16::verifying_key& vk, const counts& n);
  ~parameter_file_writer();
  parameter_file_writer(const parameter_file_writer&) = delete;
  parameter_file_writer& operator=(const parameter_file_writer&) = delete;

  /// The next points of the current G1 section (h, l, a, then b_g1);
  /// std::logic_error when they would run past b_g1 or arrive after b_g2 began.
  void append_g1(std::span<const ec::g1_affine> pts);
  /// The next points of b_g2 (every G1 section complete first).
  void append_g2(std::span<const ec::g2_affine> pts);
  /// Checks every section is complete (std::logic_error naming the first
  /// short one), flushes, and renames the file into place.
  void finish();

 private:
  struct impl;
  std::unique_ptr<impl> _impl;
};

/// Writes the paramcache .meta file: {"sector_size":N}.
void write_meta(const std::filesystem::path& path, std::uint64_t sector_size);
/// Reads the sector_size of a .meta file.
std::uint64_t read_meta(const std::filesystem::path& path);

// ---- digests and parameters.json ---------------------------------------------

/// A missing or mismatched parameters.json digest.
class digest_error : public std::runtime_error {
 public:
  digest_error(std::string file, std::string expected, std::string actual, const std::string& message);
  const std::string& file() const { return _file; }
  /// The digest in parameters.json ("" when the entry has none).
  const std::string& expected() const { return _expected; }
  const std::string& actual() const { return _actual; }

 private:
  std::string _file, _expected, _actual;
};

/// One entry of parameters.json.
struct parameter_entry {
  std::string cid;
  std::string digest;  ///< 32 lowercase hex chars; "" when absent
  std::uint64_t sector_size = 0;
};

/// Parses a parameters.json (file name -> {cid, digest, sector_size}).
/// Throws format_error on malformed JSON or entries.
std::map<std::string, parameter_entry> read_parameters_json(const std::filesystem::path& path);

/// First 32 hex chars (16 bytes) of BLAKE2b-512 over the whole file, the
/// digest that parameters.json records. Streams the file.
std::string file_digest(const std::filesystem::path& path);
/// The same over bytes in memory.
std::string bytes_digest(std::span<const std::uint8_t> bytes);

/// Outcome of verify_digest when it does not throw.
struct digest_check {
  enum class status : std::uint8_t { match, no_entry };
  status result = status::match;
  std::string digest;   ///< the file's digest
  std::string message;  ///< human-readable, names the file
};

/// Looks the file name of |file| up in |parameters_json| and compares
/// digests. No entry: returns status::no_entry ("no entry" in the message;
/// our own test parameters are not listed). Entry without a digest or with
/// another digest: throws digest_error naming the file and both digests.
digest_check verify_digest(const std::filesystem::path& file, const std::filesystem::path& parameters_json);

/// verify_digest once per file identity: a match is recorded beside |file|
/// as "<file>.verified" (device, inode, size, mtime_ns and the digest), and
/// while the file keeps that identity later calls read the record instead of
/// hashing (a 32 GiB PoRep file is 47 GB: ~2.5 min at ~300 MB/s). No entry:
/// status::no_entry, nothing recorded; a mismatch throws digest_error as
/// verify_digest does. A record that cannot be written (read-only folder)
/// only costs hashing again at the next call.
digest_check verify_digest_recorded(const std::filesystem::path& file, const std::filesystem::path& parameters_json);

}  // namespace cuzk::io
