package contract

import (
	"slices"
	"strconv"
	"strings"
)

// The FKC schema (SPEC §2), written once. Every key of the front matter and
// of an fkc block is a keyDef of the tables below: its kind says how its value
// is written, and its decode function how it goes into the model and what it
// reports. Everything else derives from the tables:
//
//   - the canonicalizer's view (canonSchema): which keys open contexts,
//     which are lists of mappings, and that inside op_params.fields every
//     `name: {flow map}` line is a field — used to rebuild flattened YAML
//     and by Format;
//   - the decoder (dec.decodeMap): a key found in the table decodes, any
//     other is an "unknown key" warning;
//   - the required-key checks (dec.requireKeys).
//
// Decode functions take the model value of the enclosing mapping as `any`;
// the typed constructors (text, boolean, mapping, list, …) assert it back to
// the type they were built for, so a keyDef wired to the wrong parent panics
// in TestSchemaCoversModel, which loads a block that sets every key of the
// table (and checks that no field of the model is left unset).

// kind says how a key's value is written.
type kind uint8

const (
	kScalar    kind = iota // a single value
	kBool                  // true | false
	kInt                   // an integer
	kFormula               // a cost formula (ParseExpr)
	kDTypes                // a flow list of dtype names: [F32, F64]
	kDTypeRule             // passthrough(INPUT) | fixed(DTYPE)
	kFlowMap               // a mapping kept as ordered pairs, any keys (layout, fast_paths items)
	kMap                   // a mapping of the known keys in children
	kList                  // a block list; item is the schema of one entry
	kFields                // op_params.fields: NAME → a mapping of the keys in children
)

// keyDef is one key of the schema.
type keyDef struct {
	key  string
	kind kind
	// children are the known keys of a kMap or of each kFields entry; of a
	// kFlowMap, the keys a flattened region may hold (decoding keeps any key).
	children []*keyDef
	item     *keyDef // kList: one entry (a kMap or a kFlowMap)
	noun     string  // kList: what one entry is ("input"), for messages
	required bool    // a region or list entry without this key is an error (requireKeys)
	decode   func(d *dec, parent any, e pair)
}

func (n *keyDef) req() *keyDef { n.required = true; return n }

func findKey(ns []*keyDef, key string) *keyDef {
	for _, n := range ns {
		if n.key == key {
			return n
		}
	}
	return nil
}

// text, boolean, count, formula and flowMap are leaves of a T: at gives the
// field of the model value they set. A `~` value leaves the field as it is
// (the zero value, or the default the caller set: registrable is true).

func text[T any](key string, at func(*T) *string) *keyDef {
	return &keyDef{key: key, kind: kScalar, decode: func(d *dec, t any, e pair) { *at(t.(*T)) = d.str(e) }}
}

func boolean[T any](key string, at func(*T) *bool) *keyDef {
	return &keyDef{key: key, kind: kBool, decode: func(d *dec, t any, e pair) {
		if !isNull(e.v) {
			*at(t.(*T)) = d.boolean(e)
		}
	}}
}

func count[T any](key string, at func(*T) *int) *keyDef {
	return &keyDef{key: key, kind: kInt, decode: func(d *dec, t any, e pair) { *at(t.(*T)) = d.integer(e) }}
}

func formula[T any](key string, at func(*T) *string) *keyDef {
	return &keyDef{key: key, kind: kFormula, decode: func(d *dec, t any, e pair) { *at(t.(*T)) = d.formula(e) }}
}

func flowMap[T any](key string, at func(*T) *[]KV) *keyDef {
	return &keyDef{key: key, kind: kFlowMap, decode: func(d *dec, t any, e pair) { *at(t.(*T)) = d.kvs(e) }}
}

// mapping is a mapping of known keys whose model value is at(parent).
func mapping[T, U any](key string, at func(*T) *U, children ...*keyDef) *keyDef {
	n := &keyDef{key: key, kind: kMap, children: children}
	n.decode = func(d *dec, t any, e pair) { d.decodeMap(e.v, e.path, n, at(t.(*T)), "key") }
	return n
}

// same is the at of a mapping that only groups keys of its parent's value
// (accept, return, cost.memory).
func same[T any](t *T) *T { return t }

// list is a block list of mappings with the known keys children, decoded
// into a []E; check, if not nil, validates each decoded entry. A `~` list
// is absent unless the list is required.
func list[T, E any](key, noun string, at func(*T) *[]E, check func(d *dec, e *E, it pair), children ...*keyDef) *keyDef {
	item := &keyDef{kind: kMap, children: children}
	return listOf(key, noun, at, item, func(d *dec, it pair) E {
		var v E
		d.decodeMap(it.v, it.path, item, &v, "key")
		if check != nil {
			check(d, &v, it)
		}
		d.requireKeys(item, it.path, d.line(it.v), it.path+": "+noun+named(it.v))
		return v
	})
}

