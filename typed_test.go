package toolreg_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
)

// echoIn is a typed handler that returns its input, so a test reads exactly
// what was decoded.
func echoIn[In any](_ context.Context, in In, _ toolreg.CallContext) (In, error) { return in, nil }

// paramsJSON is the wire form of a tool's parameters.
func paramsJSON(t *testing.T, tool toolreg.RegisteredTool) string {
	t.Helper()
	b, err := json.Marshal(tool.Definition.Function.Parameters)
	require.NoError(t, err)
	return string(b)
}

type (
	address struct {
		Street string `json:"street" jsonschema:"street and number"`
		City   string `json:"city"`
	}
	person struct {
		Name    string   `json:"name" jsonschema:"full name"`
		Age     int      `json:"age,omitempty"`
		Home    address  `json:"home"`
		Work    *address `json:"work,omitempty"`
		_       chan int // unexported: ignored, whatever its type
		Skipped string   `json:"-"`
	}
	collections struct {
		Tags   []string          `json:"tags"`
		Grid   [2][2]int         `json:"grid"`
		People []person          `json:"people,omitempty"`
		Labels map[string]string `json:"labels,omitempty"`
		Index  map[string][]int  `json:"index,omitempty"`
	}
	pointers struct {
		N   *int      `json:"n"`
		S   **string  `json:"s,omitempty"`
		Ptr *[]string `json:"ptr,omitempty"`
	}
	enums struct {
		Unit    string   `json:"unit" toolreg:"enum=celsius|fahrenheit"`
		Level   int8     `json:"level,omitempty" toolreg:"enum=-1|0|1"`
		Scale   *float64 `json:"scale,omitempty" toolreg:"enum=0.5|1|2"`
		Flags   []string `json:"flags,omitempty" toolreg:"enum=a|b"`
		On      bool     `json:"on,omitempty" toolreg:"enum=true"`
		Big     uint64   `json:"big,omitempty" toolreg:"enum=18446744073709551615"`
		Secret  string   `json:"secret,omitempty" toolreg:"sensitive"`
		Mode    string   `json:"mode,omitempty" toolreg:"enum=r|w, sensitive"`
		NoValue string   `json:"no_value,omitempty"`
	}
	special struct {
		When   time.Time       `json:"when"`
		Blob   []byte          `json:"blob,omitempty"`
		Raw    json.RawMessage `json:"raw,omitempty"`
		Addr   netip.Addr      `json:"addr,omitempty"`
		Any    any             `json:"any,omitempty"`
		Dur    time.Duration   `json:"dur,omitempty"`
		Number json.Number     `json:"number,omitempty"`
	}
	Base struct {
		ID int64 `json:"id"`
	}
	embedded struct {
		Base
		address
		Note string `json:"note"`
	}
	embeddedPointer struct {
		*address
	}
	noArgs struct{}
)

