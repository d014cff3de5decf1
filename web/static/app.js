// fkc playground — the bootstrap. Go (compiled to WebAssembly, ./wasm)
// renders every page; this file loads it, forwards DOM events to it, and
// highlights what a hovered cell's data-from names. It knows no op, flag,
// dtype or cost field: the markup Go writes carries everything.
//
// Scripting API (same contract as `fkc run`, SPEC §5):
//   await fkc.ready
//   fkc.kernels()  → [{name, provider, backend, op_kind, registrable, dtypes}]
//   await fkc.run({op, backend: "cpu"|"webgpu", flags: [...], inputs: {name: base64 .npy | {shape, dtype, fill}}, kernel})
//                  → {kernel, provider, resolved, npy}   (rejects with Error("fkc: …"))
//                  resolved: what the call's resolving changed, e.g. ["dim -1 → 1", "indices I64 → U32"]
//   await fkc.bench({op, backend, flags, inputs: {name: {shape, dtype, fill}}, reps})
//                  → {kernel, median_ms, times_ms, tensor_bytes, bytes_moved, gb_per_s, device_ms, kernel_ms}
//   await fkc.verify({backend, cases, seed, onProgress})
//                  → {passed, failed, skipped, lines}   (`fkc verify` in the tab)
//   await fkc.lab.template({kernel})            → the plain WGSL kernel (`fkc lab template`)
//   await fkc.lab.check({kernel, wgsl, cases, seed})
//                  → {kernel, cases, passed, skipped, ok, ms, failed: {case, why, wrong, report}, repro}
//   await fkc.lab.bench({kernel, wgsl, elems, reps}) → [{variant, dtype, mine_ms, builtin_ms, …, credible, text}]
"use strict";

