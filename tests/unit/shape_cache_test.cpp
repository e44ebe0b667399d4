// SPDX-License-Identifier: Apache-2.0
// load_or_build_shape (io/shape_cache.hpp) on the 2 KiB WinningPoSt shape:
// the first load builds and writes the file, the second reads it without
// calling the builder; a truncated, byte-flipped (payload or header) or
// stale (other version, other circuit id) file is rebuilt and rewritten,
// never trusted; a folder that cannot be written still yields the shape,
// with a warning. The builder counts its calls.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuzk/io/shape_cache.hpp>
#include <cuzk/io/shape_file.hpp>
#include <cuzk/r1cs/examples.hpp>
#include <cuzk/r1cs/synthesize.hpp>

#include "common/test_seed.hpp"
#include "unit/shape_test_support.hpp"

namespace {

using namespace cuzk;
namespace fs = std::filesystem;
using test::shape_dir;

const io::shape_key key{"winning-2k", 7};

struct counting_builder {
  int calls = 0;
  std::function<r1cs::r1cs_shape()> fn() {
    return [this] {
      ++calls;
      return test::winning_2k_shape();
    };
  }
};

bool same_shape(const r1cs::r1cs_shape& x, const r1cs::r1cs_shape& y) {
  return x.num_inputs == y.num_inputs && x.num_aux == y.num_aux && x.num_constraints == y.num_constraints &&
         x.coeffs == y.coeffs && x.a == y.a && x.b == y.b && x.c == y.c && x.a_aux_density == y.a_aux_density &&
         x.b_input_density == y.b_input_density && x.b_aux_density == y.b_aux_density;
}

TEST(shape_cache, FirstLoadWritesTheFileTheSecondReadsItWithoutBuilding) {
  shape_dir d("cache");
  const fs::path p = d.path / "w.shape";
  counting_builder b;
  const io::shape_load first = io::load_or_build_shape(p, key, b.fn());
  EXPECT_EQ(first.source, io::shape_source::built);
  EXPECT_TRUE(first.cached) << first.warning;
  EXPECT_TRUE(first.warning.empty());
  EXPECT_EQ(b.calls, 1);
  EXPECT_TRUE(fs::exists(p));
  EXPECT_TRUE(same_shape(first.shape, test::winning_2k_shape()));
  std::printf("%s\n", first.summary().c_str());

  const io::shape_load second = io::load_or_build_shape(p, key, b.fn());
  EXPECT_EQ(second.source, io::shape_source::cache_hit);
  EXPECT_TRUE(second.cached);
  EXPECT_EQ(b.calls, 1);  // not built again
  EXPECT_TRUE(same_shape(second.shape, test::winning_2k_shape()));
  EXPECT_NE(second.summary().find("read from w.shape"), std::string::npos) << second.summary();
  std::printf("%s\n", second.summary().c_str());
}

/// Writes a good cache file, spoils it with |spoil|, and checks that the
/// next load rebuilds (reason containing |why|), rewrites it, and that the
/// load after that is a hit.
template <class Spoil>
void expect_rebuilt(const char* what, const std::string& why, Spoil spoil) {
  SCOPED_TRACE(what);
  shape_dir d("rebuild");
  const fs::path p = d.path / "w.shape";
  io::write_shape_file(p, test::winning_2k_shape(), key);
  spoil(p);
  counting_builder b;
  const io::shape_load r = io::load_or_build_shape(p, key, b.fn());
  EXPECT_EQ(r.source, io::shape_source::rebuilt);
  EXPECT_EQ(b.calls, 1);
  EXPECT_NE(r.reason.find(why), std::string::npos) << r.reason;
  EXPECT_TRUE(r.cached) << r.warning;
  EXPECT_TRUE(same_shape(r.shape, test::winning_2k_shape()));
  EXPECT_NE(r.summary().find("not used"), std::string::npos) << r.summary();
  const io::shape_load again = io::load_or_build_shape(p, key, b.fn());
  EXPECT_EQ(again.source, io::shape_source::cache_hit) << again.reason;
  EXPECT_EQ(b.calls, 1);
}

void flip(const fs::path& p, std::size_t at) {
  std::vector<char> bytes = test::read_all(p);
  ASSERT_LT(at, bytes.size());
  bytes[at] = char(std::uint8_t(bytes[at]) ^ 0x10);
  test::write_all(p, bytes);
}

TEST(shape_cache, CorruptFilesAreRebuiltAndRewritten) {
  std::mt19937_64 rng(test::test_seed("shape_cache.CorruptFilesAreRebuiltAndRewritten"));
  expect_rebuilt("truncated", "truncated", [](const fs::path& p) { fs::resize_file(p, fs::file_size(p) - 100); });
  expect_rebuilt("truncated to nothing", "truncated", [](const fs::path& p) { fs::resize_file(p, 0); });
  const std::size_t header = 120 + key.circuit_id.size();
  expect_rebuilt("payload byte flipped", "digest mismatch",
                 [&](const fs::path& p) { flip(p, header + rng() % (fs::file_size(p) - header)); });
  expect_rebuilt("header count flipped", "payload bytes", [](const fs::path& p) { flip(p, 40); });
  expect_rebuilt("header digest flipped", "digest mismatch", [](const fs::path& p) { flip(p, 100); });
  expect_rebuilt("magic flipped", "bad magic", [](const fs::path& p) { flip(p, 0); });
}

TEST(shape_cache, StaleFilesAreRebuiltAndRewritten) {
  expect_rebuilt("other shape version", "stale", [](const fs::path& p) {
    io::write_shape_file(p, test::winning_2k_shape(), {key.circuit_id, key.shape_version - 1});
  });
  expect_rebuilt("other circuit id", "stale", [](const fs::path& p) {
    io::write_shape_file(p, test::winning_2k_shape(), {"winning-8m", key.shape_version});
  });
}

TEST(shape_cache, ACachedShapeThatFailsTheCallersCheckIsRebuilt) {
  shape_dir d("check");
  const fs::path p = d.path / "w.shape";
  // a file under the right key holding another shape (a circuit changed
  // without a new shape version): the caller's count check catches it
  io::write_shape_file(p, r1cs::make_shape(r1cs::examples::chain_circuit{10, std::nullopt}), key);
  const std::size_t aux = test::winning_2k_shape().num_aux;
  const io::shape_check check = [aux](const r1cs::r1cs_shape& s) {
    return s.num_aux == aux ? std::string() : "has " + std::to_string(s.num_aux) + " aux";
  };
  counting_builder b;
  const io::shape_load r = io::load_or_build_shape(p, key, b.fn(), check);
  EXPECT_EQ(r.source, io::shape_source::rebuilt);
  EXPECT_EQ(b.calls, 1);
  EXPECT_NE(r.reason.find("stale: the cached shape has "), std::string::npos) << r.reason;
  EXPECT_TRUE(same_shape(r.shape, test::winning_2k_shape()));
  EXPECT_EQ(io::load_or_build_shape(p, key, b.fn(), check).source, io::shape_source::cache_hit);
  EXPECT_EQ(b.calls, 1);
}

TEST(shape_cache, AnUnwritableCacheStillYieldsTheShapeWithAWarning) {
  shape_dir d("unwritable");
  // the cache path's folder is a regular file: nothing can be created there
  // (as root too, unlike a read-only folder)
  test::write_all(d.path / "blocker", {'x'});
  const fs::path p = d.path / "blocker" / "w.shape";
  counting_builder b;
  const io::shape_load r = io::load_or_build_shape(p, key, b.fn());
  EXPECT_EQ(r.source, io::shape_source::built);
  EXPECT_FALSE(r.cached);
  EXPECT_NE(r.warning.find(p.string()), std::string::npos) << r.warning;
  EXPECT_NE(r.summary().find("WARNING"), std::string::npos);
  EXPECT_TRUE(same_shape(r.shape, test::winning_2k_shape()));
  EXPECT_EQ(b.calls, 1);
}

TEST(shape_cache, AReadOnlyFolderStillYieldsTheShapeWithAWarning) {
  shape_dir d("readonly");
  fs::permissions(d.path, fs::perms::owner_read | fs::perms::owner_exec);
  if (::access(d.path.c_str(), W_OK) == 0)
    GTEST_SKIP() << "running as root: a read-only folder is still writable (the unwritable-path test covers this)";
  counting_builder b;
  const io::shape_load r = io::load_or_build_shape(d.path / "w.shape", key, b.fn());
  EXPECT_EQ(r.source, io::shape_source::built);
  EXPECT_FALSE(r.cached);
  EXPECT_FALSE(r.warning.empty());
  EXPECT_TRUE(same_shape(r.shape, test::winning_2k_shape()));
}

TEST(shape_cache, TemporariesOfDeadWritersAreRemovedBeforeWriting) {
  shape_dir d("orphans");
  const fs::path p = d.path / "w.shape";
  // pid 2^31 - 2 is above any pid_max (2^22): no such process
  const fs::path dead = d.path / "w.shape.tmp-2147483646-0";
  const fs::path mine = d.path / ("w.shape.tmp-" + std::to_string(::getpid()) + "-999");
  const fs::path other = d.path / "x.shape.tmp-2147483646-0";  // another file's
  for (const fs::path& f : {dead, mine, other}) test::write_all(f, {'x'});
  counting_builder b;
  const io::shape_load r = io::load_or_build_shape(p, key, b.fn());
  EXPECT_TRUE(r.cached) << r.warning;
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(mine));
  EXPECT_TRUE(fs::exists(other));
}

TEST(shape_cache, ABuilderFailurePropagatesAndWritesNothing) {
  shape_dir d("failure");
  const fs::path p = d.path / "w.shape";
  EXPECT_THROW(io::load_or_build_shape(p, key, []() -> r1cs::r1cs_shape { throw std::runtime_error("no"); }),
               std::runtime_error);
  EXPECT_FALSE(fs::exists(p));
}

}  // namespace
