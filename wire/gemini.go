package wire

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolreg/toolreg"
)

// GeminiGeneratedIDPrefix starts the ids that [Adapter.GeminiCalls] makes
// for function calls that came without one (older Gemini responses).
// [Adapter.GeminiResults] leaves such ids out of the function responses, as
// Gemini expects when its calls had none.
const GeminiGeneratedIDPrefix = "toolreg-gemini-"

// GeminiTool is one element of the "tools" array of a Gemini request,
// holding every function declaration. When FunctionDeclarations is empty,
// send no tool at all.
type GeminiTool struct {
	FunctionDeclarations []GeminiFunctionDeclaration `json:"functionDeclarations"`
}

// GeminiFunctionDeclaration declares one function to Gemini. Parameters is
// nil for a tool without arguments (Gemini refuses an OBJECT with no
// properties). ParametersJSONSchema is used instead of Parameters with
// [WithGeminiJSONSchema].
type GeminiFunctionDeclaration struct {
	Name                 string          `json:"name"`
	Description          string          `json:"description,omitempty"`
	Parameters           *GeminiSchema   `json:"parameters,omitempty"`
	ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema,omitempty"`
}

// GeminiTools returns the Gemini tool declaring the functions offered to
// acc, sorted by name and byte-stable under json.Marshal.
//
// Each schema is converted to the OpenAPI subset Gemini accepts: $ref is
// inlined (within [Limits.SchemaDepth] and [Limits.SchemaNodes]; a recursive
// schema cannot be inlined and is refused), types are written in upper case,
// a type list or a nullable anyOf becomes nullable, oneOf becomes anyOf,
// allOf is merged, an array without items gets string items, a schema that
// says nothing of its type becomes STRING, and keywords Gemini does not
// accept are dropped (additionalProperties, non-string enums, formats
// other than date-time, enum, float, double, int32 and int64, exclusive
// bounds, vendor keywords such as x-sensitive).
//
// Gemini has no provider-side tool search, so deferred tools are offered
// once discovered (see [Adapter.ChatTools]). A tool that cannot be converted,
// or whose name Gemini refuses (it must start with a letter or an
// underscore), is left out with a [*ToolError] in the error; the others are
// returned.
func (a *Adapter) GeminiTools(acc toolreg.Access, discovered ...string) (GeminiTool, error) {
	tools, p, err := a.offerListed(acc, false, discovered)
	errs := []error{err}
	var out GeminiTool
	for _, j := range p.order {
		decl, derr := a.geminiDeclaration(tools[j])
		if derr != nil {
			errs = append(errs, derr)
			continue
		}
		out.FunctionDeclarations = append(out.FunctionDeclarations, decl)
	}
	return out, errors.Join(errs...)
}

func (a *Adapter) geminiDeclaration(t listed) (GeminiFunctionDeclaration, error) {
	name := t.Function.Name
	decl := GeminiFunctionDeclaration{Name: name, Description: t.Function.Description}
	if name == "" || !(name[0] == '_' || ('a' <= name[0] && name[0] <= 'z') || ('A' <= name[0] && name[0] <= 'Z')) {
		return decl, &ToolError{Format: formatGemini, Tool: name, Err: fmt.Errorf("%w: a Gemini function name starts with a letter or an underscore", ErrInvalidName)}
	}
	if a.cfg.geminiRawJSON {
		var shape struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(t.Function.Parameters, &shape); err != nil {
			return decl, &ToolError{Format: formatGemini, Tool: name, Err: fmt.Errorf("%w: %v", ErrInvalidSchema, err)}
		}
		if len(shape.Properties) > 0 {
			decl.ParametersJSONSchema = t.Function.Parameters
		}
		return decl, nil
	}
	s, err := geminiParameters(t.Function.Parameters, a.cfg.limits)
	if err != nil {
		te := &ToolError{Format: formatGemini, Tool: name, Err: err}
		var f *schemaFault
		if errors.As(err, &f) {
			te.Path, te.Err = f.path, f.err
		}
		return decl, te
	}
	decl.Parameters = s
	return decl, nil
}

