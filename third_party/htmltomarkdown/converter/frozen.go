package converter

// This file is codewhale's (see ../PATCHES.md): the release copied and
// sorted every handler list, and took the read lock, once per node, per text
// node, per byte of text (checkIsEscapedChar) and per escape placeholder —
// about a third of a 1 MB page's conversion.

import (
	"sync/atomic"
	"unicode/utf8"
)

// frozen is what the getters return: each list sorted exactly as the
// release's getters sort a copy of the registration order, built once and
// dropped by any later registration (invalidate), so the result is the
// same whenever plugins register.
type frozen struct {
	preRender     prioritizedSlice[HandlePreRenderFunc]
	render        prioritizedSlice[HandleRenderFunc]
	postRender    prioritizedSlice[HandlePostRenderFunc]
	textTransform prioritizedSlice[HandleTextTransformFunc]
	unEscape      prioritizedSlice[HandleUnEscapeFunc]
	tagTypes      map[string]tagType
	asciiChars    [utf8.RuneSelf]bool
	otherChars    map[rune]struct{}
}

type frozenPtr = atomic.Pointer[frozen]

// invalidate is called with conv.m held for writing.
func (conv *Converter) invalidate() { conv.frozen.Store(nil) }

func (conv *Converter) handlers() *frozen {
	if f := conv.frozen.Load(); f != nil {
		return f
	}
	conv.m.Lock()
	defer conv.m.Unlock()
	if f := conv.frozen.Load(); f != nil {
		return f
	}
	f := &frozen{
		preRender:     sortedCopy(conv.preRenderHandlers),
		render:        sortedCopy(conv.renderHandlers),
		postRender:    sortedCopy(conv.postRenderHandlers),
		textTransform: sortedCopy(conv.textTransformHandlers),
		unEscape:      sortedCopy(conv.unEscapeHandlers),
		tagTypes:      make(map[string]tagType, len(conv.tagTypes)),
		otherChars:    map[rune]struct{}{},
	}
	for name, types := range conv.tagTypes {
		if len(types) > 0 {
			// The release sorts the stored slice in place on every
			// lookup; the first lookup's order is what it keeps.
			types.Sort()
			f.tagTypes[name] = types[0].Value
		}
	}
	for r := range conv.markdownChars {
		if r >= 0 && r < utf8.RuneSelf {
			f.asciiChars[r] = true
		} else {
			f.otherChars[r] = struct{}{}
		}
	}
	conv.frozen.Store(f)
	return f
}

func sortedCopy[V any](s prioritizedSlice[V]) prioritizedSlice[V] {
	out := make(prioritizedSlice[V], len(s))
	copy(out, s)
	out.Sort()
	return out
}

func (f *frozen) isEscapedChar(r rune) bool {
	if r >= 0 && r < utf8.RuneSelf {
		return f.asciiChars[r]
	}
	_, ok := f.otherChars[r]
	return ok
}

// Removes reports whether conversion removes nodes of this name (as
// dom.NodeName gives it): those whose tag type is TagTypeRemove, which the
// base plugin's first pre-render walk drops (codewhale: for callers that
// prune first and say so with base.Pruned).
func (conv *Converter) Removes(name string) bool {
	t, _ := conv.getTagType(name)
	return t == TagTypeRemove
}
