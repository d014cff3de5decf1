//go:build !unix && !js

package gpu

func addressSpaceLimit() (uint64, bool) { return 0, false }
