// embedding_gather_builder.cpp: the embedding gather as PTX on ptxgen, and its registration.
//
// Block = token (%ctaid.x). Every thread loads ids[token] (the same address: one broadcast
// transaction), then the block branches uniformly:
//   id <  vocab: copy row id of the table (16-byte loads through the read-only path, 16-byte
//                stores; halves are widened to f32 and narrowed back, exactly, by the shared
//                common/dtype_access.h path);
//   id >= vocab: store zeros; the table is not touched, so a bad id can never read past it.
// The row offset id * hidden is 64-bit (vocab * hidden may exceed 2^32 elements).
#include "common/dtype_access.h"
#include "common/row_block.h"
#include "embedding_gather.h"

#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;

template <class E>
ptxkit::Expected<GeneratedPtx> build_gather(const EmbeddingGatherConfig& c,
                                            const ptxgen::Target& target,
                                            const GenOptions& options) {
  const std::uint32_t width = EmbeddingGather::chunk_width(c);
  const std::uint32_t chunks = EmbeddingGather::chunks(c);
  KernelBuilder b(std::string(EmbeddingGather::kName), target);
  b.reqntid(row_block::threads_for(chunks));
  auto table = b.param<Ptr<Global, const E>>("table");
  auto ids = b.param<Ptr<Global, const U32>>("ids");
  auto out = b.param<Ptr<Global, E>>("output");

  Reg<U32> tid = b.tid_x();
  Reg<U32> token = b.ctaid_x();
  const Imm<U32> hidden = b.baked<U32>("hidden", c.hidden);
  Reg<U64> out_start = b.mul_wide(token, hidden);
  auto y_row = out + out_start;
  row_block::RowChunks rc(b, tid, chunks, "hidden", width);
  auto y_thread = rc.thread_ptr(y_row);

  Reg<U32> id = b.ld_nc(ids + token);
  Label bad_id = b.new_label("id_out_of_range");
  Label done = b.new_label("done");
  Reg<Pred> in_range = b.setp(cmp::lt, id, b.baked<U32>("vocab", c.vocab));
  b.bra_if(!in_range, bad_id);
  {
    Reg<U64> row_start = b.mul_wide(id, hidden);
    auto t_row = table + row_start;
    auto t_thread = rc.thread_ptr(t_row);
    for (std::uint32_t k = 0; k < rc.count(); ++k)
      rc.template store_f32<E>(
          y_row, y_thread, k,
          rc.template load_f32<E>(t_row, t_thread, k, common::LoadPath::kReadOnly));
    b.bra(done);
  }
  b.place(bad_id);
  {
    Reg<F32> zero = b.mov(b.imm<F32>(0.0f));
    for (std::uint32_t k = 0; k < rc.count(); ++k)
      rc.template store_f32<E>(y_row, y_thread, k, std::vector<Reg<F32>>(width, zero));
  }
  b.place(done);
  b.ret();
  return finish_and_print(b, options);
}

} // namespace

ptxkit::Expected<GeneratedPtx> EmbeddingGather::build(const Config& c, const ptxgen::Target& target,
                                                      const GenOptions& options) {
  return common::with_dtype(c.dtype,
                            [&]<class E>() { return build_gather<E>(c, target, options); });
}

PTXKIT_REGISTER_KERNEL(EmbeddingGather);

} // namespace ptxkit::kernels