func TestNewTypedInfersTheSchema(t *testing.T) {
	build := func(tool toolreg.RegisteredTool, err error) toolreg.RegisteredTool {
		t.Helper()
		require.NoError(t, err)
		return tool
	}
	cases := []struct {
		name string
		tool toolreg.RegisteredTool
		want string
	}{
		{
			name: "nested structs keep descriptions, required fields and closed objects",
			tool: build(toolreg.NewTyped("p", "d", echoIn[person])),
			want: `{"type":"object","properties":{
				"name":{"type":"string","description":"full name"},
				"age":{"type":"integer"},
				"home":{"type":"object","properties":{"street":{"type":"string","description":"street and number"},"city":{"type":"string"}},"required":["street","city"],"additionalProperties":false},
				"work":{"type":["null","object"],"properties":{"street":{"type":"string","description":"street and number"},"city":{"type":"string"}},"required":["street","city"],"additionalProperties":false}},
				"required":["name","home"],"additionalProperties":false}`,
		},
		{
			name: "slices, arrays and maps describe their elements",
			tool: build(toolreg.NewTyped("c", "d", echoIn[collections])),
			want: `{"type":"object","properties":{
				"tags":{"type":["null","array"],"items":{"type":"string"}},
				"grid":{"type":"array","minItems":2,"maxItems":2,"items":{"type":"array","minItems":2,"maxItems":2,"items":{"type":"integer"}}},
				"people":{"type":["null","array"],"items":{"type":"object","properties":{
					"name":{"type":"string","description":"full name"},
					"age":{"type":"integer"},
					"home":{"type":"object","properties":{"street":{"type":"string","description":"street and number"},"city":{"type":"string"}},"required":["street","city"],"additionalProperties":false},
					"work":{"type":["null","object"],"properties":{"street":{"type":"string","description":"street and number"},"city":{"type":"string"}},"required":["street","city"],"additionalProperties":false}},
					"required":["name","home"],"additionalProperties":false}},
				"labels":{"type":"object","additionalProperties":{"type":"string"}},
				"index":{"type":"object","additionalProperties":{"type":["null","array"],"items":{"type":"integer"}}}},
				"required":["tags","grid"],"additionalProperties":false}`,
		},
		{
			name: "pointers accept null",
			tool: build(toolreg.NewTyped("ptr", "d", echoIn[pointers])),
			want: `{"type":"object","properties":{
				"n":{"type":["null","integer"]},
				"s":{"type":["null","string"]},
				"ptr":{"type":["null","array"],"items":{"type":"string"}}},
				"required":["n"],"additionalProperties":false}`,
		},
		{
			name: "toolreg tags give enums typed as the field and sensitive marks",
			tool: build(toolreg.NewTyped("e", "d", echoIn[enums])),
			want: `{"type":"object","properties":{
				"unit":{"type":"string","enum":["celsius","fahrenheit"]},
				"level":{"type":"integer","minimum":-128,"maximum":127,"enum":[-1,0,1]},
				"scale":{"type":["null","number"],"enum":[0.5,1,2,null]},
				"flags":{"type":["null","array"],"items":{"type":"string","enum":["a","b"]}},
				"on":{"type":"boolean","enum":[true]},
				"big":{"type":"integer","minimum":0,"enum":[18446744073709551615]},
				"secret":{"type":"string","x-sensitive":true},
				"mode":{"type":"string","enum":["r","w"],"x-sensitive":true},
				"no_value":{"type":"string"}},
				"required":["unit"],"additionalProperties":false}`,
		},
		{
			name: "types that encode themselves are described by what they accept",
			tool: build(toolreg.NewTyped("s", "d", echoIn[special])),
			want: `{"type":"object","properties":{
				"when":{"type":"string","format":"date-time"},
				"blob":{"type":["null","string"]},
				"raw":{},
				"addr":{"type":"string"},
				"any":{},
				"dur":{"type":"integer"},
				"number":{"type":"number"}},
				"required":["when"],"additionalProperties":false}`,
		},
		{
			name: "embedded structs are flattened as encoding/json does",
			tool: build(toolreg.NewTyped("emb", "d", echoIn[embedded])),
			want: `{"type":"object","properties":{
				"id":{"type":"integer"},
				"street":{"type":"string","description":"street and number"},
				"city":{"type":"string"},
				"note":{"type":"string"}},
				"required":["id","street","city","note"],"additionalProperties":false}`,
		},
		{
			name: "a pointer In is described by its struct",
			tool: build(toolreg.NewTyped("pin", "d", echoIn[*address])),
			want: `{"type":"object","properties":{"street":{"type":"string","description":"street and number"},"city":{"type":"string"}},"required":["street","city"],"additionalProperties":false}`,
		},
		{
			name: "an noArgs struct takes no arguments",
			tool: build(toolreg.NewTyped("none", "d", echoIn[noArgs])),
			want: `{"type":"object","properties":{},"additionalProperties":false}`,
		},
		{
			name: "SchemaFor replaces the inferred schema of a type",
			tool: build(toolreg.NewTyped("sf", "d", echoIn[special],
				toolreg.SchemaFor[*netip.Addr](map[string]any{"type": "string", "format": "ipv4"}),
				toolreg.SchemaFor[time.Time](map[string]any{"type": "string", "pattern": "^[0-9]{4}-"}))),
			want: `{"type":"object","properties":{
				"when":{"type":"string","pattern":"^[0-9]{4}-"},
				"blob":{"type":["null","string"]},
				"raw":{},
				"addr":{"type":"string","format":"ipv4"},
				"any":{},
				"dur":{"type":"integer"},
				"number":{"type":"number"}},
				"required":["when"],"additionalProperties":false}`,
		},
		{
			name: "strict: every field required, optional ones nullable, objects closed",
			tool: build(toolreg.NewTyped("st", "d", echoIn[person], toolreg.StrictSchema())),
			want: `{"type":"object","properties":{
				"name":{"type":"string","description":"full name"},
				"age":{"type":["null","integer"]},
				"home":{"type":"object","properties":{"street":{"type":"string","description":"street and number"},"city":{"type":"string"}},"required":["street","city"],"additionalProperties":false},
				"work":{"type":["null","object"],"properties":{"street":{"type":"string","description":"street and number"},"city":{"type":"string"}},"required":["street","city"],"additionalProperties":false}},
				"required":["name","age","home","work"],"additionalProperties":false}`,
		},
		{
			name: "strict: a nullable enum admits null",
			tool: build(toolreg.NewTyped("se", "d", echoIn[struct {
				Unit  string   `json:"unit,omitempty" toolreg:"enum=c|f"`
				Items []person `json:"items,omitempty"`
			}], toolreg.StrictSchema())),
			want: `{"type":"object","properties":{
				"unit":{"type":["null","string"],"enum":["c","f",null]},
				"items":{"type":["null","array"],"items":{"type":"object","properties":{
					"name":{"type":"string","description":"full name"},
					"age":{"type":["null","integer"]},
					"home":{"type":"object","properties":{"street":{"type":"string","description":"street and number"},"city":{"type":"string"}},"required":["street","city"],"additionalProperties":false},
					"work":{"type":["null","object"],"properties":{"street":{"type":"string","description":"street and number"},"city":{"type":"string"}},"required":["street","city"],"additionalProperties":false}},
					"required":["name","age","home","work"],"additionalProperties":false}}},
				"required":["unit","items"],"additionalProperties":false}`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.JSONEq(t, tc.want, paramsJSON(t, tc.tool))
			// The registry accepts it, and with full validation compiles it.
			_, err := toolreg.New(toolreg.WithSchemaValidation()).Register(tc.tool, "typed")
			require.NoError(t, err)
		})
	}
}

