// contract_args.cpp: see contract_args.h.
#include "contract_args.h"

#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ptxkit::cli {

namespace {

using nlohmann::json;

std::optional<std::array<std::uint32_t, 3>> dims(const json& j, const std::string& what) {
  if (!j.is_array() || j.empty() || j.size() > 3)
    throw std::runtime_error("'" + what + "' must be an array of 1 to 3 positive integers");
  std::array<std::uint32_t, 3> d{1, 1, 1};
  for (std::size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_number_unsigned() || j[i].get<std::uint64_t>() == 0 ||
        j[i].get<std::uint64_t>() > std::numeric_limits<std::uint32_t>::max())
      throw std::runtime_error("'" + what + "' must be an array of 1 to 3 positive integers");
    d[i] = j[i].get<std::uint32_t>();
  }
  return d;
}

std::uint64_t size_of(const json& j, const std::string& what) {
  if (!j.is_number_unsigned()) throw std::runtime_error("'" + what + "' must be a byte count");
  return j.get<std::uint64_t>();
}

verifier::KernelContract kernel_from_json(const json& k) {
  if (!k.is_object() || !k.contains("name") || !k["name"].is_string())
    throw std::runtime_error("each entry of 'kernels' needs a string 'name'");
  verifier::KernelContract c;
  c.kernel = k["name"].get<std::string>();
  for (const auto& [key, v] : k.items()) {
    if (key == "name") continue;
    if (key == "grid") {
      c.grid = dims(v, c.kernel + ".grid");
    } else if (key == "block") {
      c.block = dims(v, c.kernel + ".block");
    } else if (key == "buffers") {
      for (const auto& [p, bytes] : v.items())
        c.buffers.push_back({p, size_of(bytes, c.kernel + ".buffers." + p)});
    } else if (key == "scalars") {
      for (const auto& [p, value] : v.items()) {
        if (!value.is_number_integer())
          throw std::runtime_error("'" + c.kernel + ".scalars." + p + "' must be an integer");
        c.scalars.push_back({p, value.get<std::int64_t>()});
      }
    } else if (key == "pointer_arrays") {
      for (const auto& [p, a] : v.items()) {
        std::string at = c.kernel + ".pointer_arrays." + p;
        if (!a.is_object() || !a.contains("count") || !a.contains("bytes") || !a.contains("stride"))
          throw std::runtime_error("'" + at + "' needs 'count', 'bytes' and 'stride'");
        c.pointer_arrays.push_back({p, size_of(a["count"], at + ".count"),
                                    size_of(a["bytes"], at + ".bytes"),
                                    size_of(a["stride"], at + ".stride")});
      }
    } else {
      throw std::runtime_error("unknown key '" + key + "' in the contract of '" + c.kernel +
                               "' (valid: name, grid, block, buffers, scalars, pointer_arrays)");
    }
  }
  return c;
}

} // namespace

bool read_contract_args(const std::vector<std::string>& args,
                        std::vector<verifier::KernelContract>& out, std::string& error) {
  auto add = [&](verifier::KernelContract c, const std::string& from) {
    if (verifier::find_contract(out, c.kernel)) {
      error = from + ": kernel '" + c.kernel + "' has a contract already";
      return false;
    }
    out.push_back(std::move(c));
    return true;
  };
  for (const std::string& arg : args) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(arg, ec)) {
      std::ifstream in(arg);
      std::stringstream text;
      text << in.rdbuf();
      if (!in) {
        error = "cannot read contract file '" + arg + "'";
        return false;
      }
      try {
        json j = json::parse(text.str());
        if (!j.is_object() || !j.contains("kernels") || !j["kernels"].is_array())
          throw std::runtime_error("expected {\"kernels\": [...]}");
        for (const json& k : j["kernels"])
          if (!add(kernel_from_json(k), arg)) return false;
      } catch (const std::exception& e) {
        error = "contract file '" + arg + "': " + e.what();
        return false;
      }
      continue;
    }
    auto c = verifier::parse_contract_spec(arg, error);
    if (!c) return false;
    if (!add(std::move(*c), "--contract")) return false;
  }
  return true;
}

} // namespace ptxkit::cli
