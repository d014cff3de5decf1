//go:build js && wasm

package main

// The authoring page, #/author ("Your contract"): an FKC document pasted,
// dropped or opened there is loaded by the loader, linter and registry the
// built-in contracts go through (playground.Author), and re-rendered a
// moment after each edit. Its kernels have pages at #/author/k/NAME,
// rendered and run from a Site over that document alone
// (playground.Site.Home = AuthorHome): the Try it actions find it as the
// page's site. Nothing is sent anywhere: the text lives in this tab and in
// localStorage (storeKey), so a reload keeps it.

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"syscall/js"
	"time"

	"github.com/fkc-playground/fkc/contract"
	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels/gpu"
	"github.com/fkc-playground/fkc/playground"
)

const (
	storeKey = "fkc.author" // localStorage: the text under this key, its file name under storeKey+".name"
	// editPause is how long typing pauses before the document is reloaded:
	// a 76 KB seed takes the loader tens of milliseconds (more in a tab).
	editPause = 250 * time.Millisecond
)

// author is the pasted document and an engine over it.
var author struct {
	restored bool // from localStorage, once per tab
	a        *playground.Authored
	eng      *engine.Engine
	attached bool // eng has the tab's WebGPU device
	seq      int  // bumped per edit: a pending reload of older text is dropped
	pending  bool // an edit not loaded yet
	kept     string
}

func init() {
	routes = append(routes, pageRoute{"/author", authorRoute}, pageRoute{"/author/k/", authorKernelRoute})
	actions["author-edit"] = authorEdit
	actions["author-file"] = authorFile
	actions["author-fmt"] = authorFmt
	actions["author-line"] = authorLine
	actions["author-clear"] = authorClear
}

// authorSite is the Site over the pasted document (restored from
// localStorage on first use), with the tab's WebGPU device attached once
// there is one.
func authorSite() *playground.Site {
	if !author.restored {
		author.restored = true
		name, text := restore()
		authorSet(name, text, nil)
	}
	if !author.attached && app.dev != nil {
		author.eng.Attach(app.dev)
		author.attached = true
	}
	return &playground.Site{Eng: author.eng, GPU: app.gpu(), Home: playground.AuthorHome}
}

// authorSet loads a document (or takes a refused one) and keeps its text.
func authorSet(name, text string, a *playground.Authored) {
	if a == nil {
		a = playground.Author(name, []byte(text))
	}
	author.a, author.pending = a, false
	author.eng = engine.NewWith(a.Reg, tabLimits)
	// The GPU entry points, for link status before (or without) a device.
	author.eng.AddEntries(gpu.Links(nil))
	author.attached = false
	if a.Doc != nil { // a refused text does not replace the stored one
		author.kept = store(name, string(a.Src))
	}
}

func authorRoute(string, url.Values) (string, string, func(), error) {
	s := authorSite()
	app.page.site = authorSite // its kernel list's provider prose
	p := s.AuthorPage(author.a)
	html, err := playground.Render("author", p)
	after := func() {
		setText("author-status", p.Result.Status()+author.kept)
		select {
		case <-app.gpuDone:
		default: // drawn before WebGPU answered: its GPU kernels say "runs here" once it has
			go func() {
				defer recoverPanic()
				<-app.gpuDone
				if app.page.path == "/author" && app.gpu().Available {
					redraw()
				}
			}()
		}
	}
	return "Your contract", html, after, err
}

func authorKernelRoute(rest string, q url.Values) (string, string, func(), error) {
	name, _ := url.PathUnescape(rest)
	authorSite()
	id := name
	if d := author.a.Doc; d != nil {
		id = d.Provider.Name + "/" + name
	}
	return showKernel(authorSite, id, q)
}

// authorEdit reloads the document once typing pauses.
func authorEdit(e uiEvent) error {
	if e.Type != "input" {
		return nil // a change (on leaving the field) follows the inputs already seen
	}
	author.seq++
	seq := author.seq
	author.pending = true
	go func() {
		defer recoverPanic()
		time.Sleep(editPause)
		if seq == author.seq && author.pending {
			authorRead()
		}
	}()
	return nil
}

