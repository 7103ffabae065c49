package cmdmeta

import (
	"testing"

	"github.com/miniwatchd/miniwatchd/cmdmeta/internal/resp"
)

func BenchmarkZZLoad(b *testing.B) {
	for range b.N {
		load(redisData, additionsData)
	}
}
func BenchmarkZZDecode(b *testing.B) {
	for range b.N {
		decodeCommands(redisData, "")
	}
}

func BenchmarkZZSkipDocs(b *testing.B) {
	for range b.N {
		d := resp.NewDecoder(redisData)
		d.Object(func(key string) error {
			if key != "commands" {
				return d.Skip()
			}
			return d.Array(func() error {
				return d.Object(func(k string) error {
					switch k {
					case "info":
						_, err := d.Node()
						return err
					}
					return d.Skip()
				})
			})
		})
	}
}
func BenchmarkZZSkipAll(b *testing.B) {
	for range b.N {
		d := resp.NewDecoder(redisData)
		d.Skip()
	}
}
