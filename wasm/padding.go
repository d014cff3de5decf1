//go:build js && wasm

package main

import (
	"net/url"

	"github.com/fkc-playground/fkc/playground"
)

// The Learn padding page: #/learn/padding?n=…&b=…&a=…&rows=…
func init() {
	routes = append(routes, pageRoute{"/learn/padding", func(_ string, q url.Values) (string, string, func(), error) {
		html, err := playground.Render("padding", app.site().PaddingPage(playground.ParsePaddingParams(q.Get)))
		return "Learn padding", html, nil, err
	}})
	actions["padding"] = func(e uiEvent) error {
		p := playground.ParsePaddingParams(func(k string) string { return e.Form[k] })
		pg := app.site().PaddingPage(p)
		html, err := playground.Render("padding-panels", pg)
		if err != nil {
			return err
		}
		setHTML("padding-panels", html)
		for _, c := range pg.Controls { // the sliders' readouts
			if o := doc.Call("querySelector", `form.padctl input[name="`+c.Key+`"] + output`); o.Truthy() {
				o.Set("textContent", c.Value)
			}
		}
		replaceURL("#/learn/padding?" + p.Query())
		return nil
	}
}
