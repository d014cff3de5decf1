//go:build js && wasm

package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"syscall/js"
	"time"

	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/playground"
	"github.com/fkc-playground/fkc/tensor"
)

// page is what is on screen: which route, and for a kernel page its row
// and last run (so a grid can be redrawn on another slice).
type page struct {
	path   string
	site   func() *playground.Site // the kernels it shows and runs (nil: the built-in contracts, app.site)
	row    playground.KernelRow
	last   *playground.TryResult
	slices playground.Slices
	runs   []string // the backends of the last run (for the share link)
	seq    int      // bumped per run: a late run does not overwrite a newer one
	ran    string   // the Try-it form as the shown run read it (formKey)
	// files are the .npy files chosen for Try-it inputs, by input name
	files   map[string]loadedFile
	fileSeq int
}

var doc = js.Global().Get("document")

func byID(id string) js.Value { return doc.Call("getElementById", id) }

func setHTML(id, html string) {
	if el := byID(id); el.Truthy() {
		el.Set("innerHTML", html)
	}
}

func setText(id, text string) {
	if el := byID(id); el.Truthy() {
		el.Set("textContent", text)
	}
}

// replaceURL puts the page's state in the address bar without a history
// entry (a shareable link).
func replaceURL(hash string) {
	js.Global().Get("history").Call("replaceState", nil, "", hash)
}

// A route renders one page: its title and HTML. after, if set, runs once
// the page is on screen (a kernel page's first Try it).
type pageRoute struct {
	prefix string // "/k/": matches the path's start; "/api": the whole path
	render func(rest string, q url.Values) (title, html string, after func(), err error)
}

// routes are the pages; the catalog is the fallback. A page of its own
// (Learn padding, your own contract, the Judge) adds itself in its file.
var routes = []pageRoute{
	{"/k/", kernelRoute},
	{"/api", func(string, url.Values) (string, string, func(), error) {
		html, err := playground.Render("api", playground.APIPage(tabLimits.MaxElems, maxResultBytes))
		return "Scripting API", html, nil, err
	}},
}

// route renders the page of a URL hash: #/ (the catalog, ?filters),
// #/k/PROVIDER/NAME (a kernel, ?Try-it state), #/api, and the pages that
// add themselves to routes.
func route(hash string) error {
	hash = strings.TrimPrefix(hash, "#")
	if hash == "" {
		hash = "/"
	}
	path, query, _ := strings.Cut(hash, "?")
	clearLinkNotes()
	q, err := url.ParseQuery(query)
	if err != nil {
		// ParseQuery keeps the pairs it could read: say what was dropped
		linkNote("This link's query is not all valid percent-encoding (" + err.Error() + "); the parts that are not were ignored.")
	}
	app.page = page{path: path}
	js.Global().Call("scrollTo", 0, 0)
	// No lock: a DOM event runs only while every goroutine is parked (the
	// wasm runtime has one thread), and a JS callback must never block —
	// a run holding the engine may be waiting for the event loop itself.
	if main := byID("main"); path == "/" && query == "" && main.Get("dataset").Get("prerendered").String() == "/" {
		// The catalog is already on screen, drawn at build time as this
		// code draws it now (go generate ./web): take it over instead of
		// drawing it again, applying any filter typed meanwhile.
		main.Call("removeAttribute", "data-prerendered")
		if f := formOf("form.filters"); strings.Join(mapValues(f), "") != "" {
			return filterEvent(uiEvent{Type: "input", Action: "filter", Form: f})
		}
		return nil
	}
	byID("main").Call("removeAttribute", "data-prerendered")
	title, html, after, err := draw(path, q)
	if err != nil {
		return err
	}
	if title == "" {
		title = "fkc playground — kernel contracts you can run"
	} else {
		title += " — fkc playground"
	}
	doc.Set("title", title)
	setHTML("main", html)
	if after != nil {
		after()
	}
	return nil
}

// draw renders the page of path: the route whose prefix it has, else the
// catalog (drawn only then: every kernel page used to draw the whole
// catalog first and throw it away).
func draw(path string, q url.Values) (title, html string, after func(), err error) {
	for _, r := range routes {
		if rest, ok := strings.CutPrefix(path, r.prefix); ok && (strings.HasSuffix(r.prefix, "/") || rest == "") {
			return r.render(rest, q)
		}
	}
	return catalogRoute(q)
}

