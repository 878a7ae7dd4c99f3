// runtime.h: the whole public runtime API in one include.
//
// Load verified PTX and launch it, checked: Context::open_default() -> KernelCache::get() ->
// Module::function() -> Function::launch(); capture() a sequence of launches into a Graph and
// replay it with one call. See docs/runtime.md.
#pragma once

#include "ptxkit/runtime/arg_pack.h"
#include "ptxkit/runtime/buffer.h"
#include "ptxkit/runtime/compare.h"
#include "ptxkit/runtime/context.h"
#include "ptxkit/runtime/device.h"
#include "ptxkit/runtime/driver.h"
#include "ptxkit/runtime/embedded.h"
#include "ptxkit/runtime/error.h"
#include "ptxkit/runtime/graph.h"
#include "ptxkit/runtime/kernel_cache.h"
#include "ptxkit/runtime/launch.h"
#include "ptxkit/runtime/module.h"
#include "ptxkit/runtime/ptx_compat.h"
#include "ptxkit/runtime/timing.h"
