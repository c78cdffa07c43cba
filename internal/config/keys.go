package config

import (
	"reflect"
	"slices"
	"strings"
	"sync"
)

// knownKeys lists, per top-level table ("" for the top level), the keys a
// suggestion for an unknown key is drawn from: every toml tag of File, and
// for each table every tag of its type and of the tables nested in it
// (suggestions look at the last part of a key only). It is derived from
// File so a new key is suggested the day it is added.
var knownKeys = sync.OnceValue(func() map[string][]string {
	keys := map[string][]string{}
	top := reflect.TypeFor[File]()
	for i := range top.NumField() {
		name := tomlName(top.Field(i))
		if name == "" {
			continue
		}
		keys[""] = append(keys[""], name)
		if t := tableType(top.Field(i).Type); t != nil {
			keys[name] = tableKeys(t, nil)
		}
	}
	return keys
})

// tableKeys appends the tags of struct type t and of the tables below it.
func tableKeys(t reflect.Type, out []string) []string {
	for i := range t.NumField() {
		name := tomlName(t.Field(i))
		if name == "" {
			continue
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
		if sub := tableType(t.Field(i).Type); sub != nil {
			out = tableKeys(sub, out)
		}
	}
	return out
}

// tableType is the struct type a field of type t decodes a table into
// (through pointers, slices and maps), or nil for a value.
func tableType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() == reflect.Struct {
		return t
	}
	return nil
}

func tomlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	if name == "-" || !f.IsExported() {
		return ""
	}
	return name
}