// authorRead loads what the editor holds and redraws the findings. A text
// over the loader's cap is refused before it is copied into Go (a
// JavaScript string's length in UTF-16 units is at most its UTF-8 size).
func authorRead() {
	src := byID("author-src")
	if !src.Truthy() {
		return
	}
	name := strings.TrimSpace(byID("author-name").Get("value").String())
	if name == "" {
		name = playground.DefaultAuthorFile
	}
	if n := src.Get("textLength").Int(); n > contract.MaxFileBytes {
		authorSet(name, "", playground.Refused(name, &contract.TooLarge{File: name, Size: contract.MaxFileBytes, MoreThan: true}))
	} else {
		authorSet(name, src.Get("value").String(), nil)
	}
	redraw()
}

func redraw() {
	r := authorSite().AuthorResult(author.a)
	html, err := playground.Render("author-result", r)
	if err != nil {
		html = `<p class="err">` + htmlEscape(err.Error()) + `</p>`
	}
	setHTML("author-result", html)
	setText("author-status", r.Status()+author.kept)
	authorGutter(r)
}

// authorGutter redraws the editor's gutter marks for r, where the text
// is scrolled to.
func authorGutter(r playground.AuthorResult) {
	html, err := playground.Render("author-gutter", r)
	if err != nil {
		return
	}
	setHTML("author-gutter", html)
	if in := js.Global().Get("document").Call("querySelector", "#author-gutter .gutter-in"); in.Truthy() {
		in.Get("style").Set("transform", fmt.Sprintf("translateY(%dpx)", -byID("author-src").Get("scrollTop").Int()))
	}
}

// authorFile reads the file chosen (or dropped on the editor, which hands
// it to the file input) into the editor: one within the loader's caps that
// is UTF-8 text. Anything else is refused with the reason in the status
// line, and the editor, its name and the stored copy stay as they were
// (a refused file used to empty the editor, and the next keystroke then
// replaced the stored document with nothing).
func authorFile(e uiEvent) error {
	in := byID("author-file")
	if e.Type != "change" || !in.Truthy() || in.Get("files").Length() == 0 {
		return nil
	}
	f := in.Get("files").Index(0)
	name, size := f.Get("name").String(), f.Get("size").Int()
	in.Set("value", "") // choosing the same file again is a change too
	refuse := func(err error) {
		setText("author-status", fmt.Sprintf("not loaded: %v; the editor keeps its text", err))
	}
	if size > contract.MaxFileBytes {
		refuse(&contract.TooLarge{File: name, Size: int64(size)})
		return nil
	}
	setText("author-status", "reading "+name+"…")
	go func() {
		defer recoverPanic()
		buf, err := await(f.Call("arrayBuffer"))
		var text string
		if err == nil {
			b := make([]byte, buf.Get("byteLength").Int())
			js.CopyBytesToGo(b, js.Global().Get("Uint8Array").New(buf))
			text, err = playground.TextOf(name, b)
		}
		if err != nil {
			refuse(err)
			return
		}
		author.seq++ // a pending edit of the old text is void
		byID("author-name").Set("value", name)
		authorSet(name, text, nil)
		byID("author-src").Set("value", text)
		redraw()
	}()
	return nil
}

// authorFmt downloads what `fkc fmt` writes for the document: a Blob
// behind a temporary <a download>, clicked from this click's handler.
func authorFmt(uiEvent) error {
	if author.pending {
		authorRead()
	}
	a := author.a
	if a == nil || a.Canon == nil {
		return nil // the button is disabled, with fmt's reason beside it
	}
	download(a.File, "text/markdown;charset=utf-8", a.Canon)
	setText("author-status", "downloaded "+a.File+" as fkc fmt writes it")
	return nil
}

