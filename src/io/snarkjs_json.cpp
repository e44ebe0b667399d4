// SPDX-License-Identifier: Apache-2.0
// snarkjs JSON (proof, public inputs, verifying key) on BLS12-381, with
// nlohmann::ordered_json so that keys keep snarkjs's order. Format and
// invariants: include/cuzk/io/snarkjs_json.hpp.
#include <cuzk/io/snarkjs_json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include <cuzk/ec/pairing.hpp>

namespace cuzk::io {

namespace {

using json = nlohmann::ordered_json;
using ff::fp;
using ff::fp2;
using ff::fr;

/// "prefix[i]" (built by appending: GCC 12 warns falsely on "[" + string).
std::string indexed(std::string prefix, std::size_t i) {
  prefix += '[';
  prefix += std::to_string(i);
  prefix += ']';
  return prefix;
}

/// JSON.stringify(v, null, 1).
std::string stringify(const json& v) { return v.dump(1); }

// ---- writing -----------------------------------------------------------

json g1_json(const ec::g1_affine& p) {
  if (p.is_infinity()) return json::array({"0", "1", "0"});
  return json::array({to_decimal(p.x), to_decimal(p.y), "1"});
}

json fp2_json(const fp2& a) { return json::array({to_decimal(a.c0), to_decimal(a.c1)}); }

json g2_json(const ec::g2_affine& p) {
  if (p.is_infinity()) return json::array({json::array({"0", "0"}), json::array({"1", "0"}), json::array({"0", "0"})});
  return json::array({fp2_json(p.x), fp2_json(p.y), json::array({"1", "0"})});
}

// ---- parsing -----------------------------------------------------------

struct parser {
  std::string kind, path;

  [[noreturn]] void fail(const std::string& where, const std::string& detail) const {
    throw format_error(kind, path, where, format_error::no_offset, detail);
  }

  json parse(std::string_view text) const {
    try {
      return json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
      throw format_error(kind, path, "JSON syntax", e.byte, e.what());
    } catch (const json::exception& e) {  // out_of_range: a number literal beyond a double
      throw format_error(kind, path, "JSON syntax", format_error::no_offset, e.what());
    }
  }

  const json& member(const json& obj, const char* key, const std::string& where) const {
    if (!obj.is_object()) fail(where, "expected a JSON object");
    const auto it = obj.find(key);
    if (it == obj.end()) fail(where, std::string("missing key \"") + key + "\"");
    return *it;
  }

  const json& element(const json& arr, std::size_t i, std::size_t n, const std::string& where) const {
    if (!arr.is_array() || arr.size() != n) fail(where, "expected an array of " + std::to_string(n) + " elements");
    return arr[i];
  }