func TestNewTypedFillsTheDefinition(t *testing.T) {
	tool, err := toolreg.NewTyped("get_weather", "Current weather.", echoIn[address])
	require.NoError(t, err)
	assert.Equal(t, "get_weather", tool.Definition.Function.Name)
	assert.Equal(t, "Current weather.", tool.Definition.Function.Description)
	assert.False(t, tool.Definition.Function.Strict)
	assert.NotNil(t, tool.Handler)

	strict, err := toolreg.NewTyped("get_weather", "Current weather.", echoIn[address], toolreg.StrictSchema())
	require.NoError(t, err)
	assert.True(t, strict.Definition.Function.Strict)

	// The schema is byte-stable: two constructions marshal alike.
	again, err := toolreg.NewTyped("get_weather", "Current weather.", echoIn[address], toolreg.StrictSchema())
	require.NoError(t, err)
	a, _ := json.Marshal(strict.Definition)
	b, _ := json.Marshal(again.Definition)
	assert.Equal(t, string(a), string(b))
}

type (
	node struct {
		Children []node `json:"children"`
	}
	linked struct {
		Next *linked `json:"next,omitempty"`
	}
	ping struct {
		P *pong `json:"p"`
	}
	pong struct {
		Ping ping `json:"ping"`
	}
	selfDecoding struct{ v string }
	Named        string
	withTagged   struct {
		Base `json:"base"`
	}
	withNamed struct {
		Named
	}
	withSkipped struct {
		Base `json:"-"`
	}
	badOut struct {
		C chan int `json:"c"`
	}
)

func (s *selfDecoding) UnmarshalJSON(b []byte) error { s.v = string(b); return nil }

