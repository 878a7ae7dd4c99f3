// safetensors_test.cpp: checkpoints written here byte by byte (header length, JSON header, data)
// read back through Checkpoint: values in F32, F16 and BF16, shards, and every header defect
// refused with a message naming the file and the tensor.
#include "checkpoint_writer.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <ptxkit/decoder/safetensors.h>
#include <unistd.h>

namespace ptxkit::decoder {
namespace {

namespace fs = std::filesystem;
using kernels::DType;
using test_util::f32_bytes;
using test_util::half_bytes;
using test_util::write_file;

class SafetensorsTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ptxkit-safetensors-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

const std::vector<float> kValues = {1.0f, -2.5f, 0.15625f, 3e-3f, -0.0f, 65504.0f};

TEST_F(SafetensorsTest, ReadsF32F16AndBf16TensorsAsF32) {
  write_file(dir_ / "model.safetensors",
             {{"a", "F32", {2, 3}, f32_bytes(kValues)},
              {"b", "F16", {6}, half_bytes(kValues, DType::kF16)},
              {"c", "BF16", {3, 2}, half_bytes(kValues, DType::kBF16)}});
  auto ck = Checkpoint::open(dir_);
  ASSERT_TRUE(ck) << ck.error().to_string();
  EXPECT_EQ(ck->size(), 3u);
  auto a = ck->read_f32("a", {2, 3});
  ASSERT_TRUE(a) << a.error().to_string();
  EXPECT_EQ(*a, kValues);
  auto b = ck->read_f32("b", {6});
  ASSERT_TRUE(b);
  for (std::size_t i = 0; i < kValues.size(); ++i)
    EXPECT_EQ((*b)[i], kernels::round_to(DType::kF16, kValues[i])) << i;
  auto c = ck->read_f32("c", {3, 2});
  ASSERT_TRUE(c);
  for (std::size_t i = 0; i < kValues.size(); ++i)
    EXPECT_EQ((*c)[i], kernels::round_to(DType::kBF16, kValues[i])) << i;
  // 16-bit words: copied when stored in that format, rounded from the value otherwise.
  auto cw = ck->read_half("c", {3, 2}, DType::kBF16);
  ASSERT_TRUE(cw);
  EXPECT_EQ((*cw)[1], kernels::bf16_bits(-2.5f));
  auto aw = ck->read_half("a", {2, 3}, DType::kBF16);
  ASSERT_TRUE(aw);
  EXPECT_EQ((*aw)[2], kernels::bf16_bits(0.15625f));
}

TEST_F(SafetensorsTest, AMissingOrMisShapedTensorIsNamed) {
  write_file(dir_ / "model.safetensors", {{"w", "F32", {2, 3}, f32_bytes(kValues)}});
  auto ck = Checkpoint::open(dir_);
  ASSERT_TRUE(ck);
  auto missing = ck->read_f32("model.norm.weight", {896});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "the checkpoint has no tensor 'model.norm.weight'");
  auto wrong = ck->read_f32("w", {3, 2});
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().to_string().find("tensor 'w' has shape [2, 3], expected [3, 2]"),
            std::string::npos)
      << wrong.error().to_string();
  EXPECT_NE(wrong.error().file.find("model.safetensors"), std::string::npos);
}

TEST_F(SafetensorsTest, ShardsNamedByTheIndexAreReadAsOneCheckpoint) {
  write_file(dir_ / "model-00001-of-00002.safetensors", {{"x", "F32", {6}, f32_bytes(kValues)}});
  write_file(dir_ / "model-00002-of-00002.safetensors",
             {{"y", "BF16", {6}, half_bytes(kValues, DType::kBF16)}});
  std::ofstream(dir_ / "model.safetensors.index.json")
      << R"({"metadata": {}, "weight_map": {"x": "model-00001-of-00002.safetensors",
             "y": "model-00002-of-00002.safetensors"}})";
  auto ck = Checkpoint::open(dir_);
  ASSERT_TRUE(ck) << ck.error().to_string();
  EXPECT_TRUE(ck->has("x"));
  EXPECT_TRUE(ck->has("y"));
  EXPECT_FALSE(ck->has("z"));
  EXPECT_TRUE(ck->read_f32("y", {6}));
}