func catalogRoute(q url.Values) (string, string, func(), error) {
	html, err := playground.Render("catalog", app.site().CatalogPage(playground.ParseFilter(q)))
	return "", html, nil, err
}

func kernelRoute(rest string, q url.Values) (string, string, func(), error) {
	id, err := url.PathUnescape(rest)
	if err != nil {
		return "", fmt.Sprintf(`<p class="err">fkc: the link's kernel %s is not valid percent-encoding: %s</p><a href="#/">← back to the catalog</a>`,
			htmlEscape(strconv.Quote(rest)), htmlEscape(err.Error())), nil, nil
	}
	return showKernel(nil, id, q)
}

// linkNote shows a warning banner about a link the page could not read
// whole (it still shows what it could).
func linkNote(msg string) {
	if f := js.Global().Get("fkcBanner"); f.Type() == js.TypeFunction {
		f.Invoke("warn linknote", msg)
	}
}

// clearLinkNotes removes the notes on the last link read: they are about
// that link, not the next (a bad percent-escape's note stayed on every
// page after it).
func clearLinkNotes() {
	for _, b := range jsArray(doc.Call("querySelectorAll", "#banners .linknote")) {
		b.Call("remove")
	}
}

// showKernel renders the page of kernel id of a site (nil: the built-in
// contracts) and, once it is on screen, runs its Try it.
func showKernel(site func() *playground.Site, id string, q url.Values) (string, string, func(), error) {
	app.page.site = site
	s := app.pageSite()
	s.Reports = judgeReports()
	p, err := s.KernelPage(id, q)
	if err != nil {
		home := s.HomeLink()
		return "", fmt.Sprintf(`<p class="err">fkc: %s</p><a href="%s">← back to %s</a>`, htmlEscape(err.Error()), home.Value, htmlEscape(home.Key)), nil, nil
	}
	app.page.row = p.Row
	html, err := playground.Render("kernel", p)
	var after func()
	if p.Try != nil {
		for _, n := range p.Try.LinkNotes {
			linkNote(n)
		}
		after = func() { go runTry(p.Try.Case, p.Try.Auto) }
	}
	return p.K.Name, html, after, err
}

// An event is what the page's script forwards: a control with a
// data-action (click), a form with one (input, change), a details (toggle).
type uiEvent struct {
	Type   string            `json:"type"`
	Action string            `json:"action"`
	Name   string            `json:"name"` // the control that changed
	Data   map[string]string `json:"data"` // the element's data-* attributes
	Form   map[string]string `json:"form"` // its form's values
}

// actions handle the events, by the element's data-action; a page of its
// own adds its actions in its file.
var actions = map[string]func(uiEvent) error{
	"filter": filterEvent,
	"prose":  proseEvent,
	"try":    func(e uiEvent) error { tryInput(e); return nil },
	"run": func(e uiEvent) error {
		if err := tryFormOpen(); err != nil {
			return err
		}
		cs := tryCase(formOf("form.tryform"))
		go runTry(cs, strings.Split(e.Data["backends"], ","))
		return nil
	},
	"share": shareEvent,
	"slice": slicePick,
}

func event(raw string) error {
	var e uiEvent
	if err := json.Unmarshal([]byte(raw), &e); err != nil {
		return err
	}
	if f, ok := actions[e.Action]; ok {
		return f(e)
	}
	return fmt.Errorf("no action %q", e.Action)
}

func filterEvent(e uiEvent) error {
	f := playground.Filter{Q: e.Form["q"], Op: e.Form["op"], Backend: e.Form["backend"], DType: e.Form["dtype"],
		Det: e.Form["det"], Registrable: e.Form["reg"] != "", Runnable: e.Form["runs"] != ""}
	c := app.site().CatalogPage(f)
	html, err := playground.Render("catalog-list", c)
	if err != nil {
		return err
	}
	setHTML("catalog", html)
	setText("count", fmt.Sprintf("%d of %d kernels", c.Shown, c.Total))
	hash := "#/"
	if q := f.Query(); q != "" {
		hash += "?" + q
	}
	replaceURL(hash)
	return nil
}

// proseEvent renders a provider's prose when its details first open.
func proseEvent(e uiEvent) error {
	if e.Type != "toggle" || e.Data["done"] != "" {
		return nil
	}
	html, err := app.pageSite().ProviderProse(e.Data["file"])
	if err != nil {
		html = htmlEscape(err.Error())
	}
	for _, d := range jsArray(doc.Call("querySelectorAll", "details.pprose")) {
		if d.Get("dataset").Get("file").String() == e.Data["file"] {
			d.Get("dataset").Set("done", "1")
			d.Call("querySelector", ".prose").Set("innerHTML", html)
		}
	}
	return nil
}

