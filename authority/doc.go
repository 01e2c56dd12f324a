// Package authority is a reference execution guard for toolreg: it decides
// who may run which tool, asks people to confirm calls, and remembers their
// approvals, in a store that replicas can share.
//
//	a, err := authority.New(
//		authority.WithOwners(authority.Identity{Platform: "terminal", UserID: "olivia"}),
//		authority.WithConfirmer("terminal", askOnTheTerminal),
//	)
//	if err != nil { ... }
//	reg.SetExecutionGuard(a.Guard())
//
// # Identities and levels
//
// A caller is an [Identity]: a user on a platform, read from each call's
// [toolreg.CallContext]. Each identity has an integer level in the
// [Store], 0 by default ([Authority.SetLevel]); a negative level bans it.
// Owners ([WithOwners]) rank above every level. A tool's capability is
// "tool:<name>" ([Capability]); the level it needs is its override
// ([WithMinLevel]) or [toolreg.MinLevel] of its risk and visibility, so a
// declared risk shadows visibility.
//
// # Decisions
//
// Hard-deny globs ([WithDeny]) refuse first, owners included. Then owners
// are authorized, banned callers refused, and others authorized when their
// level suffices. A caller below it is admitted only by what an owner set
// up beforehand: an allow glob ([WithAllow]) or an authorizing grant
// ([Authority.Grant]); it is never asked to approve its own call.
//
// # Confirmation
//
// Confirmation is a second axis, for authorized callers, owners included:
// the tool's confirm, or an override ([WithConfirm]). "session"
// confirmation is skipped for SkipConfirm callers (a scheduler), during an
// owner's auto-confirm window ([Authority.AutoConfirm]) and while a grant
// remembers an earlier answer; "always" is asked every time. A [Confirmer]
// per platform asks a person and answers [Allow], [Deny] or [Defer], with
// an optional grant: [GrantOnce] for exactly these arguments, bound to
// their [toolreg.ArgsDigest], or [GrantSession] for the session, each with
// a duration and a number of uses. No confirmer, an error, a panic, a
// timeout or the end of the call's context all deny.
//
// # Deferred approval
//
// Where people answer later (a web page, a chat reply), the guard answers
// "confirmation_required" with a request id ([WithDeferredApproval],
// [WithOnPending]). The host calls [Authority.Approve] or
// [Authority.Reject]; the same tool called again with the same arguments in
// the same session then runs exactly once, even when replicas race for it.
// Requests and approvals expire ([WithRequestTTL]).
//
// # Listing
//
// [Authority.Layer] returns a [toolreg.Layer] that hides from a caller's
// listing the tools it can never run (hard-denied, banned, below its
// level), and keeps the tools that only need confirmation.
//
// # Stores
//
// State lives in a [Store]: a [MemoryStore] by default, a [FileStore] to
// survive restarts, or a shared store such as the Redis one in the
// redisstore module for several replicas. The storetest package checks a
// store against the same cases as the built-in ones.
//
// # Concurrency and bounds
//
// An Authority is safe for concurrent use and holds no lock while a
// confirmer waits. Everything a remote party can grow is bounded: pending
// requests ([WithMaxPending]) and grants ([WithMaxGrants]) per session, the
// arguments kept in a request ([WithMaxArgsBytes]), the wait for a person
// ([WithConfirmTimeout]) and the records of the built-in stores
// ([WithMaxRecords]).
package authority
