package authority_test

import (
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind, and
// removes the examples' temporary folders.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		for _, d := range exampleDirs {
			os.RemoveAll(d)
		}
		os.Exit(code)
	}))
}

// tempPath returns a path in a fresh temporary folder, for examples, which
// have no testing.T to clean up after them; TestMain removes the folders.
func tempPath() string {
	dir, err := os.MkdirTemp("", "authority-example-")
	if err != nil {
		panic(err)
	}
	exampleDirs = append(exampleDirs, dir)
	return filepath.Join(dir, "authority.json")
}

var exampleDirs []string
