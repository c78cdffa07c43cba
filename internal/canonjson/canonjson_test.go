package canonjson

import (
	"encoding/json"
	"testing"
)

func TestCanonicalJSON(t *testing.T) {
	t.Parallel()
	v := map[string]any{"b": []any{1.0, 2.5, 1e21, 1e-7, int64(3), json.Number("100")}, "a": "<&>/\u2028é\"\\\b\f\n\r\t\x01",
		"é": true, "Z": nil}
	got, err := Append(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"Z":null,"a":"<&>/` + "\u2028" + `é\"\\\b\f\n\r\t\u0001","b":[1,2.5,1e+21,1e-7,3,100],"é":true}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestGoCompatibleMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	v := map[string]any{"d": "<a href=\"x\">&</a>\u2028\u2029é\b\f\x01\n", "n": []any{1.0, 1e21, 1e-7, -0.5, 12345678.0}, "b": false, "z": nil,
		"nested": map[string]any{"k": []any{"x", map[string]any{"y": 2.0}}}}
	got, err := AppendGo(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(v)
	if string(got) != string(want) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// Key order is byte-wise whether a map is small (insertion sort) or large
// (sort.Strings), as encoding/json's is.
func TestKeyOrderSmallAndLarge(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 2, 15, 16, 17, 40} {
		v := map[string]any{}
		for i := 0; i < n; i++ {
			v[string(rune('z'-i%26))+string(rune('A'+i%7))+string(rune(0xe9+i%3))] = i
		}
		got, err := Append(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(v)
		if string(got) != string(want) {
			t.Errorf("%d keys:\ngot  %s\nwant %s", n, got, want)
		}
	}
}
