// The XpulpV2 instructions the kernels use, as .insn directives (Debian's binutils 2.40 knows
// neither mnemonic set), in the encoding of the core the firmware runs on:
//  - CORE-V (the default): the CV32E40P with COREV_PULP, the pulp-rtl board's RTL. Field values
//    are the CV32E40P user manual's (instruction_set_extensions.rst).
//  - RI5CY (TSR_XPULPV2_ENCODING_RI5CY defined: toolchain/riscv32-imfc-xpulpv2-ri5cy-elf.cmake):
//    the PULP cores GVSoC's Siracusa models (the siracusa board). Field values are GVSoC's
//    decoder's (core/models/cpu/iss/isa_gen/isa_pulpv2.py in ../shared/gvsoc/src).
// The same operation under the same name on both: a kernel is written once. A CORE-V
// encoding on a RI5CY core is another instruction (a hardware-loop set-up, a trap), so a
// firmware built for one core does not run on the other.
#ifndef TESSERA_XPULPV2_INSN_H
#define TESSERA_XPULPV2_INSN_H

// A .sci instruction's 12-bit immediate: FUNCT6 in bits 31:26, then the 6-bit SHIFT as both cores
// take it, {bits 24:20, bit 25} (CV32E40P's imm_vu_type; GVSoC's Format_RRU).
#define TSR_XP_SCI_IMM(funct6, shift) "(" #funct6 " << 6) | ((" #shift " & 1) << 5) | (" #shift " >> 1)"

