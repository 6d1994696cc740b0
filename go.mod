module cptprov

go 1.26.0

require (
	github.com/mattn/go-pointer v0.0.1
	golang.org/x/sys v0.50.0
)
