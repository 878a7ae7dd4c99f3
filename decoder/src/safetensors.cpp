// safetensors.cpp: the safetensors header parser and checks, tensor reads and conversion.
#include "ptxkit/decoder/safetensors.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

namespace ptxkit::decoder {
namespace {

Error error_in(const std::filesystem::path& file, std::string message) {
  return Error{.message = std::move(message), .file = file.string()};
}

// The spec caps the header at 100 MB; anything larger is not a safetensors file.
constexpr std::uint64_t kMaxHeaderBytes = 100u << 20;

Expected<kernels::DType> dtype_of(const std::string& s) {
  if (s == "F32") return kernels::DType::kF32;
  if (s == "F16") return kernels::DType::kF16;
  if (s == "BF16") return kernels::DType::kBF16;
  return Error{.message = "dtype " + s + " is not supported (F32, F16 and BF16 are)", .file = {}};
}

std::string shape_string(const std::vector<std::uint64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// One header entry into a TensorInfo; `data_start` is where the data section begins.
Expected<TensorInfo> parse_entry(const std::string& name, const nlohmann::json& e,
                                 std::uint64_t data_start, std::uint64_t file_bytes) {
  auto bad = [&](const std::string& why) {
    return Error{.message = "tensor '" + name + "': " + why, .file = {}};
  };
  if (!e.is_object()) return bad("its header entry is not an object");
  const auto dt = e.find("dtype");
  const auto sh = e.find("shape");
  const auto off = e.find("data_offsets");
  if (dt == e.end() || !dt->is_string()) return bad("no \"dtype\" string");
  if (sh == e.end() || !sh->is_array()) return bad("no \"shape\" array");
  if (off == e.end() || !off->is_array() || off->size() != 2 || !(*off)[0].is_number_unsigned() ||
      !(*off)[1].is_number_unsigned())
    return bad("\"data_offsets\" is not two unsigned integers");
  TensorInfo t;
  t.name = name;
  auto dtype = dtype_of(dt->get<std::string>());
  if (!dtype) return bad(dtype.error().message);
  t.dtype = *dtype;
  std::uint64_t elements = 1;
  for (const auto& d : *sh) {
    if (!d.is_number_unsigned()) return bad("a dimension of \"shape\" is not an unsigned integer");
    const auto n = d.get<std::uint64_t>();
    if (n != 0 && elements > file_bytes / n)
      return bad("its shape holds more elements than the file");
    elements *= n;
    t.shape.push_back(n);
  }
  const auto begin = (*off)[0].get<std::uint64_t>();
  const auto end = (*off)[1].get<std::uint64_t>();
  if (end < begin) return bad("data_offsets end before they begin");
  t.bytes = end - begin;
  if (t.bytes != elements * kernels::dtype_bytes(t.dtype))
    return bad("data_offsets span " + std::to_string(t.bytes) + " bytes, but shape " +
               shape_string(t.shape) + " of " + dt->get<std::string>() + " needs " +
               std::to_string(elements * kernels::dtype_bytes(t.dtype)));
  if (end > file_bytes - data_start)
    return bad("its data (bytes " + std::to_string(begin) + " to " + std::to_string(end) +
               " of the data section) runs past the end of the file");
  t.offset = data_start + begin;
  return t;
}

} // namespace

std::uint64_t TensorInfo::elements() const {
  std::uint64_t n = 1;
  for (auto d : shape)
    n *= d;
  return n;
}

std::string TensorInfo::shape_str() const {
  return shape_string(shape);
}

Expected<SafetensorsFile> SafetensorsFile::open(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return error_in(path, "not a regular file (a .safetensors file is expected)");
  const std::uint64_t file_bytes = std::filesystem::file_size(path, ec);
  if (ec) return error_in(path, "cannot read its size: " + ec.message());
  std::ifstream in(path, std::ios::binary);
  if (!in) return error_in(path, "cannot open it for reading");
  unsigned char len_bytes[8];
  if (file_bytes < 8 || !in.read(reinterpret_cast<char*>(len_bytes), 8))
    return error_in(path, "shorter than the 8-byte header length: not a safetensors file");
  std::uint64_t header_bytes = 0;
  for (int i = 7; i >= 0; --i)
    header_bytes = header_bytes << 8 | len_bytes[i];
  if (header_bytes > kMaxHeaderBytes || header_bytes > file_bytes - 8)
    return error_in(path, "header length " + std::to_string(header_bytes) +
                              " exceeds the file or 100 MB: not a safetensors file");
  std::string header(header_bytes, '\0');
  if (!in.read(header.data(), static_cast<std::streamsize>(header_bytes)))
    return error_in(path, "cannot read its " + std::to_string(header_bytes) + "-byte header");
  const auto json = nlohmann::json::parse(header, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object())
    return error_in(path, "its header is not a JSON object");

  SafetensorsFile f;
  f.path_ = path;
  const std::uint64_t data_start = 8 + header_bytes;
  for (const auto& [name, entry] : json.items()) {
    if (name == "__metadata__") continue;
    auto t = parse_entry(name, entry, data_start, file_bytes);
    if (!t) return error_in(path, t.error().message);
    f.tensors_.emplace(name, std::move(*t));
  }
  // Tensors must not share bytes: sorted by offset, each ends where or before the next begins.
  std::vector<const TensorInfo*> by_offset;
  for (const auto& [name, t] : f.tensors_)
    by_offset.push_back(&t);
  std::sort(by_offset.begin(), by_offset.end(),
            [](const TensorInfo* a, const TensorInfo* b) { return a->offset < b->offset; });
  for (std::size_t i = 1; i < by_offset.size(); ++i)
    if (by_offset[i - 1]->offset + by_offset[i - 1]->bytes > by_offset[i]->offset)
      return error_in(path, "tensors '" + by_offset[i - 1]->name + "' and '" + by_offset[i]->name +
                                "' overlap in the data section");
  return f;
}

const TensorInfo* SafetensorsFile::find(const std::string& name) const {
  auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : &it->second;
}

Expected<std::vector<std::uint8_t>> SafetensorsFile::read_bytes(const TensorInfo& t) const {
  std::ifstream in(path_, std::ios::binary);
  std::vector<std::uint8_t> bytes(t.bytes);
  in.seekg(static_cast<std::streamoff>(t.offset));
  if (!in || !in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(t.bytes)))
    return error_in(path_, "tensor '" + t.name + "': cannot read its " + std::to_string(t.bytes) +
                               " bytes (the file changed since it was opened?)");
  return bytes;
}

Expected<Checkpoint> Checkpoint::open(const std::filesystem::path& dir) {
  std::error_code ec;
  const auto single = dir / "model.safetensors";
  const auto index = dir / "model.safetensors.index.json";
  Checkpoint c;
  std::vector<std::filesystem::path> shards;
  if (std::filesystem::is_regular_file(index, ec)) {
    std::ifstream in(index);
    const auto json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    const auto map = json.is_object() ? json.find("weight_map") : json.end();
    if (json.is_discarded() || map == json.end() || !map->is_object())
      return error_in(index, "not a JSON object with a \"weight_map\" object");
    for (const auto& [name, file] : map->items()) {
      if (!file.is_string())
        return error_in(index, "weight_map entry '" + name + "' is not a file name");
      const auto shard = dir / file.get<std::string>();
      if (std::find(shards.begin(), shards.end(), shard) == shards.end()) shards.push_back(shard);
    }
  } else if (std::filesystem::exists(single, ec)) {
    shards.push_back(single);
  } else {
    return error_in(dir, "holds neither model.safetensors nor model.safetensors.index.json");
  }
  for (const auto& shard : shards) {
    auto f = SafetensorsFile::open(shard);
    if (!f) return f.error();
    for (const auto& [name, t] : f->tensors()) {
      if (c.where_.count(name) != 0)
        return error_in(shard, "tensor '" + name + "' is also in " +
                                   c.files_[c.where_[name]].path().string());
      c.where_[name] = c.files_.size();
    }
    c.files_.push_back(std::move(*f));
  }
  return c;
}

bool Checkpoint::has(const std::string& name) const {
  return where_.count(name) != 0;
}

Expected<const TensorInfo*> Checkpoint::info(const std::string& name,
                                             const std::vector<std::uint64_t>& shape) const {
  auto it = where_.find(name);
  if (it == where_.end())
    return Error{.message = "the checkpoint has no tensor '" + name + "'", .file = {}};
  const TensorInfo* t = files_[it->second].find(name);
  if (t->shape != shape)
    return Error{.message = "tensor '" + name + "' has shape " + t->shape_str() + ", expected " +
                            shape_string(shape),
                 .file = files_[it->second].path().string()};
  return t;
}

Expected<std::vector<float>> Checkpoint::read_f32(const std::string& name,
                                                  const std::vector<std::uint64_t>& shape) const {
  auto t = info(name, shape);
  if (!t) return t.error();
  auto bytes = files_[where_.at(name)].read_bytes(**t);
  if (!bytes) return bytes.error();
  std::vector<float> out((*t)->elements());
  if ((*t)->dtype == kernels::DType::kF32) {
    std::memcpy(out.data(), bytes->data(), bytes->size());
    return out;
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto bits = static_cast<std::uint16_t>((*bytes)[2 * i] | (*bytes)[2 * i + 1] << 8);
    out[i] =
        (*t)->dtype == kernels::DType::kF16 ? kernels::f16_value(bits) : kernels::bf16_value(bits);
  }
  return out;
}

Expected<std::vector<std::uint16_t>> Checkpoint::read_half(const std::string& name,
                                                           const std::vector<std::uint64_t>& shape,
                                                           kernels::DType dtype) const {
  if (dtype == kernels::DType::kF32)
    return Error{.message = "read_half of '" + name + "': f32 is not a 16-bit format", .file = {}};
  auto t = info(name, shape);
  if (!t) return t.error();
  std::vector<std::uint16_t> out((*t)->elements());
  if ((*t)->dtype == dtype) {
    auto bytes = files_[where_.at(name)].read_bytes(**t);
    if (!bytes) return bytes.error();
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = static_cast<std::uint16_t>((*bytes)[2 * i] | (*bytes)[2 * i + 1] << 8);
    return out;
  }
  auto values = read_f32(name, shape);
  if (!values) return values.error();
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = dtype == kernels::DType::kF16 ? kernels::f16_bits((*values)[i])
                                           : kernels::bf16_bits((*values)[i]);
  return out;
}

} // namespace ptxkit::decoder
