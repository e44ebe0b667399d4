// SPDX-License-Identifier: Apache-2.0
// Registered seal proofs (io::find_seal_proof*, porep_id) and the C1 JSON
// reader/writer (io::parse_c1_json / write_c1_json): known facts from
// rust-filecoin-proofs-api / filecoin-proofs, round trips on seeded random
// C1 outputs of the right shapes, and one test per class of bad input that
// checks the error names the JSON path.
#include <cuzk/io/base64.hpp>
#include <cuzk/io/porep_c1.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "common/c1_random.hpp"
#include "common/test_seed.hpp"

namespace {

using namespace cuzk::io;
namespace ff = cuzk::ff;
using ojson = nlohmann::ordered_json;

// ---- registry --------------------------------------------------------------

TEST(seal_proof_registry, NamesIdsAndApiVersions) {
  const char* names[20] = {
      "StackedDrg2KiBV1",
      "StackedDrg8MiBV1",
      "StackedDrg512MiBV1",
      "StackedDrg32GiBV1",
      "StackedDrg64GiBV1",
      "StackedDrg2KiBV1_1",
      "StackedDrg8MiBV1_1",
      "StackedDrg512MiBV1_1",
      "StackedDrg32GiBV1_1",
      "StackedDrg64GiBV1_1",
      "StackedDrg2KiBV1_1_Feat_SyntheticPoRep",
      "StackedDrg8MiBV1_1_Feat_SyntheticPoRep",
      "StackedDrg512MiBV1_1_Feat_SyntheticPoRep",
      "StackedDrg32GiBV1_1_Feat_SyntheticPoRep",
      "StackedDrg64GiBV1_1_Feat_SyntheticPoRep",
      "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep",
      "StackedDrg8MiBV1_2_Feat_NonInteractivePoRep",
      "StackedDrg512MiBV1_2_Feat_NonInteractivePoRep",
      "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep",
      "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep",
  };
  ASSERT_EQ(seal_proofs().size(), 20u);
  for (std::uint64_t id = 0; id < 20; ++id) {
    const seal_proof_info* p = find_seal_proof(names[id]);
    ASSERT_NE(p, nullptr) << names[id];
    EXPECT_EQ(p->id, id);
    EXPECT_EQ(p->name, names[id]);
    EXPECT_EQ(find_seal_proof_by_id(id), p);
    EXPECT_EQ(&seal_proofs()[id], p);
    const porep_api_version want_api = id < 5    ? porep_api_version::v1_0_0
                                       : id < 10 ? porep_api_version::v1_1_0
                                                 : porep_api_version::v1_2_0;
    EXPECT_EQ(p->api, want_api) << names[id];
    const porep_feature want_feature = id < 10   ? porep_feature::none
                                       : id < 15 ? porep_feature::synthetic_porep
                                                 : porep_feature::non_interactive_porep;
    EXPECT_EQ(p->feature, want_feature) << names[id];
  }
  EXPECT_EQ(find_seal_proof("StackedDrg2KiBV1_2"), nullptr);
  EXPECT_EQ(find_seal_proof("stackeddrg2kibv1"), nullptr);
  EXPECT_EQ(find_seal_proof(""), nullptr);
  EXPECT_EQ(find_seal_proof_by_id(20), nullptr);
}

TEST(seal_proof_registry, SizesShapesAndCounts) {
  struct want {
    std::uint64_t size;
    const char* shape;
    std::uint32_t layers, partitions, ni_partitions, challenges, sub, top, d_levels, r_levels;
  };
  const std::uint64_t kib = 1024, mib = kib << 10, gib = mib << 10;
  const want table[5] = {
      {2 * kib, "StackedDrg2KiBV1", 2, 1, 13, 2, 0, 0, 6, 2},
      {8 * mib, "StackedDrg8MiBV1", 2, 1, 13, 2, 0, 0, 18, 6},
      {512 * mib, "StackedDrg512MiBV1", 2, 1, 13, 2, 0, 0, 24, 8},
      {32 * gib, "StackedDrg32GiBV1", 11, 10, 126, 18, 8, 0, 30, 9},
      {64 * gib, "StackedDrg64GiBV1", 11, 10, 126, 18, 8, 2, 31, 9},
  };
  for (const seal_proof_info& p : seal_proofs()) {
    const want& w = table[p.id % 5];
    SCOPED_TRACE(std::string(p.name));
    EXPECT_EQ(p.sector_size, w.size);
    EXPECT_EQ(p.shape_name, w.shape);
    EXPECT_EQ(p.nodes, w.size / 32);
    EXPECT_EQ(p.layers, w.layers);
    EXPECT_EQ(p.partitions, p.feature == porep_feature::non_interactive_porep ? w.ni_partitions : w.partitions);
    EXPECT_EQ(p.challenges_per_partition, w.challenges);
    EXPECT_EQ(p.base_arity, 8u);
    EXPECT_EQ(p.sub_arity, w.sub);
    EXPECT_EQ(p.top_arity, w.top);
    EXPECT_EQ(p.tree_d_levels(), w.d_levels);
    EXPECT_EQ(p.tree_r_base_levels(), w.r_levels);
    // Enough challenges: interactive minimum 2 / 176, NI 26 / 2253 (constants.rs).
    const std::uint64_t total = std::uint64_t(p.partitions) * p.challenges_per_partition;
    const std::uint64_t minimum =
        p.feature == porep_feature::non_interactive_porep ? (p.layers == 2 ? 26 : 2253) : (p.layers == 2 ? 2 : 176);
    EXPECT_GE(total, minimum);
    EXPECT_LT(total - minimum, p.partitions);  // ceil(minimum / partitions) per partition
  }
}

TEST(seal_proof_registry, BySize) {
  const std::uint64_t gib = std::uint64_t(1) << 30;
  EXPECT_EQ(find_seal_proof_by_size(2048)->name, "StackedDrg2KiBV1_1");
  EXPECT_EQ(find_seal_proof_by_size(8 << 20)->name, "StackedDrg8MiBV1_1");
  EXPECT_EQ(find_seal_proof_by_size(512 << 20)->name, "StackedDrg512MiBV1_1");
  EXPECT_EQ(find_seal_proof_by_size(32 * gib)->name, "StackedDrg32GiBV1_1");
  EXPECT_EQ(find_seal_proof_by_size(64 * gib)->name, "StackedDrg64GiBV1_1");
  EXPECT_EQ(find_seal_proof_by_size(0), nullptr);
  EXPECT_EQ(find_seal_proof_by_size(4096), nullptr);
  EXPECT_EQ(find_seal_proof_by_size(16 * gib), nullptr);
}

TEST(seal_proof_registry, PorepId) {
  // registry.rs porep_id(): id u64 LE, nonce 0 u64 LE, 16 zero bytes.
  for (const seal_proof_info& p : seal_proofs()) {
    const auto id = p.porep_id();
    std::array<std::uint8_t, 32> want{};
    want[0] = std::uint8_t(p.id);
    EXPECT_EQ(id, want) << p.name;
  }
  // 32 GiB V1_1 is id 8: porep_id = 08 00 .. 00.
  EXPECT_EQ(find_seal_proof("StackedDrg32GiBV1_1")->porep_id()[0], 8);
}

// ---- C1 JSON: round trips ---------------------------------------------------

const seal_proof_info& proof(const char* name) {
  const seal_proof_info* p = find_seal_proof(name);
  if (!p) throw std::runtime_error(name);
  return *p;
}

/// A fixed, seeded 2 KiB C1 and its JSON (shared by the error tests).
const std::string& small_json() {
  static const std::string text = [] {
    std::mt19937_64 rng(20261129);
    return write_c1_json(cuzk::test::random_c1(rng, proof("StackedDrg2KiBV1_1")));
  }();
  return text;
}

void expect_round_trip(const c1_output& c1) {
  const std::string text = write_c1_json(c1);
  const c1_output back = parse_c1_json(text);
  ASSERT_TRUE(back == c1) << c1.proof->name;
  EXPECT_EQ(write_c1_json(back), text) << c1.proof->name;
}

const std::string vp = "vanilla_proofs.StackedDrg2KiBV1";

void expect_error(const std::string& text, const std::string& path, const std::string& detail) {
  try {
    (void)parse_c1_json(text, "t.json");
    ADD_FAILURE() << "accepted; expected an error at " << path << ": " << detail;
  } catch (const format_error& e) {
    EXPECT_EQ(e.kind(), "c1 json");
    EXPECT_EQ(e.path(), "t.json");
    EXPECT_EQ(e.section(), path) << e.what();
    EXPECT_NE(std::string(e.what()).find(detail), std::string::npos) << e.what();
  }
}

TEST(porep_c1_json, RoundTripEverySmallProof) {
  std::mt19937_64 rng(cuzk::test::test_seed("porep_c1_json.RoundTripEverySmallProof"));
  for (const seal_proof_info& p : seal_proofs()) {
    if (p.layers != 2) continue;  // 2 KiB, 8 MiB, 512 MiB; every api / feature
    SCOPED_TRACE(std::string(p.name));
    expect_round_trip(cuzk::test::random_c1(rng, p));
  }
}

TEST(porep_c1_json, RoundTrip32GiBTenPartitions) {
  std::mt19937_64 rng(cuzk::test::test_seed("porep_c1_json.RoundTrip32GiBTenPartitions"));
  const c1_output c1 = cuzk::test::random_c1(rng, proof("StackedDrg32GiBV1_1"));
  ASSERT_EQ(c1.partitions.size(), 10u);
  ASSERT_EQ(c1.partitions[0].size(), 18u);
  ASSERT_EQ(c1.partitions[0][0].comm_r_last_proof.kind, merkle_proof_kind::sub);
  ASSERT_EQ(c1.partitions[0][0].comm_d_proof.base.size(), 30u);
  expect_round_trip(c1);
}

TEST(porep_c1_json, RoundTrip64GiBTopShape) {
  std::mt19937_64 rng(cuzk::test::test_seed("porep_c1_json.RoundTrip64GiBTopShape"));
  const c1_output c1 = cuzk::test::random_c1(rng, proof("StackedDrg64GiBV1_1_Feat_SyntheticPoRep"));
  ASSERT_EQ(c1.partitions[0][0].comm_r_last_proof.kind, merkle_proof_kind::top);
  expect_round_trip(c1);
}

TEST(porep_c1_json, SerdeLayout) {
  // Field order of SealCommitPhase1Output / Proof / ColumnProof, compact.
  const std::string& t = small_json();
  EXPECT_EQ(t.rfind("{\"registered_proof\":\"StackedDrg2KiBV1_1\",\"vanilla_proofs\":{\"StackedDrg2KiBV1\":"
                    "[[{\"comm_d_proofs\":{\"data\":{\"Single\":{\"root\":[",
                    0),
            0u);
  EXPECT_NE(t.find("}]}}}},\"comm_r_last_proof\":{\"data\":{\"Single\":{\"root\":["), std::string::npos);
  EXPECT_NE(t.find("\"replica_column_proofs\":{\"c_x\":{\"column\":{\"index\":"), std::string::npos);
  EXPECT_NE(t.find("\"_h\":null},\"inclusion_proof\":{\"data\":{\"Single\":"), std::string::npos);
  EXPECT_NE(t.find("]},\"labeling_proofs\":[{\"parents\":[["), std::string::npos);
  EXPECT_NE(t.find(",\"layer_index\":1,\"node\":"), std::string::npos);
  EXPECT_NE(t.find("}],\"encoding_proof\":{\"parents\":[["), std::string::npos);
  EXPECT_NE(t.find("]]},\"comm_r\":["), std::string::npos);
  EXPECT_EQ(t.find(' '), std::string::npos);
  EXPECT_EQ(t.find('\n'), std::string::npos);
  // The same bytes as a generic compact JSON re-encoding (nlohmann keeps the
  // key order and prints unsigned integers the way serde_json does).
  EXPECT_EQ(ojson::parse(t).dump(), t);
  // Key order of the top level.
  const ojson j = ojson::parse(t);
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"registered_proof", "vanilla_proofs", "comm_r", "comm_d", "replica_id",
                                            "seed", "ticket"}));
}

