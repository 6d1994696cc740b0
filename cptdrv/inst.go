// SPDX-License-Identifier: Apache-2.0

package cptdrv

import (
	"sync/atomic"
	"unsafe"
)

// Engine groups of the device.
const (
	GroupSE uint8 = 1 // symmetric engines: ciphers, hashes, HMAC
	GroupIE uint8 = 2 // IPsec engines (not used)
	GroupAE uint8 = 3 // asymmetric engines: modexp, EC point multiply
)

// Major opcodes. The minor opcode (low byte of Op) is opcode specific.
const (
	MajorFC   = 0x33 // "flexi-crypto": cipher and AEAD operations on a context
	MajorNOP  = 0x01 // no operation: completes immediately, used by tests and probes
	MinorEnc  = 0x01
	MinorDec  = 0x02
	MinorNone = 0x00
)

// Major opcodes of the asymmetric engines (GroupAE). Like the real device's,
// they are raw operations with their operands inline at DPtr, as
// concatenated fixed-length big-endian fields; padding, encodings, hashing
// and nonces are the driver's business.
//
//	MajorModExp, MinorModExpPlain: Param1 = L (modulus bytes), Param2 = E (exponent bytes)
//	    DPtr: m(L) || e(E) || base(L)                   RPtr: base^e mod m (L)
//	MajorModExp, MinorModExpPublic: as MinorModExpPlain, for a public
//	    exponent of at most 8 bytes (an RSA e): the engine may take time
//	    that depends on it, and keeps the Montgomery constants of recently
//	    used moduli, as the hardware's key cache would.
//	MajorModExp, MinorModExpCRT:  Param1 = L (modulus bytes), Param2 = P (prime bytes)
//	    DPtr: p(P) || q(P) || dP(P) || dQ(P) || qInv(P) || c(L)
//	                                                     RPtr: c^d mod pq (L)
//	    MajorModExp's verdict on a base not below its modulus, or on a
//	    modulus or prime that is even or 1, is UCBadOperand.
//	MajorECC, MinorECCFixed:  Param1 = curve (Curve*), B = its byte length
//	    DPtr: k(B)                                       RPtr: k·G, 04||X||Y (1+2B); X25519: u (32)
//	MajorECC, MinorECCVar:    DPtr: k(B) || point(1+2B)  RPtr: k·P (1+2B); X25519: k(32)||u(32) -> u (32)
//	MajorECC, MinorECCShared: DPtr: k(B) || point(1+2B)  RPtr: x of k·P (B)
//	MajorECC, MinorECCCheck:  DPtr: point, uncompressed (1+2B) or compressed (1+B)
//	                          RPtr: the point uncompressed (1+2B; RLen 0: verdict only)
//	                                                     verdict in UCCode (UCBadPoint)
//	MajorECDSA, MinorECDSASign:   Param1 = curve, Param2 = H (hash bytes, at most B)
//	    DPtr: d(B) || k(B) || hash(H)                    RPtr: r(B) || s(B)
//	MajorECDSA, MinorECDSAVerify: DPtr: pub(1+2B) || r(B) || s(B) || hash(H)
//	                                                     verdict in UCCode (UCVerifyFail)
//	    The engine takes the hash's leftmost bits, as many as the order
//	    has (FIPS 186-5 6.4.1): the driver passes at most its first B bytes.
const (
	MajorModExp = 0x03
	MajorECC    = 0x04
	MajorECDSA  = 0x05
	// MajorHash (symmetric engines) hashes a message piece by piece on the
	// HashContext at CPtr: Param1 = Hash*, Param2 = FlagStart (a new
	// message) | FlagFinal (write the digest at RPtr, RLen >= its size);
	// the data is at DPtr. Between pieces the engine keeps the running
	// state in the context. With FlagStart|FlagCtxData the context's State
	// holds no state yet but the message's first StateLen bytes, which the
	// driver held back (with FlagHMAC: the inner hash's); they precede the
	// data at DPtr.
	MajorHash = 0x06

	MinorModExpPlain  = 0x01
	MinorModExpCRT    = 0x02
	MinorModExpPublic = 0x03
	MinorECCFixed     = 0x01
	MinorECCVar       = 0x02
	MinorECCShared    = 0x03
	MinorECCCheck     = 0x04
	MinorECDSASign    = 0x01
	MinorECDSAVerify  = 0x02
)

// Curves carried in Param1 of MajorECC and MajorECDSA instructions.
const (
	CurveP192   uint16 = 1
	CurveP224   uint16 = 2
	CurveP256   uint16 = 3
	CurveP384   uint16 = 4
	CurveP521   uint16 = 5
	CurveX25519 uint16 = 6
)

// Op builds a 16-bit opcode from its major and minor parts.
func Op(major, minor uint8) uint16 { return uint16(major)<<8 | uint16(minor) }

// Hashes carried in Param1 of MajorHash instructions.
const (
	HashSHA1      uint16 = 1
	HashSHA224    uint16 = 2
	HashSHA256    uint16 = 3
	HashSHA384    uint16 = 4
	HashSHA512    uint16 = 5
	HashSHA512224 uint16 = 6
	HashSHA512256 uint16 = 7
)