// flowList is a block list of flow maps kept as ordered pairs (any keys);
// known are the keys a flattened region may hold.
func flowList[T any](key, noun string, at func(*T) *[][]KV, known ...string) *keyDef {
	item := &keyDef{kind: kFlowMap}
	for _, k := range known {
		item.children = append(item.children, &keyDef{key: k, kind: kScalar})
	}
	return listOf(key, noun, at, item, func(d *dec, it pair) []KV { return d.kvs(it) })
}

// listOf is a block list at at(parent) whose entries (of schema item)
// decode by entry.
func listOf[T, E any](key, noun string, at func(*T) *[]E, item *keyDef, entry func(d *dec, it pair) E) *keyDef {
	n := &keyDef{key: key, kind: kList, noun: noun, item: item}
	n.decode = func(d *dec, t any, e pair) {
		items, ok := d.sequence(n, e)
		if !ok {
			return
		}
		s := at(t.(*T))
		*s = make([]E, 0, len(items))
		for i, it := range items {
			*s = append(*s, entry(d, pair{"", it, it, join(e.path, strconv.Itoa(i))}))
		}
	}
	return n
}

// fieldMap is op_params.fields: every entry NAME: {…} is one E named NAME
// (name gives its name field) with the known keys children, in order.
func fieldMap[T, E any](key string, at func(*T) *[]E, name func(*E) *string, children ...*keyDef) *keyDef {
	n := &keyDef{key: key, kind: kFields, children: children}
	n.decode = func(d *dec, t any, e pair) {
		s := at(t.(*T))
		for _, f := range d.pairs(e.v, e.path) {
			var v E
			*name(&v) = f.key
			d.decodeMap(f.v, f.path, n, &v, "key")
			*s = append(*s, v)
		}
	}
	return n
}

// checked runs check after n decoded a key of a T.
func checked[T any](n *keyDef, check func(d *dec, t *T, e pair)) *keyDef {
	decode := n.decode
	n.decode = func(d *dec, t any, e pair) { decode(d, t, e); check(d, t.(*T), e) }
	return n
}

// frontMatterKeys is the schema of the front matter.
var frontMatterKeys = &keyDef{key: "front matter", kind: kMap, children: []*keyDef{
	count("fkc_version", func(d *Document) *int { return &d.FKCVersion }),
	checked(mapping("provider", func(d *Document) *Provider { return &d.Provider },
		text("name", func(p *Provider) *string { return &p.Name }),
		text("backend", func(p *Provider) *string { return &p.Backend }),
		text("kernel_source", func(p *Provider) *string { return &p.KernelSource }),
		text("link_registry", func(p *Provider) *string { return &p.LinkRegistry }),
		text("revision_base", func(p *Provider) *string { return &p.RevisionBase }),
	).req(), func(d *dec, doc *Document, e pair) {
		if doc.Provider.Name == "" {
			d.errf(e.k, "provider: missing required key provider.name")
		}
	}),
}}

