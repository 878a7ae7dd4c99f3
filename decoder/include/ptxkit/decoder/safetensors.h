// safetensors.h: read tensors from Hugging Face `safetensors` files, one file or a sharded
// checkpoint (model.safetensors.index.json), converted to f32 or kept as 16-bit words.
//
// The format: an 8-byte little-endian header length N, N bytes of JSON mapping each tensor name
// to {"dtype", "shape", "data_offsets": [begin, end]} (offsets into the data that follows the
// header; an optional "__metadata__" entry holds strings), then the raw little-endian data. Every
// header is checked when the file is opened (dtype known, offsets inside the file and consistent
// with the shape, no two tensors overlapping), so a truncated or hand-edited file fails there,
// naming the file and the tensor, not later as garbage weights. Tensor bytes are read on demand.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <ptxkit/kernels/dtype.h>
#include <ptxkit/ptxgen/expected.h>
#include <string>
#include <vector>

namespace ptxkit::decoder {

// One tensor of a file: its element type (F32, F16 or BF16), shape and where its bytes lie.
struct TensorInfo {
  std::string name;
  kernels::DType dtype = kernels::DType::kF32;
  std::vector<std::uint64_t> shape;
  std::uint64_t offset = 0; // absolute byte offset in the file
  std::uint64_t bytes = 0;

  [[nodiscard]] std::uint64_t elements() const;
  [[nodiscard]] std::string shape_str() const; // "[896, 4864]"
};

// One .safetensors file: its header, parsed and checked; the data read on demand.
class SafetensorsFile {
public:
  [[nodiscard]] static Expected<SafetensorsFile> open(const std::filesystem::path& path);

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] const std::map<std::string, TensorInfo>& tensors() const { return tensors_; }
  [[nodiscard]] const TensorInfo* find(const std::string& name) const;
  // The raw bytes of one tensor.
  [[nodiscard]] Expected<std::vector<std::uint8_t>> read_bytes(const TensorInfo& t) const;

private:
  std::filesystem::path path_;
  std::map<std::string, TensorInfo> tensors_;
};

// A checkpoint: model.safetensors, or the shards a model.safetensors.index.json names. Lookups
// check the shape the caller expects, so a mis-shaped tensor is an error that names it.
class Checkpoint {
public:
  // `dir` holds model.safetensors or model.safetensors.index.json (with its shards).
  [[nodiscard]] static Expected<Checkpoint> open(const std::filesystem::path& dir);

  [[nodiscard]] bool has(const std::string& name) const;
  [[nodiscard]] Expected<const TensorInfo*> info(const std::string& name,
                                                 const std::vector<std::uint64_t>& shape) const;
  // The tensor converted to f32 (F16 and BF16 exactly; every value of both is an f32).
  [[nodiscard]] Expected<std::vector<float>>
  read_f32(const std::string& name, const std::vector<std::uint64_t>& shape) const;
  // The tensor as `dtype` 16-bit words (f16 or bf16): copied when stored so, else rounded to
  // nearest even from its f32 value.
  [[nodiscard]] Expected<std::vector<std::uint16_t>>
  read_half(const std::string& name, const std::vector<std::uint64_t>& shape,
            kernels::DType dtype) const;
  [[nodiscard]] std::size_t size() const { return where_.size(); }

private:
  std::vector<SafetensorsFile> files_;
  std::map<std::string, std::size_t> where_; // tensor name -> index into files_
};

} // namespace ptxkit::decoder
