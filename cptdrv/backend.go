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

// Assister is implemented by backends that can execute a queued instruction
// on the calling goroutine. A synchronous submitter uses it instead of
// sleeping: for a software device the caller's CPU is as good an engine as
// any, and it saves the thread hand-off that would otherwise dominate small
// operations.
type Assister interface {
	// Assist executes at most one instruction from q and reports whether it
	// did.
	Assist(q *Queue) bool
}
