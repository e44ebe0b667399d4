// SPDX-License-Identifier: Apache-2.0
// Filecoin .vk/.params/.meta files: byte- and value-exact round trips of
// seeded test parameters, the named section views, rejection of truncated,
// corrupt and over-long files (with the section and offset in the message),
// BLAKE2b digests against hard-coded values, and the real parameters.json.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <cuzk/ec/serialization.hpp>
#include <cuzk/ec/subgroup.hpp>
#include <cuzk/groth16/setup.hpp>
#include <cuzk/io/params.hpp>
#include <cuzk/r1cs/examples.hpp>
#include <cuzk/r1cs/synthesize.hpp>

#include "common/test_seed.hpp"

namespace {

using namespace cuzk;
using bytes = std::vector<std::uint8_t>;
using ff::fr;
using r1cs::linear_combination;
using r1cs::variable;

/// Two public inputs, |steps| squarings x <- x * (x + 1), and every third
/// step an aux variable that appears only in C (so it is absent from a and
/// b), which makes the a / b_g1 / b_g2 lengths differ from l.
struct ladder_circuit {
  std::size_t steps;

  template <r1cs::constraint_system CS>
  void synthesize(CS& cs) const {
    const variable in = cs.alloc_input("in", [] { return fr::from_uint(2); });
    variable cur = in;
    for (std::size_t i = 0; i < steps; ++i) {
      r1cs::namespace_guard ns(cs, [i] { return "step " + std::to_string(i); });
      const variable next = cs.alloc("next", [] { return fr::zero(); });
      cs.enforce(
          "square", [&](linear_combination lc) { return lc + cur; },
          [&](linear_combination lc) { return lc + cur + CS::one(); },
          [&](linear_combination lc) { return lc + next; });
      if (i % 3 == 0) {
        const variable c_only = cs.alloc("c_only", [] { return fr::zero(); });
        cs.enforce(
            "copy", [&](linear_combination lc) { return lc + next; },
            [&](linear_combination lc) { return lc + CS::one(); }, [&](linear_combination lc) { return lc + c_only; });
      }
      cur = next;
    }
    const variable out = cs.alloc_input("out", [] { return fr::zero(); });
    cs.enforce(
        "out", [&](linear_combination lc) { return lc + cur; }, [&](linear_combination lc) { return lc + CS::one(); },
        [&](linear_combination lc) { return lc + out; });
  }
};

/// A unique directory under the system temp dir, removed on destruction.
class temp_dir {
 public:
  temp_dir() {
    std::random_device rd;
    _path = std::filesystem::temp_directory_path() /
            ("cuzk-params-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    std::filesystem::create_directories(_path);
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(_path, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  std::filesystem::path operator/(const std::string& name) const { return _path / name; }

 private:
  std::filesystem::path _path;
};

bytes read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const std::filesystem::path& p, std::span<const std::uint8_t> b) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

// ---- an independent encoder of the expected layout --------------------------

void put_u32(bytes& out, std::size_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(std::uint8_t(v >> s));
}
void put(bytes& out, const ec::g1_affine& p) {
  const auto e = ec::encode_g1_uncompressed(p);
  out.insert(out.end(), e.begin(), e.end());
}
void put(bytes& out, const ec::g2_affine& p) {
  const auto e = ec::encode_g2_uncompressed(p);
  out.insert(out.end(), e.begin(), e.end());
}
template <class P>
void put_vec(bytes& out, const std::vector<P>& v) {
  put_u32(out, v.size());
  for (const auto& p : v) put(out, p);
}

bytes expected_vk_bytes(const groth16::verifying_key& vk) {
  bytes out;
  put(out, vk.alpha_g1);
  put(out, vk.beta_g1);
  put(out, vk.beta_g2);
  put(out, vk.gamma_g2);
  put(out, vk.delta_g1);
  put(out, vk.delta_g2);
  put_vec(out, vk.ic);
  return out;
}

bytes expected_params_bytes(const groth16::parameters& p) {
  bytes out = expected_vk_bytes(p.vk);
  put_vec(out, p.h);
  put_vec(out, p.l);
  put_vec(out, p.a);
  put_vec(out, p.b_g1);
  put_vec(out, p.b_g2);
  return out;
}

// ---- shared fixtures ----------------------------------------------------------

const groth16::parameters& cubic_params() {
  static const auto p = groth16::generate_parameters(r1cs::make_shape(r1cs::examples::cubic_circuit{}), 42);
  return p;
}

const groth16::parameters& ladder_params() {
  static const auto p = groth16::generate_parameters(r1cs::make_shape(ladder_circuit{90}), 7);
  return p;
}

const bytes& ladder_bytes() {
  static const bytes b = expected_params_bytes(ladder_params());
  return b;
}

/// what() of the format_error that parsing / decoding |b| throws ("" if none).
std::string params_error(std::span<const std::uint8_t> b, bool decode = true) {
  try {
    const auto layout = io::parameter_layout::parse(b, io::parameter_file_kind::parameters, "test.params");
    if (decode) (void)io::decode_parameters(layout);
  } catch (const io::format_error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// ---- round trips ------------------------------------------------------------------

void check_round_trip(const groth16::parameters& params, const std::string& tag) {
  SCOPED_TRACE(tag);
  temp_dir dir;
  const auto params_path = dir / (tag + ".params");
  const auto vk_path = dir / (tag + ".vk");
  io::write_parameters(params, params_path);
  io::write_verifying_key(params.vk, vk_path);

  // byte-exact against the independent encoder, and through an ostream
  const bytes file = read_file(params_path);
  const bytes vk_file = read_file(vk_path);
  EXPECT_EQ(file, expected_params_bytes(params));
  EXPECT_EQ(vk_file, expected_vk_bytes(params.vk));
  EXPECT_EQ(vk_file.size(), io::vk_fixed_size + 96 * params.vk.ic.size());
  EXPECT_EQ(vk_file.size(), io::verifying_key_file_size(params.vk.ic.size()));
  ASSERT_LE(vk_file.size(), file.size());
  EXPECT_TRUE(std::equal(vk_file.begin(), vk_file.end(), file.begin())) << ".params must start with the .vk layout";
  std::ostringstream os;
  io::write_parameters(params, os);
  const std::string s = os.str();
  EXPECT_TRUE(bytes(s.begin(), s.end()) == file);

  // value-exact, with and without the subgroup check
  const auto back = io::read_parameters(params_path);
  EXPECT_EQ(back, params);
  EXPECT_EQ(io::read_parameters(params_path, {.check_points = false}), params);
  EXPECT_EQ(io::read_verifying_key(vk_path), params.vk);
  EXPECT_EQ(io::read_verifying_key(std::span<const std::uint8_t>(vk_file)), params.vk);

  // write(read(file)) == file
  const auto again = dir / (tag + "-again.params");
  io::write_parameters(back, again);
  EXPECT_EQ(read_file(again), file);

  // named sections
  const io::mapped_parameter_file mapped(params_path);
  EXPECT_EQ(mapped.size(), file.size());
  const char* names[] = {"alpha_g1", "beta_g1", "beta_g2", "gamma_g2", "delta_g1", "delta_g2",
                         "ic",       "h",       "l",       "a",        "b_g1",     "b_g2"};
  const std::size_t counts[] = {1,
                                1,
                                1,
                                1,
                                1,
                                1,
                                params.vk.ic.size(),
                                params.h.size(),
                                params.l.size(),
                                params.a.size(),
                                params.b_g1.size(),
                                params.b_g2.size()};
  ASSERT_EQ(mapped.sections().size(), 12u);
  std::uint64_t pos = 0;
  for (std::size_t k = 0; k < 12; ++k) {
    const auto& sec = mapped.sections()[k];
    EXPECT_EQ(sec.name, names[k]);
    EXPECT_EQ(&mapped.at(names[k]), &sec);
    EXPECT_EQ(sec.count, counts[k]) << names[k];
    const bool g2 = sec.name.ends_with("g2");
    EXPECT_EQ(sec.point_size, g2 ? 192u : 96u) << names[k];
    if (k >= 6) pos += 4;  // length field
    EXPECT_EQ(sec.offset, pos) << names[k];
    EXPECT_EQ(sec.bytes.size(), sec.count * sec.point_size);
    EXPECT_EQ(sec.bytes.data(), mapped.bytes().data() + sec.offset);
    pos += sec.bytes.size();
  }
  EXPECT_EQ(pos, file.size());
  // section bytes are the encodings of the matching points
  const auto& l = mapped.at("l");
  for (std::size_t i = 0; i < params.l.size(); ++i) {
    const auto e = ec::encode_g1_uncompressed(params.l[i]);
    ASSERT_TRUE(std::equal(e.begin(), e.end(), l.bytes.begin() + std::ptrdiff_t(i * 96)));
  }
  const auto& b2 = mapped.at("b_g2");
  const auto e = ec::encode_g2_uncompressed(params.b_g2.back());
  EXPECT_TRUE(std::equal(e.begin(), e.end(), b2.bytes.end() - 192));
  EXPECT_EQ(mapped.find("nope"), nullptr);
  EXPECT_THROW((void)mapped.at("nope"), std::out_of_range);

  // .vk layout: 7 sections; the vk of a .params decodes to the same key
  io::mapped_parameter_file vk_mapped(vk_path, io::parameter_file_kind::verifying_key);
  EXPECT_EQ(vk_mapped.sections().size(), 7u);
  EXPECT_EQ(vk_mapped.find("h"), nullptr);
  EXPECT_EQ(io::decode_verifying_key(mapped.layout()), params.vk);
  EXPECT_THROW((void)io::decode_parameters(vk_mapped.layout()), std::invalid_argument);

  // moving the mapping keeps the views valid
  io::mapped_parameter_file moved(std::move(vk_mapped));
  EXPECT_EQ(io::decode_verifying_key(moved.layout()), params.vk);
}

TEST(params_io, round_trip_cubic) {
  const auto& p = cubic_params();
  EXPECT_EQ(p.vk.ic.size(), 2u);
  check_round_trip(p, "cubic");
}

TEST(params_io, round_trip_ladder) {
  const auto& p = ladder_params();
  EXPECT_EQ(p.vk.ic.size(), 3u);
  EXPECT_LT(p.a.size(), p.vk.ic.size() + p.l.size()) << "C-only variables are left out of a";
  check_round_trip(p, "ladder");
}

TEST(params_io, meta_file) {
  temp_dir dir;
  io::write_meta(dir / "x.meta", 34359738368ull);
  const bytes b = read_file(dir / "x.meta");
  EXPECT_EQ(std::string(b.begin(), b.end()), R"({"sector_size":34359738368})");
  EXPECT_EQ(io::read_meta(dir / "x.meta"), 34359738368ull);
  write_file(dir / "bad.meta", bytes{'{', '}'});
  EXPECT_THROW((void)io::read_meta(dir / "bad.meta"), io::format_error);
}

// ---- malformed files ----------------------------------------------------------------

TEST(params_io, truncation_names_the_section_and_offset) {
  const bytes& full = ladder_bytes();
  const auto layout = io::parameter_layout::parse(full, io::parameter_file_kind::parameters);
  struct range {
    std::string name;
    std::uint64_t header, data, end;  // length field (or point) start, data start, end
  };
  std::vector<range> ranges;
  for (const auto& s : layout.sections()) {
    const bool vec =
        s.name == "ic" || s.name == "h" || s.name == "l" || s.name == "a" || s.name == "b_g1" || s.name == "b_g2";
    ranges.push_back({std::string(s.name), vec ? s.offset - 4 : s.offset, s.offset, s.offset + s.bytes.size()});
  }
  std::vector<std::uint64_t> cuts;
  for (const auto& r : ranges) {
    for (std::uint64_t d : {0, 1, 3}) cuts.push_back(r.header + d);
    for (std::uint64_t d : {0, 1, 95, 96, 97}) cuts.push_back(r.data + d);
    cuts.push_back((r.data + r.end) / 2);
    cuts.push_back(r.end - 1);
  }
  int checked = 0;
  for (std::uint64_t cut : cuts) {
    if (cut >= full.size()) continue;
    const auto it =
        std::find_if(ranges.begin(), ranges.end(), [&](const range& r) { return cut >= r.header && cut < r.end; });
    ASSERT_NE(it, ranges.end());
    const std::uint64_t where = cut < it->data ? it->header : it->data;
    const std::string msg = params_error(std::span(full).first(cut), false);
    SCOPED_TRACE("cut at " + std::to_string(cut) + ": " + msg);
    EXPECT_TRUE(contains(msg, "section '" + it->name + "'"));
    EXPECT_TRUE(contains(msg, "at byte offset " + std::to_string(where) + ":"));
    EXPECT_TRUE(contains(msg, "truncated"));
    ++checked;
  }
  EXPECT_GT(checked, 100);
  EXPECT_EQ(params_error(full), "");

  // the same through real files, and an empty file
  temp_dir dir;
  const auto path = dir / "t.params";
  write_file(path, full);
  const std::uint64_t l_data = layout.at("l").offset;
  std::filesystem::resize_file(path, l_data + 1000);
  try {
    (void)io::read_parameters(path);
    ADD_FAILURE() << "truncated file accepted";
  } catch (const io::format_error& e) {
    const std::string msg = e.what();
    EXPECT_TRUE(contains(msg, path.string())) << msg;
    EXPECT_TRUE(contains(msg, "section 'l' at byte offset " + std::to_string(l_data))) << msg;
    EXPECT_TRUE(contains(msg, "bytes), 1000 left")) << msg;
    EXPECT_EQ(e.section(), "section 'l'");
    EXPECT_EQ(e.offset(), l_data);
  }
  std::filesystem::resize_file(path, 0);
  try {
    (void)io::mapped_parameter_file(path);
    ADD_FAILURE() << "empty file accepted";
  } catch (const io::format_error& e) {
    EXPECT_TRUE(contains(e.what(), "section 'alpha_g1' at byte offset 0")) << e.what();
  }
  EXPECT_THROW((void)io::read_parameters(dir / "missing.params"), io::format_error);
}

TEST(params_io, trailing_bytes_and_wrong_kind) {
  bytes b = ladder_bytes();
  const std::size_t n = b.size();
  b.insert(b.end(), {1, 2, 3, 4, 5, 6, 7});
  const std::string msg = params_error(b, false);
  EXPECT_TRUE(contains(msg, "after section 'b_g2' at byte offset " + std::to_string(n))) << msg;
  EXPECT_TRUE(contains(msg, "7 trailing bytes")) << msg;

  // a .params parsed as a .vk has everything after ic as trailing bytes
  const bytes& full = ladder_bytes();
  try {
    (void)io::read_verifying_key(std::span<const std::uint8_t>(full), {}, "x.vk");
    ADD_FAILURE() << "params accepted as vk";
  } catch (const io::format_error& e) {
    EXPECT_TRUE(contains(e.what(), "vk file 'x.vk': after section 'ic'")) << e.what();
  }
  // a .vk with one byte too many or too few
  bytes vk = expected_vk_bytes(ladder_params().vk);
  vk.push_back(0);
  EXPECT_THROW((void)io::read_verifying_key(std::span<const std::uint8_t>(vk)), io::format_error);
  vk.resize(vk.size() - 2);
  try {
    (void)io::read_verifying_key(std::span<const std::uint8_t>(vk));
    ADD_FAILURE();
  } catch (const io::format_error& e) {
    EXPECT_TRUE(contains(e.what(), "section 'ic'")) << e.what();
  }
}

TEST(params_io, length_field_overflowing_the_file) {
  const bytes& full = ladder_bytes();
  const auto layout = io::parameter_layout::parse(full, io::parameter_file_kind::parameters);
  for (const char* name : {"ic", "h", "l", "a", "b_g1", "b_g2"}) {
    SCOPED_TRACE(name);
    const auto& s = layout.at(name);
    for (std::uint32_t count : {std::uint32_t(0xffffffffu), std::uint32_t(s.count + 1), std::uint32_t(1u << 31)}) {
      bytes b = full;
      const std::size_t at = s.offset - 4;
      for (int k = 0; k < 4; ++k) b[at + k] = std::uint8_t(count >> (24 - 8 * k));
      const std::string msg = params_error(b, false);
      if (count == s.count + 1 && std::string(name) != "b_g2") {
        EXPECT_FALSE(msg.empty());  // fits, but the shifted layout fails later
        continue;
      }
      EXPECT_TRUE(contains(msg, "section '" + std::string(name) + "' at byte offset " + std::to_string(s.offset)))
          << msg;
      EXPECT_TRUE(contains(msg, "length field says " + std::to_string(count) + " points")) << msg;
    }
  }
  // a shorter count leaves the rest misaligned: never silently accepted
  bytes b = full;
  b[layout.at("h").offset - 1] -= 1;
  EXPECT_FALSE(params_error(b).empty());
}

TEST(params_io, corrupt_point_names_section_index_and_rule) {
  const bytes& full = ladder_bytes();
  const auto layout = io::parameter_layout::parse(full, io::parameter_file_kind::parameters);
  struct edit {
    const char* section;
    std::size_t index;
    std::size_t byte;  // within the point
    std::uint8_t xor_mask;
    ec::decode_error expected;
    bool assign = false;  // store xor_mask instead of xoring it in
  };
  const edit edits[] = {
      {"l", 3, 70, 0x01, ec::decode_error::point_not_on_curve},  // y changed
      {"h", 0, 20, 0x10, ec::decode_error::point_not_on_curve},  // x changed
      {"a", 2, 0, 0x80, ec::decode_error::compression_flag_mismatch},
      {"b_g1", 1, 0, 0x20, ec::decode_error::sign_flag_on_uncompressed},
      {"b_g2", 4, 150, 0x04, ec::decode_error::point_not_on_curve},
      {"ic", 2, 0, 0x1f, ec::decode_error::non_canonical_coordinate, true},  // x > p
      {"alpha_g1", 0, 95, 0x01, ec::decode_error::point_not_on_curve},
      {"gamma_g2", 0, 5, 0x40, ec::decode_error::point_not_on_curve},
      {"delta_g2", 0, 0, 0x40, ec::decode_error::infinity_not_zero},
  };
  for (const auto& e : edits) {
    SCOPED_TRACE(e.section);
    const auto& s = layout.at(e.section);
    ASSERT_LT(e.index, s.count);
    bytes b = full;
    const std::size_t off = s.offset + e.index * s.point_size;
    b[off + e.byte] = e.assign ? e.xor_mask : std::uint8_t(b[off + e.byte] ^ e.xor_mask);
    const std::string msg = params_error(b);
    EXPECT_TRUE(contains(msg, "section '" + std::string(e.section) + "' at byte offset " + std::to_string(off) +
                                  ": point " + std::to_string(e.index) + " of " + std::to_string(s.count)))
        << msg;
    EXPECT_TRUE(contains(msg, std::string(ec::decode_error_message(e.expected)))) << msg;
  }
  // two bad points: the earlier one in file order is reported, every time
  bytes b = full;
  b[layout.at("b_g2").offset + 70] ^= 1;
  b[layout.at("h").offset + 5 * 96 + 70] ^= 1;
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(contains(params_error(b), "section 'h'"));
}

TEST(params_io, infinity_rules_follow_bellperson) {
  const bytes& full = ladder_bytes();
  const auto layout = io::parameter_layout::parse(full, io::parameter_file_kind::parameters);
  auto set_infinity = [&](bytes& b, const char* name, std::size_t index) {
    const auto& s = layout.at(name);
    const std::size_t off = s.offset + index * s.point_size;
    std::fill(b.begin() + std::ptrdiff_t(off), b.begin() + std::ptrdiff_t(off + s.point_size), 0);
    b[off] = 0x40;
    return off;
  };
  for (const char* name : {"ic", "h", "l", "a", "b_g1", "b_g2"}) {
    bytes b = full;
    const std::size_t off = set_infinity(b, name, 1);
    const std::string msg = params_error(b);
    EXPECT_TRUE(
        contains(msg, "section '" + std::string(name) + "' at byte offset " + std::to_string(off) + ": point 1 of"))
        << msg;
    EXPECT_TRUE(contains(msg, "point at infinity")) << msg;
  }
  // the six fixed vk points may be infinity (bellperson's VerifyingKey::read)
  bytes b = full;
  set_infinity(b, "alpha_g1", 0);
  set_infinity(b, "delta_g2", 0);
  const auto layout2 = io::parameter_layout::parse(b, io::parameter_file_kind::parameters);
  const auto p = io::decode_parameters(layout2);
  EXPECT_TRUE(p.vk.alpha_g1.is_infinity());
  EXPECT_TRUE(p.vk.delta_g2.is_infinity());
}

TEST(params_io, subgroup_check_is_optional) {
  // a G1 point on the curve but outside the prime-order subgroup
  ec::g1_affine bad{};
  for (std::uint64_t k = 1;; ++k) {
    const auto x = ff::fp::from_uint(k);
    if (const auto y = (x.sqr() * x + ff::fp::from_uint(4)).sqrt()) {
      bad = {x, *y};
      if (!ec::is_in_subgroup(bad)) break;
    }
  }
  bytes b = ladder_bytes();
  const auto layout = io::parameter_layout::parse(b, io::parameter_file_kind::parameters);
  const std::size_t off = layout.at("l").offset + 7 * 96;
  const auto enc = ec::encode_g1_uncompressed(bad);
  std::copy(enc.begin(), enc.end(), b.begin() + std::ptrdiff_t(off));
  const auto layout2 = io::parameter_layout::parse(b, io::parameter_file_kind::parameters);
  try {
    (void)io::decode_parameters(layout2);
    ADD_FAILURE() << "point outside the subgroup accepted";
  } catch (const io::format_error& e) {
    EXPECT_TRUE(contains(e.what(), "section 'l'")) << e.what();
    EXPECT_TRUE(contains(e.what(), "point 7 of")) << e.what();
    EXPECT_TRUE(contains(e.what(), std::string(ec::decode_error_message(ec::decode_error::not_in_subgroup))));
  }
  const auto p = io::decode_parameters(layout2, {.check_points = false});
  EXPECT_EQ(p.l[7], bad);
}

// ---- digests and parameters.json ------------------------------------------------------

std::filesystem::path fixture_parameters_json() {
  return std::filesystem::path(test::shared_dir()) / "filecoin-fixtures" / "rust-fil-proofs" / "parameters.json";
}

TEST(params_io, blake2b_digest_known_answers) {
  temp_dir dir;
  // expected values: python3 hashlib.blake2b(data).hexdigest()[:32]
  bytes fixed;
  const std::string head = "cuzk params digest test\n";
  fixed.insert(fixed.end(), head.begin(), head.end());
  for (int r = 0; r < 4; ++r)
    for (int i = 0; i < 256; ++i) fixed.push_back(std::uint8_t(i));
  ASSERT_EQ(fixed.size(), 1048u);
  write_file(dir / "fixed.bin", fixed);
  EXPECT_EQ(io::file_digest(dir / "fixed.bin"), "e81878e4c8ed1b954e1e4068296b1d03");
  EXPECT_EQ(io::bytes_digest(fixed), "e81878e4c8ed1b954e1e4068296b1d03");

  // 3 MB: one partial 4 MiB read, with a non-trivial byte pattern
  bytes big(3000000);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = std::uint8_t(i * 31 + 7);
  write_file(dir / "big.bin", big);
  EXPECT_EQ(io::file_digest(dir / "big.bin"), "e49fa2b37db59663e6d542c4099c1085");

  write_file(dir / "empty.bin", bytes{});
  EXPECT_EQ(io::file_digest(dir / "empty.bin"), "786a02f742015903c6c6fd852552d272");
  EXPECT_THROW((void)io::file_digest(dir / "missing.bin"), io::format_error);
}

TEST(params_io, real_parameters_json_parses) {
  const auto path = fixture_parameters_json();
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no fixture " << path;
  const auto entries = io::read_parameters_json(path);
  EXPECT_EQ(entries.size(), 44u);
  for (const auto& [name, e] : entries) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(name.starts_with("v28-"));
    EXPECT_TRUE(name.ends_with(".params") || name.ends_with(".vk"));
    EXPECT_EQ(e.digest.size(), 32u);
    EXPECT_TRUE(std::all_of(e.digest.begin(), e.digest.end(),
                            [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }));
    EXPECT_TRUE(e.cid.starts_with("Qm"));
    EXPECT_GE(e.sector_size, 2048u);
  }
  const auto it = entries.find(
      "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
      "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.vk");
  ASSERT_NE(it, entries.end());
  EXPECT_EQ(it->second.digest, "dc1ade9929ade1708238f155343044ac");
  EXPECT_EQ(it->second.sector_size, 2048u);

  temp_dir dir;
  const std::string broken = R"({"a.vk": {"cid": "Qm", "digest": 5}})";
  write_file(dir / "p.json", bytes(broken.begin(), broken.end()));
  EXPECT_THROW((void)io::read_parameters_json(dir / "p.json"), io::format_error);
  write_file(dir / "q.json", bytes{'{', '"'});
  EXPECT_THROW((void)io::read_parameters_json(dir / "q.json"), io::format_error);
}

TEST(params_io, verify_digest_against_parameters_json) {
  const auto json = fixture_parameters_json();
  if (!std::filesystem::exists(json)) GTEST_SKIP() << "no fixture " << json;
  temp_dir dir;
  const auto& params = cubic_params();

  // not listed: passes, and says so
  const auto ours = dir / "cuzk-test-cubic.vk";
  io::write_verifying_key(params.vk, ours);
  const auto r = io::verify_digest(ours, json);
  EXPECT_EQ(r.result, io::digest_check::status::no_entry);
  EXPECT_TRUE(contains(r.message, "no entry")) << r.message;

  // listed name, other content: a mismatch naming the file and both digests
  const std::string listed =
      "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
      "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.vk";
  std::filesystem::rename(ours, dir / listed);
  const std::string actual = io::file_digest(dir / listed);
  try {
    (void)io::verify_digest(dir / listed, json);
    ADD_FAILURE() << "mismatched digest accepted";
  } catch (const io::digest_error& e) {
    const std::string msg = e.what();
    EXPECT_TRUE(contains(msg, listed)) << msg;
    EXPECT_TRUE(contains(msg, "dc1ade9929ade1708238f155343044ac")) << msg;
    EXPECT_TRUE(contains(msg, actual)) << msg;
    EXPECT_EQ(e.expected(), "dc1ade9929ade1708238f155343044ac");
    EXPECT_EQ(e.actual(), actual);
  }
  // and read_verifying_key with check_digest refuses it
  EXPECT_THROW(
      (void)io::read_verifying_key(dir / listed, {.check_digest = true, .parameters_json_path = json.string()}),
      io::digest_error);
  EXPECT_THROW((void)io::read_verifying_key(dir / listed, {.check_digest = true}), std::invalid_argument);

  // our own manifest: match, mismatch, and an entry without a digest
  const auto pfile = dir / "cubic.params";
  io::write_parameters(params, pfile);
  const std::string d = io::file_digest(pfile);
  const std::string manifest = R"({"cubic.params": {"cid": "Qmx", "digest": ")" + d +
                               R"(", "sector_size": 2048}, "other.params": {"cid": "Qmy"}})";
  write_file(dir / "mine.json", bytes(manifest.begin(), manifest.end()));
  const auto ok = io::verify_digest(pfile, dir / "mine.json");
  EXPECT_EQ(ok.result, io::digest_check::status::match);
  EXPECT_EQ(ok.digest, d);
  const io::read_options with_digest{.check_digest = true, .parameters_json_path = (dir / "mine.json").string()};
  EXPECT_EQ(io::read_parameters(pfile, with_digest), params);
  const auto other = dir / "other.params";
  std::filesystem::copy_file(pfile, other);
  EXPECT_THROW((void)io::read_parameters(other, with_digest), io::digest_error);
  // one flipped byte changes the digest
  bytes b = read_file(pfile);
  b[b.size() / 2] ^= 1;
  write_file(pfile, b);
  EXPECT_THROW((void)io::verify_digest(pfile, dir / "mine.json"), io::digest_error);
}

