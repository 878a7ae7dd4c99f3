// contract.cpp: lookups in a KernelContract and the parser of its command-line form
// (contract.h).
#include "ptxkit/verifier/contract.h"

#include <cctype>
#include <charconv>
#include <limits>

namespace ptxkit::verifier {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    std::size_t at = s.find(sep, start);
    out.push_back(
        trim(s.substr(start, at == std::string_view::npos ? s.size() - start : at - start)));
    if (at == std::string_view::npos) break;
    start = at + 1;
  }
  return out;
}

// A non-negative size with an optional K/M/G suffix (powers of 1024).
std::optional<std::uint64_t> parse_size(std::string_view s) {
  s = trim(s);
  std::uint64_t scale = 1;
  if (!s.empty()) {
    char c = s.back();
    if (c == 'K' || c == 'k') scale = 1024;
    if (c == 'M' || c == 'm') scale = 1024 * 1024;
    if (c == 'G' || c == 'g') scale = 1024 * 1024 * 1024;
    if (scale != 1) s.remove_suffix(1);
  }
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  if (v > std::numeric_limits<std::uint64_t>::max() / scale) return std::nullopt;
  return v * scale;
}

std::optional<std::int64_t> parse_int(std::string_view s) {
  s = trim(s);
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

bool valid_name(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' ||
          c == '%'))
      return false;
  return true;
}

} // namespace

const BufferContract* KernelContract::buffer(std::string_view param) const {
  for (const auto& b : buffers)
    if (b.param == param) return &b;
  return nullptr;
}

const PointerArrayContract* KernelContract::pointer_array(std::string_view param) const {
  for (const auto& p : pointer_arrays)
    if (p.param == param) return &p;
  return nullptr;
}

const ScalarContract* KernelContract::scalar(std::string_view param) const {
  for (const auto& s : scalars)
    if (s.param == param) return &s;
  return nullptr;
}

const KernelContract* find_contract(const std::vector<KernelContract>& contracts,
                                    std::string_view kernel) {
  for (const auto& c : contracts)
    if (c.kernel == kernel) return &c;
  return nullptr;
}

std::optional<KernelContract> parse_contract_spec(std::string_view spec, std::string& error) {
  auto fail = [&](std::string why) {
    error = "contract '" + std::string(spec) + "': " + std::move(why);
    return std::nullopt;
  };
  std::vector<std::string_view> sections = split(spec, ';');
  std::string_view head = sections.front();
  std::size_t colon = head.find(':');
  if (colon == std::string_view::npos)
    return fail("expected KERNEL:ITEM,... (e.g. saxpy:x[4096],y[4096],n=1024;grid=4;block=256)");
  KernelContract c;
  c.kernel = std::string(trim(head.substr(0, colon)));
  if (!valid_name(c.kernel)) return fail("'" + c.kernel + "' is no kernel name");
  auto known = [&](std::string_view name) {
    return c.buffer(name) || c.pointer_array(name) || c.scalar(name);
  };
  std::string_view items = trim(head.substr(colon + 1));
  if (!items.empty()) {
    for (std::string_view item : split(items, ',')) {
      std::size_t open = item.find('['), eq = item.find('=');
      if (open != std::string_view::npos && item.back() == ']') {
        std::string name(trim(item.substr(0, open)));
        if (!valid_name(name)) return fail("'" + std::string(item) + "': bad parameter name");
        if (known(name)) return fail("parameter '" + name + "' is given twice");
        std::string_view inside = item.substr(open + 1, item.size() - open - 2);
        std::vector<std::string_view> parts = split(inside, ':');
        if (parts.size() == 1) {
          auto bytes = parse_size(parts[0]);
          if (!bytes) return fail("'" + std::string(item) + "': BYTES must be a size, e.g. 4096");
          c.buffers.push_back({name, *bytes});
        } else if (parts.size() == 3) {
          auto count = parse_size(parts[0]), bytes = parse_size(parts[1]),
               stride = parse_size(parts[2]);
          if (!count || !bytes || !stride || *count == 0)
            return fail("'" + std::string(item) + "': expected param[COUNT:BYTES:STRIDE]");
          c.pointer_arrays.push_back({name, *count, *bytes, *stride});
        } else {
          return fail("'" + std::string(item) +
                      "': expected param[BYTES] or param[COUNT:BYTES:STRIDE]");
        }
      } else if (eq != std::string_view::npos) {
        std::string name(trim(item.substr(0, eq)));
        if (!valid_name(name)) return fail("'" + std::string(item) + "': bad parameter name");
        if (known(name)) return fail("parameter '" + name + "' is given twice");
        auto v = parse_int(item.substr(eq + 1));
        if (!v) return fail("'" + std::string(item) + "': VALUE must be an integer");
        c.scalars.push_back({name, *v});
      } else {
        return fail("'" + std::string(item) +
                    "': expected param[BYTES], param[COUNT:BYTES:STRIDE] or param=VALUE");
      }
    }
  }
  for (std::size_t k = 1; k < sections.size(); ++k) {
    std::string_view s = sections[k];
    if (s.empty()) continue;
    std::size_t eq = s.find('=');
    std::string_view key = eq == std::string_view::npos ? s : trim(s.substr(0, eq));
    if (eq == std::string_view::npos || (key != "grid" && key != "block"))
      return fail("'" + std::string(s) + "': expected grid=X[,Y[,Z]] or block=X[,Y[,Z]]");
    std::vector<std::string_view> dims = split(s.substr(eq + 1), ',');
    if (dims.size() > 3) return fail("'" + std::string(s) + "': at most three extents");
    std::array<std::uint32_t, 3> d{1, 1, 1};
    for (std::size_t i = 0; i < dims.size(); ++i) {
      auto v = parse_size(dims[i]);
      if (!v || *v == 0 || *v > std::numeric_limits<std::uint32_t>::max())
        return fail("'" + std::string(s) + "': extents are positive 32-bit integers");
      d[i] = static_cast<std::uint32_t>(*v);
    }
    (key == "grid" ? c.grid : c.block) = d;
  }
  return c;
}

} // namespace ptxkit::verifier
