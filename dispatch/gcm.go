package dispatch

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"unsafe"

	"cptprov/cptdrv"
	"cptprov/stats"
)

// Lengths fixed by GCM and by TLS 1.2's use of it (RFC 5288).
const (
	gcmDefaultIVLen  = 12
	gcmMaxIVLen      = 128
	gcmTagLen        = 16
	tlsAADLen        = 13
	tlsFixedIVLen    = 4
	tlsExplicitIVLen = 8
)

// IV states, as in OpenSSL's GCM implementation: the IV may be set once per
// message; after the tag it is finished until a new one is set.
const (
	ivUninit uint8 = iota
	ivBuffered
	ivCopied
	ivFinished
)

// gcmCtx is an AES-GCM operation context, overlaid on C memory: plain
// values only.
type gcmCtx struct {
	// sh is shared with the C side (struct cpt_aead_shadow); it must stay
	// the first field.
	sh            AEADShadow
	dev           cptdrv.CipherContext
	ivLen         uint32 // 0 means the default 12
	enc           bool
	keySet        bool
	ivState       uint8
	ivGen         bool // TLS 1.2: IV fixed part set, explicit part generated or received
	dataSeen      bool // data processed in this message: no more AAD
	startPending  bool // the next instruction must carry FlagStart
	tlsAADSet     bool
	tlsAAD        [tlsAADLen]byte
	iv            [gcmMaxIVLen]byte
	tlsVersion    uint32
	tlsMacSize    uint64
	tlsEncRecords uint64
}

type gcm struct {
	id     int
	name   string
	keyLen int
}

func (g gcm) counters(env *Env) *stats.Alg { return env.algCounters(g.id, g.name) }

func (g gcm) Name() string       { return g.name }
func (g gcm) StateSize() uintptr { return unsafe.Sizeof(gcmCtx{}) }

func (c *gcmCtx) setIVLen(n int) {
	c.ivLen = uint32(n)
	c.sh.IVLen = uint64(n)
}

// sync runs first in every call: it finishes the bookkeeping of a final the
// C side completed, and withdraws the C side's licence to finish the
// message, which only a data update grants again.
func (c *gcmCtx) sync() {
	if c.sh.FinalDone != 0 {
		c.sh.FinalDone = 0
		c.ivState = ivFinished
		c.dev.TagValid = 0
	}
	c.sh.FinalReady = 0
}

func (c *gcmCtx) ivLength() int {
	if c.ivLen == 0 {
		return gcmDefaultIVLen
	}
	return int(c.ivLen)
}

func (g gcm) Init(env *Env, st unsafe.Pointer, enc bool, key []byte, keySet bool, iv []byte, ivSet bool, params Params) *Error {
	c := (*gcmCtx)(st)
	c.sync()
	c.enc = enc
	c.sh.Enc = 0
	if enc {
		c.sh.Enc = 1
	}
	if ivSet {
		if len(iv) == 0 || len(iv) > gcmMaxIVLen {
			return errorf(ReasonInvalidIVLength, "invalid IV length %d (1 to %d bytes)", len(iv), gcmMaxIVLen)
		}
		c.setIVLen(len(iv))
		copy(c.iv[:], iv)
		c.ivState = ivBuffered
	}
	if keySet {
		if len(key) != g.keyLen {
			return errorf(ReasonInvalidKeyLength, "invalid key length %d for %s (need %d)", len(key), g.name, g.keyLen)
		}
		// Re-keying with the same key (openssl speed does it for every
		// message) keeps the device's expanded copy.
		same := c.keySet && int(c.dev.KeyLen) == len(key) && equalKeys(c.dev.Key[:len(key)], key)
		if !same {
			if c.dev.KeyID != 0 && env.Forget != nil {
				env.Forget(c.dev.KeyID)
			}
			clear(c.dev.Key[:])
			copy(c.dev.Key[:], key)
			c.dev.KeyLen = uint32(len(key))
			c.dev.KeyID = env.newKeyID()
		}
		c.keySet = true
		c.tlsEncRecords = 0
	}
	return g.SetCtxParams(env, st, params)
}

