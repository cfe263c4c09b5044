/*
 * hart-counter: a QEMU TCG plugin that counts the instructions each hart (vCPU)
 * executes, exactly, whatever the harts do concurrently: QEMU's own minstret under
 * -icount is one counter for the whole machine.
 *
 * The guest marks the regions to measure with two RISC-V HINTs (no-ops to the
 * hardware): `slti zero, zero, 0x7a1` begins one (a token), `slti zero, zero, 0x7a2`
 * ends it. At exit the plugin writes, to the file named by `out=` (default stderr):
 *
 *   hart-counter: regions N
 *   hart-counter: hart H instructions/region X   (one line per hart that ran)
 *   hart-counter: busiest instructions/region X (hart H)   (excluding the `skip=` harts)
 *
 * Label marks attribute a hart's instructions: `slti zero, zero, 0x400 + L` (L in 0..254)
 * says "this hart now works on model layer L", 0x4ff "on no layer" (the default). When a
 * guest labels, the plugin also writes, for the labelled instructions inside regions:
 *
 *   hart-counter: layer L busiest instructions/region X (hart H)
 *   hart-counter: layers busiest instructions/region X (hart H)   (summed over layers)
 *
 * Operator labels work the same way: `slti zero, zero, 0x500 + K` (K in 0..254) says
 * "this hart now works on operator label K" (the guest names its labels), 0x5ff "on
 * none". When a guest labels operators, the plugin writes, inside regions:
 *
 *   hart-counter: op K busiest instructions/region X (hart H)
 *   hart-counter: op K on the busiest hart instructions/region X   (the region's busiest
 *                 hart above: its operators add up to its count, which the busiest per
 *                 operator, several harts, need not)
 *
 * With `blocks=FILE` it also writes, per hart, the instructions executed in each
 * translated block (`hart address instructions`), for a per-function profile (map
 * the addresses to symbols with nm); `region_blocks=FILE` the same, counting only what
 * ran inside regions (the measured work, without start-up and reporting).
 *
 * `skip=H` (repeatable) names an engine hart (DMA, NPU): its instructions are reported on
 * its own line but never counted as the cluster's busiest.
 *
 * On Arm (Thumb-2: qemu-system-arm, the mps3-an547 board) the same codes are the
 * immediates of `movw r12, #code`: r12 is the intra-procedure scratch register, free in
 * the label table's entries and beside the marks, which name it clobbered.
 *
 * Usage: qemu-system-riscv32 ... -icount shift=0 -plugin libtessera_hart_counter.so,out=FILE,skip=8,skip=9
 * Counting is per translated block, at block entry: a region's figures are exact to
 * the block around each mark.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu_plugin_api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_HARTS 64
#define MARK_BEGIN 0x7A1u /* slti x0, x0, 0x7a1 (RV32); movw r12, #0x7a1 (Thumb-2) */
#define MARK_END 0x7A2u   /* slti x0, x0, 0x7a2; movw r12, #0x7a2 */
#define MARK_SLTI_X0 0x00002013u /* slti x0, x0, imm: the low 20 bits */
#define LABEL_BASE 0x400u       /* slti x0, x0, 0x400 + label */
#define LABELS 256u             /* label 255: no layer */
#define NO_LABEL (LABELS - 1u)

static uint64_t g_count[MAX_HARTS];      /* instructions so far */
static uint64_t g_at_begin[MAX_HARTS];   /* counts when the open region began */
static uint64_t g_in_regions[MAX_HARTS]; /* summed over closed regions */
#define OP_LABEL_BASE 0x500u    /* slti x0, x0, 0x500 + operator label */
/* One kind of label (layers, operators): each hart's instructions by its current label. */
typedef struct labels {
    uint64_t count[MAX_HARTS][LABELS];      /* instructions so far, by label */
    uint64_t at_begin[MAX_HARTS][LABELS];   /* when the open region began */
    uint64_t in_regions[MAX_HARTS][LABELS]; /* summed over closed regions */
    unsigned current[MAX_HARTS];            /* each hart's current label */
    int used;                               /* a mark of this kind was translated */
} labels_t;
static labels_t g_layers, g_ops;
static uint64_t g_regions;
static int g_open;
static uint64_t g_skip; /* bit per engine hart */
static char g_out[4096], g_blocks[4096], g_region_blocks[4096];

/* One translation of a block: its address, size, and what each hart executed of it. */
typedef struct block {
    uint64_t vaddr;
    uint64_t insns;
    uint64_t by_hart[MAX_HARTS];
    uint64_t in_regions[MAX_HARTS]; /* of by_hart, while a region was open */
    struct block *next;
} block_t;
static block_t *g_all_blocks;