#ifndef TSR_XPULPV2_ENCODING_RI5CY
// sdotsp.b rd, rs1, rs2: rd += the sum of the four signed byte products of rs1 and rs2.
#define TSR_XP_SDOTSP_B(rd, rs1, rs2) ".insn r 0x7B, 1, 0x54, " rd ", " rs1 ", " rs2 "\n"
// dotsp.b rd, rs1, rs2: rd = the sum of the four signed byte products of rs1 and rs2.
#define TSR_XP_DOTSP_B(rd, rs1, rs2) ".insn r 0x7B, 1, 0x48, " rd ", " rs1 ", " rs2 "\n"
// dotsp.h rd, rs1, rs2: rd = the sum of the two signed half-word products of rs1 and rs2.
#define TSR_XP_DOTSP_H(rd, rs1, rs2) ".insn r 0x7B, 0, 0x48, " rd ", " rs1 ", " rs2 "\n"
// shuffle2.b rd, rs1, rs2: byte i of rd = byte (rs2's byte i & 3) of (rs2's byte i & 4 ? rs1 : rd).
#define TSR_XP_SHUFFLE2_B(rd, rs1, rs2) ".insn r 0x7B, 1, 0x70, " rd ", " rs1 ", " rs2 "\n"
// pack rd, rs1, rs2: rd = rs1's low half above rs2's low half (CORE-V cv.pack, RI5CY pv.pack.h).
#define TSR_XP_PACK(rd, rs1, rs2) ".insn r 0x7B, 0, 0x78, " rd ", " rs1 ", " rs2 "\n"
// max / min / maxu / minu rd, rs1, rs2 (signed, signed, unsigned, unsigned).
#define TSR_XP_MAX(rd, rs1, rs2) ".insn r 0x2B, 3, 0x2D, " rd ", " rs1 ", " rs2 "\n"
#define TSR_XP_MIN(rd, rs1, rs2) ".insn r 0x2B, 3, 0x2B, " rd ", " rs1 ", " rs2 "\n"
#define TSR_XP_MAXU(rd, rs1, rs2) ".insn r 0x2B, 3, 0x2E, " rd ", " rs1 ", " rs2 "\n"
#define TSR_XP_MINU(rd, rs1, rs2) ".insn r 0x2B, 3, 0x2C, " rd ", " rs1 ", " rs2 "\n"
// lb rd, rs2(rs1) / lw rd, rs2(rs1): the signed byte / the word at rs1 + rs2.
#define TSR_XP_LB_RR(rd, rs1, rs2) ".insn r 0x2B, 3, 0x04, " rd ", " rs1 ", " rs2 "\n"
#define TSR_XP_LW_RR(rd, rs1, rs2) ".insn r 0x2B, 3, 0x06, " rd ", " rs1 ", " rs2 "\n"
// lh rd, rs2(rs1): the signed half-word at rs1 + rs2.
#define TSR_XP_LH_RR(rd, rs1, rs2) ".insn r 0x2B, 3, 0x05, " rd ", " rs1 ", " rs2 "\n"
// lw rd, (rs1), rs2: the word at rs1, then rs1 += rs2 (register post-increment).
#define TSR_XP_LW_POST_RR(rd, rs1, rs2) ".insn r 0x2B, 3, 0x02, " rd ", " rs1 ", " rs2 "\n"
// extract rd, rs1, 7, 8 * BYTE: the signed byte BYTE of rs1 (Is3 = 7: 8 bits, Is2 = its offset;
// CORE-V's bit-manipulation encoding, funct3 000, bits 31:30 = 00).
#define TSR_XP_EXTRACT_B(rd, rs1, byte) ".insn i 0x5B, 0, " rd ", " rs1 ", (7 << 5) | (8 * " #byte ")\n"
// mac rd, rs1, rs2: rd += rs1 * rs2 (32 bits); msu rd, rs1, rs2: rd -= rs1 * rs2.
#define TSR_XP_MAC(rd, rs1, rs2) ".insn r 0x2B, 3, 0x48, " rd ", " rs1 ", " rs2 "\n"
#define TSR_XP_MSU(rd, rs1, rs2) ".insn r 0x2B, 3, 0x49, " rd ", " rs1 ", " rs2 "\n"
// addRNr rd, rs1, rs2: rd = (rd + rs1 + 2^(rs2 - 1)) >> rs2, arithmetic (rs2 in 1..31: rounded
// half up).
#define TSR_XP_ADDRN_R(rd, rs1, rs2) ".insn r 0x2B, 3, 0x42, " rd ", " rs1 ", " rs2 "\n"
// lb rd, (rs1), rs2: the signed byte at rs1, then rs1 += rs2 (register post-increment).
#define TSR_XP_LB_POST_RR(rd, rs1, rs2) ".insn r 0x2B, 3, 0x00, " rd ", " rs1 ", " rs2 "\n"
// sll.sci.b / sra.sci.b rd, rs1, SHIFT: each byte of rs1 shifted left / right arithmetically
// by SHIFT (0..7): bits 31:26 010100 / 010010, funct3 111 (.sci.b).
#define TSR_XP_SLL_SCI_B(rd, rs1, shift) ".insn i 0x7B, 7, " rd ", " rs1 ", " TSR_XP_SCI_IMM(20, shift) "\n"
#define TSR_XP_SRA_SCI_B(rd, rs1, shift) ".insn i 0x7B, 7, " rd ", " rs1 ", " TSR_XP_SCI_IMM(18, shift) "\n"
// clip rd, rs1, 8: rs1 clamped to -128..127 (cv.clip's Is2 in the rs2 field: x8 is 8).
#define TSR_XP_CLIP8(rd, rs1) ".insn r 0x2B, 3, 0x38, " rd ", " rs1 ", x8\n"
// setup 0, rs1, BODY: hardware loop 0 runs the BODY instructions that follow, rs1 times
// (rs1 > 0). CORE-V's end is the address after the body, BODY + 1 words after the set-up;
// the rd field is 0111 L (x14: loop 0).
#define TSR_XP_SETUP0(rs1, body) ".insn i 0x2B, 4, x14, " rs1 ", " #body " + 1\n"
// setup 1, rs1, BODY: hardware loop 1 (rd 01111: x15), the outer one where loops nest (its
// body holds loop 0's and ends at least one instruction after it).
#define TSR_XP_SETUP1(rs1, body) ".insn i 0x2B, 4, x15, " rs1 ", " #body " + 1\n"
#else
#define TSR_XP_SDOTSP_B(rd, rs1, rs2) ".insn r 0x57, 1, 0x5C, " rd ", " rs1 ", " rs2 "\n"   /* pv.sdotsp.b */
#define TSR_XP_DOTSP_B(rd, rs1, rs2) ".insn r 0x57, 1, 0x4C, " rd ", " rs1 ", " rs2 "\n"    /* pv.dotsp.b */
#define TSR_XP_DOTSP_H(rd, rs1, rs2) ".insn r 0x57, 0, 0x4C, " rd ", " rs1 ", " rs2 "\n"    /* pv.dotsp.h */
#define TSR_XP_SHUFFLE2_B(rd, rs1, rs2) ".insn r 0x57, 1, 0x64, " rd ", " rs1 ", " rs2 "\n" /* pv.shuffle2.b */
#define TSR_XP_PACK(rd, rs1, rs2) ".insn r 0x57, 0, 0x68, " rd ", " rs1 ", " rs2 "\n"       /* pv.pack.h */
#define TSR_XP_MAX(rd, rs1, rs2) ".insn r 0x33, 6, 0x02, " rd ", " rs1 ", " rs2 "\n"        /* p.max */
#define TSR_XP_MIN(rd, rs1, rs2) ".insn r 0x33, 4, 0x02, " rd ", " rs1 ", " rs2 "\n"        /* p.min */
#define TSR_XP_MAXU(rd, rs1, rs2) ".insn r 0x33, 7, 0x02, " rd ", " rs1 ", " rs2 "\n"       /* p.maxu */
#define TSR_XP_MINU(rd, rs1, rs2) ".insn r 0x33, 5, 0x02, " rd ", " rs1 ", " rs2 "\n"       /* p.minu */
#define TSR_XP_LB_RR(rd, rs1, rs2) ".insn r 0x03, 7, 0x00, " rd ", " rs1 ", " rs2 "\n"      /* p.lb rd, rs2(rs1) */
#define TSR_XP_LW_RR(rd, rs1, rs2) ".insn r 0x03, 7, 0x10, " rd ", " rs1 ", " rs2 "\n"      /* p.lw rd, rs2(rs1) */
#define TSR_XP_LH_RR(rd, rs1, rs2) ".insn r 0x03, 7, 0x08, " rd ", " rs1 ", " rs2 "\n"      /* p.lh rd, rs2(rs1) */
#define TSR_XP_LW_POST_RR(rd, rs1, rs2) ".insn r 0x0B, 7, 0x10, " rd ", " rs1 ", " rs2 "\n" /* p.lw rd, rs2(rs1!) */
// p.extracti: bits 31:30 = 11, Is3 in 29:25, Is2 in 24:20; .insn takes the 12 bits signed.
#define TSR_XP_EXTRACT_B(rd, rs1, byte) \
    ".insn i 0x33, 0, " rd ", " rs1 ", ((3 << 10) | (7 << 5) | (8 * " #byte ")) - 4096\n"
