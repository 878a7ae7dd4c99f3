// ptxgen.h: umbrella header of the typed PTX builder (ptxkit::ptxgen).
//
// Include this to write a kernel: handles, types, spaces, modifiers, the builder, the module
// printer and the target list. See docs/builder.md for the model.
#pragma once

#include "ptxkit/ptxgen/builder.h"
#include "ptxkit/ptxgen/emitter.h"
#include "ptxkit/ptxgen/expected.h"
#include "ptxkit/ptxgen/handles.h"
#include "ptxkit/ptxgen/ir.h"
#include "ptxkit/ptxgen/isa/modifiers.h"
#include "ptxkit/ptxgen/module.h"
#include "ptxkit/ptxgen/spaces.h"
#include "ptxkit/ptxgen/target.h"
#include "ptxkit/ptxgen/types.h"
#include "ptxkit/ptxgen/var.h"