// blockKeys is the schema of an fkc block, in the seeds' order.
var blockKeys = &keyDef{key: "fkc block", kind: kMap, children: []*keyDef{
	text("kernel", func(k *Kernel) *string { return &k.Name }).req(),
	text("op_kind", func(k *Kernel) *string { return &k.OpKind }).req(),
	boolean("registrable", func(k *Kernel) *bool { return &k.Registrable }),
	text("blurb", func(k *Kernel) *string { return &k.Blurb }),
	text("backend", func(k *Kernel) *string { return &k.Backend }).req(),
	text("kernel_source", func(k *Kernel) *string { return &k.KernelSource }),
	text("entry_point", func(k *Kernel) *string { return &k.EntryPoint }).req(),
	text("kernel_revision_hash", func(k *Kernel) *string { return &k.KernelRevisionHash }),
	mapping("accept", same[Kernel],
		list("inputs", "input", func(k *Kernel) *[]Input { return &k.Inputs }, checkInput,
			text("name", func(in *Input) *string { return &in.Name }),
			(&keyDef{key: "dtypes", kind: kDTypes, decode: decodeDTypes}).req(),
			text("dtype_class", func(in *Input) *string { return &in.DTypeClass }),
			flowMap("layout", func(in *Input) *[]KV { return &in.Layout }),
			text("rank", func(in *Input) *string { return &in.Rank }),
			text("shape_constraint", func(in *Input) *string { return &in.ShapeConstraint }),
		).req(),
		mapping("op_params", func(k *Kernel) *OpParams { return &k.OpParams },
			text("variant", func(o *OpParams) *string { return &o.Variant }),
			fieldMap("fields", func(o *OpParams) *[]Field { return &o.Fields }, func(f *Field) *string { return &f.Name },
				text("kind", func(f *Field) *string { return &f.Kind }),
				text("constraint", func(f *Field) *string { return &f.Constraint }),
				text("note", func(f *Field) *string { return &f.Note }),
			),
		),
	),
	mapping("return", same[Kernel],
		list("outputs", "output", func(k *Kernel) *[]Output { return &k.Outputs }, nil,
			text("name", func(o *Output) *string { return &o.Name }),
			&keyDef{key: "dtype_rule", kind: kDTypeRule, decode: decodeDTypeRule},
			&keyDef{key: "shape_rule", kind: kScalar, decode: decodeShapeRule},
			text("layout_guarantee", func(o *Output) *string { return &o.LayoutGuarantee }),
			text("aliasing", func(o *Output) *string { return &o.Aliasing }),
		).req(),
	),
	mapping("caps", func(k *Kernel) *Caps { return &k.Caps },
		text("awkward_layout_strategy", func(c *Caps) *string { return &c.AwkwardLayoutStrategy }),
		flowList("fast_paths", "fast path", func(c *Caps) *[][]KV { return &c.FastPaths }, "when", "class"),
		boolean("in_place", func(c *Caps) *bool { return &c.InPlace }),
		count("alignment_bytes", func(c *Caps) *int { return &c.AlignmentBytes }),
		count("access_granularity_bits", func(c *Caps) *int { return &c.AccessGranularityBits }),
	),
	mapping("cost", func(k *Kernel) *Cost { return &k.Cost }, costKeys()...),
	mapping("precision", func(k *Kernel) *Precision { return &k.Precision },
		boolean("bit_stable_on_same_hardware", func(p *Precision) *bool { return &p.BitStableOnSameHardware }),
		text("max_ulp", func(p *Precision) *string { return &p.MaxULP }),
		text("max_relative", func(p *Precision) *string { return &p.MaxRelative }),
		text("max_absolute", func(p *Precision) *string { return &p.MaxAbsolute }),
		boolean("audited", func(p *Precision) *bool { return &p.Audited }),
		text("notes", func(p *Precision) *string { return &p.Notes }),
	),
	checked(text("determinism", func(k *Kernel) *string { return &k.Determinism }).req(), checkDeterminism),
}}

// costKeys are the keys of cost: provenance, class and every CostFields
// formula, a dotted name ("memory.device_bytes") nesting under its section.
func costKeys() []*keyDef {
	keys := []*keyDef{
		text("provenance", func(c *Cost) *string { return &c.Provenance }),
		text("class", func(c *Cost) *string { return &c.Class }),
	}
	for _, f := range CostFields {
		sec, leaf, nested := strings.Cut(f.Name, ".")
		if !nested {
			keys = append(keys, formula(f.Name, f.at))
			continue
		}
		s := findKey(keys, sec)
		if s == nil {
			s = mapping(sec, same[Cost])
			keys = append(keys, s)
		}
		s.children = append(s.children, formula(leaf, f.at))
	}
	return keys
}

func checkInput(d *dec, in *Input, it pair) {
	if in.Name == "" {
		d.errf(it.v, "%s: input has no name", it.path)
	}
}

func checkDeterminism(d *dec, k *Kernel, e pair) {
	if k.Determinism != "" && !slices.Contains(Determinisms, k.Determinism) {
		d.errf(e.v, "determinism: %q is not one of %s", k.Determinism, strings.Join(Determinisms, ", "))
	}
}

// schema is the canonicalizer's view of a context (see canon.go): its known
// child keys, whether it is a list (and of what), and whether it is an
// op_params `fields` map. It is derived from the keyDefs above.
type schema struct {
	children map[string]*schema
	list     bool    // a block sequence (inputs, outputs, fast_paths)
	item     *schema // the schema of a list's items
	fields   bool    // every `name: {flow map}` line is a child
}

// canonSchema derives the canonicalizer's view of n; nil for a leaf (and a
// flow map without known keys): a context that accepts anything.
func canonSchema(n *keyDef) *schema {
	switch n.kind {
	case kMap:
	case kFlowMap:
		if len(n.children) == 0 {
			return nil
		}
	case kList:
		return &schema{list: true, item: canonSchema(n.item)}
	case kFields:
		return &schema{fields: true, children: map[string]*schema{}}
	default:
		return nil
	}
	s := &schema{children: map[string]*schema{}}
	for _, c := range n.children {
		s.children[c.key] = canonSchema(c)
	}
	return s
}

var (
	frontMatterSchema = canonSchema(frontMatterKeys)
	blockSchema       = canonSchema(blockKeys)
)