// tryFormOpen refuses a Try-it event when no kernel page with its form is
// open: the bridge takes whatever event a script sends (a run or share
// from the catalog hit a nil op).
func tryFormOpen() error {
	if _, ok := ops.Lookup(app.page.row.Op); !ok || !doc.Call("querySelector", "form.tryform").Truthy() {
		return fmt.Errorf("no kernel page with a Try-it form is open")
	}
	return nil
}

// shareEvent puts the Try-it state in the address bar and the clipboard.
func shareEvent(uiEvent) error {
	if err := tryFormOpen(); err != nil {
		return err
	}
	cs, row := playground.FromForm(app.page.row, formOf("form.tryform")), app.page.row
	u := js.Global().Get("location").Get("origin").String() + js.Global().Get("location").Get("pathname").String() +
		app.pageSite().KernelHref(row.Provider, row.Name) + "?" + playground.ShareQuery(cs, app.page.runs)
	replaceURL(u)
	done, refused := "link copied", "link in the address bar (copying it was refused: %s)"
	if files := playground.FileInputs(cs); len(files) > 0 {
		// a link names a file but cannot carry its bytes: say so, rather
		// than hand out a link that silently runs something else
		also := "; it cannot carry your file for " + strings.Join(files, ", ") + ": whoever opens it must choose that file"
		done, refused = done+also, refused+strings.ReplaceAll(also, "%", "%%")
	}
	setText("share-note", "link in the address bar")
	writeClipboard(u, "share-note", done, refused)
	return nil
}

// tryInput keeps the command line in step with the form; changing the
// first input's dtype carries the other value inputs along (indices and
// masks keep theirs).
func tryInput(e uiEvent) {
	row := app.page.row
	form := doc.Call("querySelector", "form.tryform")
	if !form.Truthy() {
		return
	}
	if strings.HasSuffix(e.Name, ".kind") {
		in := strings.TrimSuffix(e.Name, ".kind")
		if r := form.Call("querySelector", `.inrow[data-input="`+in+`"]`); r.Truthy() {
			r.Get("dataset").Set("kind", e.Form[e.Name])
		}
	}
	values := e.Form
	if strings.HasSuffix(e.Name, ".dtype") && e.Type == "change" {
		first := strings.TrimSuffix(e.Name, ".dtype")
		followRange(form, values, first)
		rows := jsArray(form.Call("querySelectorAll", ".inrow"))
		if len(rows) > 0 && rows[0].Get("dataset").Get("input").String() == first {
			for _, r := range rows[1:] {
				sel := r.Call("querySelector", "select[name$='.dtype']")
				if sel.Truthy() && !sel.Get("dataset").Get("fixed").Truthy() {
					sel.Set("value", e.Form[e.Name])
					values[sel.Get("name").String()] = e.Form[e.Name]
					followRange(form, values, r.Get("dataset").Get("input").String())
				}
			}
		}
	}
	cs := playground.FromForm(row, values)
	setText("cli", playground.CLILine(cs, row.Backend))
	p := playground.CasePeers(cs)
	setText("peer-numpy", p.NumPy)
	setText("peer-torch", p.Torch)
	markStale(app.page.last != nil && formKey(values) != app.page.ran)
}

// followRange moves input in's random range to its new dtype's default
// (ops.RandomRange) when it is still some dtype's default: F32's [-9, 9]
// would not fit a U8 input switched to.
func followRange(form js.Value, values map[string]string, in string) {
	dt, err := tensor.ParseDType(values[in+".dtype"])
	if err != nil {
		return
	}
	lo, hi := form.Call("querySelector", `[name="`+in+`.lo"]`), form.Call("querySelector", `[name="`+in+`.hi"]`)
	if !lo.Truthy() || !hi.Truthy() {
		return
	}
	for _, d := range tensor.All {
		l, h := ops.RandomRange(d)
		if values[in+".lo"] == strconv.FormatFloat(l, 'g', -1, 64) && values[in+".hi"] == strconv.FormatFloat(h, 'g', -1, 64) {
			l, h = ops.RandomRange(dt)
			values[in+".lo"], values[in+".hi"] = strconv.FormatFloat(l, 'g', -1, 64), strconv.FormatFloat(h, 'g', -1, 64)
			lo.Set("value", values[in+".lo"])
			hi.Set("value", values[in+".hi"])
			return
		}
	}
}