// prepare applies OpenSSL's IV rules before any instruction of a message and
// reports whether the instruction must start the message.
func (c *gcmCtx) prepare() *Error {
	if !c.keySet {
		return errorf(ReasonMissingKey, "no key set")
	}
	if c.ivState == ivFinished {
		return errorf(ReasonMissingIV, "no IV set for this message (the previous one is finished)")
	}
	if c.ivState == ivUninit {
		// OpenSSL generates a random IV for an encryption without one.
		if !c.enc || c.ivLength() < gcmDefaultIVLen {
			return errorf(ReasonMissingIV, "no IV set")
		}
		if _, err := rand.Read(c.iv[:c.ivLength()]); err != nil {
			return errorf(ReasonOperationFailed, "generating an IV: %v", err)
		}
		c.ivState = ivBuffered
	}
	if c.ivState == ivBuffered {
		n := c.ivLength()
		copy(c.dev.IV[:], c.iv[:n])
		c.dev.IVLen = uint32(n)
		c.dev.AADLen = 0
		c.startPending = true
		c.dataSeen = false
		c.ivState = ivCopied
	}
	return nil
}

// instruction builds an FC instruction for this context carrying whatever
// the message still owes the device (start, buffered AAD).
func (c *gcmCtx) instruction(flags uint16) cptdrv.Instruction {
	if c.startPending {
		flags |= cptdrv.FlagStart
		c.startPending = false
	}
	if c.dev.AADLen > 0 {
		flags |= cptdrv.FlagCtxAAD
	}
	minor := uint8(cptdrv.MinorDec)
	if c.enc {
		minor = cptdrv.MinorEnc
	}
	return cptdrv.Instruction{
		Op:     cptdrv.Op(cptdrv.MajorFC, minor),
		Param1: cptdrv.CipherAESGCM,
		Param2: flags,
		CPtr:   uintptr(unsafe.Pointer(&c.dev)),
	}
}

// after says what an operation does with a successful completion.
type after struct {
	kind  uint8 // afterNone, afterData, afterFinal, afterTLS
	enc   bool
	n, n2 int
	ctx   *gcmCtx
}

const (
	afterNone  uint8 = iota
	afterData        // output length is the result's RLen
	afterFinal       // keep (encrypt) or verify (decrypt) the tag
	afterTLS         // output length n (sealed) or n2 (opened)
)

func (a after) finish(res cptdrv.Result) (int, *Error) {
	switch a.kind {
	case afterData:
		if c := a.ctx; c != nil && c.dev.TagValid != 0 {
			// The message's tag so far: a final right now needs no call.
			c.sh.RunTag = c.dev.Tag
			c.sh.FinalReady = 1
		}
		return int(res.RLen), nil
	case afterFinal:
		c := a.ctx
		if c.enc {
			c.sh.Tag = c.dev.Tag
			c.sh.TagLen = gcmTagLen
			return 0, nil
		}
		ok := subtle.ConstantTimeCompare(c.dev.Tag[:c.sh.TagLen], c.sh.Tag[:c.sh.TagLen]) == 1
		clear(c.dev.Tag[:])
		if !ok {
			return 0, errorf(ReasonAuthFailed, "tag verification failed")
		}
	case afterTLS:
		if a.enc {
			return a.n, nil
		}
		return a.n2, nil
	}
	return 0, nil
}

// complete accounts for a completion and applies a.
func complete[F finisher](alg *stats.Alg, res cptdrv.Result, err error, a F) (int, *Error) {
	if e := deviceError(res, err); e != nil {
		alg.Errors.Add(1)
		if res.CompCode == cptdrv.CompGood {
			alg.Device.Add(1)
		}
		return 0, e
	}
	alg.Device.Add(1)
	n, e := a.finish(res)
	if e != nil {
		alg.Errors.Add(1)
	}
	return n, e
}

