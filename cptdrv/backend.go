package cptdrv

// Backend is the device behind the queues. The software simulator is the one
// implementation today; a real CPT VF would map its instruction queue
// registers and implement the same four calls.
type Backend interface {
	// Attach makes the device serve q: from now on its engines of q.Group()
	// fetch instructions with q.Next and report each with q.Complete.
	Attach(q *Queue) error
	// Doorbell tells the device that instructions are waiting in q.
	Doorbell(q *Queue)
	// Detach stops serving q; instructions still queued are completed with
	// an error by the driver.
	Detach(q *Queue)
	// Name identifies the backend in logs and statistics.
	Name() string
}

// Assister is implemented by backends that can execute instructions on the
// calling goroutine. A synchronous submitter hands its instruction straight
// to Execute instead of queueing it and sleeping: for a software device the
// caller's CPU is as good an engine as any, and it saves the thread hand-off
// that would otherwise dominate small operations. Assist lets a submitter
// that finds the queue full help drain it.
type Assister interface {
	// Execute runs inst, which the queue has prepared (result area, tag), as
	// one of the device's engines would: result written, q.Complete called.
	Execute(q *Queue, inst Instruction)
	// Assist executes at most one queued instruction from q and reports
	// whether it did.
	Assist(q *Queue) bool
}
