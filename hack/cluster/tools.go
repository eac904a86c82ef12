//go:build tools

// Package tools records the main packages build.sh compiles from
// dependencies of this module (so `go mod tidy` keeps them).
package tools

import (
	_ "helm.sh/helm/v3/cmd/helm"
	_ "sigs.k8s.io/kwok/cmd/kwok"
)
