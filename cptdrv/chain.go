// SPDX-License-Identifier: Apache-2.0

package cptdrv

import "unsafe"

// CipherAESCBCHMAC (Param1 of MajorFC) is the chained operation of the
// stitched TLS ciphers: AES-CBC and HMAC (SHA-1 or SHA-256) in one
// instruction, as the real CPT's flexi-crypto "HMAC then encrypt" and
// "decrypt then HMAC". CPtr is the CipherContext of the AES part (key, the
// running CBC IV, IVLen 16), APtr the AuthContext of the HMAC part.
//
// Without FlagTLSRecord the instruction is plain CBC over DLen bytes (whole
// blocks) at DPtr into RPtr, and no MAC (an authentication length of 0).
//
// With FlagTLSRecord it processes one TLS record (MAC-then-encrypt):
//
//	MinorEnc: DPtr holds DLen bytes, the record's explicit IV (FlagExplicitIV:
//	    its first 16 bytes, encrypted but not authenticated) and payload;
//	    the engine appends HMAC(Hdr || payload) and the TLS padding up to
//	    RLen (a multiple of 16 that leaves room for both), and CBC-encrypts
//	    the RLen bytes into RPtr. Result RLen = RLen.
//	MinorDec: DPtr holds the DLen-byte record. With FlagExplicitIV its first
//	    block is the IV of the rest and is not written; the engine decrypts
//	    into RPtr, then checks the padding and the MAC in constant time
//	    (the same blocks hashed whatever the padding says; the length field
//	    of Hdr, bytes 11 and 12, written by the engine): UCAuthFail for a bad
//	    padding or MAC alike, and the output cleared; else Result RLen is
//	    the payload length (without explicit IV, MAC and padding).
//
// After the instruction the context's IV is the last ciphertext block.
const CipherAESCBCHMAC uint16 = 7

// Flags of CipherAESCBCHMAC instructions (Param2).
const (
	// FlagTLSRecord: the data is one TLS record (see CipherAESCBCHMAC).
	FlagTLSRecord uint16 = 1 << 8
	// FlagExplicitIV: the record starts with an explicit IV (TLS 1.1 on).
	FlagExplicitIV uint16 = 1 << 9
)

// AuthContext is the HMAC half of a chained instruction's context. The
// key is given as the chaining values of the hash after K0^ipad and after
// K0^opad (big-endian words), which the driver precomputes once per key,
// as the real device's driver does.
type AuthContext struct {
	Hash   uint16 // HashSHA1 or HashSHA256
	_      uint16
	HdrLen uint32 // bytes of Hdr that the MAC covers before the payload (13 for TLS)
	Inner  [32]byte
	Outer  [32]byte
	// Hdr is the MAC's pseudo-header: sequence number, type, version and
	// payload length (which the engine writes when it opens a record).
	Hdr [16]byte
}

// AuthContextAt interprets the memory at addr as an AuthContext.
func AuthContextAt(addr uintptr) *AuthContext {
	return (*AuthContext)(unsafe.Add(unsafe.Pointer(nil), addr))
}
