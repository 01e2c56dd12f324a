package toolsearch_test

import (
	"context"
	"errors"
	"hash/fnv"
	"math"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"

	"github.com/toolreg/toolreg"
	"github.com/toolreg/toolreg/toolsearch"
)

// fakeEmbedder is a deterministic stand-in for a provider's embeddings: a
// hashed bag of the words and letter trigrams of a text. It counts how often
// each text was embedded.
type fakeEmbedder struct {
	mu    sync.Mutex
	calls int
	texts map[string]int
	// fail, when set, decides the answer of a call instead.
	fail func(texts []string) ([][]float32, error)
}

func newFakeEmbedder() *fakeEmbedder { return &fakeEmbedder{texts: map[string]int{}} }

const fakeDim = 256

func (f *fakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	f.mu.Lock()
	f.calls++
	for _, t := range texts {
		f.texts[t]++
	}
	fail := f.fail
	f.mu.Unlock()
	if fail != nil {
		return fail(texts)
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = fakeVector(t)
	}
	return out, nil
}

func fakeVector(text string) []float32 {
	v := make([]float32, fakeDim)
	add := func(s string, w float32) {
		h := fnv.New32a()
		h.Write([]byte(s))
		v[h.Sum32()%fakeDim] += w
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		add(w, 1)
		p := "^" + w + "$"
		for i := 0; i+3 <= len(p); i++ {
			add(p[i:i+3], 0.3)
		}
	}
	return v
}

// embedded returns how often text was embedded; with prefix set, how often
// any text starting with text was.
func (f *fakeEmbedder) embedded(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for t, c := range f.texts {
		if strings.HasPrefix(t, prefix) {
			n += c
		}
	}
	return n
}

func TestEmbeddingHappensOncePerDefinition(t *testing.T) {
	reg := toolreg.New()
	_, err := reg.Register(tool("alpha_send", "send a message"), "p")
	require.NoError(t, err)
	_, err = reg.Register(tool("beta_read", "read a file"), "p")
	require.NoError(t, err)
	emb := newFakeEmbedder()
	ix := toolsearch.New(reg, toolsearch.WithEmbedder(emb))
	ctx := context.Background()

	require.NoError(t, ix.Embed(ctx))
	require.Equal(t, 1, emb.embedded("alpha send:"))
	require.Equal(t, 1, emb.embedded("beta read:"))

	t.Run("searching embeds only the query", func(t *testing.T) {
		ix.Search(ctx, everything, "send message", 3)
		ix.Search(ctx, everything, "send message", 3)
		require.Equal(t, 1, emb.embedded("alpha send:"))
		require.Equal(t, 2, emb.embedded("send message"))
	})
	t.Run("an identical re-registration is not embedded again", func(t *testing.T) {
		_, err := reg.Register(tool("alpha_send", "send a message"), "p")
		require.NoError(t, err)
		ix.Search(ctx, everything, "send", 3)
		require.Equal(t, 1, emb.embedded("alpha send:"))
	})
	t.Run("a tool removed and registered again unchanged keeps its vector", func(t *testing.T) {
		reg.UnregisterByPlugin("p")
		ix.Refresh()
		require.Equal(t, 0, ix.Len())
		_, err := reg.Register(tool("alpha_send", "send a message"), "p")
		require.NoError(t, err)
		require.NoError(t, ix.Embed(ctx))
		require.Equal(t, 1, emb.embedded("alpha send:"))
	})
	t.Run("a changed definition is embedded again, the others not", func(t *testing.T) {
		_, err := reg.Register(tool("beta_read", "read a file"), "p")
		require.NoError(t, err)
		_, err = reg.Register(tool("alpha_send", "send a chat message"), "p")
		require.NoError(t, err)
		require.NoError(t, ix.Embed(ctx))
		require.Equal(t, 1, emb.embedded("alpha send: send a chat message"))
		require.Equal(t, 1, emb.embedded("alpha send: send a message"))
		require.Equal(t, 1, emb.embedded("beta read:"), "beta_read came back unchanged")
	})
}

func TestHybridFindsWhatWordsMiss(t *testing.T) {
	reg := toolreg.New()
	for _, rt := range []toolreg.RegisteredTool{
		tool("weather_now", "current conditions for a city"),
		tool("file_read", "read a file"),
	} {
		_, err := reg.Register(rt, "p")
		require.NoError(t, err)
	}
	ctx := context.Background()
	// "wheather" shares no word with any definition, only letter trigrams
	// with "weather": without typo tolerance the lexical ranking finds
	// nothing, the embedder does.
	require.Empty(t, toolsearch.New(reg, toolsearch.WithTypoTolerance(false)).Search(ctx, everything, "wheather", 5))
	got := toolsearch.New(reg, toolsearch.WithTypoTolerance(false), toolsearch.WithEmbedder(newFakeEmbedder())).Search(ctx, everything, "wheather", 1)
	require.Equal(t, []string{"weather_now"}, names(got))
}

func TestEmbedderFailuresFallBackToWords(t *testing.T) {
	cases := []struct {
		name string
		fail func(texts []string) ([][]float32, error)
	}{
		{"an error", func([]string) ([][]float32, error) { return nil, errors.New("provider down") }},
		{"a panic", func([]string) ([][]float32, error) { panic("boom") }},
		{"too few vectors", func([]string) ([][]float32, error) { return [][]float32{}, nil }},
		{"NaN vectors", func(texts []string) ([][]float32, error) {
			out := make([][]float32, len(texts))
			for i := range out {
				out[i] = []float32{float32(math.NaN()), 1}
			}
			return out, nil
		}},
		{"zero vectors", func(texts []string) ([][]float32, error) { return make([][]float32, len(texts)), nil }},
		{"infinite vectors", func(texts []string) ([][]float32, error) {
			out := make([][]float32, len(texts))
			for i := range out {
				out[i] = []float32{float32(math.Inf(1))}
			}
			return out, nil
		}},
	}
	for _, c := range cases {
		t.Run("the embedder returns "+c.name, func(t *testing.T) {
			reg := toolreg.New()
			_, err := reg.Register(tool("slack_post_message", "post a message to a channel"), "p")
			require.NoError(t, err)
			_, err = reg.Register(tool("read_file", "read a file"), "p")
			require.NoError(t, err)
			emb := newFakeEmbedder()
			emb.fail = c.fail
			ix := toolsearch.New(reg, toolsearch.WithEmbedder(emb))
			got := ix.Search(context.Background(), everything, "post message", 5)
			require.Equal(t, []string{"slack_post_message"}, names(got))
		})
	}
}

func TestEmbedReportsErrors(t *testing.T) {
	reg := toolreg.New()
	_, err := reg.Register(tool("read_file", "read a file"), "p")
	require.NoError(t, err)
	emb := newFakeEmbedder()
	emb.fail = func([]string) ([][]float32, error) { return nil, errors.New("quota exceeded") }
	err = toolsearch.New(reg, toolsearch.WithEmbedder(emb)).Embed(context.Background())
	require.ErrorContains(t, err, "quota exceeded")
	require.NoError(t, toolsearch.New(reg).Embed(context.Background()), "no embedder: nothing to do")
}
