package contracts

import (
	"fmt"
	"reflect"
)

// diff lists where two loader results differ, a nil slice or map being the
// same as an empty one (gob does not tell them apart).
func diff(path string, a, b reflect.Value, out *[]string) {
	if len(*out) > 10 {
		return
	}
	if a.Kind() != b.Kind() {
		*out = append(*out, path+": kind")
		return
	}
	switch a.Kind() {
	case reflect.Ptr:
		if a.IsNil() != b.IsNil() {
			*out = append(*out, path+": nil ptr")
			return
		}
		if !a.IsNil() {
			diff(path, a.Elem(), b.Elem(), out)
		}
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			diff(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i), out)
		}
	case reflect.Slice:
		if a.Len() != b.Len() {
			*out = append(*out, path+": len")
			return
		}
		for i := 0; i < a.Len(); i++ {
			diff(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i), out)
		}
	case reflect.Map:
		if !reflect.DeepEqual(a.Interface(), b.Interface()) && a.Len()+b.Len() > 0 {
			*out = append(*out, path+": map")
		}
	default:
		if a.CanInterface() && !reflect.DeepEqual(a.Interface(), b.Interface()) {
			*out = append(*out, path+": value")
		}
	}
}
