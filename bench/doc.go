// Package bench measures toolreg against its floor and against two MCP
// implementations, github.com/mark3labs/mcp-go and
// github.com/modelcontextprotocol/go-sdk, on one realistic tool, and measures
// the registry at scale. It holds benchmarks only and is a module of its own,
// so that the library never depends on the peers it is measured against.
//
// # The tool
//
// Every side serves the same catalog: tools named like an MCP server's
// (srv0042_search_issues), each with four parameters (a string, an enum, an
// integer and an array of strings), two of them required, and
// additionalProperties false. Every call passes all four arguments, so the
// check for unknown keys cannot be skipped. Every side calls the same
// handler, which reads an argument and answers a constant.
//
// # Running
//
// From the repository root:
//
//	bench/run.sh 5
//
// runs five interleaved rounds of every benchmark (one -count=1 pass of the
// compiled test binary per round, so that a burst of load elsewhere hits a
// benchmark and the one it is compared with alike), then benchstat, then
// cmd/ratios, which prints every ratio the benchmarks are judged by, paired
// round by round. The raw output is kept in bench/out.txt. Benchmarks that
// are compared are declared next to each other, so that within a round they
// also run seconds apart.
package bench
