// Package wire sets a transport's service fields from the one service it
// is given: each transport holds one field per service interface its
// handlers call (WTF Dial's style), and the fields are filled here once,
// so that a kind's service is wired by declaring its field.
package wire

import "reflect"

// Services sets each exported field of *dst whose type is an interface
// that svc implements to svc. dst must point to a struct.
func Services(dst, svc any) {
	v, sv := reflect.ValueOf(dst).Elem(), reflect.ValueOf(svc)
	for i := range v.NumField() {
		if f := v.Type().Field(i); f.IsExported() && f.Type.Kind() == reflect.Interface && sv.Type().Implements(f.Type) {
			v.Field(i).Set(sv)
		}
	}
}

// Unset names the exported interface fields of *dst that are nil: the
// service fields Services left empty.
func Unset(dst any) []string {
	v := reflect.ValueOf(dst).Elem()
	var out []string
	for i := range v.NumField() {
		if f := v.Type().Field(i); f.IsExported() && f.Type.Kind() == reflect.Interface && v.Field(i).IsNil() {
			out = append(out, f.Name)
		}
	}
	return out
}