static void on_block(unsigned int hart, void *udata)
{
    block_t *b = udata;
    if (hart >= MAX_HARTS) return;
    g_count[hart] += b->insns;
    g_layers.count[hart][g_layers.current[hart]] += b->insns;
    g_ops.count[hart][g_ops.current[hart]] += b->insns;
    b->by_hart[hart] += b->insns;
    if (g_open) b->in_regions[hart] += b->insns;
}

static void on_label(unsigned int hart, void *udata)
{
    if (hart < MAX_HARTS) g_layers.current[hart] = (unsigned)(uintptr_t)udata;
}

static void on_op_label(unsigned int hart, void *udata)
{
    if (hart < MAX_HARTS) g_ops.current[hart] = (unsigned)(uintptr_t)udata;
}

static void labels_close_region(labels_t *k)
{
    for (int h = 0; h < MAX_HARTS; ++h)
        for (unsigned l = 0; l < LABELS; ++l) k->in_regions[h][l] += k->count[h][l] - k->at_begin[h][l];
}

static void on_mark(unsigned int hart, void *udata)
{
    (void)hart;
    if ((uintptr_t)udata == MARK_BEGIN) {
        memcpy(g_at_begin, g_count, sizeof g_count);
        memcpy(g_layers.at_begin, g_layers.count, sizeof g_layers.count);
        memcpy(g_ops.at_begin, g_ops.count, sizeof g_ops.count);
        g_open = 1;
    } else if (g_open) {
        for (int h = 0; h < MAX_HARTS; ++h) g_in_regions[h] += g_count[h] - g_at_begin[h];
        labels_close_region(&g_layers);
        labels_close_region(&g_ops);
        ++g_regions;
        g_open = 0;
    }
}

/* A 4-byte instruction's mark code (1 when it is one): RV32's `slti x0, x0, code`, or
 * Thumb-2's `movw r12, #code` (T3: first halfword 11110 i 10 0100 imm4, second 0 imm3
 * 1100 imm8), which no 4-byte RV32 instruction matches (their low bits are 11) nor the
 * other way round (a 32-bit Thumb instruction's first halfword is 0xE800 or above). */
static int mark_code(uint32_t word, uint32_t *code)
{
    if ((word & 0xFFFFFu) == MARK_SLTI_X0) {
        *code = word >> 20;
        return 1;
    }
    const uint32_t hw1 = word & 0xFFFFu, hw2 = word >> 16;
    if ((hw1 & 0xFBF0u) == 0xF240u && (hw2 & 0x8F00u) == 0x0C00u) {
        *code = (hw1 & 15u) << 12 | ((hw1 >> 10) & 1u) << 11 | ((hw2 >> 12) & 7u) << 8 | (hw2 & 0xFFu);
        return 1;
    }
    return 0;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    const size_t n = qemu_plugin_tb_n_insns(tb);
    block_t *b = calloc(1, sizeof *b); /* lives as long as QEMU: blocks are few */
    if (!b) return;
    b->vaddr = qemu_plugin_tb_vaddr(tb);
    b->insns = n;
    b->next = g_all_blocks;
    g_all_blocks = b;
    qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, QEMU_PLUGIN_CB_NO_REGS, b);
    for (size_t i = 0; i < n; ++i) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        if (qemu_plugin_insn_size(insn) != 4) continue;
        uint32_t word, imm;
        memcpy(&word, qemu_plugin_insn_data(insn), 4);
        if (!mark_code(word, &imm)) continue;
        if (imm == MARK_BEGIN || imm == MARK_END)
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)imm);
        else if (imm >= LABEL_BASE && imm < LABEL_BASE + LABELS) {
            g_layers.used = 1;
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_label, QEMU_PLUGIN_CB_NO_REGS,
                                                   (void *)(uintptr_t)(imm - LABEL_BASE));
        } else if (imm >= OP_LABEL_BASE && imm < OP_LABEL_BASE + LABELS) {
            g_ops.used = 1;
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_op_label, QEMU_PLUGIN_CB_NO_REGS,
                                                   (void *)(uintptr_t)(imm - OP_LABEL_BASE));
        }
    }
}

