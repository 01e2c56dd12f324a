package toolreg

// Visibility is axis A of a tool's capability policy: who may run it at all.
type Visibility string

// Visibility values. The empty Visibility means "derive from the risk, else
// public".
const (
	VisibilityPublic     Visibility = "public"
	VisibilityRestricted Visibility = "restricted"
)

// Confirm is axis B of a tool's capability policy: whether a human must
// confirm a call.
type Confirm string

// Confirm values. ConfirmSession asks once per session, ConfirmAlways asks on
// every call.
const (
	ConfirmNone    Confirm = ""
	ConfirmSession Confirm = "session"
	ConfirmAlways  Confirm = "always"
)

// Risk is declaration sugar that expands to a visibility and a confirm
// default (see [RiskDefaults]). It is passed through to the guard as declared.
type Risk string

// Risk values.
const (
	RiskUnset     Risk = ""
	RiskSafe      Risk = "safe"
	RiskSensitive Risk = "sensitive"
	RiskDangerous Risk = "dangerous"
)

// DefaultAuthority is the authority level of an unknown identity.
const DefaultAuthority = 0

// RestrictedLevel is the minimum authority level for a restricted tool that
// declares no risk.
const RestrictedLevel = 2

// PolicyDecl is a policy as a tool declares it: any field may be empty.
type PolicyDecl struct {
	Visibility Visibility
	Confirm    Confirm
	Risk       Risk
}

// Policy is a resolved policy: what the guard enforces.
type Policy struct {
	Visibility Visibility
	Confirm    Confirm
}

// RiskDefaults returns the policy that a risk stands for: safe is public,
// sensitive is restricted, dangerous is restricted with confirmation once per
// session. An unset or unknown risk yields the zero Policy.
func RiskDefaults(r Risk) Policy {
	switch r {
	case RiskSafe:
		return Policy{Visibility: VisibilityPublic}
	case RiskSensitive:
		return Policy{Visibility: VisibilityRestricted}
	case RiskDangerous:
		return Policy{Visibility: VisibilityRestricted, Confirm: ConfirmSession}
	}
	return Policy{}
}

// ResolvePolicy resolves a declaration field by field: an explicit field
// wins, then the risk default, then defaultVisibility for visibility ("" means
// public) and no confirmation for confirm. It is pure.
func ResolvePolicy(d PolicyDecl, defaultVisibility Visibility) Policy {
	rd := RiskDefaults(d.Risk)
	p := Policy{Visibility: d.Visibility, Confirm: d.Confirm}
	if p.Visibility == "" {
		p.Visibility = rd.Visibility
	}
	if p.Visibility == "" {
		p.Visibility = defaultVisibility
	}
	if p.Visibility == "" {
		p.Visibility = VisibilityPublic
	}
	if p.Confirm == "" {
		p.Confirm = rd.Confirm
	}
	return p
}

// MinLevel returns the authority level a caller needs to run a tool: dangerous
// 2, sensitive 1, safe 0. A declared risk fully shadows the visibility; with
// no risk, a restricted tool needs [RestrictedLevel] and any other
// [DefaultAuthority].
func MinLevel(r Risk, v Visibility) int {
	switch r {
	case RiskDangerous:
		return 2
	case RiskSensitive:
		return 1
	case RiskSafe:
		return 0
	}
	if v == VisibilityRestricted {
		return RestrictedLevel
	}
	return DefaultAuthority
}

// checkPolicy reports each unknown enum value of a declaration, naming the
// field and the allowed values.
func checkPolicy(d PolicyDecl) []error {
	var errs []error
	switch d.Visibility {
	case "", VisibilityPublic, VisibilityRestricted:
	default:
		errs = append(errs, problemf(ErrInvalidPolicy, "Visibility %q is not one of \"public\", \"restricted\" or empty", d.Visibility))
	}
	switch d.Confirm {
	case ConfirmNone, ConfirmSession, ConfirmAlways:
	default:
		errs = append(errs, problemf(ErrInvalidPolicy, "Confirm %q is not one of \"session\", \"always\" or empty", d.Confirm))
	}
	switch d.Risk {
	case RiskUnset, RiskSafe, RiskSensitive, RiskDangerous:
	default:
		errs = append(errs, problemf(ErrInvalidPolicy, "Risk %q is not one of \"safe\", \"sensitive\", \"dangerous\" or empty", d.Risk))
	}
	return errs
}
