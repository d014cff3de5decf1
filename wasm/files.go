//go:build js && wasm

package main

// Files in and out of a kernel page's Try it, and the call as code: a .npy
// file chosen for (or dropped on) an input row is read by the reader
// `fkc run -i` uses (tensor.ReadNpyBytes, through ops.Gen's "file" fill);
// a run's inputs and outputs download as .npy written by the writer
// `fkc run -o` uses; the copy buttons put the `fkc run` line or the NumPy
// or PyTorch program (playground.PeerCode) on the clipboard. The form holds
// a file input's name only (a hidden NAME.file field, since the form is
// read as text); the bytes stay in page.files.

import (
	"fmt"
	"strconv"
	"strings"
	"syscall/js"

	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/playground"
)

// loadedFile is a .npy file the user gave a Try-it input.
type loadedFile struct {
	name string
	data []byte
	seq  int // which load: the same name chosen again is another file
}

func init() {
	actions["try-file"] = tryFile
	actions["try-copy"] = tryCopy
	actions["try-download"] = tryDownload
}

// tryCase is the Try-it case a form's values make, with the bytes of the
// files chosen for its "file" inputs.
func tryCase(values map[string]string) ops.Case {
	cs := playground.FromForm(app.page.row, values)
	for n, g := range cs.Inputs {
		if f, ok := app.page.files[n]; ok && g.Kind == "file" && g.File == f.name {
			g.Data = f.data
			cs.Inputs[n] = g
		}
	}
	return cs
}

// tryFile reads the file chosen for input e.Data["input"]: a good .npy
// makes that input a "file" input of the file's shape and dtype; a bad one
// gets the reader's error at the field, and the input stays as it was.
func tryFile(e uiEvent) error {
	if e.Type != "change" {
		return nil
	}
	if err := tryFormOpen(); err != nil {
		return err
	}
	n := e.Data["input"]
	in := byID("try-file-" + n)
	if !in.Truthy() || in.Get("files").Length() == 0 {
		return nil
	}
	f := in.Get("files").Index(0)
	name, size := f.Get("name").String(), f.Get("size").Int()
	in.Set("value", "") // choosing the same file again is a change too
	field, note := n+".file", "try-filenote-"+n
	refuse := func(err error) {
		setText(note, "")
		markField(field, "fkc: input "+n+": "+err.Error())
	}
	if size > ops.MaxFileBytes {
		refuse(fmt.Errorf("file %s: %d bytes; the playground reads at most %d (%d elements)", name, size, ops.MaxFileBytes, ops.MaxTryElems))
		return nil
	}
	setText(note, "reading "+name+"…")
	path := app.page.path
	go func() {
		defer recoverPanic()
		buf, err := await(f.Call("arrayBuffer"))
		if app.page.path != path {
			return // the page moved on
		}
		var b []byte
		if err == nil {
			b = make([]byte, buf.Get("byteLength").Int())
			js.CopyBytesToGo(b, js.Global().Get("Uint8Array").New(buf))
		}
		values := formOf("form.tryform")
		g := ops.Gen{Kind: "file", File: name, Data: b, DType: values[n+".dtype"]}
		t, err := g.Make()
		if err != nil {
			refuse(err)
			return
		}
		app.page.fileSeq++
		if app.page.files == nil {
			app.page.files = map[string]loadedFile{}
		}
		app.page.files[n] = loadedFile{name: name, data: b, seq: app.page.fileSeq}
		markField(field, "")
		form := doc.Call("querySelector", "form.tryform")
		set := func(k, v string) {
			if el := form.Call("querySelector", `[name="`+k+`"]`); el.Truthy() {
				el.Set("value", v)
			}
			values[k] = v
		}
		set(n+".kind", "file")
		set(n+".file", name)
		set(n+".shape", strings.Trim(strings.Join(strings.Fields(fmt.Sprint(t.Shape)), ","), "[]"))
		set(n+".dtype", t.DType.String())
		if r := form.Call("querySelector", `.inrow[data-input="`+n+`"]`); r.Truthy() {
			r.Get("dataset").Set("kind", "file")
		}
		setText(note, fmt.Sprintf("%s: %s%s, %s bytes", name, t.DType, shapeOf(t.Shape), strconv.Itoa(len(b))))
		// as a dtype chosen in the form: the other value inputs follow it
		tryInput(uiEvent{Type: "change", Action: "try", Name: n + ".dtype", Form: values})
	}()
	return nil
}

