// SPDX-License-Identifier: Apache-2.0

// Package cptdrv is the driver side of a CPT (cryptographic accelerator of
// Marvell OCTEON chips) as cptprov models it: instruction queues in host
// memory, 64-byte instructions, result areas written by the device, and a
// Backend interface that the device (today the software simulator) implements.
//
// # Instruction format
//
// An Instruction is eight 64-bit words, like the hardware's CPT_INST_S,
// simplified where the real word packs queue-manager fields we do not model:
//
//	word 0  bits  0..15  Op       major opcode (bits 8..15) and minor opcode (bits 0..7)
//	        bits 16..31  Param1   opcode-specific (for SE cipher opcodes: the cipher, see Cipher*)
//	        bits 32..47  Param2   opcode-specific flags (Flag*)
//	        bits 48..55  Group    engine group that must execute it (GroupSE, GroupIE, GroupAE)
//	        bits 56..63  reserved, zero
//	word 1  bits  0..31  DLen     length of the input at DPtr
//	        bits 32..63  RLen     capacity of the output at RPtr
//	word 2               DPtr     input (gather) address
//	word 3               RPtr     output (scatter) address; may equal DPtr (in place)
//	word 4               CPtr     context address: key material and the running state the
//	                              engine keeps between instructions of one stream (see CipherContext)
//	word 5               APtr     auxiliary input (opcode specific, may be 0), ALen in Param1 for
//	                              opcodes that use it
//	word 6               ResPtr   address of the 16-byte Result the device writes on completion
//	word 7               Tag      submitter's cookie, opaque to the device
//
// All addresses are host memory that stays valid and unmoved until the
// result is written: buffers owned by OpenSSL (C heap) or memory from this
// package's DMA allocator. The device never keeps an address after it has
// written the result.
//
// # Result area
//
//	byte 0       CompCode  0 while the instruction is not complete, then a Comp* code
//	byte 1       UCCode    engine ("microcode") detail, e.g. UCAuthFail
//	bytes 2..3   reserved
//	bytes 4..7   RLen      bytes written at RPtr
//	bytes 8..15  reserved
//
// The device writes RLen and UCCode first and CompCode last (release); a
// submitter that sees a non-zero CompCode (acquire) may read the rest.
//
// # Queues
//
// A Queue is a bounded ring of instructions with a fixed depth chosen when
// the process opens the device (one queue per process, like one CPT VF per
// process). Producers are the threads that run OpenSSL operations; consumers
// are the device's engines. Submit blocks (with back-pressure) while the ring
// is full; TrySubmit reports ErrQueueFull instead. After the device writes a
// result it calls Queue.Complete with the instruction's tag, which wakes the
// submitter or runs its completion callback (the model of the completion
// interrupt).
package cptdrv
