module github.com/toolreg/toolreg/examples/openai-agent

go 1.26.0

require (
	github.com/openai/openai-go/v3 v3.98.0
	github.com/stretchr/testify v1.11.1
	github.com/toolreg/toolreg v0.0.0
	go.uber.org/goleak v1.3.0
)

require (
	github.com/coder/websocket v1.8.15 // indirect
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)

replace github.com/toolreg/toolreg => ../..