func TestNewTypedRejectsWhatItCannotDescribe(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want []string // each is in the error
	}{
		{"In is not a struct", constructionErr(toolreg.NewTyped("t", "d", echoIn[int])), []string{"In is int, want a struct"}},
		{"In is a map", constructionErr(toolreg.NewTyped("t", "d", echoIn[map[string]any])), []string{"want a struct"}},
		{"In is a pointer to a pointer", constructionErr(toolreg.NewTyped("t", "d", echoIn[**address])), []string{"want a struct"}},
		{"In decodes itself", constructionErr(toolreg.NewTyped("t", "d", echoIn[selfDecoding])), []string{"want a struct"}},
		{"a channel field", constructionErr(toolreg.NewTyped("t", "d", echoIn[struct {
			C chan int `json:"c"`
		}])), []string{`field "c": type chan int cannot be represented in JSON`}},
		{"a func field", constructionErr(toolreg.NewTyped("t", "d", echoIn[struct{ F func() }])), []string{`field "F": type func()`}},
		{"a complex field", constructionErr(toolreg.NewTyped("t", "d", echoIn[struct{ Z complex128 }])), []string{`field "Z": type complex128`}},
		{"an unsafe pointer", constructionErr(toolreg.NewTyped("t", "d", echoIn[struct{ P unsafe.Pointer }])), []string{`field "P": type unsafe.Pointer`}},
		{"an interface with methods", constructionErr(toolreg.NewTyped("t", "d", echoIn[struct{ E error }])), []string{`field "E": interface type error`}},
		{"a map with int keys", constructionErr(toolreg.NewTyped("t", "d", echoIn[struct{ M map[int]string }])), []string{`field "M": map key type int`}},
		{"a type that contains itself", constructionErr(toolreg.NewTyped("t", "d", echoIn[node])), []string{`field "children[]": type toolreg_test.node contains itself`}},
		{"a linked list", constructionErr(toolreg.NewTyped("t", "d", echoIn[linked])), []string{`field "next": type toolreg_test.linked contains itself`}},
		{"mutually recursive types", constructionErr(toolreg.NewTyped("t", "d", echoIn[ping])), []string{`field "p.ping": type toolreg_test.ping contains itself`}},
		{"two fields with one JSON name", constructionErr(toolreg.NewTyped("t", "d", echoIn[struct {
			A string `json:"B"`
			B string
		}])), []string{`fields A and B both have the JSON name "B"`}},
		{"an embedded struct with a JSON name", constructionErr(toolreg.NewTyped("t", "d", echoIn[withTagged])), []string{`embedded field Base has the JSON name "base"`}},
		{"an embedded non-struct", constructionErr(toolreg.NewTyped("t", "d", echoIn[withNamed])), []string{`embedded field Named is not a struct`}},
		{"an embedded struct tagged -", constructionErr(toolreg.NewTyped("t", "d", echoIn[withSkipped])), []string{`embedded field Base is tagged json:"-"`}},
		{"an embedded pointer to an unexported struct", constructionErr(toolreg.NewTyped("t", "d", echoIn[embeddedPointer])), []string{`embedded field address is a pointer to an unexported struct`}},
		{"the string option", constructionErr(toolreg.NewTyped("t", "d", echoIn[struct {
			ID int64 `json:"id,string"`
		}])), []string{`field "id": the ",string" option`}},
		{"a field that decodes itself", constructionErr(toolreg.NewTyped("t", "d", echoIn[struct {
			S selfDecoding `json:"s"`
		}])), []string{`field "s": type toolreg_test.selfDecoding decodes itself from JSON`, "SchemaFor"}},
		{"an unknown toolreg directive", constructionErr(toolreg.NewTyped("t", "d", echoIn[struct {
			S string `json:"s" toolreg:"enums=a"`
		}])), []string{`field "s": toolreg tag directive "enums=a" is unknown`}},
		{"an enum value the field cannot hold", constructionErr(toolreg.NewTyped("t", "d", echoIn[struct {
			N int8 `json:"n" toolreg:"enum=1|300"`
		}])), []string{`field "n": enum value "300" is not a int8: value out of range`}},
		{"an enum that is not a number", constructionErr(toolreg.NewTyped("t", "d", echoIn[struct {
			F float64 `json:"f" toolreg:"enum=NaN"`
		}])), []string{`enum value "NaN" is not a float64: not a finite number`}},
		{"an enum value listed twice", constructionErr(toolreg.NewTyped("t", "d", echoIn[struct {
			S string `json:"s" toolreg:"enum=a|a"`
		}])), []string{`enum value "a" is listed twice`}},
		{"an noArgs enum", constructionErr(toolreg.NewTyped("t", "d", echoIn[struct {
			S string `json:"s" toolreg:"enum="`
		}])), []string{`enum directive lists no value`}},
		{"an enum on a struct", constructionErr(toolreg.NewTyped("t", "d", echoIn[struct {
			A address `json:"a" toolreg:"enum=x"`
		}])), []string{`enum on a field of kind struct`}},
		{"a jsonschema tag that looks like a keyword", constructionErr(toolreg.NewTyped("t", "d", echoIn[struct {
			S string `json:"s" jsonschema:"enum=a"`
		}])), []string{"must not begin with"}},
		{"strict: a map", constructionErr(toolreg.NewTyped("t", "d", echoIn[collections], toolreg.StrictSchema())), []string{`field "labels": a map`, `field "index": a map`}},
		{"strict: a value of any type", constructionErr(toolreg.NewTyped("t", "d", echoIn[struct{ A any }], toolreg.StrictSchema())), []string{`field "A": a value of any type`}},
		{"strict: raw JSON", constructionErr(toolreg.NewTyped("t", "d", echoIn[struct {
			R json.RawMessage `json:"r"`
		}], toolreg.StrictSchema())), []string{`field "r": a value of any type (json.RawMessage)`}},
		{"SchemaFor with a schema that does not compile", constructionErr(toolreg.NewTyped("t", "d", echoIn[special],
			toolreg.SchemaFor[netip.Addr](map[string]any{"type": "no-such-type"}))), []string{"do not compile"}},
		{"SchemaFor with a nil schema", constructionErr(toolreg.NewTyped("t", "d", echoIn[special],
			toolreg.SchemaFor[netip.Addr](nil))), []string{"SchemaFor[netip.Addr]: schema is nil"}},
		{"an Out that JSON cannot encode", constructionErr(toolreg.NewTyped("t", "d", func(context.Context, address, toolreg.CallContext) (badOut, error) {
			return badOut{}, nil
		})), []string{`Out field "c": type chan int cannot be encoded`}},
		{"every problem at once", constructionErr(toolreg.NewTyped("t", "d", echoIn[struct {
			C chan int `json:"c"`
			F func()   `json:"f"`
		}])), []string{`field "c"`, `field "f"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Error(t, tc.err)
			require.ErrorIs(t, tc.err, toolreg.ErrInvalidSchema)
			assert.True(t, strings.HasPrefix(tc.err.Error(), `toolreg: typed tool "t": `), tc.err.Error())
			for _, w := range tc.want {
				assert.Contains(t, tc.err.Error(), w)
			}
		})
	}

	t.Run("a nil fn is a missing handler", func(t *testing.T) {
		_, err := toolreg.NewTyped[address, string]("t", "d", nil)
		require.ErrorIs(t, err, toolreg.ErrMissingHandler)
	})
}

func constructionErr(_ toolreg.RegisteredTool, err error) error { return err }

func TestTypedStrictToolsRegisterAsStrict(t *testing.T) {
	type order struct {
		ID       int64             `json:"id"`
		Customer *person           `json:"customer,omitempty"`
		Lines    []struct{ N int } `json:"lines,omitempty"`
		Status   string            `json:"status,omitempty" toolreg:"enum=open|closed"`
		Placed   time.Time         `json:"placed"`
		Note     *string           `json:"note"`
	}
	tool, err := toolreg.NewTyped("order", "Look up an order.", echoIn[order], toolreg.StrictSchema())
	require.NoError(t, err)
	reg := toolreg.New()
	mustRegister(t, reg, tool, "shop")

	// Strict tools are validated in full by the registry: null stands for an
	// absent optional value, and wrong values are invalid_arguments.
	out := reg.ExecuteJSON(context.Background(), "order",
		`{"id":7,"customer":null,"lines":null,"status":null,"placed":"2025-01-02T03:04:05Z","note":null}`, toolreg.CallContext{})
	assert.JSONEq(t, `{"id":7,"placed":"2025-01-02T03:04:05Z","note":null}`, out)

	_, code := failureOf(t, reg.ExecuteJSON(context.Background(), "order",
		`{"id":7,"customer":null,"lines":null,"status":"lost","placed":"2025-01-02T03:04:05Z","note":null}`, toolreg.CallContext{}))
	assert.Equal(t, toolreg.CodeInvalidArguments, code)

	// A registry check failure would show here: the schema is strict-ready.
	def, _ := json.Marshal(tool.Definition)
	assert.Contains(t, string(def), `"strict":true`)
}

type typedArgs struct {
	ID     int64             `json:"id"`
	Count  uint8             `json:"count,omitempty"`
	Ratio  float64           `json:"ratio,omitempty"`
	Unit   string            `json:"unit,omitempty" toolreg:"enum=c|f"`
	Tags   []string          `json:"tags,omitempty"`
	Home   *address          `json:"home,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
	When   time.Time         `json:"when,omitzero"`
}

func typedRegistry(t testing.TB, opts ...toolreg.Option) *toolreg.Registry {
	t.Helper()
	reg := toolreg.New(opts...)
	tool, err := toolreg.NewTyped("echo", "Echo the arguments.", echoIn[typedArgs])
	require.NoError(t, err)
	mustRegister(t, reg, tool, "typed")
	return reg
}

func TestTypedToolDecodesArguments(t *testing.T) {
	cases := []struct {
		name string
		args string
		want string // the echoed In, or the failure code
		msg  string // in the failure message
	}{
		{"every kind of field", `{"id":1,"count":2,"ratio":0.5,"unit":"f","tags":["a"],"home":{"street":"1 Main","city":"X"},"labels":{"k":"v"},"when":"2025-01-02T03:04:05Z"}`,
			`{"id":1,"count":2,"ratio":0.5,"unit":"f","tags":["a"],"home":{"street":"1 Main","city":"X"},"labels":{"k":"v"},"when":"2025-01-02T03:04:05Z"}`, ""},
		{"optional fields may be absent", `{"id":1}`, `{"id":1}`, ""},
		{"integers written with a fraction or an exponent", `{"id":1e3,"count":5.0}`, `{"id":1000,"count":5}`, ""},
		{"a time that does not parse", `{"id":1,"when":"` + strings.Repeat("x", 10000) + `"}`, toolreg.CodeToolError, `invalid arguments: parsing time`},
		{"a missing required argument", `{}`, toolreg.CodeInvalidArguments, `missing required argument "id"`},
		{"an unknown argument", `{"id":1,"x":1}`, toolreg.CodeInvalidArguments, `unknown argument "x"`},
		{"an unknown nested field", `{"id":1,"home":{"street":"s","city":"c","zip":"1"}}`, toolreg.CodeToolError, `invalid arguments: home: unknown arguments ["zip"]`},
		{"a nested field in another case", `{"id":1,"home":{"Street":"s","city":"c"}}`, toolreg.CodeToolError, `invalid arguments: home`},
		{"a missing nested field", `{"id":1,"home":{"street":"s"}}`, toolreg.CodeToolError, `home: missing required ["city"]`},
		{"a string for an integer", `{"id":"1"}`, toolreg.CodeToolError, `id: got string, want integer`},
		{"a fraction for an integer", `{"id":1.5}`, toolreg.CodeToolError, `id: got number, want integer`},
		{"an integer beyond int64", `{"id":9223372036854775808}`, toolreg.CodeToolError, `id: the number does not fit int64`},
		{"an integer beyond uint8", `{"id":1,"count":256}`, toolreg.CodeToolError, `count: must be at most 255`},
		{"a negative unsigned", `{"id":1,"count":-1}`, toolreg.CodeToolError, `count: must be at least 0`},
		{"a value outside the enum", `{"id":1,"unit":"k"}`, toolreg.CodeToolError, `unit: value must be one of 'c', 'f'`},
		{"null for a string", `{"id":1,"unit":null}`, toolreg.CodeToolError, `unit: got null, want string`},
		{"an item of the wrong type", `{"id":1,"tags":["a",2]}`, toolreg.CodeToolError, `tags[1]: got number, want string`},
		{"arguments that are not JSON", `{"id":`, toolreg.CodeInvalidArguments, `not valid JSON`},
		{"arguments that are not an object", `[1]`, toolreg.CodeInvalidArguments, `must be a JSON object`},
	}
	reg := typedRegistry(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := reg.ExecuteJSON(context.Background(), "echo", tc.args, toolreg.CallContext{})
			if tc.msg == "" {
				assert.JSONEq(t, tc.want, out)
				return
			}
			msg, code := failureOf(t, out)
			assert.Equal(t, tc.want, code)
			assert.Contains(t, msg, tc.msg)
			assert.Less(t, len(msg), 512, "messages stay short whatever the input")
		})
	}
}