// finisher turns a successful completion into the operation's outcome.
type finisher interface {
	finish(cptdrv.Result) (int, *Error)
}

// finishFunc is a finisher for operations where a closure's allocation does
// not matter (asymmetric ones); the hot AEAD path uses after, a value.
type finishFunc func(cptdrv.Result) (int, *Error)

func (f finishFunc) finish(res cptdrv.Result) (int, *Error) { return f(res) }

// run executes inst on q synchronously or, with a waiter, asynchronously; a
// says what to make of the result in both cases once the device is done.
func run[F finisher](q *cptdrv.Queue, alg *stats.Alg, inst *cptdrv.Instruction, w Waiter, a F) (int, bool, *Error) {
	alg.Ops.Add(1)
	alg.Bytes.Add(uint64(inst.DLen))
	if w == nil {
		res, err := q.Do(inst)
		n, e := complete(alg, res, err, a)
		return n, false, e
	}
	err := q.Submit(inst, func(res cptdrv.Result) {
		// Runs on an engine goroutine: a panic here must still complete
		// the waiter, and must not reach the engine.
		defer func() {
			if r := recover(); r != nil {
				alg.Errors.Add(1)
				w.Complete(0, errorf(ReasonInternal, "internal error: %v", r))
			}
		}()
		n, e := complete(alg, res, nil, a)
		w.Complete(n, e)
	})
	if err != nil {
		n, e := complete(alg, cptdrv.Result{}, err, a)
		return n, false, e
	}
	return 0, true, nil
}

func (g gcm) Update(env *Env, st unsafe.Pointer, out unsafe.Pointer, outsize int, in unsafe.Pointer, inl int, w Waiter) (int, bool, *Error) {
	c := (*gcmCtx)(st)
	c.sync()
	if c.tlsAADSet {
		return g.tlsRecord(env, c, out, outsize, in, inl, w)
	}
	if inl == 0 {
		return 0, false, nil
	}
	if out != nil && outsize < inl {
		return 0, false, errorf(ReasonOutputTooSmall, "output buffer too small: %d bytes for %d", outsize, inl)
	}
	if err := c.prepare(); err != nil {
		return 0, false, err
	}
	alg := g.counters(env)
	if out == nil { // AAD
		if c.dataSeen {
			return 0, false, errorf(ReasonWrongState, "AAD after data")
		}
		// Small AAD rides along with the next instruction, as the device
		// reads it from the context; larger AAD is an instruction of its own.
		if n := int(c.dev.AADLen); n+inl <= len(c.dev.AAD) {
			copy(c.dev.AAD[n:], unsafe.Slice((*byte)(in), inl))
			c.dev.AADLen += uint32(inl)
			return 0, false, nil
		}
		inst := c.instruction(cptdrv.FlagAAD)
		inst.DPtr, inst.DLen = uintptr(in), uint32(inl)
		return run(env.SE, alg, &inst, w, after{})
	}
	if uint64(inl) > 1<<32-1 {
		return 0, false, errorf(ReasonOperationFailed, "update of %d bytes is too large", inl)
	}
	inst := c.instruction(cptdrv.FlagRunningTag)
	c.dataSeen = true
	inst.DPtr, inst.DLen = uintptr(in), uint32(inl)
	inst.RPtr, inst.RLen = uintptr(out), uint32(inl)
	return run(env.SE, alg, &inst, w, after{kind: afterData, ctx: c})
}