// Each defect in a header, and the words its message must contain.
struct Defect {
  const char* what;
  std::function<void(nlohmann::json&)> edit;
  const char* message;
};

TEST_F(SafetensorsTest, EveryHeaderDefectIsRefusedWithTheTensorNamed) {
  const std::vector<Defect> defects = {
      {"unknown dtype", [](nlohmann::json& h) { h["w"]["dtype"] = "I8"; },
       "tensor 'w': dtype I8 is not supported"},
      {"size not matching the shape", [](nlohmann::json& h) { h["w"]["shape"] = {7}; },
       "tensor 'w': data_offsets span 24 bytes, but shape [7] of F32 needs 28"},
      {"data past the end",
       [](nlohmann::json& h) {
         h["w"]["data_offsets"] = {8, 32};
       },
       "tensor 'w': its data (bytes 8 to 32 of the data section) runs past the end of the file"},
      {"reversed offsets",
       [](nlohmann::json& h) {
         h["w"]["data_offsets"] = {24, 0};
       },
       "tensor 'w': data_offsets end before they begin"},
      {"offsets not integers",
       [](nlohmann::json& h) {
         h["w"]["data_offsets"] = {"0", 24};
       },
       "tensor 'w': \"data_offsets\" is not two unsigned integers"},
      {"no shape", [](nlohmann::json& h) { h["w"].erase("shape"); }, "tensor 'w': no \"shape\""},
      {"overlap",
       [](nlohmann::json& h) {
         h["v"] = {{"dtype", "F32"}, {"shape", {2}}, {"data_offsets", {16, 24}}};
       },
       "tensors 'w' and 'v' overlap"},
  };
  for (const Defect& d : defects) {
    SCOPED_TRACE(d.what);
    write_file(dir_ / "model.safetensors", {{"w", "F32", {6}, f32_bytes(kValues)}}, d.edit);
    auto ck = Checkpoint::open(dir_);
    ASSERT_FALSE(ck);
    EXPECT_NE(ck.error().message.find(d.message), std::string::npos) << ck.error().message;
    EXPECT_NE(ck.error().file.find("model.safetensors"), std::string::npos);
  }
  // The repaired form of the same file opens.
  write_file(dir_ / "model.safetensors", {{"w", "F32", {6}, f32_bytes(kValues)}});
  EXPECT_TRUE(Checkpoint::open(dir_));
}

TEST_F(SafetensorsTest, FilesThatAreNotSafetensorsAreRefused) {
  EXPECT_NE(Checkpoint::open(dir_).error().message.find("holds neither model.safetensors"),
            std::string::npos);
  std::ofstream(dir_ / "model.safetensors") << "abc";
  EXPECT_NE(Checkpoint::open(dir_).error().message.find("shorter than the 8-byte header length"),
            std::string::npos);
  {
    std::ofstream out(dir_ / "model.safetensors", std::ios::binary);
    out.write("\xff\xff\xff\xff\x00\x00\x00\x00{}", 10);
  }
  EXPECT_NE(Checkpoint::open(dir_).error().message.find("exceeds the file or 100 MB"),
            std::string::npos);
  {
    std::ofstream out(dir_ / "model.safetensors", std::ios::binary);
    out.write("\x02\x00\x00\x00\x00\x00\x00\x00[]", 10);
  }
  EXPECT_NE(Checkpoint::open(dir_).error().message.find("header is not a JSON object"),
            std::string::npos);
  fs::remove(dir_ / "model.safetensors");
  fs::create_directory(dir_ / "model.safetensors");
  EXPECT_NE(Checkpoint::open(dir_).error().message.find("not a regular file"), std::string::npos);
}

} // namespace
} // namespace ptxkit::decoder