TEST(porep_c1_json, KeyOrderWhitespaceAndEscapes) {
  const std::string& t = small_json();
  const c1_output want = parse_c1_json(t);
  const ojson j = ojson::parse(t);
  // Go's order (curio Commit1OutRaw): vanilla_proofs last; and the reverse of
  // serde's, where vanilla_proofs comes before registered_proof.
  for (const std::vector<std::string>& order :
       {std::vector<std::string>{"comm_d", "comm_r", "registered_proof", "replica_id", "seed", "ticket",
                                 "vanilla_proofs"},
        std::vector<std::string>{"ticket", "seed", "replica_id", "comm_d", "comm_r", "vanilla_proofs",
                                 "registered_proof"}}) {
    ojson r = ojson::object();
    for (const std::string& k : order) r[k] = j[k];
    EXPECT_TRUE(parse_c1_json(r.dump()) == want);
  }
  EXPECT_TRUE(parse_c1_json(j.dump(2)) == want);
  // Errors inside a vanilla_proofs read after registered_proof keep their paths.
  {
    ojson r = ojson::object();
    r["vanilla_proofs"] = j["vanilla_proofs"];
    r["vanilla_proofs"]["StackedDrg2KiBV1"][0][1]["labeling_proofs"][1]["parents"][36][3] = 300;
    for (const auto& [k, v] : j.items())
      if (k != "vanilla_proofs") r[k] = v;
    expect_error(r.dump(), vp + "[0][1].labeling_proofs[1].parents[36][3]", "byte value 300 is out of range");
    // ... and the skipped value must still be valid JSON, nested at most 64 deep.
    std::string deep = "{\"vanilla_proofs\":" + std::string(65, '[') + std::string(65, ']') + "}";
    expect_error(deep, "vanilla_proofs", "nesting deeper than 64");
    expect_error("{\"vanilla_proofs\":[1,2,]}", "vanilla_proofs", "expected a JSON value, found the character \"]\"");
    expect_error("{\"vanilla_proofs\":{}}", "", "missing field \"registered_proof\"");
  }
  EXPECT_TRUE(parse_c1_json("\n\t " + t + " \r\n") == want);
  std::string escaped = t;
  escaped.replace(escaped.find("\"seed\""), 6, "\"s\\u0065ed\"");
  EXPECT_TRUE(parse_c1_json(escaped) == want);
}

