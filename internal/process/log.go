// SPDX-License-Identifier: Apache-2.0

package process

import (
	"fmt"
	"os"

	"cptprov/cptdrv"
	"cptprov/dispatch"
	"cptprov/internal/cptlog"
)

// openLog opens the configured log (log_level, log_file); a file that
// cannot be opened falls back to stderr, which says so.
func openLog(dest string, level cptlog.Level) *cptlog.Logger {
	prefix := fmt.Sprintf("cptprov[%d]", os.Getpid())
	log, err := cptlog.Open(dest, level, prefix)
	if err != nil {
		log, _ = cptlog.Open("", level, prefix)
		log.Logf(cptlog.Error, "cannot open log file: %v; logging to stderr", err)
	}
	return log
}

// logCheckFailed logs each private-key result that failed its check: a
// device computing wrong results, or a key whose CRT values are wrong.
func logCheckFailed(log *cptlog.Logger) func(dispatch.CheckEvent) {
	return func(ev dispatch.CheckEvent) {
		where, what := "device", "plain"
		if ev.Software {
			where = "software fallback"
		}
		if ev.CRT {
			what = "CRT"
		}
		if ev.Recomputed {
			log.Logf(cptlog.Warn, "%s-%d private-key result (%s, %s) failed its check: not released, recomputed without CRT (a faulty device, or a key whose dP, dQ or qInv is wrong)", ev.Alg, ev.Bits, what, where)
		} else {
			log.Logf(cptlog.Error, "%s-%d private-key result (%s, %s) failed its check: not released, the operation fails (a faulty device, or an inconsistent key)", ev.Alg, ev.Bits, what, where)
		}
	}
}

// logEvents is a queue's OnEvent: device failures, and the circuit opening
// and closing, as log lines (rate-limited by the logger).
func logEvents(log *cptlog.Logger, queue string, fallback bool) func(cptdrv.Event, uint8) {
	return func(ev cptdrv.Event, code uint8) {
		switch ev {
		case cptdrv.EventFailure:
			log.Logf(cptlog.Warn, "%s queue: the device failed an operation without running it (%s)", queue, compName(code))
		case cptdrv.EventOpen:
			if fallback {
				log.Logf(cptlog.Warn, "%s queue: circuit open after repeated device failures: fallback to software engaged", queue)
			} else {
				log.Logf(cptlog.Error, "%s queue: circuit open after repeated device failures: operations fail until the device answers", queue)
			}
		case cptdrv.EventClose:
			log.Logf(cptlog.Warn, "%s queue: circuit closed: the device answers again, fallback released", queue)
		}
	}
}

func compName(code uint8) string {
	switch code {
	case cptdrv.CompHWError:
		return "engine error"
	case cptdrv.CompReset:
		return "device reset"
	case cptdrv.CompTimeout:
		return "no engine took it in time"
	}
	return fmt.Sprintf("completion code %#x", code)
}
