// SPDX-License-Identifier: Apache-2.0

package dispatch

import (
	"cptprov/cptdrv"
	"cptprov/stats"
)

// complete accounts for a completion and applies a. A result the driver's
// software fallback computed counts as software.
func complete[F finisher](alg *stats.Alg, res cptdrv.Result, err error, a F) (int, *Error) {
	where := &alg.Device
	if res.Flags&cptdrv.FlagSoftware != 0 {
		where = &alg.Software
	}
	if e := deviceError(res, err); e != nil {
		alg.Errors.Add(1)
		if res.CompCode == cptdrv.CompGood {
			where.Add(1)
		}
		return 0, e
	}
	where.Add(1)
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