std::string wrap(std::string_view c1, std::uint64_t sector_size, std::string_view num = "7") {
  return "{\"SectorNum\":" + std::string(num) + ",\"Phase1Out\":\"" + to_base64(c1) +
         "\",\"SectorSize\":" + std::to_string(sector_size) + "}";
}

TEST(porep_c1_json, Wrapper) {
  const std::string& t = small_json();
  const c1_output want = parse_c1_json(t);
  EXPECT_TRUE(parse_c1_json(wrap(t, 2048)) == want);
  // Every base64 padding case (the C1 text grows by one byte each time).
  EXPECT_TRUE(parse_c1_json(wrap(t + " ", 2048)) == want);
  EXPECT_TRUE(parse_c1_json(wrap(t + "  ", 2048)) == want);
  // Keys in another order.
  EXPECT_TRUE(parse_c1_json("{\"SectorSize\":2048,\"Phase1Out\":\"" + to_base64(t) + "\",\"SectorNum\":1}") == want);
  expect_error(wrap(t, 4096), "SectorSize", "does not match registered_proof StackedDrg2KiBV1_1 (2048 bytes)");
  expect_error("{\"SectorNum\":1,\"SectorSize\":2048}", "", "missing field \"Phase1Out\"");
  expect_error(wrap(t, 2048, "-1"), "SectorNum", "found a negative number");
  std::string bad = wrap(t, 2048);
  bad[bad.find("Phase1Out\":\"") + 20] = '*';
  expect_error(bad, "Phase1Out", "invalid base64 at character 8");
  std::string unpadded = wrap(t + " ", 2048);
  unpadded.erase(unpadded.find("=\""), 1);
  expect_error(unpadded, "Phase1Out", "not a multiple of 4");
  const auto wrapped = [](const std::string& b64) {
    return "{\"SectorNum\":1,\"Phase1Out\":\"" + b64 + "\",\"SectorSize\":2048}";
  };
  expect_error(wrapped("e30="), "Phase1Out", "missing field \"registered_proof\"");  // "{}"
  expect_error(wrapped("e31="), "Phase1Out", "invalid base64 at character 0: non-zero bits after the last byte");
  expect_error(wrapped("e3=9"), "Phase1Out", "invalid base64 at character 2: misplaced '='");
  expect_error(wrapped("e30=e30="), "Phase1Out", "invalid base64 at character 3: misplaced '='");
  expect_error(wrapped("e3 0"), "Phase1Out", "invalid base64 at character 2: character \" \" is not in the alphabet");
  expect_error(wrapped(""), "Phase1Out", "expected the C1 JSON object, found the end of the input");
  expect_error("{\"SectorNum\":1,\"Phase1Out\":[1],\"SectorSize\":2048}", "Phase1Out",
               "expected a base64 string, found an array");
  // Errors inside the decoded C1 name the path below Phase1Out.
  std::string inner = t;
  inner.replace(inner.find("StackedDrg2KiBV1_1"), 18, "StackedDrg2KiBV1_7");
  expect_error(wrap(inner, 2048), "Phase1Out.registered_proof", "of the base64-decoded Phase1Out");
  expect_error(wrap(t + "x", 2048), "Phase1Out", "trailing characters");
}