/* `hart address instructions` for each block a hart ran (only inside regions: `in_regions`). */
static void write_blocks(const char *path, int in_regions)
{
    FILE *f;
    if (!path[0] || !(f = fopen(path, "w"))) return;
    for (const block_t *b = g_all_blocks; b; b = b->next)
        for (int h = 0; h < MAX_HARTS; ++h) {
            const uint64_t n = in_regions ? b->in_regions[h] : b->by_hart[h];
            if (n) fprintf(f, "%d 0x%" PRIx64 " %" PRIu64 "\n", h, b->vaddr, n);
        }
    fclose(f);
}

/* "hart-counter: WHAT L busiest instructions/region X (hart H)" per label, over the
 * harts not skipped; with `sums`, also adds each hart's figures up. */
static void write_labels(FILE *f, const char *what, const labels_t *k, uint64_t sums[MAX_HARTS])
{
    for (unsigned l = 0; l < NO_LABEL; ++l) {
        uint64_t most = 0;
        int at = -1;
        for (int h = 0; h < MAX_HARTS; ++h) {
            if (g_skip >> h & 1u) continue;
            const uint64_t per = k->in_regions[h][l] / g_regions;
            if (sums) sums[h] += per;
            if (per > most) most = per, at = h;
        }
        if (at >= 0) fprintf(f, "hart-counter: %s %u busiest instructions/region %" PRIu64 " (hart %d)\n", what, l, most, at);
    }
}

static void on_qemu_exit(qemu_plugin_id_t id, void *udata)
{
    (void)id, (void)udata;
    FILE *f = g_out[0] ? fopen(g_out, "w") : stderr;
    if (!f) return;
    fprintf(f, "hart-counter: regions %" PRIu64 "\n", g_regions);
    uint64_t busiest = 0;
    int which = -1;
    for (int h = 0; h < MAX_HARTS; ++h) {
        if (!g_count[h]) continue;
        const uint64_t per = g_regions ? g_in_regions[h] / g_regions : 0;
        fprintf(f, "hart-counter: hart %d instructions/region %" PRIu64 "\n", h, per);
        if (!(g_skip >> h & 1u) && per >= busiest) busiest = per, which = h;
    }
    fprintf(f, "hart-counter: busiest instructions/region %" PRIu64 " (hart %d)\n", busiest, which);
    const int busiest_hart = which;
    if (g_layers.used && g_regions) {
        uint64_t layers[MAX_HARTS] = {0};
        write_labels(f, "layer", &g_layers, layers);
        busiest = 0, which = -1;
        for (int h = 0; h < MAX_HARTS; ++h)
            if (layers[h] > busiest) busiest = layers[h], which = h;
        fprintf(f, "hart-counter: layers busiest instructions/region %" PRIu64 " (hart %d)\n", busiest, which);
    }
    if (g_ops.used && g_regions) {
        write_labels(f, "op", &g_ops, NULL);
        for (unsigned l = 0; busiest_hart >= 0 && l < NO_LABEL; ++l) {
            const uint64_t per = g_ops.in_regions[busiest_hart][l] / g_regions;
            if (per) fprintf(f, "hart-counter: op %u on the busiest hart instructions/region %" PRIu64 "\n", l, per);
        }
    }
    if (f != stderr) fclose(f);
    write_blocks(g_blocks, 0);
    write_blocks(g_region_blocks, 1);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    (void)info;
    for (int i = 0; i < argc; ++i) {
        if (strncmp(argv[i], "out=", 4) == 0) snprintf(g_out, sizeof g_out, "%s", argv[i] + 4);
        else if (strncmp(argv[i], "skip=", 5) == 0) {
            char *end;
            const long h = strtol(argv[i] + 5, &end, 10);
            if (*end || h < 0 || h >= MAX_HARTS) {
                fprintf(stderr, "hart-counter: skip=%s is not a hart (0..%d)\n", argv[i] + 5, MAX_HARTS - 1);
                return -1;
            }
            g_skip |= 1ull << h;
        }
        else if (strncmp(argv[i], "blocks=", 7) == 0) snprintf(g_blocks, sizeof g_blocks, "%s", argv[i] + 7);
        else if (strncmp(argv[i], "region_blocks=", 14) == 0)
            snprintf(g_region_blocks, sizeof g_region_blocks, "%s", argv[i] + 14);
        else {
            fprintf(stderr, "hart-counter: unknown argument '%s' (out=FILE, skip=HART, blocks=FILE, region_blocks=FILE)\n",
                    argv[i]);
            return -1;
        }
    }
    for (int h = 0; h < MAX_HARTS; ++h) g_layers.current[h] = g_ops.current[h] = NO_LABEL;
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
    return 0;
}
