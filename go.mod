module cptprov

go 1.26.0

require (
	filippo.io/bigmod v0.1.0
	filippo.io/nistec v0.0.4
	github.com/mattn/go-pointer v0.0.1
	golang.org/x/sys v0.50.0
)

require filippo.io/edwards25519 v1.2.0

require golang.org/x/crypto v0.59.0