// ---- C1 JSON: one test per class of bad input --------------------------------

/// small_json() with |edit| applied to its DOM.
std::string edited(const std::function<void(ojson&)>& edit) {
  ojson j = ojson::parse(small_json());
  edit(j);
  return j.dump();
}
ojson& ch(ojson& j, int k = 0, int i = 0) { return j["vanilla_proofs"]["StackedDrg2KiBV1"][k][i]; }

TEST(porep_c1_json_errors, UnknownRegisteredProof) {
  expect_error(edited([](ojson& j) { j["registered_proof"] = "StackedDrg2KiBV9"; }), "registered_proof",
               "unknown registered proof \"StackedDrg2KiBV9\"");
  expect_error(edited([](ojson& j) { j["registered_proof"] = 5; }), "registered_proof",
               "expected the registered proof name (a string), found a number");
}

TEST(porep_c1_json_errors, ShapeKeyMismatch) {
  expect_error(edited([](ojson& j) {
                 j["vanilla_proofs"] = ojson{{"StackedDrg32GiBV1", j["vanilla_proofs"]["StackedDrg2KiBV1"]}};
               }),
               "vanilla_proofs", "vanilla proof shape \"StackedDrg32GiBV1\" does not match registered_proof");
  expect_error(edited([](ojson& j) {
                 j["vanilla_proofs"] = ojson{{"Foo", j["vanilla_proofs"]["StackedDrg2KiBV1"]}};
               }),
               "vanilla_proofs", "unknown vanilla proof shape \"Foo\"");
  expect_error(edited([](ojson& j) { j["vanilla_proofs"]["StackedDrg8MiBV1"] = ojson::array(); }), "vanilla_proofs",
               "exactly one shape key");
  expect_error(edited([](ojson& j) { j["vanilla_proofs"] = ojson::object(); }), "vanilla_proofs",
               "missing the vanilla proof shape key");
}

