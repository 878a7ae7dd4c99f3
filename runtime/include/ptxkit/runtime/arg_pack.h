// arg_pack.h: a kernel argument list built at run time, for callers that launch generically.
//
// Function::launch(stream, dims, args...) suits code that knows its kernel's parameters at compile
// time. `ptxkit run`, `bench` and the device tests launch any library kernel from its parameter
// list, so they build the arguments in a loop; ArgPack holds the argument bytes with stable
// addresses (cuLaunchKernel reads them through pointers) and hands Function::launch_args the
// ArgRefs. Values are copied in, so temporaries are fine.
#pragma once

#include "ptxkit/runtime/buffer.h"
#include "ptxkit/runtime/module.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <span>
#include <type_traits>
#include <vector>

namespace ptxkit::runtime {

class ArgPack {
public:
  ArgPack() = default;
  ArgPack(const ArgPack&) = delete; // the refs point into this pack's storage
  ArgPack& operator=(const ArgPack&) = delete;

  // A device pointer argument (`.u64` param).
  ArgPack& pointer(cu::DevicePtr ptr) { return bytes(&ptr, sizeof ptr); }
  template <class T>
  ArgPack& buffer(const DeviceBuffer<T>& b) {
    return pointer(b.device_ptr());
  }
  // A scalar or struct argument, copied.
  template <class T>
  ArgPack& value(const T& v) {
    static_assert(std::is_trivially_copyable_v<T> && !std::is_pointer_v<T>,
                  "a kernel argument is a trivially copyable value (pass device pointers with "
                  "pointer() or buffer())");
    return bytes(&v, sizeof v);
  }
  // `size` raw bytes (an `.align N .b8 name[size]` param).
  ArgPack& bytes(const void* data, std::size_t size) {
    auto& slot = storage_.emplace_back(size);
    if (size > 0) std::memcpy(slot.data(), data, size);
    refs_.push_back({slot.data(), static_cast<std::uint32_t>(size)});
    return *this;
  }

  std::span<const ArgRef> refs() const { return refs_; }
  std::size_t size() const { return refs_.size(); }

private:
  std::deque<std::vector<std::byte>> storage_; // deque: slots never move
  std::vector<ArgRef> refs_;
};

} // namespace ptxkit::runtime
