package main

// semaphore is a counting semaphore: a buffered channel holds one token per permit
// taken.
type semaphore chan struct{}

func newSemaphore(n int) semaphore { return make(semaphore, n) }

func (s semaphore) acquire() { s <- struct{}{} }

func (s semaphore) release() { <-s }

const maxOpenPermits = 4096

// openPermits is how many files the file scenarios hold open at once, the rule Go and
// Rust share: min(4096, open-files limit / 2), 4096 where there is no such limit
// (Windows).
func openPermits() int {
	limit := openFileLimit()
	if limit == 0 || limit/2 >= maxOpenPermits {
		return maxOpenPermits
	}
	return int(max(limit/2, 1))
}