TEST(porep_c1_json_errors, MissingUnknownAndDuplicateFields) {
  expect_error(edited([](ojson& j) { ch(j).erase("encoding_proof"); }), vp + "[0][0]",
               "missing field \"encoding_proof\"");
  expect_error(edited([](ojson& j) { j.erase("ticket"); }), "", "missing field \"ticket\"");
  expect_error(edited([](ojson& j) { ch(j)["replica_column_proofs"]["c_x"]["column"].erase("_h"); }),
               vp + "[0][0].replica_column_proofs.c_x.column", "missing field \"_h\"");
  expect_error(edited([](ojson& j) { j["extra"] = 1; }), "", "unknown field \"extra\"");
  std::string dup = small_json();
  dup.insert(dup.find(",\"ticket\":"), ",\"seed\":" + ojson::parse(dup)["seed"].dump());
  expect_error(dup, "", "duplicate field \"seed\"");
}

TEST(porep_c1_json_errors, WrongTypes) {
  expect_error(edited([](ojson& j) { ch(j)["labeling_proofs"][0]["node"] = "5"; }),
               vp + "[0][0].labeling_proofs[0].node", "expected node (an unsigned integer), found a string");
  expect_error(edited([](ojson& j) { ch(j)["labeling_proofs"][1]["layer_index"] = 2.5; }),
               vp + "[0][0].labeling_proofs[1].layer_index", "found a fractional number");
  expect_error(edited([](ojson& j) { ch(j)["replica_column_proofs"] = ojson::array(); }),
               vp + "[0][0].replica_column_proofs", "expected an object, found an array");
  expect_error(edited([](ojson& j) { ch(j)["replica_column_proofs"]["c_x"]["column"]["_h"] = 0; }),
               vp + "[0][0].replica_column_proofs.c_x.column._h", "expected _h (null), found a number");
  expect_error(edited([](ojson& j) { j["seed"] = nullptr; }), "seed", "expected an array of 32 bytes, found null");
  std::string huge = edited([](ojson& j) { ch(j)["labeling_proofs"][0]["node"] = 1234567890123ull; });
  huge.replace(huge.find("1234567890123"), 13, "18446744073709551616");
  expect_error(huge, vp + "[0][0].labeling_proofs[0].node", "node does not fit in 64 bits");
  expect_error(edited([](ojson& j) { ch(j)["replica_column_proofs"]["c_x"]["column"]["index"] = 1ull << 32; }),
               vp + "[0][0].replica_column_proofs.c_x.column.index", "does not fit in 32 bits");
}

TEST(porep_c1_json_errors, ByteArrays) {
  expect_error(edited([](ojson& j) { j["comm_r"].erase(31); }), "comm_r", "expected 32 bytes, found 31");
  expect_error(edited([](ojson& j) { j["comm_r"].push_back(0); }), "comm_r", "expected 32 bytes, found more");
  expect_error(edited([](ojson& j) { j["ticket"][5] = 256; }), "ticket[5]", "byte value 256 is out of range 0..255");
  expect_error(edited([](ojson& j) { j["ticket"][6] = -1; }), "ticket[6]", "found a negative number");
  expect_error(edited([](ojson& j) { j["ticket"][7] = 1e3; }), "ticket[7]", "fractional");
  expect_error(edited([](ojson& j) { j["ticket"][8] = "1"; }), "ticket[8]", "found a string");
  std::string lead = small_json();
  lead.replace(lead.find("\"seed\":[") + 8, 0, "0");
  expect_error(lead, "seed[0]", "leading zero");
}

