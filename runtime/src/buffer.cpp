// buffer.cpp: the untyped device allocation behind DeviceBuffer<T>: every driver call checked.
//
// A zero-byte buffer is legal (an empty tensor) and owns no driver allocation, since
// cuMemAlloc(0) is an error; its copies are no-ops. Every operation here blocks or acts at once
// (none is enqueued on a stream), so each is refused while a graph capture forbids it
// (capture_p.h) rather than being silently left out of the graph.
#include "ptxkit/runtime/buffer.h"

#include "capture_p.h"

#include <utility>

namespace ptxkit::runtime::detail {

Expected<DeviceAllocation> DeviceAllocation::allocate(const Context& ctx, std::size_t bytes) {
  PTXKIT_RT_TRY(detail::refuse_blocking_call_while_capturing("device allocation (cuMemAlloc)"));
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
  PTXKIT_RT_TRY(refuse_blocking_call_while_capturing("DeviceBuffer upload (cuMemcpyHtoD)"));
  if (bytes == 0) return {};
  return check(*state_->driver, state_->driver->memcpy_htod(ptr_, src, bytes), "cuMemcpyHtoD");
}

Expected<void> DeviceAllocation::download(void* dst, std::size_t bytes) const {
  assert(bytes == bytes_);
  PTXKIT_RT_TRY(refuse_blocking_call_while_capturing("DeviceBuffer download (cuMemcpyDtoH)"));
  if (bytes == 0) return {};
  return check(*state_->driver, state_->driver->memcpy_dtoh(dst, ptr_, bytes), "cuMemcpyDtoH");
}

Expected<void> DeviceAllocation::copy_from(const DeviceAllocation& src) {
  assert(src.bytes_ == bytes_);
  PTXKIT_RT_TRY(refuse_blocking_call_while_capturing("DeviceBuffer copy_from (cuMemcpyDtoD)"));
  if (bytes_ == 0) return {};
  return check(*state_->driver, state_->driver->memcpy_dtod(ptr_, src.ptr_, bytes_),
               "cuMemcpyDtoD");
}

Expected<void> DeviceAllocation::fill_bytes(unsigned char value) {
  PTXKIT_RT_TRY(refuse_blocking_call_while_capturing("DeviceBuffer fill_bytes (cuMemsetD8)"));
  if (bytes_ == 0) return {};
  return check(*state_->driver, state_->driver->memset_d8(ptr_, value, bytes_), "cuMemsetD8");
}

Expected<void> DeviceAllocation::fill_u32(std::uint32_t value) {
  assert(bytes_ % 4 == 0);
  PTXKIT_RT_TRY(refuse_blocking_call_while_capturing("DeviceBuffer fill_u32 (cuMemsetD32)"));
  if (bytes_ == 0) return {};
  return check(*state_->driver, state_->driver->memset_d32(ptr_, value, bytes_ / 4), "cuMemsetD32");
}

} // namespace ptxkit::runtime::detail
