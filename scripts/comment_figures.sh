#!/bin/sh
# Lists the comment lines of non-test Go, WGSL, JavaScript and CSS files
# that hold timing figures, and the comments anywhere that cite an issue, an
# audit or a file outside the repository, with their counts: what the test
# of internal/commentcheck holds to at most 15 figure lines and no citation.
cd "$(dirname "$0")/.." || exit 1
FKC_COMMENTS_LIST=1 go test -count=1 -run '^TestComments$' -v ./internal/commentcheck |
	sed -n 's/^ *commentcheck_test\.go:[0-9]*: //p'
