// SPDX-License-Identifier: Apache-2.0

// Package dpdk is the backend called "dpdk": the CPT instruction set of
// package cptdrv executed on DPDK cryptodevs. On an OCTEON that is the CPT
// itself through DPDK's cnxk driver; anywhere else it is any device DPDK
// drives, its software devices included (crypto_openssl, crypto_aesni_gcm,
// crypto_aesni_mb), which is how the tests run it.
//
// # Model
//
// The driver's queues stay what they are for every backend: rings of
// 64-byte instructions with a result area each. This package is the engine
// behind them. Each of its lanes (one per DPDK queue pair index) takes
// instructions from the queues, turns each into one or two requests of the
// C shim (dpdk/shim/cptdpdk.h), which makes rte_crypto_ops in mbufs of its
// own pools, polls the device for completions, writes the result area and
// reports the completion, which wakes the submitter or its ASYNC job as the
// simulator's engines do. A synchronous submitter runs its instruction on
// its own thread instead (cptdrv.Assister): enqueue, then poll inline.
//
// What the devices offer is read from their capabilities when the process
// starts them; each instruction goes to the first configured device that
// offers its algorithm. An instruction no device can take (an algorithm no
// device has, a message the CPT streams over several instructions but
// DPDK's one-shot operations cannot continue, an input larger than an
// mbuf) runs on the CPU path: the simulator's engine code on the calling
// thread, counted as software and named once in the log. Results leave
// through the same driver as the simulator's, so the checks of private-key
// results apply unchanged.
//
// # Streams
//
// The CPT keeps a cipher's running state in the context between
// instructions; DPDK's operations are whole messages. Block modes map
// directly (the chaining value or counter is written back after each
// request). An AES-GCM message maps when its first data instruction also
// starts it and either ends it or asks for the running tag (a TLS record:
// one update and a final). If such a message continues after all, the
// CPU path rebuilds the GHASH state from that first piece's ciphertext,
// which is still in the caller's buffer, and checks it against the tag the
// device returned before going on; a buffer the caller has changed since
// fails the operation rather than give a wrong tag.
//
// # Processes
//
// The EAL starts in the process that first needs the device, from the
// first operation, never at load: hosts fork their workers after loading
// providers. Each process runs its own EAL (its own file prefix, no shared
// configuration) and its own queue pairs; a PCI device is claimed with a
// POSIX record lock that dies with its process. A child forked after its
// parent started the EAL cannot start it again in the same image: it runs
// everything on the CPU path and says so in the log.
package dpdk