// markFields marks each Try-it field an error is about (aria-invalid) and
// puts the message beside it, described by it; nil clears every mark. The
// message sat under the buttons, away from the field to fix.
func markFields(fields map[string]string) {
	for _, el := range jsArray(doc.Call("querySelectorAll", "form.tryform .field-err")) {
		el.Call("remove")
	}
	for _, el := range jsArray(doc.Call("querySelectorAll", `form.tryform [aria-invalid="true"]`)) {
		el.Call("removeAttribute", "aria-invalid")
		el.Call("removeAttribute", "aria-describedby")
	}
	for name, msg := range fields {
		markField(name, msg)
	}
}

// markField marks one Try-it field with msg beside it, or ("") clears its
// mark. A field is the control named so, or the one whose data-field names
// it (a file input, which the form must not read).
func markField(name, msg string) {
	for _, part := range []string{".shape", ".dtype"} {
		// a file input's shape and dtype are the file's, their controls
		// hidden: what is said of them is said at the file
		if in, ok := strings.CutSuffix(name, part); ok {
			if r := doc.Call("querySelector", `form.tryform .inrow[data-input="`+in+`"][data-kind="file"]`); r.Truthy() {
				name = in + ".file"
			}
		}
	}
	el := doc.Call("querySelector", `form.tryform [data-field="`+name+`"]`)
	if !el.Truthy() {
		el = doc.Call("querySelector", `form.tryform [name="`+name+`"]`)
	}
	if !el.Truthy() {
		return
	}
	id := "err-" + strings.NewReplacer(".", "-", " ", "-").Replace(name)
	if old := byID(id); old.Truthy() {
		old.Call("remove")
	}
	if msg == "" {
		el.Call("removeAttribute", "aria-invalid")
		el.Call("removeAttribute", "aria-describedby")
		return
	}
	el.Call("setAttribute", "aria-invalid", "true")
	el.Call("setAttribute", "aria-describedby", id)
	note := doc.Call("createElement", "span")
	note.Set("className", "field-err")
	note.Set("id", id)
	note.Set("textContent", msg)
	at := el
	if l := el.Call("closest", "label"); l.Truthy() {
		at = l
	}
	at.Call("after", note)
}

// formKey is the Try-it case a form's values make, as its share query.
func formKey(values map[string]string) string {
	return playground.ShareQuery(playground.FromForm(app.page.row, values), nil) + "#" + fileStamp(values)
}

// staleNote is what a result shown for other inputs than the form's says.
const staleNote = "Stale — the form changed since this run; press Run (or Enter in a field) to update the result."

// markStale dims the shown run (its results, picture and the cost values
// evaluated for it) and says so, or clears that: a changed padding or mode
// left the old grid and its explanation looking current. A form changed
// back to what ran is current again.
func markStale(stale bool) {
	for _, sel := range []string{"#results", "#visual", "#cost-table"} {
		if el := doc.Call("querySelector", sel); el.Truthy() {
			el.Get("classList").Call("toggle", "stale", stale)
		}
	}
	if el := byID("stale"); el.Truthy() && el.Get("hidden").Bool() == stale {
		el.Set("hidden", !stale)
		el.Set("textContent", map[bool]string{true: staleNote}[stale])
	}
}

// afterPaint parks the calling goroutine until the browser has drawn a
// frame (requestAnimationFrame, then a zero timeout: the frame's layout and
// paint come in between), or 100 ms have passed (a hidden tab draws no
// frames): what was just put in the DOM is on screen before a long
// computation starts. Without it a kernel page appeared only once its
// Try-it run had finished, in the same task as the click.
func afterPaint() {
	done := make(chan struct{})
	finish := js.FuncOf(func(js.Value, []js.Value) any {
		select {
		case <-done:
		default:
			close(done)
		}
		return nil
	})
	var zero js.Value // the frame's zero timeout, once the frame came
	frame := js.FuncOf(func(js.Value, []js.Value) any {
		zero = js.Global().Call("setTimeout", finish, 0)
		return nil
	})
	raf := js.Global().Call("requestAnimationFrame", frame)
	late := js.Global().Call("setTimeout", finish, 100)
	<-done
	// Nothing may call the functions once released: cancel what is pending.
	js.Global().Call("cancelAnimationFrame", raf)
	js.Global().Call("clearTimeout", late)
	if zero.Truthy() {
		js.Global().Call("clearTimeout", zero)
	}
	frame.Release()
	finish.Release()
}