func shapeOf(s []int) string {
	p := make([]string, len(s))
	for i, v := range s {
		p[i] = strconv.Itoa(v)
	}
	return "[" + strings.Join(p, ", ") + "]"
}

// fileStamp tells apart forms that name the same files but hold other
// loads of them (a file chosen again under its name).
func fileStamp(values map[string]string) string {
	var s []string
	for _, n := range playground.FromForm(app.page.row, values).Order {
		if f, ok := app.page.files[n]; ok && values[n+".kind"] == "file" {
			s = append(s, n+"@"+strconv.Itoa(f.seq))
		}
	}
	return strings.Join(s, ",")
}

// tryCopy puts the call, as the form describes it, on the clipboard: the
// `fkc run` line, or the NumPy or PyTorch program (shown in #peers too, so
// it can be read and selected where the clipboard is refused).
func tryCopy(e uiEvent) error {
	if err := tryFormOpen(); err != nil {
		return err
	}
	cs := tryCase(formOf("form.tryform"))
	var text, what, none string
	switch e.Data["what"] {
	case "cli":
		text, what = strings.TrimPrefix(playground.CLILine(cs, app.page.row.Backend), "$ "), "the fkc run line"
	case "numpy", "torch":
		p := playground.CasePeers(cs)
		setText("peer-numpy", p.NumPy)
		setText("peer-torch", p.Torch)
		if d := byID("peers"); d.Truthy() {
			d.Set("open", true)
		}
		text, what, none = p.NumPy, "the NumPy program", p.NoNumPy
		if e.Data["what"] == "torch" {
			text, what, none = p.Torch, "the PyTorch program", p.NoTorch
		}
	default:
		return fmt.Errorf("nothing to copy as %q", e.Data["what"])
	}
	done := what + " copied"
	if none != "" {
		done += " (only a comment: " + none + ")"
	}
	if files := playground.FileInputs(cs); len(files) > 0 {
		done += "; it reads your file for " + strings.Join(files, ", ")
	}
	writeClipboard(text, "copy-note", done, what+" is below (copying it was refused: %s)")
	return nil
}

// tryDownload saves an input (data-input) or a backend's output
// (data-backend) of the shown run as .npy.
func tryDownload(e uiEvent) error {
	r := app.page.last
	if r == nil {
		return fmt.Errorf("no run is shown to download from")
	}
	name, b, err := r.FileOf(e.Data["input"], e.Data["backend"])
	if err != nil {
		return err
	}
	download(name, "application/octet-stream", b)
	return nil
}

// writeClipboard copies text and says so in note: done, or refused (a
// format for the browser's reason) where the page may not write the
// clipboard (no focus, no permission).
func writeClipboard(text, note, done, refused string) {
	cb := js.Global().Get("navigator").Get("clipboard")
	if !cb.Truthy() {
		setText(note, fmt.Sprintf(refused, "this page has no clipboard access"))
		return
	}
	var ok, fail js.Func
	release := func() { ok.Release(); fail.Release() }
	ok = js.FuncOf(func(js.Value, []js.Value) any {
		setText(note, done)
		release()
		return nil
	})
	fail = js.FuncOf(func(_ js.Value, args []js.Value) any {
		why := "refused"
		if len(args) > 0 && args[0].Truthy() && args[0].Get("message").Truthy() {
			why = args[0].Get("message").String()
		}
		setText(note, fmt.Sprintf(refused, why))
		release()
		return nil
	})
	cb.Call("writeText", text).Call("then", ok, fail)
}
