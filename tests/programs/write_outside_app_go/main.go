package main

import (
	"fmt"
	"os"
)

func main() {
	paths := []string{
		"/usr/surge-escape",
		"/etc/surge-escape",
		"/surge-escape",
		"/opt/surge-runner/escape",
		"/root/surge-escape",
	}
	for _, path := range paths {
		if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
			fmt.Println("refused", path, err)
			continue
		}
		fmt.Println("WROTE", path)
	}
}