// HashContext is the device-visible context of one hash stream: the
// engine's running state between pieces of a message.
type HashContext struct {
	State    [256]byte
	StateLen uint32
	_        uint32
}

// HMACContext is the device-visible context of one HMAC stream.
type HMACContext struct {
	Inner, Outer HashContext
	Key          [128]byte // K0, at most the hash's block size
	KeyLen       uint32
	_            uint32
}

// HMACContextAt interprets the memory at addr as an HMACContext.
func HMACContextAt(addr uintptr) *HMACContext {
	return (*HMACContext)(unsafe.Add(unsafe.Pointer(nil), addr))
}

// HashContextAt interprets the memory at addr as a HashContext.
func HashContextAt(addr uintptr) *HashContext {
	return (*HashContext)(unsafe.Add(unsafe.Pointer(nil), addr))
}

// Ciphers carried in Param1 of MajorFC instructions.
//
// For the block and stream modes (every cipher but CipherAESGCM) the
// context's IV field is the running state the driver loads and the engine
// writes back after each instruction: the CBC chaining block, or the CTR
// counter block of the next keystream block to generate. DLen of a CBC
// instruction (with the FlagCtxData prefix) must be a multiple of the block
// size (16, 8 for 3DES, which is also its IVLen); the
// driver buffers partial blocks and does the padding, as the real driver
// does. A CTR stream keeps the unused rest of a partly used keystream block
// in the context's Engine area across instructions; FlagStart discards it.
const (
	CipherAESGCM  uint16 = 1
	CipherAESCBC  uint16 = 2
	CipherAESCTR  uint16 = 3
	Cipher3DESCBC uint16 = 4 // DES-EDE3 (24-byte key) in CBC mode, 8-byte blocks and IV
	// CipherChaCha20 is RFC 8439's stream cipher with OpenSSL's 16-byte IV:
	// a 32-bit little-endian block counter and a 12-byte nonce, the counter
	// carrying into the nonce's first word (a 64-bit counter, as OpenSSL
	// does). The IV field is the counter block of the current keystream
	// block; the engine keeps how much of it is used in the Engine area
	// (FlagStart: none).
	CipherChaCha20 uint16 = 5
	// CipherChaChaPoly is the ChaCha20-Poly1305 AEAD (RFC 8439, 12-byte
	// IV) as a stream: FlagStart, AAD (FlagCtxAAD, FlagAAD), data,
	// FlagFinal. The engine keeps the message's running state in device
	// memory the context's Engine area refers to; MinorCtxFlush releases
	// it and MinorCtxClone gives a byte copy of a context its own. An
	// encryption's FlagFinal writes the tag into Tag; a decryption's
	// verifies Tag[:TagLen] and completes with UCAuthFail on a mismatch.
	// FlagRunningTag applies to encryptions only.
	CipherChaChaPoly uint16 = 6
)

// Minor opcodes of MajorFC that manage a context's device-side state
// rather than process data (CPtr: the context; Param1: its cipher).
const (
	MinorCtxFlush = 0x03 // release the state: the context is going away
	MinorCtxClone = 0x04 // the context is a byte copy of another: give it its own state
)

// Flags carried in Param2 of MajorFC instructions.
const (
	// FlagStart: begin a new message with the IV stored in the context (IV, IVLen).
	FlagStart uint16 = 1 << 0
	// FlagCtxAAD: absorb the AAD stored in the context (AAD, AADLen) before the
	// data; the engine sets AADLen to 0 once it has.
	FlagCtxAAD uint16 = 1 << 1
	// FlagAAD: the input at DPtr is AAD, not data; nothing is written at RPtr.
	FlagAAD uint16 = 1 << 2
	// FlagFinal: finish the message and write the tag into the context (Tag).
	FlagFinal uint16 = 1 << 3
	// FlagTagInline: with FlagFinal, the tag follows the data: appended at
	// RPtr+DLen when encrypting, read from DPtr+DLen (ALen bytes... 16) and
	// verified when decrypting (UCAuthFail on mismatch, output zeroed).
	FlagTagInline uint16 = 1 << 4
	// FlagRunningTag: after the instruction, write into the context (Tag)
	// the tag the message would have if it ended here, and set TagValid; the
	// message stays open. It spares the driver an instruction for EVP's
	// final, which usually follows the last data piece.
	FlagRunningTag uint16 = 1 << 5
	// FlagCtxData: the AADLen bytes in the context's AAD field are data
	// that precede the data at DPtr (a block the driver completed from its
	// buffer); their output precedes the output at RPtr. The engine sets
	// AADLen to 0 once it has used them. MajorHash: see there.
	FlagCtxData uint16 = 1 << 6
	// FlagHMAC (MajorHash): CPtr is an HMACContext. With FlagStart the
	// engine keys both hashes from the context's key (HMAC's K0: the
	// driver hashes a key longer than the block); the data goes to the
	// inner hash; FlagFinal hashes the inner digest into the outer one and
	// writes the MAC.
	FlagHMAC uint16 = 1 << 7
)