func TestTypedToolKeepsIntegersExact(t *testing.T) {
	type ids struct {
		ID     int64   `json:"id"`
		Owner  uint64  `json:"owner,omitempty"`
		Refs   []int64 `json:"refs,omitempty"`
		Parent *int64  `json:"parent,omitempty"`
	}
	var got ids
	tool, err := toolreg.NewTyped("ids", "d", func(_ context.Context, in ids, _ toolreg.CallContext) (string, error) {
		got = in
		return "ok", nil
	})
	require.NoError(t, err)
	assert.True(t, tool.UseNumber, "typed tools ask ExecuteJSON for json.Number")
	for _, strict := range []bool{false, true} {
		reg := toolreg.New()
		if strict {
			reg = toolreg.New(toolreg.WithSchemaValidation())
		}
		mustRegister(t, reg, tool, "typed")
		cases := []struct {
			args string
			want ids
		}{
			{`{"id":9007199254740993}`, ids{ID: 1<<53 + 1}},
			{`{"id":9223372036854775807,"owner":18446744073709551615}`, ids{ID: math.MaxInt64, Owner: math.MaxUint64}},
			{`{"id":-9223372036854775808,"refs":[9007199254740993,-9007199254740993]}`, ids{ID: math.MinInt64, Refs: []int64{1<<53 + 1, -(1<<53 + 1)}}},
			{`{"id":1,"parent":9007199254740995}`, ids{ID: 1, Parent: pointerTo(int64(1<<53 + 3))}},
			{`{"id":1e3}`, ids{ID: 1000}},
		}
		for _, tc := range cases {
			got = ids{}
			require.Equal(t, "ok", reg.ExecuteJSON(context.Background(), "ids", tc.args, toolreg.CallContext{}), tc.args)
			assert.Equal(t, tc.want, got, tc.args)
		}
	}
}

