package mcpclient_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

// hostileEnv, set in the environment, makes the test binary a hostile MCP
// server on its standard input and output instead of running tests.
const hostileEnv = "MCPCLIENT_HOSTILE_SERVER"

// TestMain fails the package if any test leaves a goroutine behind.
func TestMain(m *testing.M) {
	if mode := os.Getenv(hostileEnv); mode != "" {
		serveHostile(mode)
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// hostileCommand returns a transport that runs this test binary as a
// hostile server in the given mode.
func hostileCommand(mode string) *mcp.CommandTransport {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), hostileEnv+"="+mode)
	return &mcp.CommandTransport{Command: cmd}
}

// hostileTools is the tools/list result of mode "hostile", written by hand
// so that it can hold what no SDK would send: invalid UTF-8, duplicate
// names, schemas nested deeper than any real one.
func hostileTools() string {
	deep := strings.Repeat(`{"type":"array","items":`, 100) + `{"type":"string"}` + strings.Repeat(`}`, 100)
	huge := `"` + strings.Repeat("x", 100<<10) + `"`
	tools := []string{
		`{"name":"ok","description":"fine","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}`,
		`{"name":"ok","description":"the same name again","inputSchema":{"type":"object"}}`,
		`{"name":"files.read","inputSchema":{"type":"object"}}`,
		"{\"name\":\"bad\xff\xfename\",\"inputSchema\":{\"type\":\"object\"}}",
		`{"name":"","inputSchema":{"type":"object"}}`,
		`{"name":"huge","inputSchema":{"type":"object","properties":{"x":{"type":"string","description":` + huge + `}}}}`,
		`{"name":"deep","inputSchema":{"type":"object","properties":{"x":` + deep + `}}}`,
		`{"name":"any_of","inputSchema":{"type":"object","anyOf":[{"required":["a"]},{"required":["b"]}]}}`,
		`{"name":"array","inputSchema":{"type":"array"}}`,
		`{"name":"no_schema"}`,
		`{"name":"required_unknown","inputSchema":{"type":"object","required":["x"]}}`,
		`{"name":"hang","inputSchema":{"type":"object"}}`,
		`{"name":"die","inputSchema":{"type":"object"}}`,
		`{"name":"huge_result","inputSchema":{"type":"object"}}`,
		`{"name":"lists","inputSchema":{"type":"object"}}`,
	}
	return `{"tools":[` + strings.Join(tools, ",") + `]}`
}

// serveHostile speaks just enough JSON-RPC to be listed and called. Modes:
//
//	hostile  lists hostileTools; "hang" never answers, "die" exits
//	         mid-call, "huge_result" answers 2 MiB, "lists" answers how
//	         many tools/list requests it has seen
//	flood    like hostile, and sends 500 list_changed notifications after
//	         the first tools/list
//	abyss    answers tools/list with JSON nested 20000 levels deep
func serveHostile(mode string) {
	in := json.NewDecoder(bufio.NewReader(os.Stdin))
	out := bufio.NewWriter(os.Stdout)
	write := func(s string) {
		out.WriteString(s + "\n")
		out.Flush()
	}
	reply := func(id json.RawMessage, result string) {
		write(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + `}`)
	}
	lists := 0
	for {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if err := in.Decode(&req); err != nil {
			return
		}
		switch req.Method {
		case "initialize":
			reply(req.ID, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"hostile","version":"1"}}`)
		case "tools/list":
			lists++
			switch mode {
			case "abyss":
				reply(req.ID, strings.Repeat("[", 20000)+strings.Repeat("]", 20000))
			default:
				reply(req.ID, hostileTools())
			}
			if mode == "flood" && lists == 1 {
				for range 500 {
					write(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
				}
			}
		case "tools/call":
			switch req.Params.Name {
			case "hang":
			case "die":
				os.Exit(3)
			case "huge_result":
				reply(req.ID, `{"content":[{"type":"text","text":"`+strings.Repeat("y", 2<<20)+`"}]}`)
			case "lists":
				reply(req.ID, fmt.Sprintf(`{"content":[{"type":"text","text":"%d"}]}`, lists))
			default:
				reply(req.ID, `{"content":[{"type":"text","text":"fine"}]}`)
			}
		case "ping":
			reply(req.ID, `{}`)
		default:
			if len(req.ID) > 0 {
				write(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":{"code":-32601,"message":"method not found"}}`)
			}
		}
	}
}