(() => {
  const t0 = performance.now();
  // The WebAssembly is fetched from the moment this script runs (early in
  // the head, before the body is parsed): the 15 MB reaching the page and
  // compiling is most of the time to interactive. It is compiled once the
  // page is on screen (boot): V8 decodes the streamed bytes on the main
  // thread, which held the first paint back by seconds on a busy machine.
  const wasmFetch = fetch("app.wasm");
  wasmFetch.catch(() => {}); // a failure is the compile's to report
  let compiled = null;
  const compile = () => compiled || (compiled = WebAssembly.compileStreaming(wasmFetch)
    .catch(() => fetch("app.wasm").then((r) => r.arrayBuffer()).then((b) => WebAssembly.compile(b)))); // wrong MIME type or no streaming
  let go = null; // the Go bridge (globalThis.__fkcGo)
  let readyResolve, readyReject;
  const ready = new Promise((res, rej) => { readyResolve = res; readyReject = rej; });
  ready.catch(() => {}); // a failed load is shown on the page; do not also raise an unhandled rejection
  let gpu = { done: false, available: false, reason: "" };

  window.fkc = {
    ready,
    timing: {},
    kernels() {
      if (!go) throw new Error("fkc: not loaded yet (await fkc.ready)");
      return JSON.parse(callSync("kernels"));
    },
    async run(req) {
      await ready;
      const r = await callAsync("run", request("run", req));
      return { kernel: r.kernel, provider: r.provider, resolved: Array.from(r.resolved), npy: r.npy };
    },
    async bench(req) {
      await ready;
      return JSON.parse(await callAsync("bench", request("bench", req)));
    },
    // calls in one GPU submission; an input {result: K} is call K's result,
    // kept on the GPU. Answers {results: [{kernel, provider, npy}], ms}.
    async chain(req) {
      await ready;
      const r = await callAsync("chain", request("chain", req));
      return { ms: r.ms, results: Array.from(r.results, (x) => ({ kernel: x.kernel, provider: x.provider, npy: x.npy })) };
    },
    // onProgress (optional) is called after each binding with
    // {done, total, line}; the window also gets an "fkc-verify-progress"
    // event with the same detail.
    async verify(req) {
      await ready;
      let onProgress = null;
      if (req && typeof req === "object" && "onProgress" in req) {
        if (typeof req.onProgress !== "function") throw new Error("fkc: verify: onProgress is not a function");
        onProgress = req.onProgress;
        req = Object.assign({}, req);
        delete req.onProgress;
      }
      const progress = (p) => {
        const detail = { done: p.done, total: p.total, line: p.line };
        window.dispatchEvent(new CustomEvent("fkc-verify-progress", { detail }));
        if (onProgress) onProgress(detail);
      };
      return JSON.parse(await callAsync("verify", request("verify", req), progress));
    },
    gpu() { return Object.assign({}, gpu); },
    // The kernel lab (docs/lab.md): `fkc lab template|check|bench` in the tab.
    lab: {
      async template(req) { await ready; return await callAsync("labTemplate", request("lab.template", req)); },
      async check(req) { await ready; return JSON.parse(await callAsync("labCheck", request("lab.check", req))); },
      async bench(req) { await ready; return JSON.parse(await callAsync("labBench", request("lab.bench", req))); },
    },
  };

  // request is a console call's argument as JSON for Go. JSON has no NaN,
  // Infinity or BigInt: stringify would turn the first two into null (a
  // shape [NaN] became [0], a fill NaN a zero fill) and throw a TypeError
  // on the third, so each is refused here by its field's name.
  function request(call, req) {
    if (req === undefined || req === null) req = {};
    if (typeof req !== "object" || Array.isArray(req)) {
      throw new Error(`fkc: ${call} takes one object, e.g. fkc.${call}({op: "pad", ...}); got ${Array.isArray(req) ? "an array" : typeof req}`);
    }
    try {
      return JSON.stringify(req, function (key, v) {
        const where = key === "" ? call : /^\d+$/.test(key) ? `element ${key} of a list` : key;
        if (typeof v === "number" && !Number.isFinite(v)) throw new Error(`fkc: ${where} is ${v}: JSON carries finite numbers only`);
        if (typeof v === "bigint") throw new Error(`fkc: ${where} is a BigInt (${v}n): pass a Number`);
        return v;
      });
    } catch (e) {
      // A getter that throws, a cycle, a string past the engine's length
      // limit: every refusal names the call, as SPEC §6 promises.
      const msg = e && e.message ? e.message : String(e);
      throw new Error(msg.startsWith("fkc: ") ? msg : `fkc: ${call}: the request could not be serialised: ${msg}`);
    }
  }

  // ---------- every page before the app ----------
  // Go drew every route's page at build time (web/gen): the catalog is in
  // index.html, the others in pre/ROUTE.html, listed in the head's
  // fkc-prerendered meta tag. Until Go runs, this shows the page of the
  // address (and of each link followed), with its controls disabled; Go
  // then draws the live page in its place (route, in boot).
  const preRoutes = new Set(((document.querySelector('meta[name="fkc-prerendered"]') || {}).content || "").split(" ").filter(Boolean));
  // pathOf is a hash's route path with its escapes decoded ("/" for none).
  function pathOf(hash) {
    const p = hash.replace(/^#/, "").split("?")[0] || "/";
    try { return decodeURIComponent(p); } catch (e) { return null; }
  }
  let catalogNodes = null; // the catalog of index.html, while another page is shown
  let preShown = "";       // the route whose page is shown ("/": the catalog)
  function fetchPre(route) {
    if (!preRoutes.has(route)) return null;
    return fetch("pre" + route.split("/").map(encodeURIComponent).join("/") + ".html")
      .then((r) => r.ok ? r.text() : null, () => null);
  }
  // prePage shows the prerendered page of hash, if there is one, while Go
  // has not started; otherwise the page stays hidden until Go draws it.
  // It answers a promise of the page being in the DOM (or of nothing to show).
  function prePage(hash, fetched) {
    const route = pathOf(hash);
    const main = document.getElementById("main");
    if (!main) return Promise.resolve(); // not parsed yet: boot shows it
    if (route === "/") {
      if (catalogNodes) { main.replaceChildren(catalogNodes); catalogNodes = null; }
      main.dataset.prerendered = "/";
      shown("/", hash);
      return Promise.resolve();
    }
    document.documentElement.classList.add("pre-hide");
    const p = fetched || (route && fetchPre(route));
    if (!p) return Promise.resolve();
    return p.then((text) => {
      if (go || !text || location.hash !== hash) return; // Go drew it, or the page moved on
      const box = document.createElement("div");
      box.innerHTML = text;
      const page = box.querySelector("template");
      if (!page) return;
      if (!catalogNodes && main.dataset.prerendered === "/") {
        catalogNodes = document.createDocumentFragment();
        catalogNodes.append(...main.childNodes);
      }
      main.replaceChildren(page.content);
      main.dataset.prerendered = route;
      document.title = page.dataset.title;
      // Controls need Go: disabled, saying so, until it has drawn the page.
      for (const el of main.querySelectorAll("button, input, select, textarea")) { el.disabled = true; el.title = "loading the app…"; }
      window.scrollTo(0, 0);
      shown(route, hash);
    });
  }
  // shown marks the page as on screen, with a note while Go loads.
  function shown(route, hash) {
    preShown = route;
    document.documentElement.classList.remove("pre-hide");
    requestAnimationFrame(() => { window.fkc.timing.contentMs = window.fkc.timing.contentMs || performance.now(); });
    let note = document.getElementById("pre-note");
    if (route === "/" && !hash.includes("?")) { // the catalog's search works before Go (early)
      if (note) note.remove();
      return;
    }
    if (!note) {
      note = document.createElement("p");
      note.id = "pre-note";
      note.className = "pre-note";
      note.setAttribute("role", "status");
      document.getElementById("banners").append(note);
    }
    note.textContent = "Loading the app… the page is ready to read; its controls work once the app has loaded" +
      (hash.includes("?") ? ", and then this link's settings apply." : ".");
  }
  const firstRoute = pathOf(location.hash);
  const firstPre = firstRoute && firstRoute !== "/" ? fetchPre(firstRoute) : null;
  if (pathOf(location.hash) !== "/") document.documentElement.classList.add("pre-hide"); // no flash of the catalog
  window.addEventListener("hashchange", () => {
    if (go) return;
    early = []; // events of the page left apply to it only
    prePage(location.hash);
  });

  // ---------- the Go bridge ----------
  function callSync(name, ...args) {
    if (!go) throw new Error("fkc: the Go app is not running");
    let r;
    try { r = go[name](...args); } catch (e) { throw new Error("fkc: the Go app stopped: " + e.message); }
    if (r && typeof r === "object" && r.__fkcError) throw new Error(r.__fkcError);
    return r;
  }
  async function callAsync(name, ...args) {
    if (!go) throw new Error("fkc: the Go app is not running");
    let p;
    try { p = go[name](...args); } catch (e) { throw new Error("fkc: the Go app stopped: " + e.message); }
    return await p;
  }
  // A UI call that fails is shown, not thrown: the page keeps working.
  // Before Go has started (the catalog is on screen from the first paint)
  // events wait in early and are replayed once it has taken the page over.
  let early = [];
  function send(name, ...args) {
    if (!go && early) { early.push([name, args]); return; }
    try { callSync(name, ...args); } catch (e) { banner("err", e.message); }
  }

  window.fkcReportPanic = (msg) => banner("err", "Internal error — " + msg + " (the page keeps working; please report it)");
  window.__fkcGoStarted = (api) => { go = api; };
  window.fkcBanner = (kind, text) => banner(kind, text); // Go's notes on a link it could not read whole

  function banner(kind, text) {
    const b = document.createElement("div");
    b.className = "banner " + kind;
    b.setAttribute("role", "alert");
    const x = document.createElement("button");
    x.className = "x"; x.type = "button"; x.textContent = "×"; x.setAttribute("aria-label", "dismiss");
    x.onclick = () => b.remove();
    b.append(document.createTextNode(text), x);
    document.getElementById("banners").append(b);
  }

  async function boot() {
    const tm = window.fkc.timing;
    watchOverflow();
    // The catalog is in the page already (drawn at build time); another
    // page's is fetched (prePage), or waits for Go to draw it.
    const main = document.getElementById("main");
    const onScreen = prePage(location.hash, pathOf(location.hash) === firstRoute ? firstPre : null);
    try {
      const g = new Go();
      // Compiling the app and Go's start-up hold the main thread (seconds,
      // on a busy machine): the page drawn at build time is painted before
      // them, unless its file takes longer than half a second.
      await Promise.race([onScreen, new Promise((res) => setTimeout(res, 500))]);
      // (A hidden tab draws no frame: it waits for none; a busy machine may
      // take long for one, so a visible tab waits up to a second.)
      await new Promise((res) => { requestAnimationFrame(() => setTimeout(res, 0)); setTimeout(res, document.hidden ? 0 : 1000); });
      const result = { module: await compile() };
      result.instance = await WebAssembly.instantiate(result.module, g.importObject);
      globalThis.wasm = result; // cogentcore/webgpu's JS binding reads wasm.instance.exports.mem
      // kernels/gpu uploads straight from the Go memory: the view is made in
      // the call, so no heap growth since Go made the arguments detaches it.
      globalThis.__fkcWriteView = (q, b, off, ptr, n) => q.writeBuffer(b, off, new Uint8Array(result.instance.exports.mem.buffer, ptr, n));
      tm.wasmLoadedMs = performance.now() - t0;
      g.run(result.instance).then(() => {
        go = null;
        banner("err", "The Go program exited; reload the page. (See the console for its last words.)");
      }, (e) => {
        go = null;
        banner("err", "The Go program crashed: " + e.message + " — reload the page.");
      });
      if (!go) throw new Error("the Go app did not start (no __fkcGo)");
      tm.goStartedMs = performance.now() - t0;
      tm.goEngineMs = go.loadMs; // contracts loaded, registry built, links installed (inside Go)
      const t1 = performance.now();
      // Go draws the live page over the prerendered one in one task: no
      // frame shows in between, and the reader's place is kept.
      const x = window.scrollX, y = window.scrollY, kept = preShown !== "" && preShown === pathOf(location.hash);
      try { callSync("route", location.hash); } finally { document.documentElement.classList.remove("pre-hide"); }
      if (kept) window.scrollTo(x, y);
      const note = document.getElementById("pre-note");
      if (note) note.remove();
      catalogNodes = null;
      tm.renderMs = performance.now() - t1;
      tm.interactiveMs = performance.now(); // since navigation start: the page is drawn and Go answers events
      tm.catalogMs = performance.now() - t0;
      window.addEventListener("hashchange", () => send("route", location.hash));
      const waiting = early;
      early = null;
      for (const [name, args] of waiting) if (name !== "route") send(name, ...args); // the route above drew the current hash
      gpu = JSON.parse(await callAsync("gpu"));
      tm.readyMs = performance.now() - t0;
      tm.readyAtMs = performance.now(); // since navigation start, as interactiveMs
      readyResolve();
    } catch (e) {
      early = null;
      document.getElementById("main").innerHTML = "";
      banner("err", "The playground failed to load: " + e.message);
      // the console API's promises reject with one "fkc: …" Error, as every
      // other failure of fkc.run / fkc.bench does (SPEC §6)
      readyReject(new Error("fkc: the playground failed to load: " + e.message));
    }
  }

  // ---------- events → Go ----------
  // The values of the controls of el's form (or of el itself, outside a form).
  function values(el) {
    const form = el.tagName === "FORM" ? el : el.closest("form");
    if (form) return Object.fromEntries(new FormData(form));
    return Object.fromEntries([...el.querySelectorAll("[name]")].map(c => [c.name, c.value]));
  }
  function forward(type, el, target) {
    send("event", JSON.stringify({ type, action: el.dataset.action, name: target ? target.name || "" : "", data: Object.assign({}, el.dataset), form: values(el) }));
  }
  document.addEventListener("click", (e) => {
    const el = e.target.closest("button[data-action], a[data-action]");
    if (el && !el.disabled) { e.preventDefault(); forward("click", el); }
  });
  for (const type of ["input", "change"]) { // capture: a script's non-bubbling Event("input") counts too
    document.addEventListener(type, (e) => {
      const el = e.target.closest && e.target.closest("[data-action]");
      if (el) forward(type, el, e.target);
    }, true);
  }
  // The lab's editor: its gutter scrolls with the text.
  document.addEventListener("scroll", (e) => {
    if (e.target.id === "lab-code") { const g = document.getElementById("lab-gutter"); if (g) g.scrollTop = e.target.scrollTop; }
  }, true);
  document.addEventListener("toggle", (e) => { if (e.target.dataset && e.target.dataset.action) forward("toggle", e.target); }, true);
  document.addEventListener("submit", (e) => { if (e.target.getAttribute("method") !== "dialog") e.preventDefault(); });
  // A file dropped on a [data-drop] element goes to the file input it names
  // (Go reads it from there, as if chosen).
  const dropInput = (e) => { const el = e.target.closest && e.target.closest("[data-drop]"); return el && document.getElementById(el.dataset.drop); };
  document.addEventListener("dragover", (e) => { if (dropInput(e) && e.dataTransfer.types.includes("Files")) e.preventDefault(); });
  document.addEventListener("drop", (e) => {
    const input = dropInput(e);
    if (!input || !e.dataTransfer.files.length) return;
    e.preventDefault();
    input.files = e.dataTransfer.files;
    input.dispatchEvent(new Event("change", { bubbles: true }));
  });

  // ---------- hover and focus: what a cell reads, or is read by ----------
  // Go writes, on every drawn cell, data-from ("x:3 x:4": grid:flat index;
  // "out:5" is every output grid) and data-info (the sentence to show).
  // Refs resolve within the cell's picture: the nearest [data-scope] (a
  // panel with its own input, as each of Learn padding's folds), else its
  // section (a page may draw several pictures).
  function cellsOf(scope, ref) {
    const [grid, i] = ref.split(":");
    const sel = grid === "out" ? `.gridbox.out .cell[data-i="${i}"]` : `.gridbox[data-grid="${grid}"] .cell[data-i="${i}"]`;
    let found = scope.querySelectorAll(sel);
    if (!found.length && grid !== "out" && go) { // on another slice: bring it into view
      if (callSync("reveal", grid, Number(i))) found = scope.querySelectorAll(sel);
    }
    return found;
  }
  function highlight(cell) {
    document.querySelectorAll(".cell.src, .cell.me").forEach(c => c.classList.remove("src", "me"));
    const info = document.getElementById("hoverinfo");
    if (!cell) { if (info) info.textContent = "Hover or focus a cell to see where it came from."; return; }
    const scope = cell.closest("[data-scope], section") || document;
    const same = cell.closest(".gridbox.out") && !cell.closest(".mode") ? scope.querySelectorAll(`.gridbox.out .cell[data-i="${cell.dataset.i}"]`) : [cell];
    same.forEach(c => c.classList.add("me"));
    for (const ref of (cell.dataset.from || "").split(" ").filter(Boolean)) cellsOf(scope, ref).forEach(c => c.classList.add("src"));
    if (info) info.textContent = cell.dataset.info || "";
  }
  document.addEventListener("mouseover", (e) => { const c = e.target.closest(".cell"); if (c) highlight(c); });
  document.addEventListener("focusin", (e) => { if (e.target.classList && e.target.classList.contains("cell")) highlight(e.target); });
  document.addEventListener("mouseout", (e) => { if (e.target.closest(".cells") && !e.relatedTarget?.closest?.(".cells")) highlight(null); });
  // The contract editor's gutter (findings beside their lines) scrolls with its text.
  document.addEventListener("scroll", (e) => {
    if (e.target.id !== "author-src") return;
    const g = document.querySelector("#author-gutter .gutter-in");
    if (g) g.style.transform = `translateY(${-e.target.scrollTop}px)`;
  }, true);
  // Arrow keys move between a grid's cells (one tab stop per grid).
  document.addEventListener("keydown", (e) => {
    const c = e.target.classList && e.target.classList.contains("cell") ? e.target : null;
    const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: "up", ArrowDown: "down" }[e.key];
    if (!c || !step) return;
    const grid = c.closest(".cells"), cells = [...grid.querySelectorAll(".cell")], at = cells.indexOf(c);
    const cols = (grid.style.gridTemplateColumns.match(/repeat\((\d+)/) || [0, cells.length])[1] | 0;
    const to = cells[step === "up" ? at - cols : step === "down" ? at + cols : at + step];
    if (to) { e.preventDefault(); c.tabIndex = -1; to.tabIndex = 0; to.focus(); }
  });

  // ---------- grids wider than their box ----------
  // A grid's box is marked .overflows when it scrolls sideways, which shows
  // its scroll hint (narrow screens): checked when grids are drawn and on resize.
  const markOverflow = () => document.querySelectorAll(".gbody").forEach((b) => b.classList.toggle("overflows", b.scrollWidth > b.clientWidth + 1));
  let overflowQueued = false;
  const queueOverflow = () => { if (!overflowQueued) { overflowQueued = true; requestAnimationFrame(() => { overflowQueued = false; markOverflow(); }); } };
  const watchOverflow = () => { // once the page is parsed (this script loads async)
    new MutationObserver(queueOverflow).observe(document.getElementById("main"), { childList: true, subtree: true });
    window.addEventListener("resize", queueOverflow);
  };

  // ---------- keys ----------
  // "/" focuses the catalog's search (from any page), Enter in a Try-it
  // field runs it again on the backends of the last run, "?" opens the list
  // of keys (#keys, in index.html).
  const typing = (el) => el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
    const form = e.target.closest && e.target.closest("form.tryform");
    if (e.key === "Enter" && form && e.target.tagName === "INPUT" && e.target.type !== "file") {
      e.preventDefault();
      const last = form.dataset.last || "cpu";
      const b = form.querySelector(`button[data-backends="${last}"]:not([disabled])`) || form.querySelector("#run-cpu");
      if (b) b.click();
      return;
    }
    if (typing(e.target)) return;
    if (e.key === "/") {
      e.preventDefault();
      const q = () => document.querySelector('form.filters input[name="q"]');
      if (q()) { q().focus(); return; }
      location.hash = "#/";
      const wait = (n) => { if (q()) q().focus(); else if (n > 0) setTimeout(() => wait(n - 1), 50); };
      wait(100);
    } else if (e.key === "?") {
      const d = document.getElementById("keys");
      if (d && !d.open) { e.preventDefault(); d.showModal(); }
    }
  });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