TEST(porep_c1_json_errors, NonCanonicalDomains) {
  const ojson max = ojson(std::vector<int>(32, 255));
  expect_error(
      edited([&](ojson& j) { ch(j, 0, 1)["replica_column_proofs"]["drg_parents"][3]["column"]["rows"][1] = max; }),
      vp + "[0][1].replica_column_proofs.drg_parents[3].column.rows[1]", "not a canonical field element");
  // r itself (LE) is the smallest non-canonical value; r - 1 is accepted.
  std::vector<int> r = {1, 0,   0,   0, 255, 255, 255, 255, 254, 91,  254, 255, 2,  164, 189, 83,
                        5, 216, 161, 9, 8,   216, 57,  51,  72,  125, 157, 41,  83, 167, 237, 115};
  expect_error(edited([&](ojson& j) { ch(j)["comm_d_proofs"]["data"]["Single"]["leaf"] = r; }),
               vp + "[0][0].comm_d_proofs.data.Single.leaf", "not a canonical field element");
  expect_error(edited([&](ojson& j) { j["replica_id"] = r; }), "replica_id", "not a canonical field element");
  r[0] = 0;
  EXPECT_NO_THROW(parse_c1_json(edited([&](ojson& j) { ch(j)["comm_d_proofs"]["data"]["Single"]["leaf"] = r; })));
  // seed and ticket are plain bytes.
  EXPECT_NO_THROW(parse_c1_json(edited([&](ojson& j) { j["seed"] = max; })));
}

TEST(porep_c1_json_errors, Counts) {
  expect_error(edited([](ojson& j) { j["vanilla_proofs"]["StackedDrg2KiBV1"].push_back(ch(j, 0, 0)); }), vp,
               "expected 1 partitions, found more");
  expect_error(edited([](ojson& j) { j["vanilla_proofs"]["StackedDrg2KiBV1"][0].erase(1); }), vp + "[0]",
               "expected 2 challenge proofs, found 1");
  expect_error(edited([](ojson& j) { ch(j)["replica_column_proofs"]["drg_parents"].erase(0); }),
               vp + "[0][0].replica_column_proofs.drg_parents", "expected 6 DRG parent columns, found 5");
  expect_error(edited([](ojson& j) {
                 auto& e = ch(j)["replica_column_proofs"]["exp_parents"];
                 e.push_back(e[0]);
               }),
               vp + "[0][0].replica_column_proofs.exp_parents", "expected 8 expander parent columns, found more");
  expect_error(edited([](ojson& j) { ch(j)["replica_column_proofs"]["c_x"]["column"]["rows"].erase(0); }),
               vp + "[0][0].replica_column_proofs.c_x.column.rows", "expected 2 rows (one per layer), found 1");
  expect_error(edited([](ojson& j) { ch(j)["labeling_proofs"][1]["parents"].erase(0); }),
               vp + "[0][0].labeling_proofs[1].parents", "expected 37 parents, found 36");
  expect_error(
      edited([](ojson& j) { ch(j)["encoding_proof"]["parents"].push_back(ch(j)["encoding_proof"]["parents"][0]); }),
      vp + "[0][0].encoding_proof.parents", "expected 37 parents, found more");
  expect_error(edited([](ojson& j) { ch(j)["labeling_proofs"].push_back(ch(j)["labeling_proofs"][0]); }),
               vp + "[0][0].labeling_proofs", "expected 2 labeling proofs (one per layer), found more");
}

