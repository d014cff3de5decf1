// Package commentcheck has no code of its own: its test walks the
// repository's Go, WGSL, JavaScript and CSS files and keeps their comments
// to what and why. Comment lines of non-test code may hold at most a few
// timing figures (measurement logs belong in docs/perf, linked from the
// code by a one-line pointer), and no comment anywhere cites an issue
// number, an audit or a file outside the repository.
//
// scripts/comment_figures.sh lists every line the test counts.
package commentcheck
