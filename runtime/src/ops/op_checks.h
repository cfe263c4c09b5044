// An operator's checks of its step at open (StepChecker) and the element-type helpers
// every device file uses.
#ifndef TESSERA_OPS_OP_CHECKS_H
#define TESSERA_OPS_OP_CHECKS_H

#include <string.h>

#include "../image_reader.h"
#include "tessera/kernels.h"
#include "tessera/kernels_bf16.h"
#include "tessera/kernels_i8.h"
#include "tessera/npu.h"
#include "tessera/step_geometry.h"
#include "../variants/registry.h"

namespace tsr {

// ---- validation -------------------------------------------------------------------

// Operand requirements of one step, checked against the tensors it names.
struct StepChecker {
    const tsr_image_header &h;
    const tsr_tensor *tensors;
    const tsr_step &step;
    uint32_t rows; // the most rows the step runs with
    Message &err;
    uint32_t index;
    const char *schedule;
    uint32_t tokens; // the schedule's token input tensor
    const ImageView *image; // its NPU descriptors
    uint32_t step_count;    // of the schedule

    tessera_status fail(const char *what, uint32_t operand = 0xFFFFFFFFu);
    // Operand i is a tensor of `dtype` with at least `bytes` bytes; written ones must
    // be writable memory.
    tessera_status operand(uint32_t i, uint32_t dtype, uint64_t bytes, bool written);
    // Operands with a fixed role: the tensor itself (id) or its kind.
    tessera_status pinned(uint32_t i, uint32_t id, const char *what);
    tessera_status of_kind(uint32_t i, uint32_t kind, const char *what);
    // The step's element type is one of `allowed` (TSR_DTYPE_* bits: 1u << dtype).
    tessera_status dtype_in(uint32_t allowed);
    // A constant the params name (requantization tables): a weight of `dtype` and at
    // least `bytes` bytes.
    tessera_status constant(uint32_t id, uint32_t dtype, uint64_t bytes, const char *what);
    // A requantization factor (multiplier, shift) in the kernels' ranges.
    tessera_status requant(const tsr_requant_params &r, const char *what);
    // Zero points: operand i's is 0 (the variant computes with symmetric int8 only), or
    // operands i and j share theirs (a copy).
    tessera_status symmetric(uint32_t i);
    tessera_status same_zero(uint32_t i, uint32_t j);
    // The step's variant is not in this runtime (validate_steps checked that it is a row
    // of tessera/variants.def that runs the step).
    tessera_status no_variant();
};

constexpr uint32_t dtype_bit(uint32_t dtype) { return 1u << dtype; }
constexpr uint32_t kFloatTypes = dtype_bit(TSR_DTYPE_F32) | dtype_bit(TSR_DTYPE_BF16);
constexpr uint32_t kAllTypes = kFloatTypes | dtype_bit(TSR_DTYPE_I8);
// The integer exponential's constants as the int8 kernels take them (tessera/kernels_i8.h).
inline tsr_iexp_constants iexp_constants(const tsr_iexp_params &p) { return tsr_iexp_constants{p.shift, p.ln2, p.b, p.c}; }
// Bytes of one activation element of step s.
inline uint32_t act_bytes(const tsr_step &s) { return tsr_dtype_bytes(s.dtype); }
// Step s's parameters as its operator's shape (tsr_<op>_shape: what every variant of the
// operator has) or as its variant's struct (tessera/variant_params.h), checked at open
// (tsr_params_fit): tsr_params_as<T>(s). A kernel reads the struct of the variants it is
// registered for.

} // namespace tsr

#endif
