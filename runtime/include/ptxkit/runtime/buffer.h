// buffer.h: DeviceBuffer<T>, an owning, typed allocation of device memory.
//
// The element type travels with the allocation so copies are checked in elements, not bytes
// (a host span of the wrong length is an error, not a short or overlong copy), and a kernel
// argument built from a buffer is a device pointer of exactly the 8 bytes a `.u64` param takes.
#pragma once

#include "ptxkit/runtime/context.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>

namespace ptxkit::runtime {

namespace detail {
// The untyped allocation behind DeviceBuffer<T>: owns `bytes` bytes at `ptr`.
class DeviceAllocation {
public:
  static Expected<DeviceAllocation> allocate(const Context& ctx, std::size_t bytes);
  DeviceAllocation(DeviceAllocation&& o) noexcept;
  DeviceAllocation& operator=(DeviceAllocation&& o) noexcept;
  DeviceAllocation(const DeviceAllocation&) = delete;
  DeviceAllocation& operator=(const DeviceAllocation&) = delete;
  ~DeviceAllocation();

  cu::DevicePtr ptr() const { return ptr_; }
  const cu::DevicePtr* ptr_address() const { return &ptr_; }
  std::size_t bytes() const { return bytes_; }

  Expected<void> upload(const void* src, std::size_t bytes);
  Expected<void> download(void* dst, std::size_t bytes) const;
  Expected<void> copy_from(const DeviceAllocation& src);
  Expected<void> fill_bytes(unsigned char value);
  Expected<void> fill_u32(std::uint32_t value);

private:
  DeviceAllocation(std::shared_ptr<ContextState> s, cu::DevicePtr p, std::size_t n)
      : state_(std::move(s)), ptr_(p), bytes_(n) {}
  void release();
  std::shared_ptr<ContextState> state_;
  cu::DevicePtr ptr_ = 0;
  std::size_t bytes_ = 0;
};
} // namespace detail

template <class T>
class DeviceBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "device buffers hold trivially copyable types");

public:
  using value_type = T;

  // `count` elements, uninitialized (fill or upload before reading).
  static Expected<DeviceBuffer> allocate(const Context& ctx, std::size_t count) {
    if (count > SIZE_MAX / sizeof(T))
      return fail(ErrorKind::kBadArgument, "device buffer of " + std::to_string(count) +
                                               " elements overflows the address space");
    auto a = detail::DeviceAllocation::allocate(ctx, count * sizeof(T));
    if (!a) return fail(std::move(a).error());
    return DeviceBuffer(std::move(*a), count);
  }
  // A buffer holding a copy of `host`.
  static Expected<DeviceBuffer> from_host(const Context& ctx, std::span<const T> host) {
    auto b = allocate(ctx, host.size());
    if (!b) return b;
    PTXKIT_RT_TRY(b->upload(host));
    return b;
  }

  std::size_t size() const { return count_; }
  std::size_t bytes() const { return alloc_.bytes(); }
  cu::DevicePtr device_ptr() const { return alloc_.ptr(); }
  // The address of the device pointer itself, as cuLaunchKernel's params array wants it.
  const cu::DevicePtr* device_ptr_address() const { return alloc_.ptr_address(); }

  // Host -> device; `host` must hold exactly size() elements.
  Expected<void> upload(std::span<const T> host) {
    if (host.size() != count_) return size_mismatch("upload", host.size());
    return alloc_.upload(host.data(), host.size_bytes());
  }
  // Device -> host; `host` must hold exactly size() elements.
  Expected<void> download(std::span<T> host) const {
    if (host.size() != count_) return size_mismatch("download", host.size());
    return alloc_.download(host.data(), host.size_bytes());
  }
  // Device -> device from a buffer of the same size.
  Expected<void> copy_from(const DeviceBuffer& src) {
    if (src.size() != count_) return size_mismatch("device copy", src.size());
    return alloc_.copy_from(src.alloc_);
  }
  // Sets every byte to `value` (0xFF on f32 gives NaN: the poisoning the device tests use).
  Expected<void> fill_bytes(unsigned char value) { return alloc_.fill_bytes(value); }
  // Sets every 32-bit word to `value` (only for 4-byte element types).
  Expected<void> fill_u32(std::uint32_t value) requires(sizeof(T) == 4) {
    return alloc_.fill_u32(value);
  }

private:
  DeviceBuffer(detail::DeviceAllocation a, std::size_t count)
      : alloc_(std::move(a)), count_(count) {}
  Expected<void> size_mismatch(const char* what, std::size_t got) const {
    return fail(ErrorKind::kBadArgument, std::string(what) + " of " + std::to_string(got) +
                                             " elements into a device buffer of " +
                                             std::to_string(count_));
  }
  detail::DeviceAllocation alloc_;
  std::size_t count_ = 0;
};

} // namespace ptxkit::runtime
