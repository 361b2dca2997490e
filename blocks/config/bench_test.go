package config

import "testing"

// BenchmarkDefault loads the embedded default configuration: every block
// is built to derive and check its pipeline depth (hdlgen), which every
// nicgen command and most tests pay before they start.
func BenchmarkDefault(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := Default(); err != nil {
			b.Fatal(err)
		}
	}
}
