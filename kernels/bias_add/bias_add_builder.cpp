// bias_add_builder.cpp: the bias add as PTX on ptxgen, and its registration.
//
// Each thread loads its chunks of the row and of bias (unrolled: cols is baked), adds in f32, and
// stores, rounded once to the dtype (common/dtype_access.h).
#include "bias_add.h"
#include "common/dtype_access.h"
#include "common/row_block.h"

#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;

template <class E>
ptxkit::Expected<GeneratedPtx> build_bias_add(const BiasAddConfig& c, const ptxgen::Target& target,
                                              const GenOptions& options) {
  const std::uint32_t width = BiasAdd::chunk_width(c);
  const std::uint32_t chunks = BiasAdd::chunks(c);
  KernelBuilder b(std::string(BiasAdd::kName), target);
  b.reqntid(row_block::threads_for(chunks));
  auto in = b.param<Ptr<Global, const E>>("input");
  auto bias = b.param<Ptr<Global, const E>>("bias");
  auto out = b.param<Ptr<Global, E>>("output");

  Reg<U32> tid = b.tid_x();
  Reg<U32> row = b.ctaid_x();
  Reg<U64> row_start = b.mul_wide(row, b.baked<U32>("cols", c.cols)); // rows * cols may pass 2^32
  auto x_row = in + row_start;
  auto y_row = out + row_start;
  row_block::RowChunks rc(b, tid, chunks, "cols", width);
  auto x_thread = rc.thread_ptr(x_row);
  auto bias_thread = rc.thread_ptr(bias);
  auto y_thread = rc.thread_ptr(y_row);

  for (std::uint32_t k = 0; k < rc.count(); ++k) {
    // A chunk some threads lack is loaded from its clamped address and not stored: no zeroing.
    // Plain ld for x: out may alias x.
    auto x =
        common::load_f32<E>(b, rc.chunk_ptr(x_row, x_thread, k), width, common::LoadPath::kPlain);
    auto bv = common::load_f32<E>(b, rc.chunk_ptr(bias, bias_thread, k), width,
                                  common::LoadPath::kReadOnly);
    std::vector<Reg<F32>> y = x;
    for (std::size_t j = 0; j < y.size(); ++j)
      y[j] = b.add(x[j], bv[j]);
    rc.template store_f32<E>(y_row, y_thread, k, y);
  }
  b.ret();
  return finish_and_print(b, options);
}

} // namespace

ptxkit::Expected<GeneratedPtx> BiasAdd::build(const Config& c, const ptxgen::Target& target,
                                              const GenOptions& options) {
  return common::with_dtype(c.dtype,
                            [&]<class E>() { return build_bias_add<E>(c, target, options); });
}

PTXKIT_REGISTER_KERNEL(BiasAdd);

} // namespace ptxkit::kernels
