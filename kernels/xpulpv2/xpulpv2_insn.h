// The XpulpV2 instructions the kernels use, in their CORE-V encodings, as .insn
// directives: Debian's binutils (2.40) knows no CORE-V mnemonic. Field values are the
// CV32E40P user manual's (instruction_set_extensions.rst).
#ifndef TESSERA_XPULPV2_INSN_H
#define TESSERA_XPULPV2_INSN_H

// cv.sdotsp.b rd, rs1, rs2: rd += the sum of the four signed byte products of rs1 and rs2.
#define TSR_CV_SDOTSP_B(rd, rs1, rs2) ".insn r 0x7B, 1, 0x54, " rd ", " rs1 ", " rs2 "\n"
// cv.dotsp.b rd, rs1, rs2: rd = the sum of the four signed byte products of rs1 and rs2.
#define TSR_CV_DOTSP_B(rd, rs1, rs2) ".insn r 0x7B, 1, 0x48, " rd ", " rs1 ", " rs2 "\n"
// cv.shuffle2.b rd, rs1, rs2: byte i of rd = byte (rs2's byte i & 3) of (rs2's byte i & 4 ?
// rs1 : rd).
#define TSR_CV_SHUFFLE2_B(rd, rs1, rs2) ".insn r 0x7B, 1, 0x70, " rd ", " rs1 ", " rs2 "\n"
// cv.pack rd, rs1, rs2: rd = rs1's low half above rs2's low half; cv.pack.h: the high halves.
#define TSR_CV_PACK(rd, rs1, rs2) ".insn r 0x7B, 0, 0x78, " rd ", " rs1 ", " rs2 "\n"
#define TSR_CV_PACK_H(rd, rs1, rs2) ".insn r 0x7B, 0, 0x79, " rd ", " rs1 ", " rs2 "\n"
// cv.max / cv.min / cv.maxu rd, rs1, rs2 (signed, signed, unsigned).
#define TSR_CV_MAX(rd, rs1, rs2) ".insn r 0x2B, 3, 0x2D, " rd ", " rs1 ", " rs2 "\n"
#define TSR_CV_MIN(rd, rs1, rs2) ".insn r 0x2B, 3, 0x2B, " rd ", " rs1 ", " rs2 "\n"
#define TSR_CV_MAXU(rd, rs1, rs2) ".insn r 0x2B, 3, 0x2E, " rd ", " rs1 ", " rs2 "\n"
// cv.lb rd, (rs1), 1: the signed byte at rs1, then rs1 += 1.
#define TSR_CV_LB_POST1(rd, rs1) ".insn i 0x0B, 0, " rd ", 1(" rs1 ")\n"
// cv.lb rd, rs2(rs1) / cv.lw rd, rs2(rs1): the signed byte / the word at rs1 + rs2.
#define TSR_CV_LB_RR(rd, rs1, rs2) ".insn r 0x2B, 3, 0x04, " rd ", " rs1 ", " rs2 "\n"
#define TSR_CV_LW_RR(rd, rs1, rs2) ".insn r 0x2B, 3, 0x06, " rd ", " rs1 ", " rs2 "\n"
// cv.sb rs2, (rs1), 1 / cv.sw rs2, (rs1), 4: store, then advance rs1 by the size.
#define TSR_CV_SB_POST1(rs2, rs1) ".insn s 0x2B, 0, " rs2 ", 1(" rs1 ")\n"
#define TSR_CV_SW_POST4(rs2, rs1) ".insn s 0x2B, 2, " rs2 ", 4(" rs1 ")\n"
// cv.extract rd, rs1, 7, 8 * BYTE: the signed byte BYTE of rs1 (Is3 = 7: 8 bits, Is2 = its
// offset; the bit-manipulation encoding, funct3 000, bits 31:30 = 00).
#define TSR_CV_EXTRACT_B(rd, rs1, byte) ".insn i 0x5B, 0, " rd ", " rs1 ", (7 << 5) | (8 * " #byte ")\n"
// cv.mac rd, rs1, rs2: rd += rs1 * rs2 (32 bits).
#define TSR_CV_MAC(rd, rs1, rs2) ".insn r 0x2B, 3, 0x48, " rd ", " rs1 ", " rs2 "\n"
// cv.lw rd, (rs1), 4: rd = the word at rs1, then rs1 += 4 (post-increment).
#define TSR_CV_LW_POST4(rd, rs1) ".insn i 0x0B, 2, " rd ", 4(" rs1 ")\n"
// cv.setup 0, rs1, BODY + 1: hardware loop 0 runs the BODY instructions that follow, rs1
// times (rs1 > 0): its end is BODY + 1 words after the cv.setup (the assembler cannot
// take a forward label difference there, so the caller counts). The body must be
// word-aligned, uncompressed, at least three instructions, and free of branches; the rd
// field is 0111 L (x14: loop 0).
#define TSR_CV_SETUP0(rs1, body) ".insn i 0x2B, 4, x14, " rs1 ", " #body " + 1\n"

#endif
