// fkc playground — the page. Go (compiled to WebAssembly, ./wasm) does the
// work: contracts, dispatch, kernels, provenance, markdown. This file only
// draws: the catalog, kernel pages, the Try-it form and the grids.
//
// Scripting API (same contract as `fkc run`, SPEC §5):
//   await fkc.ready
//   fkc.kernels()  → [{name, provider, backend, op_kind, registrable, dtypes}]
//   await fkc.run({op, backend: "cpu"|"webgpu", flags: [...], inputs: {name: base64 .npy}})
//                  → {kernel, provider, npy}   (rejects with Error("fkc: …"))
//   await fkc.bench({op, backend, flags, inputs: {name: {shape, dtype, fill}}, reps})
//                  → {kernel, median_ms, times_ms, bytes_moved, gb_per_s}
"use strict";

(() => {
  let go = null; // the Go bridge (globalThis.__fkcGo)
  let catalog = null;
  let gpu = { done: false, available: false, reason: "" };
  let readyResolve, readyReject;
  const t0 = performance.now();

  // ---------- public API ----------
  const ready = new Promise((res, rej) => { readyResolve = res; readyReject = rej; });
  ready.catch(() => {}); // a failed load is shown on the page; do not also raise an unhandled rejection
  window.fkc = {
    ready,
    timing: {},
    kernels() {
      if (!catalog) throw new Error("fkc: not loaded yet (await fkc.ready)");
      return catalog.kernels.map(k => ({
        name: k.name, provider: k.provider, backend: k.backend, op_kind: k.op_kind,
        registrable: k.registrable, dtypes: k.dtypes || [],
      }));
    },
    async run(req) {
      await ready;
      const r = await callAsync("run", JSON.stringify(req || {}));
      return { kernel: r.kernel, provider: r.provider, npy: r.npy };
    },
    async bench(req) {
      await ready;
      return JSON.parse(await callAsync("bench", JSON.stringify(req || {})));
    },
    gpu() { return Object.assign({}, gpu); },
  };

  // ---------- Go bridge ----------
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

  // Go calls these.
  window.fkcReportPanic = (msg) => banner("err", "Internal error — " + msg + " (the page keeps working; please report it)");
  window.__fkcGoStarted = (api) => { go = api; };

  async function boot() {
    try {
      const g = new Go();
      let result;
      const resp = fetch("app.wasm");
      try {
        result = await WebAssembly.instantiateStreaming(resp, g.importObject);
      } catch (e) { // wrong MIME type or no streaming: fall back to bytes
        const bytes = await (await fetch("app.wasm")).arrayBuffer();
        result = await WebAssembly.instantiate(bytes, g.importObject);
      }
      // cogentcore/webgpu's JS binding reads wasm.instance.exports.mem.
      globalThis.wasm = result;
      window.fkc.timing.wasmLoadedMs = performance.now() - t0;
      g.run(result.instance).then(() => {
        go = null;
        banner("err", "The Go program exited; reload the page. (See the console for its last words.)");
      }, (e) => {
        go = null;
        banner("err", "The Go program crashed: " + e.message + " — reload the page.");
      });
      if (!go) throw new Error("the Go app did not start (no __fkcGo)");
      const tm = window.fkc.timing;
      tm.goStartedMs = performance.now() - t0;
      tm.goEngineMs = go.loadMs; // contracts parsed, registry built, links installed (inside Go)
      let t1 = performance.now();
      catalog = JSON.parse(callSync("catalog"));
      tm.catalogJSONMs = performance.now() - t1;
      window.addEventListener("hashchange", route);
      const gpuP = callAsync("gpu");
      // A kernel page needs to know about WebGPU (its buttons, its own
      // backend); the catalog does not wait for it.
      if ((location.hash || "").startsWith("#/k/")) gpu = JSON.parse(await gpuP);
      t1 = performance.now();
      route();
      tm.renderMs = performance.now() - t1;
      tm.catalogMs = performance.now() - t0;
      gpu = JSON.parse(await gpuP);
      showGPU();
      if (gpu.available) { // the WGSL kernels are linked now
        catalog = JSON.parse(callSync("catalog"));
      }
      { // the catalog's "runs here" column and legend know about WebGPU now
        document.querySelectorAll("tr.krow").forEach(tr => {
          const k = catalog.kernels.find(x => x.id === tr.dataset.id);
          const td = tr.querySelector("td.link");
          if (k && td) { td.innerHTML = ""; td.append(linkBadge(k)); }
        });
        const st = document.getElementById("runs-gpu-state");
        if (st) st.textContent = gpuWord();
      }
      window.fkc.timing.readyMs = performance.now() - t0;
      readyResolve();
    } catch (e) {
      document.getElementById("main").innerHTML = "";
      banner("err", "The playground failed to load: " + e.message);
      readyReject(e);
    }
  }

  // ---------- small DOM helpers ----------
  function h(tag, attrs, ...kids) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") el.className = v;
      else if (k === "html") el.innerHTML = v;
      else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? "" : v);
    }
    for (const kid of kids.flat(Infinity)) {
      if (kid === null || kid === undefined || kid === false) continue;
      el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
    return el;
  }
  function banner(kind, text, id) {
    const box = document.getElementById("banners");
    if (id && document.getElementById(id)) return;
    const b = h("div", { class: "banner " + kind, id, role: "alert" }, h("span", {}, text),
      h("button", { class: "x", title: "dismiss", onclick: () => b.remove() }, "×"));
    box.append(b);
  }
  function showGPU() {
    const pill = document.getElementById("gpu-pill");
    if (gpu.available) {
      pill.textContent = "WebGPU: ready";
      pill.className = "pill ok";
    } else {
      pill.textContent = "WebGPU: unavailable";
      pill.className = "pill warn";
      banner("warn", "WebGPU is not available in this browser (" + gpu.reason + "). Everything else works: the CPU kernels run here too. " +
        "For the GPU path use a WebGPU browser (Chrome/Edge ≥ 113; on Linux start Chromium with --enable-unsafe-webgpu).", "no-webgpu");
    }
  }
  const chip = (dt) => h("span", { class: "chip " + dtClass(dt) }, dt);
  function dtClass(dt) {
    if (/^(F|BF)/.test(dt)) return "dt-f";
    if (dt === "BOOL") return "dt-b";
    return "dt-i";
  }
  function detBadge(d) {
    const cls = d === "bitwise" ? "ok" : d === "nondeterministic" ? "warn" : "info";
    return h("span", { class: "badge " + cls, title: "determinism" }, d || "?");
  }

  // ---------- routing ----------
  function route() {
    const hash = location.hash || "#/";
    const [path, query] = hash.slice(1).split("?");
    const params = new URLSearchParams(query || "");
    const main = document.getElementById("main");
    main.innerHTML = "";
    window.scrollTo(0, 0);
    if (path.startsWith("/k/")) {
      const id = decodeURIComponent(path.slice(3));
      kernelPage(main, id, params);
    } else if (path === "/api") {
      apiPage(main);
    } else {
      catalogPage(main, params);
    }
  }

  // ---------- catalog ----------
  function catalogPage(main, params) {
    const ks = catalog.kernels;
    const uniq = (f) => [...new Set(ks.flatMap(f))].filter(Boolean).sort();
    const mkSelect = (name, label, opts) => h("label", {}, label,
      h("select", { name }, h("option", { value: "" }, "any"), opts.map(o => h("option", { value: o }, o))));
    const form = h("form", { class: "filters", onsubmit: (e) => e.preventDefault() },
      h("input", { type: "search", name: "q", placeholder: "Search kernels, blurbs, entry points…", autofocus: true }),
      mkSelect("op", "op", uniq(k => [k.op || k.op_kind])),
      mkSelect("backend", "backend", uniq(k => [k.backend])),
      mkSelect("dtype", "dtype", uniq(k => k.dtypes || [])),
      mkSelect("det", "determinism", uniq(k => [k.determinism])),
      h("label", { class: "check" }, h("input", { type: "checkbox", name: "reg" }), "registrable only"),
      h("label", { class: "check", title: "CPU kernels always run here; WebGPU kernels when this browser has WebGPU" }, h("input", { type: "checkbox", name: "runs" }), "runnable here"),
      h("span", { class: "count", id: "count" }));
    for (const [k, v] of params) {
      const el = form.elements[k];
      if (!el) continue;
      if (el.type === "checkbox") el.checked = v === "1"; else el.value = v;
    }
    const list = h("div", { id: "catalog" });
    main.append(
      h("section", { class: "intro" },
        h("h1", {}, "Kernel contracts"),
        h("p", {}, `${catalog.providers.length} providers, ${ks.length} kernels. Every contract (the four seed documents and this project's own) is loaded, fanned out into registry bindings and linked to an implementation — here, in your browser. Open a kernel to read its contract and run it on the CPU or on WebGPU.`)),
      form,
      h("p", { class: "runs-legend muted small" }, "Runs here: ", h("span", { class: "badge run-cpu" }, "▶ CPU"), " every CPU kernel runs in this page; ",
        h("span", { class: "badge run-gpu" }, "▶ WebGPU"), " GPU kernels run on this browser's WebGPU (", h("span", { id: "runs-gpu-state" }, gpuWord()), "); ",
        h("span", { class: "badge muted" }, "docs only"), " no fkc run op exercises the kernel (its contract is documentation)."),
      list, lintSection());
    const apply = () => {
      const f = Object.fromEntries(new FormData(form));
      const q = (f.q || "").toLowerCase().trim();
      const ks = catalog.kernels; // refreshed once the WGSL kernels are linked
      const match = (k) =>
        (!q || [k.name, k.blurb, k.op_kind, k.entry_point, k.provider, k.op].join(" ").toLowerCase().includes(q)) &&
        (!f.op || (k.op || k.op_kind) === f.op) &&
        (!f.backend || k.backend === f.backend) &&
        (!f.dtype || (k.dtypes || []).includes(f.dtype)) &&
        (!f.det || k.determinism === f.det) &&
        (!f.reg || k.registrable) &&
        (!f.runs || runsHere(k) === "yes");
      list.innerHTML = "";
      let shown = 0;
      for (const p of catalog.providers) {
        const rows = ks.filter(k => k.file === p.file && match(k)); // two documents may share a provider name
        shown += rows.length;
        if (!rows.length) continue;
        list.append(providerSection(p, rows));
      }
      document.getElementById("count").textContent = `${shown} of ${ks.length} kernels`;
      // keep the filters in the URL (shareable), without a new history entry
      const qp = new URLSearchParams();
      for (const [k, v] of Object.entries(f)) if (v) qp.set(k, v === "on" ? "1" : v);
      const s = qp.toString();
      history.replaceState(null, "", "#/" + (s ? "?" + s : ""));
    };
    form.addEventListener("input", apply);
    apply();
  }

  function providerSection(p, rows) {
    return h("section", { class: "provider" },
      h("div", { class: "phead" },
        h("h2", {}, p.name),
        h("span", { class: "badge be" }, p.backend),
        h("span", { class: "muted" }, `${p.file} · ${p.kernel_count} kernels`),
        p.rebuilt && p.rebuilt.length ? h("span", { class: "badge warn", title: "The loader rebuilt the YAML nesting of: " + p.rebuilt.join(", ") }, "indentation rebuilt by the loader") : null),
      h("details", { class: "pprose", ontoggle: (e) => { // prose is rendered (goldmark, in Go) on first open
        const box = e.target.querySelector(".prose");
        if (e.target.open && !box.dataset.done) { box.dataset.done = "1"; try { box.innerHTML = callSync("providerProse", p.file); } catch (err) { box.textContent = err.message; } }
      } }, h("summary", {}, p.title || "About this provider"), h("div", { class: "prose" })),
      h("table", { class: "kt" },
        h("thead", {}, h("tr", {}, ["kernel", "op", "dtypes", "determinism", "registry", "runs here", "lint"].map(t => h("th", {}, t)))),
        h("tbody", {}, rows.map(k => h("tr", { class: "krow", "data-id": k.id },
          h("td", {}, h("a", { href: "#/k/" + encodeURIComponent(k.id) }, k.name), h("div", { class: "blurb" }, k.blurb)),
          h("td", {}, h("code", {}, k.op_kind), k.op ? h("div", { class: "muted small" }, "fkc run " + k.op + (k.mode ? " --mode " + k.mode : "")) : null),
          h("td", {}, (k.dtypes || []).map(chip)),
          h("td", {}, detBadge(k.determinism)),
          h("td", {}, k.registrable ? h("span", { class: "badge ok" }, "registrable") : h("span", { class: "badge muted", title: "registrable: false — shown in docs, never dispatched" }, "describe-only")),
          h("td", { class: "link" }, linkBadge(k)),
          h("td", {}, k.lint ? h("span", { class: "badge warn" }, k.lint) : "")))))
    );
  }

  // runsHere says whether Try it can run this very kernel in this page:
  // "yes", "adapter" (linked, but this GPU cannot: e.g. f64 atomics),
  // "nogpu" (a GPU kernel, no WebGPU here) or "no" (nothing exercises it).
  const gpuWord = () => gpu.available ? "available" : gpu.done ? "not available in this browser" : "starting…";
  function runsHere(k) {
    if (k.backend === "Vulkan") {
      if (!gpu.available) return k.op ? "nogpu" : "no";
      if (!k.linked || !k.op) return "no";
      return /not available on this adapter/.test(k.where || "") ? "adapter" : "yes";
    }
    return k.linked && k.op ? "yes" : "no";
  }
  function linkBadge(k) {
    const gpuK = k.backend === "Vulkan";
    switch (runsHere(k)) {
      case "yes": return h("span", { class: "badge " + (gpuK ? "run-gpu" : "run-cpu"), title: "linked → " + k.where }, gpuK ? "▶ WebGPU" : "▶ CPU");
      case "adapter": return h("span", { class: "badge warn", title: k.where }, "WebGPU: not on this adapter");
      case "nogpu": return h("span", { class: "badge muted", title: gpu.done ? "WebGPU is not available in this browser: " + gpu.reason : "waiting for WebGPU" }, gpu.done ? "needs WebGPU" : "WebGPU…");
    }
    return h("span", { class: "badge muted", title: k.linked ? "linked → " + k.where + "; no `fkc run` op exercises it" : "no implementation in this build" }, "docs only");
  }

  function lintSection() {
    const l = catalog.lint || [];
    if (!l.length) return null;
    return h("details", { class: "lint" }, h("summary", {}, `Lint findings (${l.length})`),
      h("ul", {}, l.map(d => h("li", {}, h("span", { class: "badge " + (d.severity === "error" ? "err" : "warn") }, d.code || d.severity), " ", h("code", {}, `${d.file}:${d.line}`), " ", d.message))));
  }

  // ---------- kernel page ----------
  function kernelPage(main, id, params) {
    let d;
    try { d = JSON.parse(callSync("kernel", id)); } catch (e) {
      main.append(h("p", { class: "err" }, e.message), h("a", { href: "#/" }, "← back to the catalog"));
      return;
    }
    const k = d.contract, s = d.summary;
    document.title = k.kernel + " — fkc playground";
    main.append(
      h("div", { class: "crumbs" }, h("a", { href: "#/" }, "Catalog"), " › ", s.provider, " › ", h("b", {}, k.kernel)),
      h("section", { class: "khead" },
        h("h1", {}, k.kernel),
        h("p", { class: "lead" }, k.blurb),
        h("div", { class: "badges" },
          h("span", { class: "badge be" }, k.backend), h("span", { class: "badge" }, "op_kind " + k.op_kind),
          k.registrable ? h("span", { class: "badge ok" }, "registrable") : h("span", { class: "badge muted" }, "describe-only (registrable: false)"),
          detBadge(k.determinism),
          s.linked ? h("span", { class: "badge " + (runsHere(s) === "adapter" ? "warn" : "ok"), title: s.entry_point }, "linked → " + s.where) :
            h("span", { class: "badge muted", title: s.entry_point }, "not linked" + (k.backend === "Vulkan" && !gpu.available ? " (needs WebGPU)" : "")),
          d.lint && d.lint.length ? h("span", { class: "badge warn" }, `${d.lint.length} lint finding${d.lint.length > 1 ? "s" : ""}`) : null),
        d.dispatch ? h("p", { class: "dispatch", html: inlineCode(d.dispatch) }) : null),
      h("details", { class: "prose card", open: "" }, h("summary", {}, h("h2", {}, "What the contract says")), h("div", { html: d.prose_html })),
    );
    if (d.defaults) main.append(tryPanel(d, params));
    else main.append(h("p", { class: "muted" }, `No \`fkc run\` op exercises op_kind ${k.op_kind}; this contract is documentation only.`));
    main.append(contractTables(d));
  }

  // inlineCode renders `code` spans of a plain-text note (escaped first).
  function inlineCode(text) {
    const esc = text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    return esc.replace(/`([^`]+)`/g, "<code>$1</code>");
  }

  function kv(obj) {
    return h("table", { class: "kv" }, h("tbody", {}, obj.filter(Boolean).map(([k, v]) => h("tr", {}, h("th", {}, k), h("td", {}, v)))));
  }
  const code = (s) => (s === undefined || s === null || s === "") ? h("span", { class: "muted" }, "~") : h("code", {}, String(s));

  function contractTables(d) {
    const k = d.contract;
    const sec = (title, ...body) => h("section", { class: "card" }, h("h2", {}, title), ...body);
    const cmt = {};
    for (const c of d.comments || []) cmt[c.Key] = c.Text;
    const note = (key) => cmt[key] ? h("div", { class: "note" }, "# " + cmt[key]) : null;
    const layoutFlags = (l) => (l || []).map(({ key, value }) =>
      h("span", { class: "flag " + (value === "required" || value === "accepted" || value === "true" ? "yes" : value === "rejected" || value === "false" ? "no" : "") }, key + ": " + value));
    const out = h("div", { class: "contract", id: "contract" },
      sec("Inputs", h("table", { class: "grid-t" },
        h("thead", {}, h("tr", {}, ["name", "dtypes", "layout", "rank", "shape constraint"].map(t => h("th", {}, t)))),
        h("tbody", {}, (k.inputs || []).map((i, n) => h("tr", { "data-constraint": i.shape_constraint || "" },
          h("td", {}, h("b", {}, i.name)), h("td", {}, (i.dtypes || []).map(chip), i.dtype_class ? h("div", { class: "muted small" }, i.dtype_class) : null, note(`accept.inputs.${n}.dtypes`)),
          h("td", {}, layoutFlags(i.layout)), h("td", {}, code(i.rank)), h("td", {}, code(i.shape_constraint))))))),
      sec("Parameters" + (k.op_params && k.op_params.variant ? ` (${k.op_params.variant})` : ""),
        (k.op_params && k.op_params.fields && k.op_params.fields.length) ? h("table", { class: "grid-t" },
          h("thead", {}, h("tr", {}, ["field", "kind", "constraint", "note"].map(t => h("th", {}, t)))),
          h("tbody", {}, k.op_params.fields.map(f => h("tr", { class: "field", "data-constraint": f.constraint || "" },
            h("td", {}, h("b", {}, f.name)), h("td", {}, code(f.kind)), h("td", {}, f.constraint ? code(f.constraint) : ""), h("td", { class: "small" }, f.note || ""))))) :
          h("p", { class: "muted" }, "none")),
      sec("Outputs", h("table", { class: "grid-t" },
        h("thead", {}, h("tr", {}, ["name", "dtype rule", "shape rule", "layout", "aliasing"].map(t => h("th", {}, t)))),
        h("tbody", {}, (k.outputs || []).map(o => h("tr", {}, h("td", {}, h("b", {}, o.name)), h("td", {}, code(o.dtype_rule)),
          h("td", {}, code(o.shape_rule)), h("td", {}, code(o.layout_guarantee)), h("td", {}, code(o.aliasing))))))),
      sec("Cost", h("p", { class: "muted small" }, "Formulas as written; the values are evaluated for the inputs of your last run."),
        h("table", { class: "grid-t", id: "cost-table" },
          h("thead", {}, h("tr", {}, ["", "formula", "value (last run)"].map(t => h("th", {}, t)))),
          h("tbody", {}, (d.cost_rows || []).map(({ name: n, formula: f }) => h("tr", { "data-cost": n }, h("th", {}, n), h("td", {}, code(f), note("cost." + n)), h("td", { class: "val" }, "")))))),
      sec("Precision & determinism", kv([
        ["determinism", detBadge(k.determinism)],
        ["bit-stable on same hardware", k.precision.bit_stable_on_same_hardware ? "yes" : "no"],
        ["max ULP", code(k.precision.max_ulp)], ["max relative", code(k.precision.max_relative)], ["max absolute", code(k.precision.max_absolute)],
        ["audited", k.precision.audited ? "yes" : "no"], ["notes", k.precision.notes],
      ])),
      sec("Capabilities & linkage", kv([
        ["awkward layouts", code(k.caps.awkward_layout_strategy)], ["in place", k.caps.in_place ? "yes" : "no"],
        ["alignment", k.caps.alignment_bytes + " B"], ["access granularity", k.caps.access_granularity_bits + " bits"],
        ["fast paths", (k.caps.fast_paths || []).length ? (k.caps.fast_paths).map(fp => h("div", {}, fp.map(x => x.key + ": " + x.value).join(", "))) : h("span", { class: "muted" }, "none")],
        ["backend / source", `${k.backend} · ${k.kernel_source}`], ["entry point", code(k.entry_point)],
        ["link", d.summary.linked ? h("span", {}, h("span", { class: "badge ok" }, "linked"), " ", d.summary.where) : h("span", { class: "badge muted" }, "not linked")],
        ["revision hash", code(k.kernel_revision_hash)],
        ["bindings", d.bindings && d.bindings.length ? h("div", {}, d.bindings.map(b => h("div", { class: "small" }, code(b.key),
          b.shared && b.shared.length ? h("span", { class: "warn-t" }, " shared with " + b.shared.join(", ")) : null))) : h("span", { class: "muted" }, "none (describe-only)")],
        ["defined at", `${d.doc.file}:${k.line}`],
      ])),
      d.lint && d.lint.length ? sec("Lint findings", h("ul", { class: "lintlist" }, d.lint.map(l => h("li", {},
        h("span", { class: "badge " + (l.severity === "error" ? "err" : "warn") }, l.code || l.severity), " ", h("code", {}, `${l.file}:${l.line}`), " ", l.message)))) : null,
    );
    return out;
  }

  // ---------- Try it ----------

  // Share-URL encoding: readable query parameters.
  //   flags=--mode reflect --padding 2:2,2:2 ; x=4,5|F32|arange ; run=cpu,webgpu
  function encodeGen(g) {
    const p = [g.shape, g.dtype, g.kind || "arange"];
    if (g.kind === "random" || g.kind === "uniform") p.push("seed=" + (g.seed || 0), "lo=" + (g.lo || 0), "hi=" + (g.hi || 0));
    if (g.kind === "values") p.push(g.values || "");
    return p.join("|");
  }
  function decodeGen(s) {
    const p = s.split("|");
    const g = { shape: p[0] || "", dtype: p[1] || "F32", kind: p[2] || "arange" };
    if (g.kind === "values") g.values = p.slice(3).join("|");
    for (const kv of p.slice(3)) {
      const m = /^(seed|lo|hi)=(.*)$/.exec(kv);
      if (m && g.kind !== "values") g[m[1]] = Number(m[2]);
    }
    return g;
  }
  function splitFlags(s) { return (s || "").trim().split(/\s+/).filter(Boolean); }

  function tryPanel(d, params) {
    const s = d.summary;
    const state = JSON.parse(JSON.stringify(d.defaults)); // {op, flags, inputs, order}
    let dtype = state.inputs[state.order[0]].dtype;
    if (params.has("flags")) state.flags = splitFlags(params.get("flags"));
    for (const name of state.order) if (params.has(name)) state.inputs[name] = decodeGen(params.get(name));
    dtype = state.inputs[state.order[0]].dtype;

    const panel = h("section", { class: "card try", id: "try" });
    const form = h("form", { class: "tryform", onsubmit: (e) => e.preventDefault() });
    const results = h("div", { class: "results", id: "results" });
    const visual = h("div", { class: "visual", id: "visual" });
    const cli = h("pre", { class: "cli", id: "cli" });

    // inputs
    const kinds = ["arange", "random", "uniform", "values"];
    const inputRows = state.order.map(name => {
      const g = state.inputs[name];
      const row = h("div", { class: "inrow", "data-input": name },
        h("b", { class: "inname" }, name),
        h("label", {}, "shape", h("input", { name: name + ".shape", value: g.shape, size: 8, title: "comma-separated, empty = rank 0" })),
        h("label", {}, "dtype", h("select", { name: name + ".dtype" }, catalog.dtypes.map(t => h("option", { value: t, selected: t === g.dtype }, t)))),
        h("label", {}, "fill", h("select", { name: name + ".kind" }, kinds.map(t => h("option", { value: t, selected: t === (g.kind || "arange") }, t)))),
        h("label", { class: "rnd" }, "seed", h("input", { name: name + ".seed", type: "number", value: g.seed || 0, style: "width:4.5em" })),
        h("label", { class: "rnd" }, "lo", h("input", { name: name + ".lo", type: "number", step: "any", value: g.lo || 0, style: "width:4.5em" })),
        h("label", { class: "rnd" }, "hi", h("input", { name: name + ".hi", type: "number", step: "any", value: g.hi || 0, style: "width:4.5em" })),
        h("label", { class: "vals" }, "values", h("input", { name: name + ".values", value: g.values || "", size: 22, placeholder: "1, 2, nan, -inf (repeats)" })));
      return row;
    });
    // params
    const spec = catalog.specs.find(x => x.name === state.op) || {};
    spec.flags = spec.flags || [];
    const fv = (name) => { const i = state.flags.indexOf(name); return i >= 0 ? state.flags[i + 1] : ""; };
    // The op table (Go) says each flag's choices, whether it is required and
    // what leaving it out means.
    const paramEls = spec.flags.map(f => {
      const n = f.name.slice(2), title = f.help + (f.note ? " — " + f.note : "");
      if (f.choices) {
        const fixed = n === "mode" && !!s.mode; // a per-mode kernel fixes its mode
        return h("label", { title }, f.name, h("select", { name: n, disabled: fixed, title: fixed ? "fixed by this kernel" : title },
          f.choices.map(m => h("option", { value: m, selected: m === (fv(f.name) || (fixed ? s.mode : "")) }, m))));
      }
      return h("label", { title }, f.name, h("input", { name: n, value: fv(f.name), size: Math.max(4, f.arg.length + 4), placeholder: f.required ? "" : "optional" }));
    });
    const primaryDTypes = d.contract.inputs && d.contract.inputs[0] ? d.contract.inputs[0].dtypes : [];
    const buttons = h("div", { class: "buttons" },
      h("button", { type: "button", class: "primary", id: "run-cpu", onclick: () => run(["cpu"]) }, "Run on CPU"),
      h("button", { type: "button", class: "primary", id: "run-gpu", onclick: () => run(["webgpu"]), disabled: !gpu.available, title: gpu.available ? "" : "WebGPU is not available in this browser" }, "Run on WebGPU"),
      h("button", { type: "button", id: "run-both", onclick: () => run(["cpu", "webgpu"]), disabled: !gpu.available }, "Both + diff"),
      h("button", { type: "button", id: "share", onclick: share }, "Copy share link"),
      h("span", { id: "share-note", class: "muted small" }));
    form.append(
      h("div", { class: "trytop" }, h("h2", {}, "Try it"), h("code", { class: "opname" }, "fkc run " + state.op),
        primaryDTypes.length ? h("span", { class: "muted small" }, "this kernel takes ", primaryDTypes.map(chip)) : null),
      h("div", { class: "inputs" }, inputRows),
      h("div", { class: "params" }, paramEls.length ? paramEls : h("span", { class: "muted" }, "no parameters")),
      buttons);
    panel.append(form, cli, results, visual);

    const refreshVis = () => {
      for (const row of inputRows) {
        const kind = form.elements[row.dataset.input + ".kind"].value;
        row.querySelectorAll(".rnd").forEach(e => e.style.display = (kind === "random" || kind === "uniform") ? "" : "none");
        row.querySelectorAll(".vals").forEach(e => e.style.display = kind === "values" ? "" : "none");
      }
    };
    function readState() {
      const el = form.elements;
      for (const name of state.order) {
        const g = { shape: el[name + ".shape"].value.trim(), dtype: el[name + ".dtype"].value, kind: el[name + ".kind"].value };
        if (g.kind === "random" || g.kind === "uniform") { g.seed = Number(el[name + ".seed"].value) || 0; g.lo = Number(el[name + ".lo"].value) || 0; g.hi = Number(el[name + ".hi"].value) || 0; }
        if (g.kind === "values") g.values = el[name + ".values"].value;
        state.inputs[name] = g;
      }
      const flags = [];
      for (const f of spec.flags) {
        const e = el[f.name.slice(2)];
        if (!e) continue;
        const v = (e.value || "").trim();
        if (v !== "" || (f.required && f.name === "--padding")) flags.push(f.name, v);
      }
      state.flags = flags;
      cli.textContent = cliLine();
    }
    function cliLine() {
      const be = d.contract.backend === "Vulkan" ? " --backend vulkan" : "";
      return "$ fkc run " + state.op + be + " " + state.flags.join(" ") + " " +
        state.order.map(n => `-i ${n}=${n}.npy`).join(" ") + " -o out.npy";
    }
    function shareURL(runs) {
      // Readable: only what must be escaped is (":" "," "|" "=" stay as they are).
      const enc = (v) => encodeURIComponent(v).replace(/%3A/g, ":").replace(/%2C/g, ",").replace(/%7C/g, "|").replace(/%3D/g, "=");
      const q = [["flags", state.flags.join(" ")], ...state.order.map(n => [n, encodeGen(state.inputs[n])])];
      if (runs) q.push(["run", runs.join(",")]);
      return location.origin + location.pathname + "#/k/" + encodeURIComponent(s.id) + "?" + q.map(([k, v]) => k + "=" + enc(v)).join("&");
    }
    let lastRuns = null;
    function share() {
      readState();
      const url = shareURL(lastRuns);
      history.replaceState(null, "", url);
      const note = document.getElementById("share-note");
      (navigator.clipboard ? navigator.clipboard.writeText(url) : Promise.reject()).then(
        () => { note.textContent = "link copied"; }, () => { note.textContent = "link in the address bar"; });
    }
    async function run(backends) {
      readState();
      lastRuns = backends;
      history.replaceState(null, "", shareURL(backends));
      results.innerHTML = "";
      results.append(h("div", { class: "muted" }, "running…"));
      form.querySelectorAll("button").forEach(b => b.classList.add("busy"));
      let resp;
      try {
        resp = JSON.parse(await callAsync("tryit", JSON.stringify({ id: s.id, op: state.op, flags: state.flags, inputs: state.inputs, backends })));
      } catch (e) {
        results.innerHTML = "";
        results.append(h("div", { class: "violation", role: "alert" }, h("b", {}, "Error"), " ", e.message));
        visual.innerHTML = "";
        return;
      } finally {
        form.querySelectorAll("button").forEach(b => b.classList.remove("busy"));
      }
      showResults(resp, d, results, visual);
    }
    form.addEventListener("input", () => { refreshVis(); readState(); });
    form.addEventListener("change", (e) => {
      // Changing the primary dtype converts the other value inputs too (indices and masks keep theirs).
      const first = state.order[0];
      if (e.target.name === first + ".dtype") {
        for (const n of state.order.slice(1)) {
          if (!(spec.fixed_dtypes || {})[n]) form.elements[n + ".dtype"].value = e.target.value;
        }
        readState();
      }
    });
    refreshVis();
    readState();
    // A shared link runs itself; a plain visit runs on the CPU so the picture is there at once.
    // (A GPU kernel's page runs on WebGPU when there is one: the picture then shows that kernel.)
    const own = d.contract.backend === "Vulkan" && gpu.available && s.linked ? "webgpu" : "cpu";
    const auto = params.has("run") ? params.get("run").split(",").filter(b => b === "cpu" || (b === "webgpu" && gpu.available)) : [own];
    if (auto.length) setTimeout(() => run(auto), 0);
    return panel;
  }

  function showResults(resp, d, results, visual) {
    results.innerHTML = "";
    for (const r of resp.runs) {
      if (r.error) {
        const other = r.backend === "webgpu" ? "cpu" : null;
        results.append(h("div", { class: "violation" + (r.unavailable ? " unavailable" : ""), role: "alert", "data-backend": r.backend },
          h("b", {}, (r.violation ? "Contract violation" : r.unavailable ? "Not available on this adapter" : "Error") + " (" + r.backend + ")"), h("div", { class: "msg" }, r.error),
          r.violation ? quoteContract(d, r.error) : null,
          r.unavailable && other ? h("div", { class: "cite" }, "The kernel is fine; this browser's GPU cannot run it. ",
            h("button", { type: "button", class: "linkish", onclick: () => document.getElementById("run-cpu").click() }, "Run it on the CPU instead")) : null));
        continue;
      }
      results.append(h("div", { class: "served", "data-backend": r.backend },
        h("span", { class: "badge be" }, r.backend),
        " kernel ", h("a", { href: "#/k/" + encodeURIComponent(r.kernel_id) }, h("b", {}, r.kernel)), ` (${r.provider}, ${r.contract_backend})`,
        h("span", { class: "stat time", title: `mean of ${r.reps} warm run${r.reps === 1 ? "" : "s"}; the browser's clock ticks every ${fmtNum(r.resolution_us)} µs` }, fmtTime(r), h("span", { class: "muted small" }, ` ×${r.reps}`)),
        r.bytes_moved ? h("span", { class: "stat rate", title: "effective bandwidth: bytes_moved (from the contract's cost formula) / time per run" }, `${fmtBytes(r.bytes_moved)} moved → ${fmtRate(r)}`) : null));
      // evaluated cost formulas into the contract's table (for this page's kernel only)
      {
        for (const c of (r.kernel_id === d.summary.id ? r.costs : r.page_costs) || []) {
          const cell = document.querySelector(`#cost-table tr[data-cost="${c.name}"] .val`);
          if (cell) cell.textContent = c.error ? "— " + c.error : fmtNum(c.value) + (c.name.includes("bytes") ? " B" : "");
        }
      }
    }
    if (resp.diff) {
      const df = resp.diff, ok = df.bit_equal === df.elems;
      results.append(h("div", { class: "diff " + (ok ? "same" : "differs"), id: "diff" },
        h("b", {}, "CPU vs WebGPU: "), df.summary,
        df.mismatch && df.mismatch.length ? h("table", { class: "grid-t small" }, h("tr", {}, ["flat index", "cpu", "webgpu", "cpu bits", "webgpu bits", "ULP apart"].map(x => h("th", {}, x))),
          df.mismatch.map(m => h("tr", {}, [m.i, m.a, m.b, m.a_bits, m.b_bits, m.ulp].map(x => h("td", {}, x))))) : null,
        df.mismatch && df.elems - df.bit_equal > df.mismatch.length ? h("div", { class: "muted small" }, `first ${df.mismatch.length} of ${df.elems - df.bit_equal} differing elements; differing cells are outlined in the second output grid`) : null));
    }
    visual.innerHTML = "";
    const okRuns = resp.runs.filter(r => !r.error);
    if (!okRuns.length) return;
    drawVisual(visual, resp, okRuns, d);
  }

  // Quote the contract's own words for a violation: the constraint rows
  // whose text the error message cites get highlighted and repeated here.
  function quoteContract(d, msg) {
    const m = /contract: ([^)]*)\)/.exec(msg);
    if (!m) return null;
    const cited = m[1].trim();
    const hits = [];
    document.querySelectorAll("#contract [data-constraint]").forEach(tr => {
      const c = tr.dataset.constraint;
      tr.classList.remove("violated");
      if (c && (cited.includes(c) || c.includes(cited))) { tr.classList.add("violated"); hits.push(c); }
    });
    return h("div", { class: "cite" }, "The contract says: ", h("code", {}, hits.length ? hits[0] : cited));
  }

  // A run's time per call: µs below 1 ms (never "0 µs": below the clock's
  // resolution it says so), ms above.
  function fmtTime(r) {
    const us = r.ms * 1000, res = r.resolution_us || 0;
    if (!(us > 0) || us * (r.reps || 1) < res) return "< " + (res >= 100 ? (res / 1000).toFixed(1) + " ms" : (res || 1).toFixed(0) + " µs");
    if (us < 10) return us.toFixed(2) + " µs";
    if (us < 1000) return us.toFixed(1) + " µs";
    return r.ms < 100 ? r.ms.toFixed(2) + " ms" : r.ms.toFixed(0) + " ms";
  }
  function fmtRate(r) {
    const us = r.ms * 1000;
    if (!(us > 0) || us * (r.reps || 1) < (r.resolution_us || 0)) return "too fast to time";
    const bps = r.bytes_moved / (r.ms / 1000);
    const units = [["GB/s", 1e9], ["MB/s", 1e6], ["kB/s", 1e3]];
    for (const [u, f] of units) if (bps >= f) return (bps / f >= 100 ? (bps / f).toFixed(0) : (bps / f).toPrecision(3)) + " " + u;
    return bps.toFixed(0) + " B/s";
  }
  const fmtNum = (v) => Number.isInteger(v) ? v.toLocaleString("en-US") : v.toPrecision(6);
  function fmtBytes(b) {
    if (b >= 1 << 20) return (b / (1 << 20)).toFixed(2) + " MiB";
    if (b >= 1024) return (b / 1024).toFixed(1) + " KiB";
    return b + " B";
  }

  // ---------- visual semantics ----------
  const roleLegend = (r) => (catalog.roles || {})[r] || r;

  function drawVisual(root, resp, okRuns, d) {
    const run = okRuns[0];
    const tr = resp.trace;
    const outName = (d.contract.outputs && d.contract.outputs[0] && d.contract.outputs[0].name) || "out";
    const grids = {};
    const info = h("div", { class: "hoverinfo", id: "hoverinfo" }, "Hover a cell to see where it came from.");
    const wrap = h("div", { class: "gridrow" });
    root.append(h("h3", {}, "What the kernel did"), tr ? h("p", { class: "explain" }, tr.explain, h("span", { class: "muted small" }, "  Provenance: " + tr.method + ".")) : null, info, wrap);
    if (!tr) {
      if (resp.trace_error) root.append(h("p", { class: "muted" }, "No provenance: " + resp.trace_error));
    }
    // inputs
    for (const name of resp.order) {
      const tv = resp.inputs[name];
      grids[name] = grid(tv, name, { heat: null });
      wrap.append(grids[name].el);
    }
    wrap.append(h("div", { class: "arrow" }, "→"));
    // One output grid per backend that ran (Both + diff: CPU and WebGPU side
    // by side; cells whose bits differ are marked on the second).
    const outs = okRuns.map((r, n) => {
      const g = grid(r.out, outName + " (" + r.backend + ")", { roles: tr && tr.role, out: true, backend: r.backend });
      wrap.append(g.el);
      return g;
    });
    grids.__out = outs[0];
    if (outs.length > 1) {
      const a = okRuns[0].out, b = okRuns[1].out, differ = new Set();
      if (a.values && b.values) for (let i = 0; i < a.values.length; i++) if ((a.bits ? a.bits[i] !== b.bits[i] : a.values[i] !== b.values[i])) differ.add(i);
      outs[1].setMarks("differs", differ);
    }
    if (!tr) return;

    // decorations: the trace (Go) says what to draw
    const inFirst = grids[resp.order[0]];
    if (tr.interior_on === "out") outs.forEach(g => g.decorate({ interior: tr.interior, mode: tr.mode }));
    if (tr.interior_on === "in") inFirst.decorate({ interior: tr.interior, mode: tr.mode });
    if (tr.fold_heat) outs.forEach(g => g.setHeat(tr.sources.map(s => s.length), "×"));
    if (tr.label) outs.forEach(g => g.setLabels(tr.label)); // "←[2,1]", "+src 0,2"
    if (tr.winner) {
      const w = new Set(tr.winner.filter(x => x.i >= 0).map(x => x.i));
      inFirst.markWinners(w);
    }
    if (tr.reduced && tr.reduced.length) inFirst.markReduced(tr.reduced);
    if (tr.mark_true && grids[tr.mark_true]) grids[tr.mark_true].markTrue();

    // hover: output → sources
    const outShape = run.out.shape;
    const highlight = (srcs, cls) => {
      for (const g of Object.values(grids)) g.clear(cls);
      for (const s of srcs) if (grids[s.in]) grids[s.in].hi(s.i, cls);
    };
    outs.forEach((og, n) => og.onHover((i) => {
      outs.forEach(g => g.clear("me"));
      if (i < 0) { highlight([], "src"); info.textContent = "Hover a cell to see where it came from."; return; }
      const srcs = tr.sources[i] || [];
      outs.forEach(g => g.hi(i, "me"));
      const orun = okRuns[n];
      highlight(srcs, "src");
      const role = tr.role[i];
      const desc = srcs.length === 0 ? (role === "fill" ? "the fill value" : "nothing") :
        srcs.slice(0, 6).map(s => `${s.in}${coordStr(unflat(s.i, resp.inputs[s.in].shape))}`).join(", ") + (srcs.length > 6 ? ` … (${srcs.length} cells)` : "");
      const win = tr.winner && tr.winner[i] && tr.winner[i].i >= 0 ? `; winner ${tr.winner[i].in}${coordStr(unflat(tr.winner[i].i, resp.inputs[tr.winner[i].in].shape))}` : "";
      info.innerHTML = "";
      info.append(h("b", {}, `${outName}${coordStr(unflat(i, outShape))} = ${orun.out.values ? orun.out.values[i] : "?"}`), "  ←  ", desc, win,
        role ? h("span", { class: "role-tag r-" + role }, roleLegend(role)) : null);
    }));
    // hover: input → the outputs that read it
    for (const name of resp.order) {
      grids[name].onHover((i) => {
        outs.forEach(g => g.clear("src")); grids[name].clear("me");
        if (i < 0) { info.textContent = "Hover a cell to see where it came from."; return; }
        grids[name].hi(i, "me");
        let n = 0;
        tr.sources.forEach((ss, o) => { if (ss.some(s => s.in === name && s.i === i)) { outs.forEach(g => g.hi(o, "src")); n++; } });
        info.innerHTML = "";
        info.append(h("b", {}, `${name}${coordStr(unflat(i, resp.inputs[name].shape))} = ${resp.inputs[name].values ? resp.inputs[name].values[i] : "?"}`), `  →  read by ${n} output cell${n === 1 ? "" : "s"}`);
      });
    }
    if (tr.notes && tr.notes.length) root.append(h("ul", { class: "notes", id: "trace-notes" }, tr.notes.map(n => h("li", {}, h("code", {}, n)))));
    root.append(legend(tr, outs.length > 1));
  }

  function legend(tr, diff) {
    const roles = [...new Set(tr.role)].filter(Boolean);
    return h("div", { class: "legend" }, roles.map(r => h("span", { class: "lg" }, h("span", { class: "sw r-" + r }), roleLegend(r))),
      tr.winner ? h("span", { class: "lg" }, h("span", { class: "sw win" }, "★"), "winning (arg) cell") : null,
      tr.interior ? h("span", { class: "lg" }, h("span", { class: "sw box" }), "input region") : null,
      diff ? h("span", { class: "lg" }, h("span", { class: "sw differs" }), "bits differ from the first output") : null);
  }

  function unflat(i, shape) {
    const c = new Array(shape.length);
    for (let a = shape.length - 1; a >= 0; a--) { c[a] = shape[a] ? i % shape[a] : 0; i = shape[a] ? Math.floor(i / shape[a]) : 0; }
    return c;
  }
  const coordStr = (c) => "[" + c.join(",") + "]";

  // A 2-D view of a tensor of any rank: two axes are drawn (an axis picker
  // chooses which), the others are fixed by sliders.
  const MAXC = 48;
  function grid(tv, title, opts) {
    const rank = tv.shape.length;
    const st = { rowAx: rank >= 2 ? rank - 2 : -1, colAx: rank >= 1 ? rank - 1 : -1, fixed: new Array(rank).fill(0) };
    const el = h("div", { class: "gridbox" + (opts.out ? " out" : ""), "data-grid": title.split(" ")[0], "data-backend": opts.backend || null });
    const head = h("div", { class: "ghead" }, h("b", {}, title), " ", h("span", { class: "muted small" }, `${tv.dtype}[${tv.shape.join(", ")}]`));
    const picker = h("div", { class: "picker" });
    const body = h("div", { class: "gbody" });
    el.append(head, picker, body);
    let hoverCb = null, heat = null, heatMark = "", labels = null, deco = null, winners = null, reduced = null, markTrue = false;
    const marks = {}; // class → Set of flat indices (kept across re-renders)
    const cells = new Map(); // flat index → cell element (visible ones)
    const strides = (() => { const s = new Array(rank); let m = 1; for (let a = rank - 1; a >= 0; a--) { s[a] = m; m *= tv.shape[a]; } return s; })();

    function buildPicker() {
      picker.innerHTML = "";
      if (rank < 3) return;
      const axSel = (which) => h("select", { "data-pick": which === "rowAx" ? "rows" : "cols", onchange: (e) => { st[which] = Number(e.target.value); if (st.rowAx === st.colAx) st[which === "rowAx" ? "colAx" : "rowAx"] = tv.shape.findIndex((_, a) => a !== st[which]); render(); buildPicker(); } },
        tv.shape.map((n, a) => h("option", { value: a, selected: a === st[which] }, `axis ${a} (${n})`)));
      picker.append(h("label", {}, "rows ", axSel("rowAx")), h("label", {}, "cols ", axSel("colAx")));
      tv.shape.forEach((n, a) => {
        if (a === st.rowAx || a === st.colAx) return;
        const out = h("span", {}, st.fixed[a]);
        picker.append(h("label", {}, `axis ${a} = `, h("input", { type: "range", "data-axis": a, min: 0, max: Math.max(0, n - 1), value: st.fixed[a], oninput: (e) => { st.fixed[a] = Number(e.target.value); out.textContent = e.target.value; render(); } }), out));
      });
    }
    function flatOf(r, c) {
      let i = 0;
      for (let a = 0; a < rank; a++) i += strides[a] * (a === st.rowAx ? r : a === st.colAx ? c : st.fixed[a]);
      return i;
    }
    function render() {
      body.innerHTML = "";
      cells.clear();
      if (!tv.values) { body.append(h("p", { class: "muted small" }, `${tv.n.toLocaleString()} elements — too many to draw.`)); return; }
      const R = st.rowAx >= 0 ? tv.shape[st.rowAx] : 1, C = st.colAx >= 0 ? tv.shape[st.colAx] : 1;
      const rs = Math.min(R, MAXC), cs = Math.min(C, MAXC);
      if (R * C === 0) { body.append(h("p", { class: "muted small" }, "empty")); return; }
      // Cells as wide as the longest value (and label) needs, so nothing is clipped.
      let wide = 0;
      for (let r = 0; r < rs; r++) for (let c = 0; c < cs; c++) {
        const i = flatOf(r, c);
        wide = Math.max(wide, String(tv.values[i]).length, labels && labels[i] ? labels[i].length * 0.75 : 0);
      }
      const cw = Math.max(3.2, 0.52 * wide + 1.1).toFixed(2) + "em";
      const g = h("div", { class: "cells", style: `grid-template-columns: 2.2em repeat(${cs}, ${cw})` });
      g.append(h("div", { class: "ax corner" }, rank >= 2 ? `${st.rowAx}↓ ${st.colAx}→` : ""));
      for (let c = 0; c < cs; c++) g.append(h("div", { class: "ax" + (reduced && reduced.includes(st.colAx) ? " red" : "") }, rank ? c : ""));
      for (let r = 0; r < rs; r++) {
        g.append(h("div", { class: "ax" + (reduced && reduced.includes(st.rowAx) ? " red" : "") }, rank >= 2 ? r : ""));
        for (let c = 0; c < cs; c++) {
          const i = flatOf(r, c);
          const role = opts.roles ? opts.roles[i] : "";
          const cell = h("div", { class: "cell" + (role ? " r-" + role : ""), "data-i": i, title: tv.bits ? tv.bits[i] : "" }, h("span", { class: "v" }, tv.values[i]));
          if (heat) { const n = heat[i], mx = Math.max(1, ...heat); cell.style.background = `rgba(220, 80, 30, ${0.08 + 0.62 * n / mx})`; cell.append(h("span", { class: "lab" }, heatMark + n)); }
          if (labels && labels[i]) cell.append(h("span", { class: "lab" }, labels[i]));
          if (winners && winners.has(i)) { cell.classList.add("win"); cell.append(h("span", { class: "star" }, "★")); }
          if (markTrue && tv.values[i] === "T") cell.classList.add("true");
          for (const [cls, set] of Object.entries(marks)) if (set.has(i)) cell.classList.add(cls);
          cells.set(i, cell);
          g.append(cell);
        }
      }
      body.append(g);
      if (R > rs || C > cs) body.append(h("p", { class: "muted small" }, `showing ${rs}×${cs} of ${R}×${C}`));
      if (deco) requestAnimationFrame(() => drawDeco(g));
      g.addEventListener("mouseover", (e) => { const c = e.target.closest(".cell"); if (c && hoverCb) hoverCb(Number(c.dataset.i)); });
      g.addEventListener("mouseleave", () => hoverCb && hoverCb(-1));
    }
    // Interior box, mirror lines (reflect) and clamped edges (replicate).
    function drawDeco(g) {
      if (!deco.interior || st.rowAx < 0 && st.colAx < 0) return;
      const cellAt = (r, c) => cells.get(flatOf(r, c));
      const ri = st.rowAx >= 0 ? deco.interior[st.rowAx] : [0, 1], ci = st.colAx >= 0 ? deco.interior[st.colAx] : [0, 1];
      if (ri[1] <= ri[0] || ci[1] <= ci[0]) return;
      const a = cellAt(ri[0], ci[0]), b = cellAt(Math.min(ri[1], MAXC) - 1, Math.min(ci[1], MAXC) - 1);
      if (!a || !b) return;
      const x0 = a.offsetLeft, y0 = a.offsetTop, x1 = b.offsetLeft + b.offsetWidth, y1 = b.offsetTop + b.offsetHeight;
      const W = g.scrollWidth, H = g.scrollHeight, gx = g.children[1].offsetLeft, gy = g.children[1].offsetTop + g.children[1].offsetHeight;
      const box = (cls, x, y, w, hh, text) => { const d = h("div", { class: "deco " + cls, style: `left:${x}px;top:${y}px;width:${w}px;height:${hh}px` }, text ? h("span", {}, text) : null); g.append(d); };
      // On a slice outside the input region (a fixed axis in the padding), the
      // box is only a ghost: every cell of this slice is padding.
      const inSlice = st.fixed.every((f, ax) => ax === st.rowAx || ax === st.colAx || !deco.interior[ax] || (f >= deco.interior[ax][0] && f < deco.interior[ax][1]));
      box("interior" + (inSlice ? "" : " ghost"), x0 - 2, y0 - 2, x1 - x0 + 4, y1 - y0 + 4);
      if (!inSlice) {
        const fx = st.fixed.map((f, ax) => ax === st.rowAx || ax === st.colAx ? null : `axis ${ax} = ${f}`).filter(Boolean).join(", ");
        body.append(h("p", { class: "muted small slice-note" }, `This slice (${fx}) lies in the padding: none of its cells is inside the input region (dashed: where the input sits on the interior slices).`));
      }
      const cw = a.offsetWidth, ch = a.offsetHeight;
      const padRows = ri[0] > 0 || ri[1] < (st.rowAx >= 0 ? tv.shape[st.rowAx] : 1);
      const padCols = ci[0] > 0 || ci[1] < (st.colAx >= 0 ? tv.shape[st.colAx] : 1);
      if (deco.mode === "reflect") {
        // The mirror passes through the centre of the edge element: it is not repeated.
        if (padCols) {
          if (ci[0] > 0) box("mirror v", x0 + cw / 2 - 1, gy, 0, H - gy, "mirror");
          if (ci[1] < tv.shape[st.colAx]) box("mirror v", x1 - cw / 2 - 1, gy, 0, H - gy, "mirror");
        }
        if (padRows) {
          if (ri[0] > 0) box("mirror hz", gx, y0 + ch / 2 - 1, W - gx, 0, "mirror");
          if (ri[1] < tv.shape[st.rowAx]) box("mirror hz", gx, y1 - ch / 2 - 1, W - gx, 0, "mirror");
        }
      } else if (deco.mode === "replicate") {
        // The clamped edge: the outermost input row/column, repeated outward.
        if (padCols) {
          if (ci[0] > 0) box("clamp v", x0 - 3, y0, 0, y1 - y0, "edge");
          if (ci[1] < tv.shape[st.colAx]) box("clamp v", x1 + 1, y0, 0, y1 - y0, "edge");
        }
        if (padRows) {
          if (ri[0] > 0) box("clamp hz", x0, y0 - 3, x1 - x0, 0, "edge");
          if (ri[1] < tv.shape[st.rowAx]) box("clamp hz", x0, y1 + 1, x1 - x0, 0, "edge");
        }
      }
    }
    buildPicker();
    render();
    return {
      el,
      onHover(cb) { hoverCb = cb; },
      clear(cls) { el.querySelectorAll(".cell." + cls).forEach(c => c.classList.remove(cls)); },
      hi(i, cls) {
        let c = cells.get(i);
        if (!c && rank >= 3 && cls === "src") { // bring the source's slice into view
          const co = unflat(i, tv.shape); let changed = false;
          for (let a = 0; a < rank; a++) if (a !== st.rowAx && a !== st.colAx && st.fixed[a] !== co[a]) { st.fixed[a] = co[a]; changed = true; }
          if (changed) { buildPicker(); render(); c = cells.get(i); }
        }
        if (c) c.classList.add(cls);
      },
      decorate(d) { deco = d; el.classList.add("has-deco"); render(); },
      setHeat(hh, mark) { heat = hh; heatMark = mark || ""; render(); },
      setLabels(l) { labels = l; render(); },
      markWinners(w) { winners = w; render(); },
      markReduced(r) { reduced = r; head.append(h("span", { class: "badge red-b" }, "reduced: axis " + r.join(", "))); render(); },
      markTrue() { markTrue = true; render(); },
      setMarks(cls, set) { marks[cls] = set; render(); },
    };
  }

  // ---------- API page ----------
  function apiPage(main) {
    main.append(h("section", { class: "card prose" },
      h("h1", {}, "Scripting API"),
      h("p", {}, "The page exposes the same contract as the ", h("code", {}, "fkc run"), " CLI, for the browser console and for automation:"),
      h("pre", {}, `await fkc.ready                       // resolves when the app is loaded
fkc.kernels()                        // every kernel of every contract:
                                     //   {name, provider, backend, op_kind, registrable, dtypes}
await fkc.run({
  op: "pad", backend: "cpu",         // or "webgpu"
  flags: ["--mode", "reflect", "--padding", "1:1,2:2"],
  inputs: { x: "<base64 of a .npy file>" },
})                                   // → {kernel, provider, npy: "<base64 .npy>"}
                                     // rejects with Error("fkc: …") on a contract violation`),
      h("p", {}, "Ops and flags: ", catalog.specs.map(s => h("div", {}, h("code", {}, s.name), " inputs ", s.inputs.join(", "), (s.flags || []).length ? " · flags " + s.flags.join(" ") : "", h("span", { class: "muted" }, " — " + s.doc))))));
  }

  boot();
})();
