#include "tessera/pack/image_writer.h"

#include "char_classes.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <numeric>

#include "tessera/crc32.h"
#include "tessera/npu.h"
#include "tessera/pack/tiler.h"
#include "tessera/variants.h"

static_assert(std::endian::native == std::endian::little, "the image is little-endian; so must the packer's host be");

namespace tessera {

namespace {

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

template <typename T> void put(std::vector<uint8_t> &out, size_t at, const T &value)
{
    std::memcpy(out.data() + at, &value, sizeof value);
}

uint32_t checked_u32(uint64_t v, const char *what)
{
    if (v > 0xFFFFFFFFull) throw PlanError(std::string(what) + " exceeds 4 GiB, the image format's limit");
    return uint32_t(v);
}

// NPU steps get their descriptor (appended to `descs`) and its index.
std::vector<uint8_t> build_schedule(const Graph &graph, const GraphSchedule &s, std::vector<tsr_npu_desc> &descs)
{
    std::vector<uint8_t> out(sizeof(tsr_schedule_header) + s.steps.size() * sizeof(tsr_step), 0);
    tsr_schedule_header h{};
    h.step_count = uint32_t(s.steps.size());
    h.max_rows = s.max_rows;
    put(out, 0, h);
    for (size_t i = 0; i < s.steps.size(); ++i) {
        GraphStep g = s.steps[i];
        if (g.engine == TSR_ENGINE_NPU) {
            tsr_matmul_attrs &p = g.params.matmul;
            tsr_npu_desc d{};
            d.kind = p.requant_form == TSR_REQUANT_RQS_STAGE ? TSR_NPU_GEMM_I8_RQS_STAGE
                     : p.requant_form == TSR_REQUANT_RQS     ? TSR_NPU_GEMM_I8_RQS
                                                             : TSR_NPU_GEMM_I8;
            d.flags = p.join ? TSR_NPU_WEIGHTS_NMS : 0u;
            d.weight_bits = tsr_layout_npu_bits(graph.tensors[g.operands[1]].layout);
            d.m = (g.flags & TSR_STEP_ONE_ROW) ? 1u : s.max_rows;
            d.n = g.tile[1];
            d.k = p.k;
            d.ldx = p.k;
            d.ldy = p.n;
            d.jobs = (p.n + d.n - 1) / d.n;
            p.npu_desc = uint32_t(descs.size());
            descs.push_back(d);
        }
        tsr_step st = probe_step(g, g.tile); // op, engine, flags, type, params, tiles and variant
        st.layer = g.layer;
        for (uint32_t k = 0; k < TSR_MAX_OPERANDS; ++k) st.operands[k] = uint16_t(k < g.operand_count ? g.operands[k] : TSR_NO_TENSOR);
        for (uint32_t k = 0; k < TSR_MAX_OPERANDS; ++k) st.staging[k] = uint16_t(g.staging[k]);
        if (st.variant == TSR_VARIANT_NONE)
            throw PlanError(std::string("step ") + std::to_string(i) + " (" + tsr_op_name(st.op) + ", element type " +
                            tsr_dtype_name(st.dtype) + ", arithmetic " + std::to_string(tsr_attrs_arithmetic(g.op, &g.params)) +
                            "): no row of tessera/variants.def runs it");
        put(out, sizeof(tsr_schedule_header) + i * sizeof(tsr_step), st);
    }
    return out;
}

} // namespace

std::vector<uint16_t> image_variants(const Graph &graph)
{
    std::vector<uint16_t> ids;
    for (const GraphSchedule *s : {&graph.prompt, &graph.token})
        for (const GraphStep &g : s->steps) {
            const tsr_step st = probe_step(g, g.tile);
            if (st.variant == TSR_VARIANT_NONE)
                throw PlanError(std::string(tsr_op_name(st.op)) + " step of element type " + tsr_dtype_name(st.dtype) +
                                ", arithmetic " + std::to_string(tsr_attrs_arithmetic(g.op, &g.params)) +
                                ": no row of tessera/variants.def runs it");
            ids.push_back(st.variant);
        }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
}

uint32_t variant_features(const std::vector<uint16_t> &variants)
{
    uint32_t features = 0;
    tsr_variant_row row;
    for (uint16_t id : variants)
        if (tsr_variant_lookup(id, &row)) features |= row.feature;
    return features;
}

namespace {

// Byte-level BPE's encoding tables after the strings (tsr_bpe_header): each byte's token,
// the merges by pair with their ranks, GPT-2's character classes.
void append_bpe_tables(std::vector<uint8_t> &out, tsr_tokenizer_header &h, const Vocabulary &vocab)
{
    std::vector<tsr_bpe_merge> merges;
    for (uint32_t rank = 0; rank < vocab.merges.size(); ++rank) {
        const auto &[a, b, result] = vocab.merges[rank];
        merges.push_back({a, b, result, rank});
    }
    std::stable_sort(merges.begin(), merges.end(), [](const tsr_bpe_merge &x, const tsr_bpe_merge &y) {
        return x.left < y.left || (x.left == y.left && x.right < y.right);
    });
    // A pair given twice merges at its first rank (GPT-2's bpe() looks its rank up once).
    merges.erase(std::unique(merges.begin(), merges.end(),
                             [](const tsr_bpe_merge &x, const tsr_bpe_merge &y) { return x.left == y.left && x.right == y.right; }),
                 merges.end());
    const std::vector<tsr_bpe_class_range> classes = gpt2_char_classes();
    tsr_bpe_header b{};
    b.pretokenizer = TSR_BPE_PRETOKENIZER_GPT2;
    h.bpe_offset = uint32_t((out.size() + 3u) / 4u * 4u);
    b.byte_tokens_offset = h.bpe_offset + uint32_t(sizeof b);
    b.merges_offset = b.byte_tokens_offset + 256u * 4u;
    b.merge_count = uint32_t(merges.size());
    b.classes_offset = b.merges_offset + b.merge_count * uint32_t(sizeof(tsr_bpe_merge));
    b.class_count = uint32_t(classes.size());
    out.resize(b.classes_offset + classes.size() * sizeof(tsr_bpe_class_range));
    put(out, h.bpe_offset, b);
    std::memcpy(out.data() + b.byte_tokens_offset, vocab.byte_tokens.data(), 256u * 4u);
    if (!merges.empty()) // (a vocabulary of bytes alone has none: no null pointer to memcpy)
        std::memcpy(out.data() + b.merges_offset, merges.data(), merges.size() * sizeof(tsr_bpe_merge));
    if (!classes.empty())
        std::memcpy(out.data() + b.classes_offset, classes.data(), classes.size() * sizeof(tsr_bpe_class_range));
}

} // namespace

std::vector<uint8_t> build_tokenizer_section(const Vocabulary &vocab)
{
    const uint32_t n = uint32_t(vocab.pieces.size());
    tsr_tokenizer_header h{};
    h.vocab_size = n;
    h.max_token_length = vocab.max_token_length;
    h.kind = vocab.byte_level ? TSR_TOKENIZER_BYTE_LEVEL_BPE : TSR_TOKENIZER_SENTENCEPIECE;
    h.entries_offset = sizeof(tsr_tokenizer_header);
    h.sorted_offset = h.entries_offset + n * uint32_t(sizeof(tsr_token_entry));
    h.strings_offset = h.sorted_offset + n * 4u;
    std::vector<uint8_t> strings;
    std::vector<tsr_token_entry> entries(n);
    for (uint32_t i = 0; i < n; ++i) {
        entries[i].score = vocab.scores[i];
        entries[i].offset = uint32_t(strings.size());
        entries[i].length = uint32_t(vocab.pieces[i].size());
        strings.insert(strings.end(), vocab.pieces[i].begin(), vocab.pieces[i].end());
        strings.push_back(0);
    }
    h.strings_size = uint32_t(strings.size());
    // strcmp order (bytes compared unsigned), as the device's binary search expects.
    std::vector<uint32_t> sorted(n);
    std::iota(sorted.begin(), sorted.end(), 0u);
    std::stable_sort(sorted.begin(), sorted.end(), [&](uint32_t a, uint32_t b) { return vocab.pieces[a] < vocab.pieces[b]; });
    std::vector<uint8_t> out(h.strings_offset + strings.size());
    if (vocab.byte_level && vocab.gpt2_pretokenizer && vocab.byte_tokens.size() == 256u) append_bpe_tables(out, h, vocab);
    put(out, 0, h);
    std::memcpy(out.data() + h.entries_offset, entries.data(), entries.size() * sizeof(tsr_token_entry));
    std::memcpy(out.data() + h.sorted_offset, sorted.data(), sorted.size() * 4);
    std::memcpy(out.data() + h.strings_offset, strings.data(), strings.size());
    return out;
}

namespace {

// A section before the file is laid out: its bytes and, for weights copied at open, the
// region they go to.
struct PendingSection {
    uint32_t kind;
    std::vector<uint8_t> bytes;
    uint32_t region = TSR_REGION_IMAGE;
    // A weights block is written straight into the image (build_image): no copy of it
    // is held beside the image, which for a large model is most of the packer's memory.
    uint64_t weights_bytes = 0;
    uint64_t size() const { return kind == TSR_SECTION_WEIGHTS ? weights_bytes : bytes.size(); }
};
// The place in gather_sections' list of the first section of `kind`.
size_t section_index(const std::vector<PendingSection> &sections, uint32_t kind)
{
    for (size_t i = 0; i < sections.size(); ++i)
        if (sections[i].kind == kind) return i;
    throw std::logic_error("the image has no section of kind " + std::to_string(kind));
}

// Every section of the image in file order; the tensor table is left to fill once the
// weights' file offset is known.
std::vector<PendingSection> gather_sections(const Graph &g, const Vocabulary &vocab, const MemoryPlan &plan,
                                            const BoardDesc &board)
{
    std::vector<tsr_npu_desc> descs;
    std::vector<uint8_t> prompt = build_schedule(g, g.prompt, descs), token = build_schedule(g, g.token, descs);
    std::vector<PendingSection> sections;
    if (!g.hyper.decoder_only) sections.push_back({TSR_SECTION_TOKENIZER, build_tokenizer_section(vocab)});
    sections.push_back({TSR_SECTION_TENSORS, std::vector<uint8_t>(g.tensors.size() * sizeof(tsr_tensor))});
    sections.push_back({TSR_SECTION_SCHEDULE_PROMPT, std::move(prompt)});
    sections.push_back({TSR_SECTION_SCHEDULE_TOKEN, std::move(token)});
    if (!descs.empty()) {
        std::vector<uint8_t> bytes(descs.size() * sizeof(tsr_npu_desc));
        std::memcpy(bytes.data(), descs.data(), bytes.size());
        sections.push_back({TSR_SECTION_NPU_JOBS, std::move(bytes)});
    }
    { // names for people (tessera-inspect): the runtime never reads them
        std::vector<uint8_t> names;
        for (const GraphTensor &t : g.tensors) {
            names.insert(names.end(), t.name.begin(), t.name.end());
            names.push_back(0);
        }
        sections.push_back({TSR_SECTION_NAMES, std::move(names)});
    }
    if (!board.json.empty()) // the description planned for: tools run a custom board from the image alone
        sections.push_back({TSR_SECTION_BOARD, std::vector<uint8_t>(board.json.begin(), board.json.end())});
    // Last, the weights blocks: copied to L2 at open, read in place from the image, copied
    // to NMS, copied to L1. Everything the cores read of the image comes before them, so
    // that a board whose off-chip memory only its DMA engine reads keeps just that head on
    // chip.
    if (!plan.weights_in_place) sections.push_back({TSR_SECTION_WEIGHTS, {}, TSR_REGION_L2, plan.l2_weights_bytes});
    if (plan.weights_in_place || plan.image_weights_bytes)
        sections.push_back({TSR_SECTION_WEIGHTS, {}, TSR_REGION_IMAGE, plan.image_weights_bytes});
    if (plan.nms_weights_bytes) sections.push_back({TSR_SECTION_WEIGHTS, {}, TSR_REGION_NMS, plan.nms_weights_bytes});
    if (plan.l1_weights_bytes) sections.push_back({TSR_SECTION_WEIGHTS, {}, TSR_REGION_L1, plan.l1_weights_bytes});
    return sections;
}

// Where the weights block of `region` begins: in the file (IMAGE: read in place), or in
// the region it is copied to at open.
uint64_t block_offset(const MemoryPlan &plan, uint32_t region, uint64_t weights_file_offset)
{
    switch (region) {
    case TSR_REGION_IMAGE: return weights_file_offset;
    case TSR_REGION_L1: return plan.l1_weights_offset;
    case TSR_REGION_L2: return plan.weights_region_offset;
    default: return 0; // NMS: the NPU's block at its start
    }
}

// Tensor i's table entry (in-place weights need their weights section's file offset).
tsr_tensor tensor_entry(const GraphTensor &t, size_t i, const MemoryPlan &plan, uint64_t weights_file_offset)
{
    tsr_tensor d{};
    d.dtype = uint8_t(t.dtype);
    d.kind = uint8_t(t.kind);
    d.layout = uint8_t(t.layout);
    d.ndims = 2;
    d.dims[0] = t.rows;
    d.dims[1] = t.cols;
    d.dims[2] = d.dims[3] = 1;
    d.size = checked_u32(t.bytes, "a tensor");
    d.quant = uint8_t(t.quant);
    d.quant_params = uint16_t(t.quant == TSR_QUANT_PER_CHANNEL ? t.quant_params : TSR_NO_TENSOR);
    d.scale = t.quant == TSR_QUANT_PER_TENSOR ? float(t.scale) : 1.0f;
    if (t.kind == TSR_TENSOR_WEIGHT && t.in_nms) {
        d.region = TSR_REGION_NMS;
        d.offset = checked_u32(plan.offset[i], "an NMS weight offset");
    } else if (t.kind == TSR_TENSOR_WEIGHT) {
        d.region = uint8_t(plan.region[i]);
        d.offset = checked_u32(plan.offset[i] + block_offset(plan, plan.region[i], weights_file_offset), "a weight offset");
    } else {
        d.region = uint8_t(plan.region[i]);
        d.offset = checked_u32(plan.offset[i], "a buffer offset");
    }
    return d;
}

// The header's fields from the graph, the plan and the board (the CRCs are the caller's).
tsr_image_header image_header(const Graph &g, const MemoryPlan &plan, const BoardDesc &board, uint32_t file_size,
                              uint32_t section_count, uint32_t table_offset)
{
    const ModelHyper &m = g.hyper;
    tsr_image_header h{};
    h.magic = TSR_IMAGE_MAGIC;
    h.version = TSR_IMAGE_VERSION;
    h.header_size = sizeof(tsr_image_header);
    h.file_size = file_size;
    h.flags = (m.prompt_logits_all ? TSR_IMAGE_PROMPT_LOGITS_ALL : 0u) | (m.decoder_only ? TSR_IMAGE_DECODER_ONLY : 0u) |
              (plan.operands_in_place ? TSR_IMAGE_OPERANDS_IN_PLACE : 0u);
    h.arch = m.arch;
    h.precision = m.precision;
    h.required_features = variant_features(image_variants(g));
    h.dim = m.dim;
    h.hidden_dim = m.hidden_dim;
    h.n_layers = m.n_layers;
    h.n_heads = m.n_heads;
    h.n_kv_heads = m.n_kv_heads;
    h.vocab_size = m.vocab_size;
    h.seq_len = m.seq_len;
    h.context = m.context;
    h.prompt_chunk = m.prompt_chunk;
    h.bos_id = m.bos_id;
    h.eos_id = m.eos_id;
    h.norm_eps = m.norm_eps;
    h.rope_theta = m.rope_theta;
    std::snprintf(h.board_name, sizeof h.board_name, "%s", board.name.c_str());
    h.board_fingerprint = board.fingerprint();
    h.planned_cores = plan.cores ? plan.cores : board.cores;
    for (uint32_t r = TSR_REGION_L1; r < TSR_REGION_COUNT; ++r)
        h.region_bytes[r] = checked_u32(plan.regions[r].arena_bytes, "a region plan");
    h.section_count = section_count;
    h.section_table_offset = table_offset;
    h.tensor_count = uint32_t(g.tensors.size());
    h.logits_tensor_prompt = g.logits_prompt;
    h.logits_tensor_token = g.logits_token;
    h.tokens_tensor_prompt = g.tokens_prompt;
    h.tokens_tensor_token = g.tokens_token;
    h.sampler_scratch_tensor = g.sampler_scratch;
    h.step_table_tensor = g.step_table;
    h.rotation_tensor_prompt = g.rotation_prompt == TSR_NO_TENSOR ? 0u : g.rotation_prompt;
    h.rotation_tensor_token = g.rotation_token == TSR_NO_TENSOR ? 0u : g.rotation_token;
    return h;
}

} // namespace

std::vector<uint8_t> build_image(const Graph &g, const Vocabulary &vocab, const MemoryPlan &plan, const BoardDesc &board)
{
    if (g.tensors.size() >= TSR_NO_TENSOR) throw PlanError("more tensors than the image format holds (65535)");
    std::vector<PendingSection> sections = gather_sections(g, vocab, plan, board);

    // File layout: header, section table, then each section aligned.
    const uint64_t table_offset = align_up(sizeof(tsr_image_header), TSR_IMAGE_ALIGN);
    uint64_t cursor = table_offset + sections.size() * sizeof(tsr_section);
    std::vector<uint64_t> file_offset(sections.size());
    for (size_t i = 0; i < sections.size(); ++i) {
        cursor = align_up(cursor, TSR_IMAGE_ALIGN);
        file_offset[i] = cursor;
        cursor += sections[i].size();
    }
    const uint32_t file_size = checked_u32(cursor, "the image");
    std::vector<uint8_t> &table = sections[section_index(sections, TSR_SECTION_TENSORS)].bytes;
    uint64_t weights_at = 0; // the weights read in place
    for (size_t i = 0; i < sections.size(); ++i)
        if (sections[i].kind == TSR_SECTION_WEIGHTS && sections[i].region == TSR_REGION_IMAGE) weights_at = file_offset[i];
    for (size_t i = 0; i < g.tensors.size(); ++i) put(table, i * sizeof(tsr_tensor), tensor_entry(g.tensors[i], i, plan, weights_at));

    std::vector<uint8_t> out(file_size, 0);
    for (size_t i = 0; i < g.tensors.size(); ++i) { // each weight into its block, in place
        const GraphTensor &t = g.tensors[i];
        if (t.kind != TSR_TENSOR_WEIGHT) continue;
        if (t.data.size() > t.bytes) throw PlanError("weight " + t.name + " holds more bytes than its tensor");
        const uint32_t block = t.in_nms ? uint32_t(TSR_REGION_NMS) : plan.region[i];
        for (size_t k = 0; k < sections.size(); ++k)
            if (sections[k].kind == TSR_SECTION_WEIGHTS && sections[k].region == block && !t.data.empty())
                std::memcpy(out.data() + file_offset[k] + plan.offset[i], t.data.data(), t.data.size());
    }
    tsr_image_header h = image_header(g, plan, board, file_size, uint32_t(sections.size()), uint32_t(table_offset));
    for (size_t i = 0; i < sections.size(); ++i) {
        const PendingSection &p = sections[i];
        if (!p.bytes.empty()) std::memcpy(out.data() + file_offset[i], p.bytes.data(), p.bytes.size());
        tsr_section s{};
        s.kind = p.kind;
        s.file_offset = uint32_t(file_offset[i]);
        s.size = uint32_t(p.size());
        s.align = TSR_IMAGE_ALIGN;
        s.crc32 = tsr_crc32(0, out.data() + file_offset[i], p.size());
        if (p.kind == TSR_SECTION_WEIGHTS && p.region != TSR_REGION_IMAGE) {
            s.region = p.region;
            s.region_offset = uint32_t(block_offset(plan, p.region, 0));
        }
        put(out, table_offset + i * sizeof(tsr_section), s);
    }
    h.section_table_crc = tsr_crc32(0, out.data() + table_offset, sections.size() * sizeof(tsr_section));
    h.header_crc = 0;
    h.header_crc = tsr_crc32(0, &h, sizeof h);
    put(out, 0, h);
    return out;
}

} // namespace tessera