func (g gcm) Final(env *Env, st unsafe.Pointer, out unsafe.Pointer, outsize int, w Waiter) (int, bool, *Error) {
	c := (*gcmCtx)(st)
	c.sync()
	if c.tlsAADSet {
		return 0, false, errorf(ReasonWrongState, "final after a TLS AAD without the record")
	}
	if err := c.prepare(); err != nil {
		return 0, false, err
	}
	if !c.enc && c.sh.TagLen == 0 {
		return 0, false, errorf(ReasonInvalidTag, "no tag set before final of a decryption")
	}
	c.ivState = ivFinished // never reuse the IV, whatever the outcome
	if c.dev.TagValid != 0 && !c.startPending && c.dev.AADLen == 0 {
		// The last data instruction left the tag of the whole message.
		c.dev.TagValid = 0
		n, err := after{kind: afterFinal, ctx: c}.finish(cptdrv.Result{})
		return n, false, err
	}
	inst := c.instruction(cptdrv.FlagFinal)
	return run(env.SE, g.counters(env), &inst, w, after{kind: afterFinal, ctx: c})
}

// tlsRecord seals or opens one TLS 1.2 record in place:
// [8-byte explicit nonce | payload | 16-byte tag] (RFC 5288).
func (g gcm) tlsRecord(env *Env, c *gcmCtx, out unsafe.Pointer, outsize int, in unsafe.Pointer, inl int, w Waiter) (int, bool, *Error) {
	c.tlsAADSet = false
	c.ivState = ivFinished
	if !c.keySet {
		return 0, false, errorf(ReasonMissingKey, "no key set")
	}
	if out != in || inl < tlsExplicitIVLen+gcmTagLen {
		return 0, false, errorf(ReasonOperationFailed, "a TLS record must be processed in place and hold at least %d bytes", tlsExplicitIVLen+gcmTagLen)
	}
	if outsize < inl {
		return 0, false, errorf(ReasonOutputTooSmall, "output buffer too small: %d bytes for %d", outsize, inl)
	}
	if !c.ivGen || c.ivLength() != gcmDefaultIVLen {
		return 0, false, errorf(ReasonMissingIV, "TLS record without a fixed IV")
	}
	rec := unsafe.Slice((*byte)(in), inl)
	n := c.ivLength()
	if c.enc {
		c.tlsEncRecords++
		if c.tlsEncRecords == 0 {
			return 0, false, errorf(ReasonTooManyRecords, "too many records with one key")
		}
		copy(rec[:tlsExplicitIVLen], c.iv[n-tlsExplicitIVLen:n])
	} else {
		copy(c.iv[n-tlsExplicitIVLen:n], rec[:tlsExplicitIVLen])
	}
	copy(c.dev.IV[:], c.iv[:n])
	c.dev.IVLen = uint32(n)
	copy(c.dev.AAD[:], c.tlsAAD[:])
	c.dev.AADLen = tlsAADLen
	c.startPending = true
	if c.enc {
		incrementCounter64(c.iv[n-8 : n])
	}
	inst := c.instruction(cptdrv.FlagFinal | cptdrv.FlagTagInline)
	payload := inl - tlsExplicitIVLen - gcmTagLen
	p := uintptr(in) + tlsExplicitIVLen
	inst.DPtr, inst.DLen = p, uint32(payload)
	inst.RPtr, inst.RLen = p, uint32(payload+gcmTagLen)
	return run(env.SE, g.counters(env), &inst, w, after{kind: afterTLS, enc: c.enc, n: inl, n2: payload})
}

// equalKeys compares two keys of the same length (a multiple of 8) in time
// that depends only on the length.
func equalKeys(a, b []byte) bool {
	var d uint64
	for i := 0; i+8 <= len(a); i += 8 {
		d |= binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:])
	}
	return d == 0
}

func incrementCounter64(b []byte) {
	for i := len(b) - 1; i >= 0; i-- {
		b[i]++
		if b[i] != 0 {
			return
		}
	}
}

