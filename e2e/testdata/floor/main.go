//go:build js && wasm

// Command floor is the smallest Go program web/static/app.js can boot: it
// answers route, event and gpu and does nothing. TestTimeToInteractive
// loads it on the playground's page with the catalog cut out, which gives
// the time to interactive that no work in the app itself can go below on
// the machine at hand.
package main

import "syscall/js"

func main() {
	api := js.Global().Get("Object").New()
	nothing := js.FuncOf(func(js.Value, []js.Value) any { return nil })
	api.Set("route", nothing)
	api.Set("event", nothing)
	api.Set("gpu", js.FuncOf(func(js.Value, []js.Value) any {
		return js.Global().Get("Promise").Call("resolve", `{}`)
	}))
	api.Set("loadMs", 0)
	js.Global().Get("__fkcGoStarted").Invoke(api)
	select {}
}
