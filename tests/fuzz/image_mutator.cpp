#include "image_mutator.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "tessera/crc32.h"
#include "tessera/image_format.h"
#include "tessera/variants.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

namespace tessera::fuzz {

namespace {

template <typename T> T get(const uint8_t *p)
{
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
template <typename T> void set(uint8_t *p, T v) { std::memcpy(p, &v, sizeof v); }

bool fits(uint64_t offset, uint64_t bytes, uint64_t size) { return offset <= size && bytes <= size - offset; }

// Where things are in an image, as far as its bytes say.
struct Layout {
    bool header = false;
    uint64_t table = 0;         // section table offset, when it fits
    uint32_t sections = 0;      // entries that fit
    uint64_t at[8] = {};        // file offset of each section kind (0: absent or overrunning)
    uint64_t bytes[8] = {};
    uint32_t tensors = 0;       // tensor entries that fit their section
};

Layout layout_of(const uint8_t *data, size_t size)
{
    Layout l;
    if (size < sizeof(tsr_image_header)) return l;
    l.header = true;
    const auto h = get<tsr_image_header>(data);
    if (h.section_count > 16u || !fits(h.section_table_offset, uint64_t(h.section_count) * sizeof(tsr_section), size))
        return l;
    l.table = h.section_table_offset;
    l.sections = h.section_count;
    for (uint32_t i = 0; i < l.sections; ++i) {
        const auto s = get<tsr_section>(data + l.table + i * sizeof(tsr_section));
        if (s.kind < 8u && fits(s.file_offset, s.size, size)) {
            l.at[s.kind] = s.file_offset;
            l.bytes[s.kind] = s.size;
        }
    }
    l.tensors = uint32_t(l.bytes[TSR_SECTION_TENSORS] / sizeof(tsr_tensor));
    return l;
}

class Mutation {
public:
    Mutation(uint8_t *data, size_t size, unsigned seed) : d_(data), size_(size), rng_(seed), l_(layout_of(data, size)) {}

    bool structured()
    {
        if (!l_.header) return false;
        switch (pick(8)) {
        case 0: return header_field();
        case 1: return section_field();
        case 2:
        case 3: return tensor_field();
        case 4:
        case 5: return step_field();
        case 6: return move_step();
        default: return bytes_of(pick(2) ? TSR_SECTION_TOKENIZER : TSR_SECTION_TENSORS);
        }
    }

private:
    uint32_t pick(uint32_t n) { return n ? uint32_t(rng_() % n) : 0u; }

    // A value that means something for a 32-bit field holding `old`.
    uint32_t interesting(uint32_t old)
    {
        const auto h = get<tsr_image_header>(d_);
        const uint32_t some_tensor = l_.tensors ? pick(l_.tensors) : 0u;
        const uint32_t from_image[] = {h.file_size,       h.region_bytes[1], h.region_bytes[2], h.region_bytes[3],
                                       h.tensor_count,    h.vocab_size,      h.context,         h.seq_len,
                                       h.prompt_chunk,    h.dim,             some_tensor,       tensor_word(some_tensor)};
        const uint32_t limits[] = {0u, 1u, 2u, 3u, 4u, 7u, 8u, 16u, 63u, 64u, 255u, 256u, 0xFFFFu, 0x10000u,
                                   0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFEu, 0xFFFFFFFFu};
        switch (pick(4)) {
        case 0: return limits[pick(sizeof limits / sizeof *limits)];
        case 1: return from_image[pick(sizeof from_image / sizeof *from_image)];
        case 2: return old + uint32_t(int32_t(pick(9)) - 4); // a neighbour
        default: return pick(2) ? old * 2u : old / 2u;
        }
    }
    // A field (offset or size) of tensor `id`, for placing one over another.
    uint32_t tensor_word(uint32_t id)
    {
        if (id >= l_.tensors) return 0;
        const uint8_t *t = d_ + l_.at[TSR_SECTION_TENSORS] + uint64_t(id) * sizeof(tsr_tensor);
        return get<uint32_t>(t + 4u + 4u * pick(4)); // offset, size, rows or cols
    }
    void set_word(uint8_t *p) { set<uint32_t>(p, interesting(get<uint32_t>(p))); }

    bool header_field()
    {
        // Words after magic/version/header_size/file_size/header_crc; sometimes those too.
        const uint32_t words = sizeof(tsr_image_header) / 4u;
        const uint32_t first = pick(8) == 0 ? 0u : 5u;
        set_word(d_ + 4u * (first + pick(words - first)));
        return true;
    }
    bool section_field()
    {
        if (!l_.sections) return false;
        uint8_t *s = d_ + l_.table + pick(l_.sections) * sizeof(tsr_section);
        set_word(s + 4u * pick(7)); // not the reserved word
        return true;
    }
    bool tensor_field()
    {
        if (!l_.tensors) return false;
        uint8_t *t = d_ + l_.at[TSR_SECTION_TENSORS] + pick(l_.tensors) * sizeof(tsr_tensor);
        static const uint8_t words[] = {4, 8, 16, 20, 24, 28, 32, 36}; // offset, size, dims, scale, zero_point
        const uint32_t field = pick(8);
        if (field < 4u) t[field] = uint8_t(pick(2) ? interesting(t[field]) : pick(8));     // dtype, region, kind, layout
        else if (field < 6u) t[8u + field] = uint8_t(pick(2) ? interesting(t[8u + field]) : pick(5)); // ndims, quant
        else if (field == 6u) set<uint16_t>(t + 14u, uint16_t(pick(l_.tensors + 1u)));       // per-channel scales
        else set_word(t + words[pick(8)]);
        return true;
    }
    // A step of either schedule: (address, step count).
    uint8_t *some_step(uint32_t *which_schedule = nullptr)
    {
        const uint32_t kind = pick(2) ? TSR_SECTION_SCHEDULE_PROMPT : TSR_SECTION_SCHEDULE_TOKEN;
        if (which_schedule) *which_schedule = kind;
        if (l_.bytes[kind] < sizeof(tsr_schedule_header) + sizeof(tsr_step)) return nullptr;
        const uint64_t steps = (l_.bytes[kind] - sizeof(tsr_schedule_header)) / sizeof(tsr_step);
        return d_ + l_.at[kind] + sizeof(tsr_schedule_header) + pick(uint32_t(steps)) * sizeof(tsr_step);
    }
    // The step's record tagged as its variant's, of that struct's length (its words kept).
    static void retag(tsr_step &st)
    {
        st.params.variant = st.variant;
        if (const uint32_t bytes = tsr_variant_params_bytes(st.variant)) st.params.bytes = uint16_t(bytes);
    }
    bool step_field()
    {
        uint8_t *s = some_step();
        if (!s) return false;
        tsr_step st = get<tsr_step>(s);
        const uint32_t k = pick(TSR_MAX_OPERANDS);
        switch (pick(8)) {
        case 0: st.op = uint16_t(pick(2) ? pick(TSR_OP_COUNT_ + 1) : interesting(st.op)); break;
        case 1: st.engine = uint8_t(pick(4)); break;
        case 2: st.operands[k] = uint16_t(pick(4) ? (l_.tensors ? pick(l_.tensors) : 0u) : interesting(st.operands[k])); break;
        case 3: {
            // Mostly a word of the variant's struct (the operator's checks see it); else any
            // word of the record, its tag or its length.
            const uint32_t words = st.params.bytes / 4u;
            if (pick(8) == 0) {
                if (pick(2)) st.params.variant = uint16_t(interesting(st.params.variant));
                else st.params.bytes = uint16_t(interesting(st.params.bytes));
            } else {
                const uint32_t i = words && words <= TSR_PARAM_DATA_BYTES / 4u && pick(8) ? pick(words) : pick(TSR_PARAM_DATA_BYTES / 4u);
                st.params.data[i] = interesting(st.params.data[i]);
            }
            if (pick(4) == 0) st.dtype = uint8_t(pick(8)); // the step's element type with it
            break;
        }
        case 4: {
            const uint32_t i = pick(TSR_MAX_TILES);
            st.tile[i] = interesting(st.tile[i]);
            break;
        }
        case 5: st.layer = uint16_t(pick(3) == 0 ? TSR_NO_LAYER : pick(2) ? pick(16) : interesting(st.layer)); break;
        case 6:
            // Another variant: mostly with the record re-tagged as its, so that its checks read
            // the other variant's struct (one struct read as another).
            st.variant = uint16_t(pick(2) ? pick(TSR_VARIANT_ID_END + 1) : interesting(st.variant));
            if (pick(4) != 0u) retag(st);
            break;
        default:
            st.staging[k] = uint16_t(pick(3) == 0 ? TSR_NO_TENSOR : (l_.tensors ? pick(l_.tensors) : 0u));
            break;
        }
        // Mostly, the step keeps naming a variant that runs it (if any does), its record
        // tagged as that variant's, so that the operator's own checks see the change rather
        // than the variant check alone.
        if (pick(4) != 0u) {
            tsr_variant_row row;
            if (!tsr_variant_lookup(st.variant, &row) || !tsr_variant_matches(&row, &st))
                for (uint32_t id = 1; id < TSR_VARIANT_ID_END; ++id)
                    if (tsr_variant_lookup(id, &row) && tsr_variant_matches(&row, &st) &&
                        tsr_variant_params_bytes(id) == st.params.bytes) {
                        st.variant = uint16_t(id);
                        retag(st);
                        break;
                    }
        }
        set(s, st);
        return true;
    }
    // Swap two steps, or copy one over another, within or across the schedules.
    bool move_step()
    {
        uint8_t *a = some_step(), *b = some_step();
        if (!a || !b || a == b) return false;
        const tsr_step x = get<tsr_step>(a), y = get<tsr_step>(b);
        set(a, y);
        if (pick(2)) set(b, x);
        return true;
    }
    // libFuzzer's own byte mutations, confined to one section and its length.
    bool bytes_of(uint32_t kind)
    {
        if (!l_.bytes[kind]) return false;
        const uint64_t start = l_.at[kind] + pick(uint32_t(l_.bytes[kind]));
        const size_t len = size_t(std::min<uint64_t>(l_.at[kind] + l_.bytes[kind] - start, 64u));
        std::vector<uint8_t> slice(d_ + start, d_ + start + len);
        const size_t got = LLVMFuzzerMutate(slice.data(), len, len);
        std::memcpy(d_ + start, slice.data(), got);
        return true;
    }

    uint8_t *d_;
    size_t size_;
    std::minstd_rand rng_;
    Layout l_;
};

} // namespace

void resign_image(uint8_t *data, size_t size)
{
    if (size < sizeof(tsr_image_header)) return;
    auto h = get<tsr_image_header>(data);
    const Layout l = layout_of(data, size);
    for (uint32_t i = 0; i < l.sections; ++i) {
        uint8_t *entry = data + l.table + i * sizeof(tsr_section);
        auto s = get<tsr_section>(entry);
        if (fits(s.file_offset, s.size, size)) {
            s.crc32 = tsr_crc32(0, data + s.file_offset, s.size);
            set(entry, s);
        }
    }
    if (l.sections) h.section_table_crc = tsr_crc32(0, data + l.table, l.sections * sizeof(tsr_section));
    h.header_crc = 0;
    h.header_crc = tsr_crc32(0, &h, sizeof h);
    set(data, h);
}

size_t mutate_image(uint8_t *data, size_t size, size_t max_size, unsigned seed)
{
    Mutation m(data, size, seed);
    // Mostly structure; sometimes libFuzzer's plain byte mutations over everything
    // (lengths included), so the raw paths stay covered too.
    const bool done = (seed % 8u != 0u) && m.structured();
    if (!done) size = LLVMFuzzerMutate(data, size, max_size);
    if (seed % 16u != 1u) resign_image(data, size); // now and then leave it corrupt
    return size;
}

} // namespace tessera::fuzz
