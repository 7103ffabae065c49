// Package expire holds the time source of the server (an injectable clock
// that tests can freeze, set and advance) and, in later steps, the active
// expiry cycle and eviction sampling, which reach keys only through the db
// package's single removal path.
package expire
