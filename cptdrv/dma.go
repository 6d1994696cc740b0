// SPDX-License-Identifier: Apache-2.0

package cptdrv

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// DMA is a region of host memory outside the Go heap, as a driver would
// allocate for the device to read and write: the garbage collector never
// moves or frees it, so its addresses may sit in instructions.
type DMA struct {
	b []byte
}

// AllocDMA maps n bytes of zeroed memory.
func AllocDMA(n int) (*DMA, error) {
	if n <= 0 {
		n = 1
	}
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("cptdrv: mapping %d bytes of DMA memory: %w", n, err)
	}
	return &DMA{b: b}, nil
}

// Bytes returns the whole region.
func (d *DMA) Bytes() []byte { return d.b }

// Free unmaps the region; the caller guarantees the device no longer uses it.
func (d *DMA) Free() error {
	if d.b == nil {
		return nil
	}
	err := unix.Munmap(d.b)
	d.b = nil
	return err
}
