package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/toolreg/toolreg"
)

// The tools are typed: toolreg infers each schema from the argument struct,
// decodes the model's arguments into it and encodes the result as JSON. Their
// data is built in, so the example needs no network besides the model.

type weatherArgs struct {
	City string `json:"city" jsonschema:"the city, for example Oslo"`
	Unit string `json:"unit,omitempty" jsonschema:"the temperature unit; celsius when absent" toolreg:"enum=celsius|fahrenheit"`
}

type weatherReport struct {
	City        string  `json:"city"`
	Temperature float64 `json:"temperature"`
	Unit        string  `json:"unit"`
	Conditions  string  `json:"conditions"`
}

// forecasts holds the weather that get_weather reports, in celsius.
var forecasts = map[string]weatherReport{
	"lima":  {City: "Lima", Temperature: 19.5, Conditions: "overcast"},
	"oslo":  {City: "Oslo", Temperature: -3, Conditions: "light snow"},
	"tokyo": {City: "Tokyo", Temperature: 11, Conditions: "clear"},
}

func getWeather(_ context.Context, in weatherArgs, _ toolreg.CallContext) (weatherReport, error) {
	w, ok := forecasts[strings.ToLower(strings.TrimSpace(in.City))]
	if !ok {
		known := make([]string, 0, len(forecasts))
		for _, f := range forecasts {
			known = append(known, f.City)
		}
		slices.Sort(known)
		return weatherReport{}, fmt.Errorf("no weather data for %q; known cities: %s", in.City, strings.Join(known, ", "))
	}
	w.Unit = "celsius"
	if in.Unit == "fahrenheit" {
		w.Temperature, w.Unit = math.Round((w.Temperature*9/5+32)*10)/10, "fahrenheit"
	}
	return w, nil
}

type orderArgs struct {
	OrderID int64 `json:"order_id" jsonschema:"the order number"`
}

type order struct {
	OrderID int64    `json:"order_id"`
	Status  string   `json:"status"`
	Items   []string `json:"items"`
}

// orders are keyed by ids beyond 2^53, which a float64 cannot tell apart:
// the registry hands typed tools exact integers, so each id finds its order.
var orders = map[int64]order{
	9007199254740992: {OrderID: 9007199254740992, Status: "delivered", Items: []string{"umbrella"}},
	9007199254740993: {OrderID: 9007199254740993, Status: "shipped", Items: []string{"wool socks", "thermos"}},
}

func lookupOrder(_ context.Context, in orderArgs, _ toolreg.CallContext) (order, error) {
	o, ok := orders[in.OrderID]
	if !ok {
		return order{}, fmt.Errorf("no order %d", in.OrderID)
	}
	return o, nil
}

// registerTools registers the example's tools under the plugin "shop".
func registerTools(reg *toolreg.Registry) error {
	weather, err := toolreg.NewTyped("get_weather", "Current weather in a city.", getWeather, toolreg.StrictSchema())
	if err != nil {
		return err
	}
	weather.Risk = toolreg.RiskSafe
	lookup, err := toolreg.NewTyped("lookup_order", "Status and items of an order.", lookupOrder)
	if err != nil {
		return err
	}
	lookup.Risk = toolreg.RiskSafe
	scope := reg.Scope("shop")
	for _, t := range []toolreg.RegisteredTool{weather, lookup} {
		if _, err := scope.Register(t); err != nil {
			return err
		}
	}
	return nil
}
