// Package redisstore keeps an authority's state in Redis, so that replicas
// of an agent server share it: a person approves a call on one replica and
// the model's retry, landing on another, runs it exactly once.
//
//	client := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
//	a, err := authority.New(
//		authority.WithStore(redisstore.New(client)),
//		authority.WithOwners(authority.Identity{Platform: "web", UserID: "olivia"}),
//		authority.WithDeferredApproval("web"),
//	)
//	reg.SetExecutionGuard(a.Guard())
//
// # Atomicity
//
// Every change that must not race (taking a grant's use, opening a request,
// approving it, taking the decision) is one Lua script, which Redis runs
// atomically: of any number of replicas racing for one approval, exactly one
// gets it.
//
// # Expiry
//
// Grants, requests and decisions carry Redis expiries, so the server drops
// them by itself; levels never expire. Expiry is also checked against the
// time the authority passes in, to the millisecond, so replicas with an
// injected clock agree with the store.
//
// # Keys
//
// Every key starts with a prefix, by default "{toolreg-authority}:". Its
// braces are a hash tag: on Redis Cluster all keys land in one slot, which
// the scripts need. A custom prefix for a cluster must keep a hash tag.
// Identities, sessions and capabilities are encoded in keys losslessly, so
// no two of them share a key whatever bytes they hold.
package redisstore
