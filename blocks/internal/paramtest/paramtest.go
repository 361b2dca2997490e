// Package paramtest checks the converters that carry a block's parameters
// to its golden model: fed a value whose every field is set, a converter
// must set every field of the golden parameters.
package paramtest

import (
	"fmt"
	"reflect"
)

// Fill sets every exported field of the struct *p to a non-zero value
// (numbers 1, 2, 3, ... in field order, bools true), recursively.
func Fill(p any) {
	n := uint64(0)
	fill(reflect.ValueOf(p).Elem(), &n)
}

func fill(v reflect.Value, n *uint64) {
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n)
			}
		}
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		*n++
		v.SetInt(int64(*n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		*n++
		v.SetUint(*n)
	case reflect.Float32, reflect.Float64:
		*n++
		v.SetFloat(float64(*n) + 0.5)
	case reflect.String:
		v.SetString("x")
	}
}

// Unset lists the exported fields of the struct g left at their zero
// value, by path.
func Unset(g any) []string {
	var out []string
	unset(reflect.ValueOf(g), reflect.TypeOf(g).Name(), &out)
	return out
}

func unset(v reflect.Value, path string, out *[]string) {
	if v.Kind() == reflect.Struct {
		for i := 0; i < v.NumField(); i++ {
			if f := v.Type().Field(i); f.IsExported() {
				unset(v.Field(i), path+"."+f.Name, out)
			}
		}
		return
	}
	if v.IsZero() {
		*out = append(*out, fmt.Sprintf("%s (%s)", path, v.Type()))
	}
}