// runTry runs the Try-it case on backends and draws the results.
func runTry(cs ops.Case, backends []string) {
	defer func() {
		if r := recover(); r != nil {
			panicError(r)
		}
	}()
	<-app.gpuDone
	if !app.gpu().Available && len(backends) > 0 && backends[len(backends)-1] == "webgpu" && app.page.last == nil {
		// A page opening on a GPU kernel (or a shared link) in a browser
		// without WebGPU runs on the CPU instead of showing an error.
		backends = []string{"cpu"}
	}
	if len(backends) == 0 {
		return
	}
	app.page.seq++
	seq, row, path, site := app.page.seq, app.page.row, app.page.path, app.pageSite()
	markStale(false)
	markFields(nil)
	ran := formKey(formOf("form.tryform"))
	setHTML("results", `<div class="muted">running…</div>`)
	for _, b := range jsArray(doc.Call("querySelectorAll", "form.tryform button")) {
		b.Get("classList").Call("add", "busy")
	}
	replaceURL(site.KernelHref(row.Provider, row.Name) + "?" + playground.ShareQuery(cs, backends))
	afterPaint() // the page, "running…" and the busy buttons are on screen before the run
	r := site.Try(row, cs, backends, browserClock{}, app.lock)
	if seq != app.page.seq || app.page.row.ID != row.ID || app.page.path != path {
		return // the page moved on
	}
	for _, b := range jsArray(doc.Call("querySelectorAll", "form.tryform button")) {
		b.Get("classList").Call("remove", "busy")
	}
	app.page.last, app.page.slices, app.page.runs, app.page.ran = r, playground.Slices{}, backends, ran
	if f := doc.Call("querySelector", "form.tryform"); f.Truthy() {
		f.Get("dataset").Set("last", strings.Join(backends, ","))
		markStale(formKey(formOf("form.tryform")) != ran) // the form may have changed while it ran
	}
	html, err := playground.Render("results", r)
	if err != nil {
		html = htmlEscape(err.Error())
	}
	setHTML("results", html)
	fields := map[string]string{}
	if r.Err != "" && r.ErrField != "" {
		fields[r.ErrField] = "fkc: " + r.Err
	}
	for _, x := range r.Runs {
		if x.Error != "" && x.Field != "" && fields[x.Field] == "" {
			fields[x.Field] = x.Error
		}
	}
	markFields(fields)
	vis := ""
	if v := r.Visual(nil); v != nil {
		if vis, err = playground.Render("visual", v); err != nil {
			vis = htmlEscape(err.Error())
		}
	} else if r.TraceError != "" {
		vis = `<p class="muted">No provenance: ` + htmlEscape(r.TraceError) + `</p>`
	}
	setHTML("visual", vis)
	// The cost table shows the page kernel's formulas evaluated for this run.
	for _, c := range r.PageCosts() {
		if cell := doc.Call("querySelector", `#cost-table tr[data-cost="`+c.Name+`"] .val`); cell.Truthy() {
			v := "— " + c.Error
			if c.Error == "" {
				v = playground.FmtNum(c.Value, strings.Contains(c.Name, "bytes"))
			}
			cell.Set("textContent", v)
		}
	}
	// A violation's cited constraint is marked in the contract's tables.
	cited := ""
	for _, x := range r.Runs {
		if x.Violation && x.Cite != "" {
			cited = x.Cite
		}
	}
	for _, tr := range jsArray(doc.Call("querySelectorAll", "#contract [data-constraint]")) {
		c := tr.Get("dataset").Get("constraint").String()
		hit := cited != "" && c != "" && (strings.Contains(cited, c) || strings.Contains(c, cited))
		tr.Get("classList").Call("toggle", "violated", hit)
	}
}

