// every_instruction.h: a kernel that emits every instruction family of the builder at least once.
//
// Assembled by ptxas for every supported target (test_every_instruction.cpp), so each form the
// builder can print is known to be PTX that ptxas accepts. Forms that need a newer GPU are
// emitted only where the target has them.
#pragma once

#include "ptxkit/ptxgen/ptxgen.h"

namespace ptxkit::ptxgen::testing {

Expected<Kernel> build_every_instruction_kernel(Target target);

} // namespace ptxkit::ptxgen::testing
