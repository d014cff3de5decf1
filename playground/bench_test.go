package playground

import "testing"

// BenchmarkCatalog is the first screen's Go work: the rows and the page.
func BenchmarkCatalog(b *testing.B) {
	e := site(&testing.T{})
	for i := 0; i < b.N; i++ {
		if _, err := Render("catalog", e.CatalogPage(Filter{})); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCatalogRows(b *testing.B) {
	e := site(&testing.T{})
	for i := 0; i < b.N; i++ {
		e.CatalogPage(Filter{})
	}
}
