package toolreg_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolreg/toolreg"
)

// A typed tool: the schema comes from the argument struct, the arguments
// arrive decoded (64-bit ids exact), and the result is encoded as JSON.
func ExampleNewTyped() {
	type refundArgs struct {
		OrderID int64  `json:"order_id" jsonschema:"the order to refund"`
		Reason  string `json:"reason" toolreg:"enum=damaged|late|other"`
		Note    string `json:"note,omitempty" jsonschema:"free text for the customer"`
	}
	type refund struct {
		OrderID int64  `json:"order_id"`
		Status  string `json:"status"`
	}
	tool, err := toolreg.NewTyped("refund_order", "Refund an order.",
		func(ctx context.Context, in refundArgs, call toolreg.CallContext) (refund, error) {
			if in.Reason == "other" && in.Note == "" {
				return refund{}, fmt.Errorf("a refund for another reason needs a note")
			}
			return refund{OrderID: in.OrderID, Status: "refunded"}, nil
		})
	if err != nil {
		panic(err)
	}
	tool.Risk = toolreg.RiskSensitive // policy fields are set as on any tool

	reg := toolreg.New()
	if _, err := reg.Register(tool, "shop"); err != nil {
		panic(err)
	}
	fmt.Println(string(reg.DefinitionsJSON(toolreg.Access{})))

	ctx, call := context.Background(), toolreg.CallContext{SessionID: "s1"}
	fmt.Println(reg.ExecuteJSON(ctx, "refund_order", `{"order_id":9007199254740993,"reason":"late"}`, call))
	fmt.Println(reg.ExecuteJSON(ctx, "refund_order", `{"order_id":7,"reason":"other"}`, call))
	fmt.Println(reg.ExecuteJSON(ctx, "refund_order", `{"order_id":7,"reason":"bored"}`, call))
	// Output:
	// [{"type":"function","function":{"name":"refund_order","description":"Refund an order.","parameters":{"type":"object","properties":{"note":{"description":"free text for the customer","type":"string"},"order_id":{"description":"the order to refund","type":"integer"},"reason":{"enum":["damaged","late","other"],"type":"string"}},"required":["order_id","reason"],"additionalProperties":false}}}]
	// {"order_id":9007199254740993,"status":"refunded"}
	// {"error":"a refund for another reason needs a note","code":"tool_error"}
	// {"error":"invalid arguments: reason: value must be one of 'damaged', 'late', 'other'","code":"tool_error"}
}

// With StrictSchema the schema is ready for OpenAI strict mode: every
// property is required, the optional ones accept null, and the registry
// validates the arguments in full.
func ExampleStrictSchema() {
	type searchArgs struct {
		Query string   `json:"query"`
		Limit int      `json:"limit,omitempty" jsonschema:"at most this many results"`
		Tags  []string `json:"tags,omitempty"`
	}
	tool, err := toolreg.NewTyped("search", "Search the catalog.",
		func(_ context.Context, in searchArgs, _ toolreg.CallContext) (string, error) {
			return fmt.Sprintf("query=%q limit=%d tags=%v", in.Query, in.Limit, in.Tags), nil
		}, toolreg.StrictSchema())
	if err != nil {
		panic(err)
	}
	def, _ := json.Marshal(tool.Definition)
	fmt.Println(string(def))

	reg := toolreg.New()
	if _, err := reg.Register(tool, "catalog"); err != nil { // passes the strict-mode checks
		panic(err)
	}
	fmt.Println(reg.ExecuteJSON(context.Background(), "search", `{"query":"socks","limit":null,"tags":null}`, toolreg.CallContext{}))
	// Output:
	// {"type":"function","function":{"name":"search","strict":true,"description":"Search the catalog.","parameters":{"type":"object","properties":{"limit":{"description":"at most this many results","type":["null","integer"]},"query":{"type":"string"},"tags":{"items":{"type":"string"},"type":["null","array"]}},"required":["query","limit","tags"],"additionalProperties":false}}}
	// query="socks" limit=0 tags=[]
}

// sku decodes itself from JSON, so its schema cannot be inferred.
type sku struct{ vendor, code string }

func (s *sku) UnmarshalJSON(b []byte) error {
	var text string
	if err := json.Unmarshal(b, &text); err != nil {
		return err
	}
	var ok bool
	if s.vendor, s.code, ok = strings.Cut(text, "-"); !ok {
		return fmt.Errorf("sku %q has no vendor prefix", text)
	}
	return nil
}

// SchemaFor describes a type that decodes itself; without it NewTyped
// reports that the type's schema cannot be inferred.
func ExampleSchemaFor() {
	type stockArgs struct {
		SKU sku `json:"sku"`
	}
	check := func(_ context.Context, in stockArgs, _ toolreg.CallContext) (string, error) {
		return "vendor " + in.SKU.vendor + ", item " + in.SKU.code, nil
	}
	_, err := toolreg.NewTyped("stock", "Stock of an item.", check)
	fmt.Println(err)

	tool, err := toolreg.NewTyped("stock", "Stock of an item.", check,
		toolreg.SchemaFor[sku](map[string]any{"type": "string", "pattern": "^[A-Z]+-[0-9]+$"}))
	if err != nil {
		panic(err)
	}
	reg := toolreg.New()
	if _, err := reg.Register(tool, "shop"); err != nil {
		panic(err)
	}
	fmt.Println(reg.ExecuteJSON(context.Background(), "stock", `{"sku":"ACME-42"}`, toolreg.CallContext{}))
	// Output:
	// toolreg: typed tool "stock": field "sku": type toolreg_test.sku decodes itself from JSON (UnmarshalJSON), so its schema cannot be inferred; give it with SchemaFor[toolreg_test.sku]
	// vendor ACME, item 42
}