// slicePick redraws one grid on the slice its picker now names.
func slicePick(e uiEvent) error {
	r := app.page.last
	key := e.Data["key"]
	if r == nil || key == "" {
		return nil
	}
	name, out := gridKey(key)
	g, ok := r.Grid(name, out, app.page.slices)
	if !ok {
		return nil
	}
	s := playground.DefaultSlice(len(g.Shape))
	if cur, ok := app.page.slices[key]; ok {
		s = cur
	}
	atoi := func(k string) int { v, _ := strconv.Atoi(e.Form[k]); return v }
	switch {
	case e.Name == "rows" || e.Name == "cols":
		ax := atoi(e.Name)
		if e.Name == "rows" {
			if ax == s.ColAx {
				s.ColAx = s.RowAx
			}
			s.RowAx = ax
		} else {
			if ax == s.RowAx {
				s.RowAx = s.ColAx
			}
			s.ColAx = ax
		}
	case strings.HasPrefix(e.Name, "axis"):
		if a, err := strconv.Atoi(strings.TrimPrefix(e.Name, "axis")); err == nil && a < len(s.Fixed) {
			s.Fixed[a] = atoi(e.Name)
		}
	}
	app.page.slices[key] = s.Fit(g.Shape)
	return redrawGrid(key)
}

// reveal brings cell i of grid key into view (a hovered output's source on
// another slice) and reports whether it redrew.
func reveal(key string, i int) bool {
	r := app.page.last
	if r == nil {
		return false
	}
	name, out := gridKey(key)
	g, ok := r.Grid(name, out, app.page.slices)
	if !ok || len(g.Shape) < 3 || i < 0 || i >= tensor.NumElems(g.Shape) {
		return false
	}
	s := playground.DefaultSlice(len(g.Shape))
	if cur, ok := app.page.slices[key]; ok {
		s = cur
	}
	coord := make([]int, len(g.Shape))
	rem := i
	for a := len(g.Shape) - 1; a >= 0; a-- {
		if g.Shape[a] > 0 {
			coord[a], rem = rem%g.Shape[a], rem/g.Shape[a]
		}
	}
	changed := false
	for a := range s.Fixed {
		if a != s.RowAx && a != s.ColAx && s.Fixed[a] != coord[a] {
			s.Fixed[a], changed = coord[a], true
		}
	}
	if changed {
		app.page.slices[key] = s
		redrawGrid(key)
	}
	return changed
}

func redrawGrid(key string) error {
	name, out := gridKey(key)
	g, ok := app.page.last.Grid(name, out, app.page.slices)
	if !ok {
		return nil
	}
	html, err := playground.Render("grid", g)
	if err != nil {
		return err
	}
	if el := doc.Call("querySelector", `.gridbox[data-key="`+key+`"]`); el.Truthy() {
		el.Set("outerHTML", html)
	}
	return nil
}

// gridKey splits "out:1" into ("out", 1) and "x" into ("x", -1).
func gridKey(key string) (string, int) {
	if n, ok := strings.CutPrefix(key, "out:"); ok {
		i, _ := strconv.Atoi(n)
		return "out", i
	}
	return key, -1
}

// formOf reads a form's values (name → value) the way FormData does.
func formOf(selector string) map[string]string {
	out := map[string]string{}
	f := doc.Call("querySelector", selector)
	if !f.Truthy() {
		return out
	}
	fd := js.Global().Get("FormData").New(f)
	it := fd.Call("entries")
	for {
		n := it.Call("next")
		if n.Get("done").Bool() {
			return out
		}
		kv := n.Get("value")
		out[kv.Index(0).String()] = kv.Index(1).String()
	}
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func jsArray(list js.Value) []js.Value {
	n := list.Length()
	out := make([]js.Value, n)
	for i := range n {
		out[i] = list.Index(i)
	}
	return out
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// browserClock times runs with performance.now (time.Now underneath).
type browserClock struct{}

func (browserClock) Now() time.Time                  { return time.Now() }
func (browserClock) Since(t time.Time) time.Duration { return time.Since(t) }

// Resolution is the smallest step of the clock (5 µs when the page is
// cross-origin isolated, 100 µs otherwise).
func (browserClock) Resolution() time.Duration {
	best := time.Duration(1 << 62)
	for i := 0; i < 3; i++ {
		a := time.Now()
		b := time.Now()
		for n := 0; b.Sub(a) == 0 && n < 1e6; n++ {
			b = time.Now()
		}
		if d := b.Sub(a); d > 0 && d < best {
			best = d
		}
	}
	if best == 1<<62 {
		// The clock did not move in a million reads (a paused or virtual
		// clock: headless Chromium's --virtual-time-budget): the coarse
		// browser figure, not the loop's 1<<62 sentinel.
		return 100 * time.Microsecond
	}
	return best
}