// ---- ranges and streamed writing (loaders and writers that never hold a whole file) -------

TEST(params_io, section_ranges_decode_like_the_whole_file) {
  const auto& p = ladder_params();
  const bytes& full = ladder_bytes();
  const auto layout = io::parameter_layout::parse(full, io::parameter_file_kind::parameters);
  const auto g1_ranges = [&](const char* name, const std::vector<ec::g1_affine>& want) {
    SCOPED_TRACE(name);
    const auto& s = layout.at(name);
    ASSERT_EQ(s.count, want.size());
    for (std::size_t chunk : {std::size_t(1), std::size_t(3), want.size()}) {
      std::vector<ec::g1_affine> got(want.size());
      for (std::size_t first = 0; first < want.size(); first += chunk) {
        const std::size_t n = std::min(chunk, want.size() - first);
        io::decode_section_range(layout, s, first, std::span(got).subspan(first, n));
      }
      EXPECT_EQ(got, want) << "chunks of " << chunk;
    }
  };
  g1_ranges("h", p.h);
  g1_ranges("l", p.l);
  g1_ranges("a", p.a);
  g1_ranges("b_g1", p.b_g1);
  std::vector<ec::g2_affine> b2(p.b_g2.size());
  io::decode_section_range(layout, layout.at("b_g2"), 1, std::span(b2).subspan(1));
  io::decode_section_range(layout, layout.at("b_g2"), 0, std::span(b2).first(1));
  EXPECT_EQ(b2, p.b_g2);
  // past the end, and the other group
  std::vector<ec::g1_affine> two(2);
  EXPECT_THROW(io::decode_section_range(layout, layout.at("h"), p.h.size() - 1, std::span(two)), std::out_of_range);
  EXPECT_THROW(io::decode_section_range(layout, layout.at("b_g2"), 0, std::span(two)), std::invalid_argument);
  std::vector<ec::g2_affine> g2one(1);
  EXPECT_THROW(io::decode_section_range(layout, layout.at("l"), 0, std::span(g2one)), std::invalid_argument);
}

