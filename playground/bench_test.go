package playground

import (
	"testing"

	"github.com/fkc-playground/fkc/contracts"
	"github.com/fkc-playground/fkc/judge"
)

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

// BenchmarkReadBundledReports is what the first kernel page pays once:
// reading the Judge's shipped reports (BundledReports caches the result).
func BenchmarkReadBundledReports(b *testing.B) {
	for b.Loop() {
		for _, name := range contracts.JudgeReports() {
			f, err := contracts.JudgeFS.Open("judge/" + name)
			if err != nil {
				b.Fatal(err)
			}
			_, err = judge.Read(f)
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}
