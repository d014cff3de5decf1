package gpu

import "testing"

// A browser's adapter is named by what its GPUAdapterInfo gives: the
// description, else vendor, architecture and device (SwiftShader gives
// "google" and "swiftshader" only), else "unnamed adapter"; String leaves
// out an adapter type the browser does not say (it read "WebGPU adapter
// (WebGPU, )").
func TestAdapterName(t *testing.T) {
	for _, c := range []struct{ vendor, arch, device, desc, want string }{
		{"google", "swiftshader", "", "", "google swiftshader"},
		{"nvidia", "hopper", "", "NVIDIA H200", "NVIDIA H200"},
		{"apple", "", "", "  ", "apple"},
		{"intel", "gen-12lp", "0x9a49", "", "intel gen-12lp 0x9a49"},
		{"", "", "", "", "unnamed adapter"},
	} {
		if got := browserAdapterName(c.vendor, c.arch, c.device, c.desc); got != c.want {
			t.Errorf("browserAdapterName(%q, %q, %q, %q) = %q, want %q", c.vendor, c.arch, c.device, c.desc, got, c.want)
		}
	}
	d := &Device{core: &core{info: AdapterInfo{Name: "google swiftshader", Backend: "WebGPU"}}}
	if got := d.String(); got != "google swiftshader (WebGPU)" {
		t.Errorf("String() = %q", got)
	}
}
