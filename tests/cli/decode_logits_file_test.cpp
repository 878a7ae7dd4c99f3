// decode_logits_file_test.cpp: `ptxkit decode --logits` files: the .npy header NumPy reads (magic,
// version 1.0, a header padded to 64 bytes, the shape [slots, new tokens, vocab]) followed by the
// raw f32 values in slot, token, vocab order; any other name gets JSON.
#include "decode_logits_file.h"

#include <cstring>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ptxkit::cli {
namespace {

TEST(DecodeLogitsFile, NpyHasNumPysHeaderAndTheValuesInSlotTokenVocabOrder) {
  const std::vector<std::vector<std::uint32_t>> prompts = {{1, 2}, {3}};
  const std::vector<std::vector<std::uint32_t>> generated = {{4, 5}, {6, 7}};
  const std::vector<std::vector<float>> logits = {{0.5f, 1, 2, 3, 4, 5}, {-1, -2, -3, 6, 7, 8.25f}};
  const std::string f = logits_file("out.npy", prompts, generated, logits, 3);
  ASSERT_GE(f.size(), 10u);
  EXPECT_EQ(f.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const std::size_t header = static_cast<unsigned char>(f[8]) | static_cast<unsigned char>(f[9])
                                                                    << 8;
  EXPECT_EQ((10 + header) % 64, 0u);
  const std::string dict = f.substr(10, header);
  EXPECT_EQ(dict.back(), '\n');
  EXPECT_NE(dict.find("'descr': '<f4'"), std::string::npos) << dict;
  EXPECT_NE(dict.find("'fortran_order': False"), std::string::npos);
  EXPECT_NE(dict.find("'shape': (2, 2, 3)"), std::string::npos) << dict;
  ASSERT_EQ(f.size(), 10 + header + 12 * sizeof(float));
  float values[12];
  std::memcpy(values, f.data() + 10 + header, sizeof values);
  EXPECT_EQ(values[0], 0.5f);
  EXPECT_EQ(values[6], -1.0f); // slot 1 follows slot 0's two tokens
  EXPECT_EQ(values[11], 8.25f);
}

TEST(DecodeLogitsFile, OtherNamesGetJsonWithEachSlotsPromptTokensAndLogits) {
  const std::string f = logits_file("out.json", {{9}}, {{4, 5}}, {{1, 2, 3, 4}}, 2);
  const auto j = nlohmann::json::parse(f);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["prompt"], nlohmann::json({9}));
  EXPECT_EQ(j[0]["tokens"], nlohmann::json({4, 5}));
  EXPECT_EQ(j[0]["logits"], nlohmann::json({{1.0, 2.0}, {3.0, 4.0}}));
  // A name that only contains ".npy" is not NumPy.
  EXPECT_EQ(logits_file("x.npy.json", {{9}}, {{4}}, {{1, 2}}, 2).front(), '[');
}

} // namespace
} // namespace ptxkit::cli
