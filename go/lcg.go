package main

// lcg is the MINSTD generator every scenario draws its inputs from, so that Go and
// Rust see the same numbers: state = state * 48271 mod (2^31 - 1), starting at 42.
type lcg struct{ state uint64 }

const (
	lcgSeed       = 42
	lcgMultiplier = 48271
	lcgModulus    = 1<<31 - 1
)

func newLCG() *lcg { return &lcg{state: lcgSeed} }

// next advances the generator and returns the new state. The product stays below
// 2^47, so uint64 arithmetic is exact.
func (g *lcg) next() uint64 {
	g.state = g.state * lcgMultiplier % lcgModulus
	return g.state
}