  /// Canonical decimal integer below |modulus| (N limbs).
  template <std::size_t N>
  ff::detail::limbs<N> decimal(const json& v, const ff::detail::limbs<N>& modulus, const std::string& where,
                               bool allow_number = false) const {
    std::string s;
    if (v.is_string()) s = v.get<std::string>();
    else if (allow_number && v.is_number_unsigned()) s = std::to_string(v.get<std::uint64_t>());
    else fail(where, "expected a decimal string");
    if (s.empty() || s.size() > 200 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
      fail(where, "\"" + s.substr(0, 100) + "\" is not a decimal integer");
    ff::detail::limbs<N> acc{};
    for (char c : s) {
      // acc = acc * 10 + digit, failing on overflow of N limbs
      std::uint64_t carry = std::uint64_t(c - '0');
      for (auto& limb : acc) {
        const ff::detail::u128 t = ff::detail::u128(limb) * 10 + carry;
        limb = std::uint64_t(t);
        carry = std::uint64_t(t >> 64);
      }
      if (carry) fail(where, "\"" + s.substr(0, 100) + "\" is out of range");
    }
    if (ff::detail::geq(acc, modulus)) fail(where, "\"" + s.substr(0, 100) + "\" is not below the field modulus");
    return acc;
  }

  fp fp_value(const json& v, const std::string& where) const {
    return fp::from_canonical_unchecked(decimal(v, fp::modulus, where));
  }
  fr fr_value(const json& v, const std::string& where, bool allow_number = false) const {
    return fr::from_canonical_unchecked(decimal(v, fr::modulus, where, allow_number));
  }
  fp2 fp2_value(const json& v, const std::string& where) const {
    return {fp_value(element(v, 0, 2, where), where + "[0]"), fp_value(element(v, 1, 2, where), where + "[1]")};
  }

  ec::g1_affine g1(const json& v, const std::string& where) const {
    const fp x = fp_value(element(v, 0, 3, where), where + "[0]");
    const fp y = fp_value(element(v, 1, 3, where), where + "[1]");
    const fp z = fp_value(element(v, 2, 3, where), where + "[2]");
    if (z.is_zero()) {
      if (!x.is_zero() || !y.is_one()) fail(where, "infinity must be written [\"0\", \"1\", \"0\"]");
      return ec::g1_affine::identity();
    }
    if (!z.is_one()) fail(where + "[2]", "z must be \"1\" (affine) or \"0\" (infinity)");
    const ec::g1_affine p{x, y};
    if (p.is_infinity() || !p.is_on_curve()) fail(where, "point is not on the curve");
    return p;
  }

  ec::g2_affine g2(const json& v, const std::string& where) const {
    const fp2 x = fp2_value(element(v, 0, 3, where), where + "[0]");
    const fp2 y = fp2_value(element(v, 1, 3, where), where + "[1]");
    const fp2 z = fp2_value(element(v, 2, 3, where), where + "[2]");
    if (z.is_zero()) {
      if (!x.is_zero() || !y.is_one())
        fail(where, "infinity must be written [[\"0\",\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]]");
      return ec::g2_affine::identity();
    }
    if (!z.is_one()) fail(where + "[2]", "z must be [\"1\",\"0\"] (affine) or [\"0\",\"0\"]");
    const ec::g2_affine p{x, y};
    if (p.is_infinity() || !p.is_on_curve()) fail(where, "point is not on the curve");
    return p;
  }

  void expect_string(const json& obj, const char* key, const char* value) const {
    const json& v = member(obj, key, "top level");
    if (!v.is_string() || v.get<std::string>() != value)
      fail(key, std::string("expected \"") + value + "\", got " + v.dump());
  }
};

}  // namespace

// ---- decimal -----------------------------------------------------------

std::string to_decimal(std::span<const std::uint64_t> le_limbs) {
  std::vector<std::uint64_t> v(le_limbs.begin(), le_limbs.end());
  constexpr std::uint64_t chunk = 10000000000000000000ull;  // 10^19
  std::vector<std::uint64_t> parts;                         // base-10^19 digits, least significant first
  const auto nonzero = [&] { return std::any_of(v.begin(), v.end(), [](auto x) { return x != 0; }); };
  while (nonzero()) {
    ff::detail::u128 rem = 0;
    for (std::size_t i = v.size(); i-- > 0;) {
      const ff::detail::u128 cur = (rem << 64) | v[i];
      v[i] = std::uint64_t(cur / chunk);
      rem = cur % chunk;
    }
    parts.push_back(std::uint64_t(rem));
  }
  if (parts.empty()) return "0";
  std::string s = std::to_string(parts.back());
  for (std::size_t i = parts.size() - 1; i-- > 0;) {
    const std::string d = std::to_string(parts[i]);
    s += std::string(19 - d.size(), '0') + d;
  }
  return s;
}

std::string to_decimal(const ff::fr& a) {
  const auto c = a.to_canonical();
  return to_decimal(std::span<const std::uint64_t>(c));
}

std::string to_decimal(const ff::fp& a) {
  const auto c = a.to_canonical();
  return to_decimal(std::span<const std::uint64_t>(c));
}

// ---- proof / public ----------------------------------------------------

std::string proof_to_json(const groth16::proof& p) {
  json j;
  j["pi_a"] = g1_json(p.a);
  j["pi_b"] = g2_json(p.b);
  j["pi_c"] = g1_json(p.c);
  j["protocol"] = "groth16";
  j["curve"] = "bls12381";
  return stringify(j);
}

std::string public_to_json(std::span<const ff::fr> inputs) {
  json j = json::array();
  for (const auto& x : inputs) j.push_back(to_decimal(x));
  return stringify(j);
}

groth16::proof proof_from_json(std::string_view text, std::string_view path) {
  const parser ps{"proof.json", std::string(path)};
  const json j = ps.parse(text);
  ps.expect_string(j, "protocol", "groth16");
  ps.expect_string(j, "curve", "bls12381");
  groth16::proof p;
  p.a = ps.g1(ps.member(j, "pi_a", "top level"), "pi_a");
  p.b = ps.g2(ps.member(j, "pi_b", "top level"), "pi_b");
  p.c = ps.g1(ps.member(j, "pi_c", "top level"), "pi_c");
  return p;
}

std::vector<ff::fr> public_from_json(std::string_view text, std::string_view path) {
  const parser ps{"public.json", std::string(path)};
  const json j = ps.parse(text);
  if (!j.is_array()) ps.fail("top level", "expected an array of decimal strings");
  std::vector<ff::fr> out;
  out.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) out.push_back(ps.fr_value(j[i], indexed("", i), true));
  return out;
}

snarkjs_vk vk_from_json(std::string_view text, std::string_view path) {
  const parser ps{"verification_key.json", std::string(path)};
  const json j = ps.parse(text);
  ps.expect_string(j, "protocol", "groth16");
  ps.expect_string(j, "curve", "bls12381");
  snarkjs_vk out;
  const json& n = ps.member(j, "nPublic", "top level");
  if (!n.is_number_unsigned() || n.get<std::uint64_t>() > 0xffffffffu)
    ps.fail("nPublic", "expected a non-negative integer");
  out.n_public = std::uint32_t(n.get<std::uint64_t>());
  auto& vk = out.vk;
  vk.alpha_g1 = ps.g1(ps.member(j, "vk_alpha_1", "top level"), "vk_alpha_1");
  vk.beta_g2 = ps.g2(ps.member(j, "vk_beta_2", "top level"), "vk_beta_2");
  vk.gamma_g2 = ps.g2(ps.member(j, "vk_gamma_2", "top level"), "vk_gamma_2");
  vk.delta_g2 = ps.g2(ps.member(j, "vk_delta_2", "top level"), "vk_delta_2");
  vk.beta_g1 = ec::g1_affine::identity();
  vk.delta_g1 = ec::g1_affine::identity();
  const json& ic = ps.member(j, "IC", "top level");
  if (!ic.is_array() || ic.size() != std::size_t(out.n_public) + 1)
    ps.fail("IC", "expected nPublic + 1 = " + std::to_string(std::uint64_t(out.n_public) + 1) + " points");
  for (std::size_t i = 0; i < ic.size(); ++i) vk.ic.push_back(ps.g1(ic[i], indexed("IC", i)));
  return out;
}

std::string vk_to_json(const zkey_file& zk) {
  const ec::gt ab = ec::pairing(zk.alpha1, zk.beta2);
  json j;
  j["protocol"] = "groth16";
  j["curve"] = "bls12381";
  j["nPublic"] = zk.n_public;
  j["vk_alpha_1"] = g1_json(zk.alpha1);
  j["vk_beta_2"] = g2_json(zk.beta2);
  j["vk_gamma_2"] = g2_json(zk.gamma2);
  j["vk_delta_2"] = g2_json(zk.delta2);
  const auto fp6_json = [](const ff::fp6& a) { return json::array({fp2_json(a.c0), fp2_json(a.c1), fp2_json(a.c2)}); };
  j["vk_alphabeta_12"] = json::array({fp6_json(ab.c0), fp6_json(ab.c1)});
  json ic = json::array();
  for (const auto& p : zk.ic) ic.push_back(g1_json(p));
  j["IC"] = std::move(ic);
  return stringify(j);
}

// ---- files -------------------------------------------------------------

std::string read_text_file(const std::filesystem::path& path, const char* kind) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw format_error(kind, path.string(), "", format_error::no_offset,
                       std::string("cannot open: ") + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text_file(const std::filesystem::path& path, std::string_view text, const char* kind) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    throw format_error(kind, path.string(), "", format_error::no_offset,
                       std::string("cannot create: ") + std::strerror(errno));
  out.write(text.data(), std::streamsize(text.size()));
  out.close();
  if (!out) throw format_error(kind, path.string(), "", format_error::no_offset, "write failed");
}

}  // namespace cuzk::io
