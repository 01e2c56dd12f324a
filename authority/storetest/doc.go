// Package storetest checks that an [authority.Store] behaves as the built-in
// stores do: levels, grants with uses and expiry, deferred requests, the
// per-session bounds, and atomic consumption under concurrent use.
//
// Run it from a test of the store's package:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) authority.Store { return newStore(t) })
//	}
//
// open must return an empty store each time it is called, independent of
// the stores it returned before.
package storetest
