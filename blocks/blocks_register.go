package blocks

// Unregister removes a block that Register added (tests).
func Unregister(name string) {
	for i, b := range extra {
		if b.Name == name {
			extra = append(extra[:i], extra[i+1:]...)
			return
		}
	}
}