// authorLine brings a listed line with findings into view and focuses it.
func authorLine(e uiEvent) error {
	if el := byID("src-L" + e.Data["line"]); el.Truthy() {
		el.Call("scrollIntoView", map[string]any{"block": "center"})
		el.Call("focus", map[string]any{"preventScroll": true})
	}
	return nil
}

// authorClear empties the editor and forgets the stored text.
func authorClear(uiEvent) error {
	author.seq++
	byID("author-src").Set("value", "")
	byID("author-name").Set("value", playground.DefaultAuthorFile)
	authorSet(playground.DefaultAuthorFile, "", nil)
	redraw()
	return nil
}

// localStorage may be missing or refuse (storage disabled, a sandboxed
// frame, over its quota): the tab's memory then holds the text alone.
// Every access goes through a call, so a JS exception is a Go panic that
// is recovered here, never one that unwinds through Go's frames.
func localStorage() (ls js.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	ls = js.Global().Get("Reflect").Call("get", js.Global(), "localStorage")
	if !ls.Truthy() {
		return ls, errors.New("this browser has no localStorage")
	}
	return ls, nil
}

// restore reads the stored document ("" when there is none).
func restore() (name, text string) {
	name = playground.DefaultAuthorFile
	ls, err := localStorage()
	if err != nil {
		return name, ""
	}
	defer func() { recover() }()
	if v := ls.Call("getItem", storeKey+".name"); v.Type() == js.TypeString && v.String() != "" {
		name = v.String()
	}
	if v := ls.Call("getItem", storeKey); v.Type() == js.TypeString {
		text = v.String()
	}
	return name, text
}

// store keeps the document across reloads; it says so when it cannot.
func store(name, text string) (note string) {
	ls, err := localStorage()
	if err == nil {
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("%v", r)
				}
			}()
			if text == "" {
				ls.Call("removeItem", storeKey)
				ls.Call("removeItem", storeKey+".name")
				return
			}
			ls.Call("removeItem", storeKey) // the old text must not stay beside the new name
			ls.Call("setItem", storeKey+".name", name)
			ls.Call("setItem", storeKey, text)
		}()
	}
	if err != nil {
		return " (Kept in this tab only: localStorage refused it — " + strings.TrimSuffix(err.Error(), ".") + ".)"
	}
	return ""
}

// download hands the browser a file to save: a Blob behind a temporary
// <a download>, clicked from this click's handler. The bytes go over as a
// Uint8Array: a JavaScript string of them would be re-encoded as UTF-8
// (a .npy's 0x93 magic byte became two).
func download(name, mime string, data []byte) {
	bytes := js.Global().Get("Uint8Array").New(len(data))
	js.CopyBytesToJS(bytes, data)
	blob := js.Global().Get("Blob").New([]any{bytes}, map[string]any{"type": mime})
	u := js.Global().Get("URL").Call("createObjectURL", blob)
	link := doc.Call("createElement", "a")
	link.Set("href", u)
	link.Set("download", name)
	link.Set("hidden", true)
	doc.Get("body").Call("append", link)
	link.Call("click")
	link.Call("remove")
	go func() {
		time.Sleep(time.Minute) // the download has long started
		js.Global().Get("URL").Call("revokeObjectURL", u)
	}()
}

// await waits for a Promise (from a goroutine, never a JS callback).
func await(p js.Value) (js.Value, error) {
	type settled struct {
		v   js.Value
		err error
	}
	ch := make(chan settled, 1)
	ok := js.FuncOf(func(_ js.Value, a []js.Value) any { ch <- settled{v: a[0]}; return nil })
	fail := js.FuncOf(func(_ js.Value, a []js.Value) any {
		ch <- settled{err: errors.New(js.Global().Get("String").Invoke(a[0]).String())}
		return nil
	})
	defer ok.Release()
	defer fail.Release()
	p.Call("then", ok, fail)
	s := <-ch
	return s.v, s.err
}

// recoverPanic shows a goroutine's panic as the app's other panics are shown.
func recoverPanic() {
	if r := recover(); r != nil {
		panicError(r)
	}
}
