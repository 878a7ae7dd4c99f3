// kernel_json.h: the JSON description of the kernel library that `ptxkit list --json` prints.
//
// Kept apart from the command so other commands (and their tests) produce the same shape.
#pragma once

#include <nlohmann/json.hpp>
#include <ptxkit/kernels/field.h>
#include <ptxkit/kernels/kernel.h>

namespace ptxkit::cli {

// A field value as JSON: numbers for u32/i32/f32 (floats in their shortest round-trip form),
// true/false for bool, the value name for enum.
nlohmann::ordered_json field_value_json(const kernels::FieldInfo& field,
                                        const kernels::FieldValue& value);

// {"name", "summary", "fields": [{"name","type","default","baked"}], "reference_configs": [...]}.
nlohmann::ordered_json kernel_json(const kernels::Kernel& kernel);

// The array of every registered kernel, sorted by name.
nlohmann::ordered_json kernels_json();

} // namespace ptxkit::cli