TEST(params_io, section_range_errors_count_from_the_section_start) {
  const bytes& full = ladder_bytes();
  const auto layout0 = io::parameter_layout::parse(full, io::parameter_file_kind::parameters);
  const auto& l0 = layout0.at("l");
  ASSERT_GE(l0.count, 6u);
  bytes b = full;
  const std::size_t off = l0.offset + 4 * l0.point_size;
  b[off + 70] ^= 1;  // y of point 4 of l
  const auto layout = io::parameter_layout::parse(b, io::parameter_file_kind::parameters);
  const auto& l = layout.at("l");
  std::vector<ec::g1_affine> out(3);
  io::decode_section_range(layout, l, 0, std::span(out));  // points 0..2 are fine
  try {
    io::decode_section_range(layout, l, 3, std::span(out));
    FAIL() << "the range holding the corrupt point decoded";
  } catch (const io::format_error& e) {
    const std::string msg = e.what();
    EXPECT_TRUE(
        contains(msg, "section 'l' at byte offset " + std::to_string(off) + ": point 4 of " + std::to_string(l.count)))
        << msg;
  }
}

TEST(params_io, streamed_writer_writes_the_same_bytes_in_any_chunks) {
  const auto& p = ladder_params();
  const std::uint64_t seed = test::test_seed("params_io.streamed_writer_writes_the_same_bytes_in_any_chunks");
  std::mt19937_64 rng(seed);
  temp_dir dir;
  for (int round = 0; round < 3; ++round) {
    const auto path = dir / ("s" + std::to_string(round) + ".params");
    {
      io::parameter_file_writer w(path, p.vk, {p.h.size(), p.l.size(), p.a.size(), p.b_g1.size(), p.b_g2.size()});
      // every G1 point in file order, cut at random places (chunks cross sections)
      std::vector<ec::g1_affine> g1;
      for (const auto* v : {&p.h, &p.l, &p.a, &p.b_g1}) g1.insert(g1.end(), v->begin(), v->end());
      for (std::size_t at = 0; at < g1.size();) {
        const std::size_t n = std::min<std::size_t>(g1.size() - at, 1 + rng() % 7);
        w.append_g1(std::span(g1).subspan(at, n));
        at += n;
      }
      EXPECT_THROW(w.finish(), std::logic_error) << "b_g2 is still missing";
      const std::size_t half = p.b_g2.size() / 2;
      w.append_g2(std::span(p.b_g2).first(half));
      w.append_g2(std::span(p.b_g2).subspan(half));
      w.finish();
    }
    EXPECT_EQ(read_file(path), ladder_bytes()) << "seed " << seed << " round " << round;
  }
}