// Instruction is one 64-byte CPT instruction; see the package documentation.
type Instruction struct {
	Op     uint16
	Param1 uint16
	Param2 uint16
	Group  uint8
	_      uint8
	DLen   uint32
	RLen   uint32
	DPtr   uintptr
	RPtr   uintptr
	CPtr   uintptr
	APtr   uintptr
	ResPtr uintptr
	Tag    uint64
}

// Completion codes (Result.CompCode).
const (
	CompPending  uint8 = 0    // not written yet
	CompGood     uint8 = 1    // executed; UCCode tells the engine's verdict
	CompFault    uint8 = 2    // the device could not read or write the instruction's memory
	CompBadInst  uint8 = 3    // unknown opcode, bad lengths or flags
	CompHWError  uint8 = 4    // engine error, instruction not executed (also what fault injection produces)
	CompReset    uint8 = 5    // the device was reset before an engine started the instruction
	CompTimeout  uint8 = 0x80 // written by the driver, never the device: no completion in time
	UCSuccess    uint8 = 0
	UCAuthFail   uint8 = 1 // AEAD tag mismatch
	UCBadState   uint8 = 2 // context state does not allow this instruction
	UCBadKey     uint8 = 3 // key length not supported
	UCBadLength  uint8 = 4 // message too long for the mode
	UCBadContext uint8 = 5 // context not initialised
	UCBadPoint   uint8 = 6 // point not on the curve, or a scalar out of range
	UCVerifyFail uint8 = 7 // signature does not verify
	UCZeroResult uint8 = 8 // point at infinity, all-zero X25519 output, or r or s zero: draw again
	UCBadOperand uint8 = 9 // modular exponentiation: base not below the modulus, or a modulus (prime) even or 1
)

// Result is the 16-byte completion record the device writes.
type Result struct {
	CompCode uint8
	UCCode   uint8
	Flags    uint16 // written by the driver: FlagSoftware
	RLen     uint32
	_        uint64
}

// FlagSoftware marks a result the driver's software fallback computed.
const FlagSoftware uint16 = 1

// Done reports whether the device has written the result.
func (r *Result) Done() bool {
	return atomic.LoadUint32((*uint32)(unsafe.Pointer(r)))&0xff != 0
}

// Publish stores the verdict with CompCode last, so that a reader that sees
// Done() also sees UCCode and RLen.
func (r *Result) Publish(comp, uc uint8, rlen uint32) {
	r.RLen = rlen
	atomic.StoreUint32((*uint32)(unsafe.Pointer(r)), uint32(comp)|uint32(uc)<<8)
}

// PublishFlags is Publish with the driver's flags (FlagSoftware) stored
// with the verdict.
func (r *Result) PublishFlags(comp, uc uint8, rlen uint32, flags uint16) {
	r.RLen = rlen
	atomic.StoreUint32((*uint32)(unsafe.Pointer(r)), uint32(comp)|uint32(uc)<<8|uint32(flags)<<16)
}

// reset makes the result pending again before reuse.
func (r *Result) reset() {
	atomic.StoreUint32((*uint32)(unsafe.Pointer(r)), 0)
	r.RLen = 0
}

// CipherContext is the device-visible context of one cipher stream (the
// memory CPtr points to). The driver fills the key, the IV and small AAD; the
// engine owns Engine, where it keeps the running state of the stream, and
// writes Tag on FlagFinal.
type CipherContext struct {
	Key    [32]byte
	KeyLen uint32
	IVLen  uint32
	// KeyID identifies the key material for the engine's expanded-key cache;
	// the driver changes it whenever Key changes.
	KeyID  uint64
	IV     [128]byte
	AADLen uint32
	_      uint32
	AAD    [64]byte
	Tag    [16]byte
	// TagValid is set by the engine when Tag holds the tag of everything
	// the message has absorbed (FlagRunningTag), cleared by any other
	// instruction on the context.
	TagValid uint32
	// TagLen is the length of the expected tag in Tag, for the ciphers
	// whose engine verifies a decryption's tag (CipherChaChaPoly).
	TagLen uint32
	Engine [192]byte
}

// Bytes returns n bytes of host memory at addr as a slice. The address comes
// from an instruction and names C-heap or DMA memory that the Go garbage
// collector does not manage.
func Bytes(addr uintptr, n int) []byte {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(nil), addr)), n)
}

// ContextAt interprets the memory at addr as a CipherContext.
func ContextAt(addr uintptr) *CipherContext {
	return (*CipherContext)(unsafe.Add(unsafe.Pointer(nil), addr))
}

// ResultAt interprets the memory at addr as a Result.
func ResultAt(addr uintptr) *Result {
	return (*Result)(unsafe.Add(unsafe.Pointer(nil), addr))
}

// Addr returns the address of the first byte of b (0 for an empty slice).
func Addr(b []byte) uintptr {
	if len(b) == 0 {
		return 0
	}
	return uintptr(unsafe.Pointer(&b[0]))
}
