#include "tessera/pack/variant_list.h"

#include <stdexcept>

#include "tessera/variants.h"

namespace tessera {

std::string variant_list_source(const std::vector<uint16_t> &variants, const std::string &source)
{
    std::string names, list;
    for (uint16_t id : variants) {
        tsr_variant_row row;
        if (!tsr_variant_lookup(id, &row)) throw std::logic_error("variant id " + std::to_string(id) + " is no row");
        static const struct {
            uint16_t id;
            const char *name;
        } kEnumNames[] = {
#define TSR_VARIANT(NAME, id, name, op, engine, dtype, arithmetic, feature) {id, #NAME},
#include "tessera/variants.def"
#undef TSR_VARIANT
        };
        const char *enum_name = nullptr;
        for (const auto &e : kEnumNames)
            if (e.id == id) enum_name = e.name;
        if (!enum_name) throw std::logic_error("variant id " + std::to_string(id) + " has no name");
        names += std::string(" * ") + row.name + "\n";
        list += std::string("    &TSR_VARIANT_IMPL(") + enum_name + "),\n";
    }
    return "/*\n"
           " * The operator variants " + source + " runs, written by tessera-pack --emit-variants.\n"
           " * Linked into a firmware, it replaces the runtime library's list of every variant\n"
           " * (tessera/variant_registry.h): the firmware links only these kernels, and refuses\n"
           " * an image that needs another, naming it.\n"
           " *\n" + names +
           " */\n"
           "#include \"tessera/variant_registry.h\"\n"
           "\n"
           "const struct tsr_variant_impl *const tsr_variants[] = {\n" + list +
           "};\n"
           "const uint32_t tsr_variant_count = sizeof tsr_variants / sizeof tsr_variants[0];\n";
}

} // namespace tessera
