// buffer.cpp: the untyped device allocation behind DeviceBuffer<T>: every driver call checked.
//
// A zero-byte buffer is legal (an empty tensor) and owns no driver allocation, since
// cuMemAlloc(0) is an error; its copies are no-ops.
#include "ptxkit/runtime/buffer.h"

#include <utility>

namespace ptxkit::runtime::detail {

Expected<DeviceAllocation> DeviceAllocation::allocate(const Context& ctx, std::size_t bytes) {
  cu::DevicePtr p = 0;
  if (bytes > 0) {
    PTXKIT_RT_TRY(check(ctx.driver(), ctx.driver().mem_alloc(&p, bytes),
                        "cuMemAlloc(" + std::to_string(bytes) + " bytes)"));
  }
  return DeviceAllocation(ctx.state(), p, bytes);
}

DeviceAllocation::DeviceAllocation(DeviceAllocation&& o) noexcept
    : state_(std::move(o.state_)), ptr_(std::exchange(o.ptr_, 0)),
      bytes_(std::exchange(o.bytes_, 0)) {}

DeviceAllocation& DeviceAllocation::operator=(DeviceAllocation&& o) noexcept {
  if (this != &o) {
    release();
    state_ = std::move(o.state_);
    ptr_ = std::exchange(o.ptr_, 0);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

DeviceAllocation::~DeviceAllocation() {
  release();
}

void DeviceAllocation::release() {
  if (ptr_ != 0) {
    state_->bind();
    (void)state_->driver->mem_free(ptr_);
  }
  ptr_ = 0;
}

Expected<void> DeviceAllocation::upload(const void* src, std::size_t bytes) {
  assert(bytes == bytes_);
  if (bytes == 0) return {};
  return check(*state_->driver, state_->driver->memcpy_htod(ptr_, src, bytes), "cuMemcpyHtoD");
}

Expected<void> DeviceAllocation::download(void* dst, std::size_t bytes) const {
  assert(bytes == bytes_);
  if (bytes == 0) return {};
  return check(*state_->driver, state_->driver->memcpy_dtoh(dst, ptr_, bytes), "cuMemcpyDtoH");
}

Expected<void> DeviceAllocation::copy_from(const DeviceAllocation& src) {
  assert(src.bytes_ == bytes_);
  if (bytes_ == 0) return {};
  return check(*state_->driver, state_->driver->memcpy_dtod(ptr_, src.ptr_, bytes_),
               "cuMemcpyDtoD");
}

Expected<void> DeviceAllocation::fill_bytes(unsigned char value) {
  if (bytes_ == 0) return {};
  return check(*state_->driver, state_->driver->memset_d8(ptr_, value, bytes_), "cuMemsetD8");
}

Expected<void> DeviceAllocation::fill_u32(std::uint32_t value) {
  assert(bytes_ % 4 == 0);
  if (bytes_ == 0) return {};
  return check(*state_->driver, state_->driver->memset_d32(ptr_, value, bytes_ / 4), "cuMemsetD32");
}

} // namespace ptxkit::runtime::detail
