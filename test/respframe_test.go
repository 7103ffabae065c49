package test

import "github.com/miniwatchd/miniwatchd/internal/resptest"

// node is one reply frame as the shared reader (internal/resptest) parses it.
type node = resptest.Node