func (g gcm) GetCtxParams(env *Env, st unsafe.Pointer, params Params) *Error {
	c := (*gcmCtx)(st)
	c.sync()
	var err *Error
	params.Each(func(name string, p *Param) bool {
		switch name {
		case "ivlen":
			err = setUint(p, name, uint64(c.ivLength()))
		case "keylen":
			err = setUint(p, name, uint64(g.keyLen))
		case "taglen":
			t := uint64(c.sh.TagLen)
			if t == 0 {
				t = gcmTagLen
			}
			err = setUint(p, name, t)
		case "iv", "updated-iv":
			if c.ivState == ivUninit {
				err = errorf(ReasonMissingIV, "no IV set")
			} else if p.DataType == TypeOctet && int(p.DataSize) < c.ivLength() && p.Data != nil {
				err = errorf(ReasonInvalidIVLength, "buffer of %d bytes too small for the %d-byte IV", p.DataSize, c.ivLength())
			} else if !p.SetOctets(c.iv[:c.ivLength()]) {
				err = errorf(ReasonBadParameter, "parameter %q must be an octet string", name)
			}
		case "tlsaadpad":
			err = setUint(p, name, gcmTagLen)
		case "tag":
			sz := int(p.DataSize)
			switch {
			case sz == 0 || sz > gcmTagLen:
				err = errorf(ReasonInvalidTag, "tag buffer of %d bytes (1 to 16)", sz)
			case !c.enc || c.sh.TagLen == 0:
				err = errorf(ReasonInvalidTag, "no tag available (only after an encryption's final)")
			case !p.SetOctets(c.sh.Tag[:sz]):
				err = errorf(ReasonBadParameter, "parameter %q must be an octet string", name)
			}
		case "tlsivgen":
			err = c.ivGenerate(p)
		}
		return err == nil
	})
	return err
}

// ivGenerate hands out the explicit part of the next TLS IV (tlsivgen).
func (c *gcmCtx) ivGenerate(p *Param) *Error {
	if p.DataType != TypeOctet || p.Data == nil || !c.ivGen || !c.keySet {
		return errorf(ReasonBadParameter, "tlsivgen needs an octet buffer and a TLS fixed IV")
	}
	n := c.ivLength()
	olen := int(p.DataSize)
	if olen == 0 || olen > n {
		olen = n
	}
	copy(unsafe.Slice((*byte)(p.Data), olen), c.iv[n-olen:n])
	p.ReturnSize = uintptr(olen)
	c.ivState = ivBuffered
	c.prepare()
	incrementCounter64(c.iv[n-8 : n])
	return nil
}

func setUint(p *Param, name string, v uint64) *Error {
	if !p.SetUint64(v) {
		return errorf(ReasonBadParameter, "parameter %q: cannot store %d (type %d, %d bytes)", name, v, p.DataType, p.DataSize)
	}
	return nil
}