// GeminiCalls reads the function calls of a Gemini response: the whole
// GenerateContentResponse (its first candidate is read), one Content
// ({"role":"model","parts":[...]}) or the parts alone, as a JSON array.
// Parts without a functionCall are skipped. The args object is passed on as
// compact JSON text, its numbers exactly as sent.
//
// A call without an id gets a stable one: [GeminiGeneratedIDPrefix], a hash
// of the response and the call's position, so the same response always
// yields the same ids. Other checks and errors are those of
// [Adapter.ChatCalls].
func (a *Adapter) GeminiCalls(raw []byte) ([]toolreg.ToolCall, error) {
	r, data, err := a.read(formatGemini, raw)
	if err != nil {
		return nil, err
	}
	top, parts, err := r.objectOrArray(data)
	if err != nil {
		return nil, err
	}
	if top != nil {
		if err := r.providerError(top, "candidates"); err != nil {
			return nil, err
		}
		content := data
		if cands, ok := top["candidates"]; ok {
			var cs []struct {
				Content json.RawMessage `json:"content"`
			}
			if err := r.decode(cands, &cs, "candidates"); err != nil {
				return nil, err
			}
			if len(cs) == 0 || isNull(cs[0].Content) {
				return nil, nil
			}
			content = cs[0].Content
		} else if _, ok := top["parts"]; !ok {
			if _, blocked := top["promptFeedback"]; blocked {
				return nil, nil // no candidates: a blocked prompt, nothing to run
			}
			return nil, r.fail(-1, "", malformed(`expected a GenerateContentResponse (with "candidates"), a Content (with "parts") or its parts`))
		}
		var c struct {
			Parts json.RawMessage `json:"parts"`
		}
		if err := r.decode(content, &c, "content"); err != nil {
			return nil, err
		}
		parts = c.Parts
	}
	if isNull(parts) {
		return nil, nil
	}
	var list []struct {
		FunctionCall *struct {
			ID   string          `json:"id"`
			Name string          `json:"name"`
			Args json.RawMessage `json:"args"`
		} `json:"functionCall"`
	}
	if err := r.decode(parts, &list, "parts"); err != nil {
		return nil, err
	}
	var digest string
	for _, p := range list {
		fc := p.FunctionCall
		if fc == nil {
			continue
		}
		id := fc.ID
		if id == "" {
			if digest == "" {
				sum := sha256.Sum256(data)
				digest = hex.EncodeToString(sum[:6])
			}
			id = GeminiGeneratedIDPrefix + digest + "-" + strconv.Itoa(len(r.calls))
		}
		if err := r.add(id, fc.Name, fc.Args, true); err != nil {
			return nil, err
		}
	}
	return r.calls, nil
}

// GeminiContent is the Content that answers a turn's function calls: one
// functionResponse part per call, with role "user".
type GeminiContent struct {
	Role  string       `json:"role"`
	Parts []GeminiPart `json:"parts"`
}

// GeminiPart is a Part holding a function response.
type GeminiPart struct {
	FunctionResponse *GeminiFunctionResponse `json:"functionResponse,omitempty"`
}

// GeminiFunctionResponse answers one function call. Response is a JSON
// object: {"output": ...} on success, the result as JSON when it is JSON and
// as a string otherwise; on error the registry's error object
// ({"error":"...","code":"..."}), whose "error" key Gemini reads as the
// failure.
type GeminiFunctionResponse struct {
	ID       string          `json:"id,omitempty"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

// GeminiResults returns the Content holding one function response per
// result, in order. Ids made by [Adapter.GeminiCalls] are left out.
func (a *Adapter) GeminiResults(results []toolreg.Result) GeminiContent {
	c := GeminiContent{Role: "user", Parts: make([]GeminiPart, len(results))}
	for i, res := range results {
		id := res.CallID
		if strings.HasPrefix(id, GeminiGeneratedIDPrefix) {
			id = ""
		}
		c.Parts[i] = GeminiPart{FunctionResponse: &GeminiFunctionResponse{ID: id, Name: res.Tool, Response: geminiResponse(res)}}
	}
	return c
}

func geminiResponse(res toolreg.Result) json.RawMessage {
	content := bytes.TrimSpace([]byte(res.Content))
	valid := len(content) > 0 && utf8.Valid(content) && json.Valid(content)
	if res.IsError() {
		if valid && content[0] == '{' {
			return compact(content)
		}
		b, _ := json.Marshal(map[string]string{"error": res.Content})
		return b
	}
	var out []byte
	if valid {
		out = append([]byte(`{"output":`), compact(content)...)
		out = append(out, '}')
		return out
	}
	out, _ = json.Marshal(map[string]string{"output": res.Content})
	return out
}

func compact(b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return b
	}
	return buf.Bytes()
}