#define TSR_XP_MAC(rd, rs1, rs2) ".insn r 0x33, 0, 0x21, " rd ", " rs1 ", " rs2 "\n" /* p.mac */
#define TSR_XP_MSU(rd, rs1, rs2) ".insn r 0x33, 1, 0x21, " rd ", " rs1 ", " rs2 "\n" /* p.msu */
#define TSR_XP_ADDRN_R(rd, rs1, rs2) ".insn r 0x5B, 6, 0x20, " rd ", " rs1 ", " rs2 "\n" /* p.addRNr */
#define TSR_XP_LB_POST_RR(rd, rs1, rs2) ".insn r 0x0B, 7, 0x00, " rd ", " rs1 ", " rs2 "\n" /* p.lb rd, rs2(rs1!) */
#define TSR_XP_CLIP8(rd, rs1) ".insn r 0x33, 1, 0x0A, " rd ", " rs1 ", x8\n" /* p.clipi rd, rs1, 8 */
// pv.sll.sci.b / pv.sra.sci.b: CORE-V's fields, in the SIMD opcode 0x57.
#define TSR_XP_SLL_SCI_B(rd, rs1, shift) ".insn i 0x57, 7, " rd ", " rs1 ", " TSR_XP_SCI_IMM(20, shift) "\n"
#define TSR_XP_SRA_SCI_B(rd, rs1, shift) ".insn i 0x57, 7, " rd ", " rs1 ", " TSR_XP_SCI_IMM(18, shift) "\n"
// lp.setup L0, rs1, END: RI5CY's end is the body's last instruction, in half-words from the set-up.
#define TSR_XP_SETUP0(rs1, body) ".insn i 0x7B, 4, x0, " rs1 ", 2 * " #body "\n"
#define TSR_XP_SETUP1(rs1, body) ".insn i 0x7B, 4, x1, " rs1 ", 2 * " #body "\n" /* lp.setup L1 */
#endif

// The post-increment loads and stores share their encodings on both cores.
// lb rd, (rs1), 1: the signed byte at rs1, then rs1 += 1.
#define TSR_XP_LB_POST1(rd, rs1) ".insn i 0x0B, 0, " rd ", 1(" rs1 ")\n"
// lw rd, (rs1), 4: rd = the word at rs1, then rs1 += 4.
#define TSR_XP_LW_POST4(rd, rs1) ".insn i 0x0B, 2, " rd ", 4(" rs1 ")\n"
// lhu rd, (rs1), 2: rd = the unsigned half-word at rs1, then rs1 += 2.
#define TSR_XP_LHU_POST2(rd, rs1) ".insn i 0x0B, 5, " rd ", 2(" rs1 ")\n"
// sb rs2, (rs1), 1 / sh rs2, (rs1), 2 / sw rs2, (rs1), 4: store, then advance rs1 by the size.
#define TSR_XP_SB_POST1(rs2, rs1) ".insn s 0x2B, 0, " rs2 ", 1(" rs1 ")\n"
#define TSR_XP_SH_POST2(rs2, rs1) ".insn s 0x2B, 1, " rs2 ", 2(" rs1 ")\n"
#define TSR_XP_SW_POST4(rs2, rs1) ".insn s 0x2B, 2, " rs2 ", 4(" rs1 ")\n"

// A hardware loop's body must be word-aligned, uncompressed, at least three instructions,
// and free of branches; the caller counts its instructions (the assembler cannot take a
// forward label difference in the set-up).
#define TSR_HWLOOP_BEGIN(count, body) ".balign 4\n.option push\n.option norvc\n.option norelax\n" TSR_XP_SETUP0(count, body)
#define TSR_HWLOOP_END ".option pop\n"

#endif