func pointerTo[T any](v T) *T { return &v }

func TestTypedEnumsCompareExactly(t *testing.T) {
	type in struct {
		Big uint64 `json:"big" toolreg:"enum=18446744073709551615|9007199254740993"`
	}
	tool, err := toolreg.NewTyped("big", "d", echoIn[in])
	require.NoError(t, err)
	assert.Equal(t, []any{json.Number("18446744073709551615"), json.Number("9007199254740993")},
		tool.Definition.Function.Parameters.Properties["big"].(map[string]any)["enum"], "the schema keeps enum values exact")
	reg := toolreg.New()
	mustRegister(t, reg, tool, "typed")
	assert.Equal(t, `{"big":18446744073709551615}`, reg.ExecuteJSON(context.Background(), "big", `{"big":18446744073709551615}`, toolreg.CallContext{}))
	assert.Equal(t, `{"big":9007199254740993}`, reg.ExecuteJSON(context.Background(), "big", `{"big":9007199254740993}`, toolreg.CallContext{}))
	_, code := failureOf(t, reg.ExecuteJSON(context.Background(), "big", `{"big":9007199254740992}`, toolreg.CallContext{}))
	assert.Equal(t, toolreg.CodeToolError, code, "a neighbour that float64 would confuse is refused")
}

func TestTypedToolTakesGoValues(t *testing.T) {
	reg := typedRegistry(t)
	cases := []struct {
		name string
		args map[string]any
		want string // the echoed In, or the failure code
		msg  string
	}{
		{"int64 and structs", map[string]any{"id": int64(math.MaxInt64), "home": address{Street: "s", City: "c"}, "tags": []string{"x"}},
			`{"id":9223372036854775807,"tags":["x"],"home":{"street":"s","city":"c"}}`, ""},
		{"json.Number", map[string]any{"id": json.Number("9007199254740993")}, `{"id":9007199254740993}`, ""},
		{"json.Number integers in other notations", map[string]any{"id": json.Number("9007199254740993.000"), "count": json.Number("2.5e1")}, `{"id":9007199254740993,"count":25}`, ""},
		{"a json.Number fraction for an integer", map[string]any{"id": json.Number("1.5")}, toolreg.CodeToolError, "id: got number, want integer"},
		{"a json.Number with a huge exponent", map[string]any{"id": json.Number("1e999999999")}, toolreg.CodeToolError, "id: got number, want integer"},
		{"a pointer to a struct", map[string]any{"id": 1, "home": &address{Street: "s", City: "c"}}, `{"id":1,"home":{"street":"s","city":"c"}}`, ""},
		{"a float64 that is an integer", map[string]any{"id": float64(42)}, `{"id":42}`, ""},
		{"NaN", map[string]any{"id": 1, "ratio": math.NaN()}, toolreg.CodeInvalidArguments, `argument "ratio": NaN is not a JSON number`},
		{"infinity", map[string]any{"id": 1, "ratio": math.Inf(1)}, toolreg.CodeInvalidArguments, `argument "ratio": +Inf is not a JSON number`},
		{"a channel", map[string]any{"id": make(chan int)}, toolreg.CodeInvalidArguments, `argument "id": a chan has no JSON form`},
		{"a func", map[string]any{"id": func() {}}, toolreg.CodeInvalidArguments, `argument "id": a func has no JSON form`},
		{"a panicking MarshalJSON", map[string]any{"id": 1, "home": panickingJSON{}}, toolreg.CodeToolError, "a value panicked while being encoded"},
		{"a typed nil pointer", map[string]any{"id": 1, "home": (*address)(nil)}, `{"id":1}`, ""},
		{"a MarshalJSON error", map[string]any{"id": failingJSON{}}, toolreg.CodeToolError, "cannot be encoded as JSON"},
		{"an invalid json.Number", map[string]any{"id": json.Number("1x")}, toolreg.CodeInvalidArguments, `argument "id": "1x" is not a valid JSON number`},
		{"a huge json.Number", map[string]any{"id": 1, "ratio": json.Number("1.5e500")}, toolreg.CodeToolError, "ratio: the number does not fit float64"},
		{"a huge integral json.Number", map[string]any{"id": 1, "ratio": json.Number("1e400")}, toolreg.CodeToolError, "ratio: the number does not fit float64"},
		{"a string with invalid UTF-8", map[string]any{"id": 1, "unit": "\xff"}, toolreg.CodeToolError, "unit: value must be one of"},
		{"nil arguments", nil, toolreg.CodeInvalidArguments, `missing required argument "id"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := reg.Execute(context.Background(), "echo", tc.args, toolreg.CallContext{})
			if tc.msg == "" {
				assert.JSONEq(t, tc.want, out)
				return
			}
			msg, code := failureOf(t, out)
			assert.Equal(t, tc.want, code)
			assert.Contains(t, msg, tc.msg)
			assert.Less(t, len(msg), 512, "messages stay short whatever the input")
		})
	}
}

type panickingJSON struct{}

func (panickingJSON) MarshalJSON() ([]byte, error) { panic("hostile value") }

type failingJSON struct{}

func (failingJSON) MarshalJSON() ([]byte, error) { return nil, errors.New("no") }

func TestTypedToolPassesContextAndCaller(t *testing.T) {
	type key struct{}
	var got toolreg.CallContext
	var value any
	tool, err := toolreg.NewTyped("who", "d", func(ctx context.Context, in *address, call toolreg.CallContext) (string, error) {
		got, value = call, ctx.Value(key{})
		return in.City, nil // a pointer In is never nil
	})
	require.NoError(t, err)
	reg := toolreg.New()
	mustRegister(t, reg, tool, "typed")
	ctx := context.WithValue(context.Background(), key{}, "v")
	out := reg.ExecuteJSON(ctx, "who", `{"street":"s","city":"Oslo"}`, toolreg.CallContext{SessionID: "s1", UserID: "u1"})
	assert.Equal(t, "Oslo", out)
	assert.Equal(t, "s1", got.SessionID)
	assert.Equal(t, "u1", got.UserID)
	assert.Equal(t, "v", value)
}

type label string

type shouting string

func (s shouting) MarshalText() ([]byte, error) { return []byte(strings.ToUpper(string(s))), nil }

func TestTypedToolEncodesTheResult(t *testing.T) {
	run := func(t *testing.T, tool toolreg.RegisteredTool, err error) string {
		t.Helper()
		require.NoError(t, err)
		reg := toolreg.New()
		mustRegister(t, reg, tool, "typed")
		return reg.ExecuteJSON(context.Background(), tool.Definition.Function.Name, `{}`, toolreg.CallContext{})
	}
	result := func(v any, err error) func(context.Context, noArgs, toolreg.CallContext) (any, error) {
		return func(context.Context, noArgs, toolreg.CallContext) (any, error) { return v, err }
	}
	cases := []struct {
		name string
		out  any
		err  error
		want string
		code string
	}{
		{"a string as it is", "plain <text> & \"quotes\"", nil, "plain <text> & \"quotes\"", ""},
		{"a named string as it is", label("L"), nil, "L", ""},
		{"a string with a text marshaler as JSON", shouting("hi"), nil, `"HI"`, ""},
		{"raw JSON as it is", json.RawMessage(`{"a": 1}`), nil, `{"a": 1}`, ""},
		{"invalid raw JSON fails", json.RawMessage(`{`), nil, "", toolreg.CodeToolError},
		{"a struct as JSON, not HTML-escaped", address{Street: "<b>&", City: "c"}, nil, `{"street":"<b>&","city":"c"}`, ""},
		{"a map as sorted JSON", map[string]int{"b": 2, "a": 1}, nil, `{"a":1,"b":2}`, ""},
		{"nil as null", nil, nil, `null`, ""},
		{"NaN fails", math.NaN(), nil, "", toolreg.CodeToolError},
		{"a channel fails", make(chan int), nil, "", toolreg.CodeToolError},
		{"an error fails with its text", nil, errors.New("disk full"), `{"error":"disk full","code":"tool_error"}`, toolreg.CodeToolError},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tool, err := toolreg.NewTyped("r", "d", result(tc.out, tc.err))
			out := run(t, tool, err)
			if tc.code == "" {
				assert.Equal(t, tc.want, out)
				return
			}
			_, code := failureOf(t, out)
			assert.Equal(t, tc.code, code)
			if tc.want != "" {
				assert.Equal(t, tc.want, out)
			}
		})
	}

	t.Run("a typed string Out as it is", func(t *testing.T) {
		tool, err := toolreg.NewTyped("r", "d", func(context.Context, noArgs, toolreg.CallContext) (string, error) { return `"q"`, nil })
		assert.Equal(t, `"q"`, run(t, tool, err))
	})
	t.Run("a panic is contained by the registry", func(t *testing.T) {
		tool, err := toolreg.NewTyped("r", "d", func(context.Context, noArgs, toolreg.CallContext) (int, error) { panic("bug") })
		_, code := failureOf(t, run(t, tool, err))
		assert.Equal(t, toolreg.CodePanic, code)
	})
}

func TestTypedToolRunsConcurrently(t *testing.T) {
	reg := typedRegistry(t)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for j := range 50 {
				id := int64(i*1000 + j)
				out := reg.ExecuteJSON(context.Background(), "echo", fmt.Sprintf(`{"id":%d,"tags":["t"]}`, id), toolreg.CallContext{})
				assert.JSONEq(t, fmt.Sprintf(`{"id":%d,"tags":["t"]}`, id), out)
			}
		})
	}
	wg.Wait()
}

// FuzzTypedArguments feeds arbitrary argument strings to a typed tool: the
// call ends with the decoded value or a failure with an argument or tool
// code, never a panic.
func FuzzTypedArguments(f *testing.F) {
	for _, s := range []string{
		`{"id":1}`, `{"id":9007199254740993,"tags":["a"]}`, `{"id":1,"home":{"street":"s","city":"c"}}`,
		`{"id":1e400}`, `{"id":-0}`, `{"id":1,"count":256}`, `{"id":1,"when":"2025-01-02T03:04:05Z"}`,
		`{"id":1,"labels":{"a":"\u0000"}}`, `{"id":1,"ratio":1e308}`, `{"id":1,"unit":"\ud800"}`, `[]`, `null`, ``,
		`{"id":1,"home":{"street":"s","city":"c","street":"t"}}`, `{"id":` + strings.Repeat("9", 400) + `}`,
	} {
		f.Add(s)
	}
	reg := typedRegistry(f)
	strict := toolreg.New()
	tool, err := toolreg.NewTyped("echo", "Echo.", echoIn[struct {
		ID   int64    `json:"id"`
		Tags []string `json:"tags,omitempty" toolreg:"enum=a|b"`
		Home *address `json:"home,omitempty"`
	}], toolreg.StrictSchema())
	require.NoError(f, err)
	mustRegister(f, strict, tool, "typed")
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range []*toolreg.Registry{reg, strict} {
			out := r.ExecuteJSON(context.Background(), "echo", s, toolreg.CallContext{})
			var v map[string]any
			require.NoError(t, json.Unmarshal([]byte(out), &v), "result %q is not a JSON object", out)
			if code, ok := v["code"]; ok && len(v) == 2 {
				assert.Contains(t, []any{toolreg.CodeInvalidArguments, toolreg.CodeToolError}, code, out)
				continue
			}
			_, hasID := v["id"]
			assert.True(t, hasID, "decoded arguments %q lack the id", out)
		}
	})
}

func BenchmarkTypedCall(b *testing.B) {
	reg := typedRegistry(b)
	ctx := context.Background()
	const in = `{"id":9007199254740993,"unit":"c","tags":["a","b"],"home":{"street":"1 Main","city":"Oslo"}}`
	b.ReportAllocs()
	for b.Loop() {
		reg.ExecuteJSON(ctx, "echo", in, toolreg.CallContext{})
	}
}