func (g gcm) SetCtxParams(env *Env, st unsafe.Pointer, params Params) *Error {
	c := (*gcmCtx)(st)
	c.sync()
	var err *Error
	params.Each(func(name string, p *Param) bool {
		switch name {
		case "tag":
			v, ok := p.Octets()
			switch {
			case !ok || p.Data == nil:
				err = errorf(ReasonBadParameter, "parameter \"tag\" must be an octet string")
			case len(v) > gcmTagLen:
				err = errorf(ReasonInvalidTag, "tag of %d bytes is too long (at most 16)", len(v))
			case len(v) == 0 || c.enc:
				err = errorf(ReasonInvalidTag, "a tag can only be set for a decryption (1 to 16 bytes)")
			default:
				copy(c.sh.Tag[:], v)
				c.sh.TagLen = uint32(len(v))
			}
		case "ivlen":
			v, ok := p.Uint64()
			switch {
			case !ok:
				err = errorf(ReasonBadParameter, "parameter \"ivlen\" must be an integer")
			case v == 0 || v > gcmMaxIVLen:
				err = errorf(ReasonInvalidIVLength, "invalid IV length %d (1 to %d bytes)", v, gcmMaxIVLen)
			case int(v) != c.ivLength():
				if c.ivState != ivUninit {
					c.ivState = ivFinished
				}
				c.setIVLen(int(v))
			}
		case "tlsaad":
			v, ok := p.Octets()
			if !ok {
				err = errorf(ReasonBadParameter, "parameter \"tlsaad\" must be an octet string")
			} else {
				err = c.setTLSAAD(v)
			}
		case "tlsivfixed":
			if p.DataType != TypeOctet || p.Data == nil {
				err = errorf(ReasonBadParameter, "parameter \"tlsivfixed\" must be an octet string")
			} else {
				err = c.setIVFixed(p)
			}
		case "tlsivinv":
			v, ok := p.Octets()
			n := c.ivLength()
			if !ok || p.Data == nil || !c.ivGen || !c.keySet || c.enc || len(v) > n {
				err = errorf(ReasonBadParameter, "tlsivinv needs an octet string, a TLS fixed IV and a decryption")
			} else {
				copy(c.iv[n-len(v):n], v)
				c.ivState = ivBuffered
				c.prepare()
			}
		case "tls-version":
			v, ok := p.Uint64()
			if !ok || v > 0xffff {
				err = errorf(ReasonBadParameter, "parameter \"tls-version\" must be an integer")
			} else {
				c.tlsVersion = uint32(v)
			}
		case "tls-mac-size":
			v, ok := p.Uint64()
			if !ok {
				err = errorf(ReasonBadParameter, "parameter \"tls-mac-size\" must be an integer")
			} else {
				c.tlsMacSize = v
			}
		}
		return err == nil
	})
	return err
}

// setTLSAAD takes the 13-byte TLS 1.2 AAD and corrects its length field
// for the explicit nonce (and the tag, when opening), as OpenSSL does.
func (c *gcmCtx) setTLSAAD(aad []byte) *Error {
	if len(aad) != tlsAADLen {
		return errorf(ReasonInvalidAAD, "TLS AAD of %d bytes (must be %d)", len(aad), tlsAADLen)
	}
	copy(c.tlsAAD[:], aad)
	n := int(aad[11])<<8 | int(aad[12])
	if n < tlsExplicitIVLen {
		return errorf(ReasonInvalidAAD, "TLS record length %d too short", n)
	}
	n -= tlsExplicitIVLen
	if !c.enc {
		if n < gcmTagLen {
			return errorf(ReasonInvalidAAD, "TLS record length too short for the tag")
		}
		n -= gcmTagLen
	}
	c.tlsAAD[11], c.tlsAAD[12] = byte(n>>8), byte(n)
	c.tlsAADSet = true
	return nil
}

// setIVFixed takes the fixed part of the TLS 1.2 IV (or, with the special
// length -1, the whole IV) and, when sealing, draws the explicit part.
func (c *gcmCtx) setIVFixed(p *Param) *Error {
	n := c.ivLength()
	if p.DataSize == ^uintptr(0) {
		copy(c.iv[:n], unsafe.Slice((*byte)(p.Data), n))
	} else {
		v, _ := p.Octets()
		if len(v) < tlsFixedIVLen || n-len(v) < tlsExplicitIVLen {
			return errorf(ReasonInvalidIVLength, "TLS fixed IV of %d bytes for a %d-byte IV", len(v), n)
		}
		copy(c.iv[:], v)
		if c.enc {
			if _, err := rand.Read(c.iv[len(v):n]); err != nil {
				return errorf(ReasonOperationFailed, "generating an IV: %v", err)
			}
		}
	}
	c.ivGen = true
	c.ivState = ivBuffered
	return nil
}

func (g gcm) Dup(env *Env, st unsafe.Pointer) {
	c := (*gcmCtx)(st)
	if c.dev.KeyID != 0 {
		c.dev.KeyID = env.newKeyID()
	}
}

func (g gcm) Free(env *Env, st unsafe.Pointer) {
	c := (*gcmCtx)(st)
	if c.dev.KeyID != 0 && env.Forget != nil {
		env.Forget(c.dev.KeyID)
	}
}
