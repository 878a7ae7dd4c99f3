// bias_add_builder.cpp: the bias add as PTX on ptxgen, and its registration.
//
// Each thread loads its chunks of the row and of bias (unrolled: cols is baked), adds, and stores.
#include "bias_add.h"
#include "common/row_block.h"

#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;
} // namespace

ptxkit::Expected<GeneratedPtx> BiasAdd::build(const Config& c, const ptxgen::Target& target,
                                              const GenOptions& options) {
  const std::uint32_t chunks = c.cols / 4;
  KernelBuilder b(std::string(kName), target);
  b.reqntid(row_block::threads_for(chunks));
  auto in = b.param<Ptr<Global, const F32>>("input");
  auto bias = b.param<Ptr<Global, const F32>>("bias");
  auto out = b.param<Ptr<Global, F32>>("output");

  Reg<U32> tid = b.tid_x();
  Reg<U32> row = b.ctaid_x();
  Reg<U64> row_start = b.mul_wide(row, b.baked<U32>("cols", c.cols)); // rows * cols may pass 2^32
  auto x_row = in + row_start;
  auto y_row = out + row_start;
  row_block::RowChunks rc(b, tid, chunks, "cols");
  auto x_thread = rc.thread_ptr(x_row);
  auto bias_thread = rc.thread_ptr(bias);
  auto y_thread = rc.thread_ptr(y_row);

  for (std::uint32_t k = 0; k < rc.count(); ++k) {
    // A chunk some threads lack is loaded from its clamped address and not stored: no zeroing.
    auto x = b.ld_v4(rc.chunk_ptr(x_row, x_thread, k)); // plain ld: out may alias x
    auto bv = b.ld_nc_v4(rc.chunk_ptr(bias, bias_thread, k));
    std::array<Reg<F32>, 4> y = x;
    for (std::size_t j = 0; j < 4; ++j)
      y[j] = b.add(x[j], bv[j]);
    rc.store(y_row, y_thread, k, y);
  }
  b.ret();
  return finish_and_print(b, options);
}

PTXKIT_REGISTER_KERNEL(BiasAdd);

} // namespace ptxkit::kernels