TEST(params_io, streamed_writer_refuses_misplaced_points_and_leaves_no_file) {
  const auto& p = ladder_params();
  temp_dir dir;
  const auto path = dir / "x.params";
  const io::parameter_file_writer::counts n{p.h.size(), p.l.size(), p.a.size(), p.b_g1.size(), p.b_g2.size()};
  {
    io::parameter_file_writer w(path, p.vk, n);
    EXPECT_THROW(w.append_g2(p.b_g2), std::logic_error) << "G2 before the G1 sections are complete";
    w.append_g1(p.h);
    // one point too many for the G1 sections together
    std::vector<ec::g1_affine> rest;
    for (const auto* v : {&p.l, &p.a, &p.b_g1}) rest.insert(rest.end(), v->begin(), v->end());
    rest.push_back(p.h[0]);
    EXPECT_THROW(w.append_g1(rest), std::logic_error);
  }  // destroyed before finish: nothing under the final name, no temporary left
  EXPECT_FALSE(std::filesystem::exists(path));
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(path.parent_path())) ++files;
  EXPECT_EQ(files, 0u);
}

TEST(params_io, dropped_pages_read_back_the_same) {
  const auto& p = ladder_params();
  temp_dir dir;
  const auto path = dir / "d.params";
  io::write_parameters(p, path);
  const io::mapped_parameter_file f(path);
  const auto& h = f.at("h");
  f.drop_pages(0, f.size());
  f.drop_pages(h.offset + 1, 5000);  // unaligned, inside the file
  f.drop_pages(f.size() + 10, 100);  // past the end: nothing
  EXPECT_EQ(io::decode_parameters(f.layout()).h, p.h);
  std::vector<ec::g1_affine> l(p.l.size());
  io::decode_section_range(f.layout(), f.at("l"), 0, std::span(l));
  f.drop_pages(f.at("l").offset, f.at("l").bytes.size());
  EXPECT_EQ(l, p.l);
  EXPECT_EQ(io::decode_parameters(f.layout()).l, p.l);
}

}  // namespace