TEST(porep_c1_json_errors, MerklePaths) {
  const std::string d = vp + "[0][0].comm_d_proofs.data.Single.path.path";
  const std::string r = vp + "[0][0].comm_r_last_proof.data.Single.path.path";
  expect_error(
      edited([](ojson& j) { ch(j)["comm_r_last_proof"]["data"]["Single"]["path"]["path"][0]["hashes"].erase(0); }),
      r + "[0].hashes", "expected 7 hashes (arity 8), found 6");
  expect_error(edited([](ojson& j) {
                 auto& h = ch(j)["comm_d_proofs"]["data"]["Single"]["path"]["path"][2]["hashes"];
                 h.push_back(h[0]);
               }),
               d + "[2].hashes", "expected 1 hashes (arity 2), found more");
  expect_error(edited([](ojson& j) { ch(j)["comm_r_last_proof"]["data"]["Single"]["path"]["path"][1]["index"] = 8; }),
               r + "[1].index", "index 8 is not below the arity 8");
  expect_error(edited([](ojson& j) { ch(j)["comm_d_proofs"]["data"]["Single"]["path"]["path"][0]["index"] = 2; }),
               d + "[0].index", "index 2 is not below the arity 2");
  expect_error(edited([](ojson& j) { ch(j)["comm_d_proofs"]["data"]["Single"]["path"]["path"].erase(5); }), d,
               "expected 6 path elements, found 5");
  expect_error(
      edited([](ojson& j) {
        auto& p = ch(j)["replica_column_proofs"]["exp_parents"][7]["inclusion_proof"]["data"]["Single"]["path"]["path"];
        p.push_back(p[0]);
      }),
      vp + "[0][0].replica_column_proofs.exp_parents[7].inclusion_proof.data.Single.path.path",
      "expected 2 path elements, found more");
  // A Sub proof where the 2 KiB tree shape (8-0-0) needs a Single one.
  expect_error(edited([](ojson& j) {
                 auto& single = ch(j)["comm_d_proofs"]["data"]["Single"];
                 ch(j)["comm_d_proofs"]["data"] = ojson{{"Sub",
                                                         {{"base_proof", single["path"]},
                                                          {"sub_proof", single["path"]},
                                                          {"root", single["root"]},
                                                          {"leaf", single["leaf"]}}}};
               }),
               vp + "[0][0].comm_d_proofs.data", "ProofData variant Sub does not fit the tree shape (expected Single)");
  expect_error(edited([](ojson& j) {
                 ch(j)["comm_r_last_proof"]["data"] = ojson{{"Leaf", 1}};
               }),
               vp + "[0][0].comm_r_last_proof.data", "unknown ProofData variant \"Leaf\"");
  expect_error(edited([](ojson& j) { ch(j)["comm_r_last_proof"]["data"]["Top"] = 1; }),
               vp + "[0][0].comm_r_last_proof.data", "exactly one variant key");
  expect_error(edited([](ojson& j) { ch(j)["comm_r_last_proof"]["data"] = ojson::object(); }),
               vp + "[0][0].comm_r_last_proof.data", "expected a ProofData variant key");
}

TEST(porep_c1_json_errors, ShapesOfTheLargeTrees) {
  // 32 GiB needs Sub (8-8-0) proofs; a Single one is refused where it starts.
  std::mt19937_64 rng(cuzk::test::test_seed("porep_c1_json_errors.ShapesOfTheLargeTrees"));
  // (Fewer partitions than registered: the errors below come first.)
  c1_output c1 = cuzk::test::random_c1(rng, proof("StackedDrg32GiBV1_1"), 4);
  const std::string vp32 = "vanilla_proofs.StackedDrg32GiBV1";
  {
    c1_output bad = c1;
    bad.partitions[3][4].comm_r_last_proof.kind = merkle_proof_kind::single;
    bad.partitions[3][4].comm_r_last_proof.sub.clear();
    expect_error(write_c1_json(bad), vp32 + "[3][4].comm_r_last_proof.data",
                 "ProofData variant Single does not fit the tree shape (expected Sub)");
  }
  {
    c1_output bad = c1;
    bad.partitions[1][17].exp_parents[2].inclusion_proof.sub[0].hashes.pop_back();
    expect_error(
        write_c1_json(bad),
        vp32 + "[1][17].replica_column_proofs.exp_parents[2].inclusion_proof.data.Sub.sub_proof.path[0].hashes",
        "expected 7 hashes (arity 8), found 6");
  }
  {
    c1_output bad = c1;
    bad.partitions[0][0].comm_d_proof.base.pop_back();
    expect_error(write_c1_json(bad), vp32 + "[0][0].comm_d_proofs.data.Single.path.path",
                 "expected 30 path elements, found 29");
  }
  {
    c1_output bad = c1;
    bad.partitions[2][2].drg_parents[0].inclusion_proof.base.pop_back();
    expect_error(write_c1_json(bad),
                 vp32 + "[2][2].replica_column_proofs.drg_parents[0].inclusion_proof.data.Sub.base_proof.path",
                 "expected 9 path elements, found 8");
  }
  expect_error(write_c1_json(c1), vp32, "expected 10 partitions, found 4");

  // 64 GiB needs Top (8-8-2) proofs.
  c1_output c64 = cuzk::test::random_c1(rng, proof("StackedDrg64GiBV1_1"), 1);
  const std::string vp64 = "vanilla_proofs.StackedDrg64GiBV1";
  {
    c1_output bad = c64;
    bad.partitions[0][5].c_x.inclusion_proof.kind = merkle_proof_kind::sub;
    bad.partitions[0][5].c_x.inclusion_proof.top.clear();
    expect_error(write_c1_json(bad), vp64 + "[0][5].replica_column_proofs.c_x.inclusion_proof.data",
                 "ProofData variant Sub does not fit the tree shape (expected Top)");
  }
  {
    c1_output bad = c64;
    bad.partitions[0][6].comm_r_last_proof.top[0].hashes.push_back(ff::fr::one());
    expect_error(write_c1_json(bad), vp64 + "[0][6].comm_r_last_proof.data.Top.top_proof.path[0].hashes",
                 "expected 1 hashes (arity 2), found more");
  }
  {
    c1_output bad = c64;
    bad.partitions[0][7].comm_r_last_proof.top[0].index = 2;
    expect_error(write_c1_json(bad), vp64 + "[0][7].comm_r_last_proof.data.Top.top_proof.path[0].index",
                 "index 2 is not below the arity 2");
  }
}

