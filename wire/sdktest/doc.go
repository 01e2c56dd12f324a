// Package sdktest checks the wire package against the model providers'
// official Go SDKs: what wire writes must be accepted by the SDKs' request
// types and sent unchanged by their clients, and the SDKs' responses must
// yield tool calls that run through a real registry.
//
// It is a module of its own so that the SDKs, and the Go version the newest
// of them needs, stay out of the toolreg module: users of toolreg never
// download them. Run its tests from this directory with go test.
package sdktest
