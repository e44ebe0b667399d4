// SPDX-License-Identifier: Apache-2.0
// Writes the seed corpus of the params fuzz target: seeded TEST parameters
// (.params and .vk) of a 4-step chain circuit (a few KiB), each prefixed
// with the target's selector byte (bit 0: .vk layout, bit 1: subgroup
// checks). Built on demand only (target fuzz_make_seed_params);
//   fuzz_make_seed_params fuzz/corpus/params
// reproduces the committed files byte for byte (fixed seed).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <cuzk/groth16/setup.hpp>
#include <cuzk/io/params.hpp>
#include <cuzk/r1cs/examples.hpp>
#include <cuzk/r1cs/synthesize.hpp>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_make_seed_params OUT_DIR\n");
    return 2;
  }
  namespace fs = std::filesystem;
  const fs::path out = argv[1];
  fs::create_directories(out);
  const auto shape = cuzk::r1cs::make_shape(cuzk::r1cs::examples::chain_circuit{4, std::nullopt});
  const auto p = cuzk::groth16::generate_parameters(shape, 5);
  std::ostringstream vk, params;
  cuzk::io::write_verifying_key(p.vk, vk);
  cuzk::io::write_parameters(p, params);
  const auto put = [&](const char* name, char sel, const std::string& body) {
    std::ofstream f(out / name, std::ios::binary);
    f.put(sel);
    f << body;
  };
  put("chain4-vk-nocheck.bin", 1, vk.str());
  put("chain4-vk-check.bin", 3, vk.str());
  put("chain4-params-nocheck.bin", 0, params.str());
  put("chain4-params-check.bin", 2, params.str());
  put("chain4-params-as-vk.bin", 1, params.str());
  put("chain4-vk-truncated.bin", 1, vk.str().substr(0, vk.str().size() - 50));
  return 0;
}