TEST(porep_c1_json_errors, ChallengeConsistency) {
  expect_error(edited([](ojson& j) { ch(j)["labeling_proofs"][1]["layer_index"] = 1; }),
               vp + "[0][0].labeling_proofs[1].layer_index", "layer_index 1, expected 2");
  expect_error(edited([](ojson& j) { ch(j)["encoding_proof"]["layer_index"] = 1; }),
               vp + "[0][0].encoding_proof.layer_index", "layer_index 1, expected 2");
  expect_error(edited([](ojson& j) { ch(j)["labeling_proofs"][0]["node"] = 64; }),
               vp + "[0][0].labeling_proofs[0].node", "node 64 is not below the 64 nodes");
  expect_error(edited([](ojson& j) {
                 ch(j)["labeling_proofs"][1]["node"] = (ch(j)["labeling_proofs"][0]["node"].get<int>() + 1) % 64;
               }),
               vp + "[0][0]", "labeling_proofs[1].node");
  expect_error(edited([](ojson& j) {
                 ch(j)["encoding_proof"]["node"] = (ch(j)["labeling_proofs"][0]["node"].get<int>() + 1) % 64;
               }),
               vp + "[0][0]", "encoding_proof.node");
  expect_error(edited([](ojson& j) {
                 ch(j)["replica_column_proofs"]["c_x"]["column"]["index"] =
                     (ch(j)["labeling_proofs"][0]["node"].get<int>() + 1) % 64;
               }),
               vp + "[0][0]", "c_x.column.index");
}

TEST(porep_c1_json_errors, Syntax) {
  const std::string& t = small_json();
  expect_error("", "", "expected a JSON object");
  expect_error("[]", "", "expected a JSON object");
  for (std::size_t cut : {std::size_t(1), t.size() / 3, t.size() / 2, t.size() - 2}) {
    try {
      (void)parse_c1_json(t.substr(0, cut));
      ADD_FAILURE() << "accepted a truncation at " << cut;
    } catch (const format_error& e) {
      EXPECT_NE(std::string(e.what()).find("the end of the input"), std::string::npos) << e.what();
      EXPECT_EQ(e.offset(), cut) << e.what();
    }
  }
  expect_error(t + "{}", "", "trailing characters");
  expect_error(t.substr(0, t.size() - 1), "", "expected ',' or '}' in an object, found the end of the input");
  std::string nul = t;
  nul.insert(nul.find("\"seed\""), 1, '\0');
  expect_error(nul, "", "expected a key, found the character");
  std::string ctrl = t;
  ctrl.insert(ctrl.find("StackedDrg2KiBV1_1") + 5, 1, '\n');
  expect_error(ctrl, "registered_proof", "control character in a string");
}

TEST(porep_c1_json_errors, Files) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("cuzk_porep_c1_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string good = (dir / "c1.json").string();
  std::ofstream(good, std::ios::binary) << small_json();
  EXPECT_TRUE(read_c1_file(good) == parse_c1_json(small_json()));
  try {
    (void)read_c1_file((dir / "missing.json").string());
    ADD_FAILURE() << "accepted a missing file";
  } catch (const format_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot stat"), std::string::npos) << e.what();
  }
  // A sparse file one byte over the cap is refused before it is read.
  const std::string big = (dir / "big.json").string();
  std::ofstream(big, std::ios::binary).put('{');
  std::filesystem::resize_file(big, c1_json_max_bytes + 1);
  try {
    (void)read_c1_file(big);
    ADD_FAILURE() << "accepted an oversized file";
  } catch (const format_error& e) {
    EXPECT_NE(std::string(e.what()).find("exceeds the limit of 1073741824 bytes"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
