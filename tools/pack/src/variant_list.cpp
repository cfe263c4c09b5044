#include "tessera/pack/variant_list.h"

#include <stdexcept>

#include "tessera/isa_bits.h"
#include "tessera/variants.h"

namespace tessera {

namespace {

// Every known kernel set's tuned rows (kernels/<set>/tuned_variants.def), built or not.
struct TunedRow {
    const char *set, *variant;
    uint32_t isa;
};
const TunedRow kTunedRows[] = {
#define TSR_TUNED(OP, SET, NAME, suffix) {#SET, #NAME, TSR_ISA_##SET},
#include "tessera/tuned_known.def"
#undef TSR_TUNED
};

} // namespace

std::string variant_list_source(const std::vector<uint16_t> &variants, const std::string &source, uint32_t isa)
{
    std::string names, list;
    for (uint16_t id : variants) {
        tsr_variant_row row;
        if (!tsr_variant_lookup(id, &row)) throw std::logic_error("variant id " + std::to_string(id) + " is no row");
        static const struct {
            uint16_t id;
            const char *name;
        } kEnumNames[] = {
#define TSR_VARIANT(NAME, id, name, op, engine, dtype, arithmetic, feature, params) {id, #NAME},
#include "tessera/variants.def"
#undef TSR_VARIANT
        };
        const char *enum_name = nullptr;
        for (const auto &e : kEnumNames)
            if (e.id == id) enum_name = e.name;
        if (!enum_name) throw std::logic_error("variant id " + std::to_string(id) + " has no name");
        names += std::string(" * ") + row.name + "\n";
        // The board's kernel set's implementation where the runtime is built with the set
        // (the board runs it, never the portable one), else the portable one.
        const std::string portable = std::string("&TSR_VARIANT_IMPL(") + enum_name + "),";
        const TunedRow *tuned = nullptr;
        for (const TunedRow &t : kTunedRows)
            if ((isa & t.isa) && std::string(t.variant) == enum_name) tuned = &t;
        if (tuned)
            list += std::string("    TSR_IF_KERNEL_SET_") + tuned->set + "(&TSR_VARIANT_IMPL_TUNED(" + enum_name + ", " +
                    tuned->set + "), )\n    TSR_IF_NOT_KERNEL_SET_" + tuned->set + "(" + portable + ")\n";
        else
            list += "    " + portable + "\n";
    }
    return "/*\n"
           " * The operator variants " + source + " runs, written by tessera-pack --emit-variants.\n"
           " * Linked into a firmware, it replaces the runtime library's list of every variant\n"
           " * (tessera/variant_registry.h): the firmware links only these kernels (the board's\n"
           " * tuned ones where the runtime is built with its kernel set, instead of the portable\n"
           " * ones), and refuses an image that needs another, naming it.\n"
           " *\n" + names +
           " */\n"
           "#include \"tessera/variant_registry.h\"\n"
           "#include \"tessera/kernel_sets.h\"\n"
           "\n"
           "#define TSR_TUNED(OP, SET, NAME, suffix) extern const struct tsr_variant_impl TSR_VARIANT_IMPL_TUNED(NAME, SET);\n"
           "#include \"tessera/tuned_all.def\"\n"
           "#undef TSR_TUNED\n"
           "\n"
           "const struct tsr_variant_impl *const tsr_variants[] = {\n" + list +
           "};\n"
           "const uint32_t tsr_variant_count = sizeof tsr_variants / sizeof tsr_variants[0];\n";
}

} // namespace tessera
