/*
 * Operator labels for an outside instruction counter (the hart-counter QEMU plugin):
 * a board's trace hook labels each core's instructions with the operator it works on,
 * by calling entry K of a table of its own (a mark instruction with code 0x500 + K, then
 * a return), K being the operator's slot here: an open-addressed table keyed by the
 * name's address (the runtime's operator names are static strings), claimed by the first
 * core to see it. tsr_op_labels_put names the slots ("op labels: K=name ..."), which
 * tests/firmware/run.cmake reads. Freestanding C, one instance per firmware.
 */
#ifndef TESSERA_OP_LABELS_H
#define TESSERA_OP_LABELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TSR_OP_LABELS 64u
#define TSR_NO_OP_LABEL 255u

typedef struct tsr_op_labels {
    const char *names[TSR_OP_LABELS];
} tsr_op_labels;

/* The slot of operator `name` (TSR_NO_OP_LABEL when every slot is another's). */
static inline uint32_t tsr_op_label(tsr_op_labels *t, const char *name)
{
    uint32_t slot = (uint32_t)((uintptr_t)name >> 2) % TSR_OP_LABELS;
    for (uint32_t probe = 0; probe < TSR_OP_LABELS; ++probe, slot = (slot + 1u) % TSR_OP_LABELS) {
        const char *seen = __atomic_load_n(&t->names[slot], __ATOMIC_ACQUIRE);
        if (seen == name) return slot;
        if (seen == NULL) {
            const char *expected = NULL;
            if (__atomic_compare_exchange_n(&t->names[slot], &expected, name, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) ||
                expected == name)
                return slot;
        }
    }
    return TSR_NO_OP_LABEL;
}

/* "op labels: K=name ...\n" through the board's console. */
static inline void tsr_op_labels_put(const tsr_op_labels *t, void (*puts_fn)(const char *),
                                     void (*put_u64)(uint64_t))
{
    puts_fn("op labels:");
    for (uint32_t k = 0; k < TSR_OP_LABELS; ++k)
        if (t->names[k]) {
            puts_fn(" ");
            put_u64(k);
            puts_fn("=");
            puts_fn(t->names[k]);
        }
    puts_fn("\n");
}

#endif
